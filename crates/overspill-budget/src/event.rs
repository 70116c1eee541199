//! The `aura.scratchpad_usage` event an agent emits when it finishes (docs/budget.md#the-usage-event).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The event name, in the base `aura.*` namespace: the same for a single
/// agent and for every orchestration worker.
pub const EVENT_NAME: &str = "aura.scratchpad_usage";

/// The `agent_id` of a single agent (a worker uses its name).
pub const MAIN_AGENT_ID: &str = "main";

/// What one agent's scratchpad did: the tokens it kept out of the context
/// and the tokens it let back in through extractions.
///
/// Made by [`Budget::usage_event`](crate::Budget::usage_event), which gives
/// none for an agent whose scratchpad did nothing. Serialises with the fields
/// in declaration order and leaves out an absent `session_id` or `trace_id`.
///
/// ```
/// use overspill_budget::ScratchpadUsage;
///
/// let event = ScratchpadUsage::new("main", 48_213, 3_960).with_session_id("s-42");
/// assert_eq!(
///     event.to_sse(),
///     "event: aura.scratchpad_usage\n\
///      data: {\"agent_id\":\"main\",\"tokens_intercepted\":48213,\"tokens_extracted\":3960,\"session_id\":\"s-42\"}\n\n"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScratchpadUsage {
    /// `"main"` for a single agent, the worker's name in orchestration.
    pub agent_id: String,
    /// Tokens of every output intercepted for the agent.
    pub tokens_intercepted: u64,
    /// Tokens of every extraction charged to the agent's budget.
    pub tokens_extracted: u64,
    /// The host's session id, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The host's trace id, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
}

impl ScratchpadUsage {
    /// An event with no session or trace id.
    #[must_use]
    pub fn new(
        agent_id: impl Into<String>,
        tokens_intercepted: u64,
        tokens_extracted: u64,
    ) -> Self {
        Self {
            agent_id: agent_id.into(),
            tokens_intercepted,
            tokens_extracted,
            session_id: None,
            trace_id: None,
        }
    }

    /// The event with `session_id` attached.
    #[must_use]
    pub fn with_session_id(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = Some(session_id.into());
        self
    }

    /// The event with `trace_id` attached.
    #[must_use]
    pub fn with_trace_id(mut self, trace_id: impl Into<String>) -> Self {
        self.trace_id = Some(trace_id.into());
        self
    }

    /// The event's name, [`EVENT_NAME`].
    #[must_use]
    pub fn event_name(&self) -> &'static str {
        EVENT_NAME
    }

    /// The event as compact JSON, the same text `serde_json::to_string` gives.
    #[must_use]
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }

    /// The event as one Server-Sent Events message:
    /// `event: aura.scratchpad_usage\ndata: <compact JSON>\n\n`.
    ///
    /// Compact JSON holds no newline (string newlines are escaped), so the
    /// data always fits on the one `data:` line.
    #[must_use]
    pub fn to_sse(&self) -> String {
        format!("event: {EVENT_NAME}\ndata: {}\n\n", self.to_json())
    }

    /// The event as a JSON value, built by hand so that rendering cannot fail;
    /// a test holds it to the serde derive.
    fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("agent_id".to_owned(), Value::from(self.agent_id.as_str()));
        object.insert(
            "tokens_intercepted".to_owned(),
            Value::from(self.tokens_intercepted),
        );
        object.insert(
            "tokens_extracted".to_owned(),
            Value::from(self.tokens_extracted),
        );
        if let Some(session_id) = &self.session_id {
            object.insert("session_id".to_owned(), Value::from(session_id.as_str()));
        }
        if let Some(trace_id) = &self.trace_id {
            object.insert("trace_id".to_owned(), Value::from(trace_id.as_str()));
        }
        Value::Object(object)
    }
}

#[cfg(test)]
mod tests;
