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
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn sse_rendering_is_exact() {
        let event = ScratchpadUsage::new("main", 48_213, 3_960);
        assert_eq!(
            event.to_sse(),
            "event: aura.scratchpad_usage\n\
             data: {\"agent_id\":\"main\",\"tokens_intercepted\":48213,\"tokens_extracted\":3960}\n\n"
        );
    }

    #[test]
    fn sse_rendering_with_session_and_trace_is_exact() {
        let event = ScratchpadUsage::new("analyst", 1, 0)
            .with_trace_id("t-9")
            .with_session_id("s-1");
        assert_eq!(
            event.to_sse(),
            "event: aura.scratchpad_usage\n\
             data: {\"agent_id\":\"analyst\",\"tokens_intercepted\":1,\"tokens_extracted\":0,\
             \"session_id\":\"s-1\",\"trace_id\":\"t-9\"}\n\n"
        );
    }

    #[test]
    fn absent_session_and_trace_ids_are_omitted() {
        let json = ScratchpadUsage::new("main", 5, 6)
            .with_trace_id("t")
            .to_json();
        assert_eq!(
            json,
            r#"{"agent_id":"main","tokens_intercepted":5,"tokens_extracted":6,"trace_id":"t"}"#
        );
        assert!(!json.contains("session_id"));
    }

    #[test]
    fn newlines_in_ids_stay_on_the_data_line() {
        let sse = ScratchpadUsage::new("a\nb", 1, 1)
            .with_session_id("x\r\ny")
            .to_sse();
        assert_eq!(sse.matches('\n').count(), 3);
        assert!(sse.contains(r#""agent_id":"a\nb""#));
    }

    #[test]
    fn the_event_name_is_in_the_base_namespace() {
        assert_eq!(EVENT_NAME, "aura.scratchpad_usage");
        assert_eq!(
            ScratchpadUsage::new(MAIN_AGENT_ID, 1, 1).event_name(),
            EVENT_NAME
        );
        assert_eq!(MAIN_AGENT_ID, "main");
    }

    #[test]
    fn deserialising_accepts_missing_optional_fields() {
        let event: ScratchpadUsage = serde_json::from_str(
            r#"{"agent_id":"w1","tokens_intercepted":3,"tokens_extracted":4}"#,
        )
        .unwrap();
        assert_eq!(event, ScratchpadUsage::new("w1", 3, 4));
    }

    fn id() -> impl Strategy<Value = String> {
        any::<String>()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn to_json_matches_serde_and_round_trips(
            agent in id(),
            intercepted: u64,
            extracted: u64,
            session in proptest::option::of(id()),
            trace in proptest::option::of(id()),
        ) {
            let mut event = ScratchpadUsage::new(agent, intercepted, extracted);
            event.session_id = session;
            event.trace_id = trace;
            let json = event.to_json();
            prop_assert_eq!(&json, &serde_json::to_string(&event).unwrap());
            prop_assert_eq!(serde_json::from_str::<ScratchpadUsage>(&json).unwrap(), event.clone());
            let sse = event.to_sse();
            prop_assert_eq!(sse, format!("event: {EVENT_NAME}\ndata: {json}\n\n"));
            prop_assert!(!json.contains('\n'));
        }
    }
}
