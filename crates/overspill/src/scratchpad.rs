//! [`Scratchpad`]: one agent's session — intercept, explore, account.

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};

use serde_json::Value;

use crate::artifacts::Run;
use crate::budget::{Budget, ScratchpadUsage, WindowHint};
use crate::config::ThresholdClash;
use crate::explore::Definition;
use crate::format::ToolFormat;
use crate::intercept::Intercepted;
use crate::mcp_result;
use crate::observe::{Event, UNKNOWN_TOOL};
use crate::output::ToolOutput;
use crate::role::Role;
use crate::session::Session;
use crate::store::Store;
use crate::tokens::TokenCounter;

/// One agent's scratchpad: it intercepts the agent's large tool outputs, answers the
/// exploration tools, and keeps the agent's token budget.
///
/// Cheap to clone (the clones share one session), `Send + Sync`: intercept and call from as
/// many threads or tasks at once as the host likes.
///
/// ```
/// use overspill::{Intercepted, Scratchpad, ToolOutput};
///
/// let dir = tempfile::tempdir()?;
/// let pad = Scratchpad::builder()
///     .scratchpad_dir(dir.path())
///     .context_window(128_000)
///     .intercept_all(100)
///     .build()?;
///
/// let log: String = (0..200).map(|i| format!("GET /api/items/{i} 200\n")).collect();
/// let Intercepted::Pointer(pointer) = pad.intercept("web", "fetch_log", ToolOutput::text(log)) else {
///     panic!("a 2,000-token log is over a 100-token threshold");
/// };
/// assert!(pointer.starts_with("[overspill] The result of `fetch_log`"));
/// let file = pointer.lines().find_map(|l| l.strip_prefix("file: ")).unwrap();
///
/// let lines = pad.call("grep", &format!(r#"{{"file": "{file}", "pattern": "/items/42 ", "context": 0}}"#));
/// assert!(lines.starts_with(">43: GET /api/items/42 200\n--- grep: 1 matching line"));
///
/// let usage = pad.finish().expect("something was intercepted");
/// assert_eq!(usage.agent_id, "main");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Scratchpad {
    pub(crate) inner: Arc<Session>,
}

impl Scratchpad {
    pub(crate) fn from_inner(inner: Session) -> Scratchpad {
        Scratchpad {
            inner: Arc::new(inner),
        }
    }

    /// Decides what the model gets for `server`'s `tool` output (docs/facade.md#2-intercepting): the output itself,
    /// a pointer to where it was stored, or — if storing failed — a short notice.
    ///
    /// In order: an error result passes through; a tool without a threshold passes through
    /// (the output's own [`ToolOutput::with_min_tokens`] comes first, then the server's rules);
    /// MCP content is normalised (images and binary content pass through); the persistence
    /// footer is cut; an output below its threshold passes through (decided in O(threshold));
    /// anything else is stored, its tokens added to `tokens_intercepted`, and a pointer of at
    /// most 400 tokens returned. An empty `server` means the tool belongs to no server.
    pub fn intercept(&self, server: &str, tool: &str, output: ToolOutput) -> Intercepted {
        self.inner.intercept(server, tool, output)
    }

    /// [`intercept`](Scratchpad::intercept) for a host that holds an MCP `CallToolResult` as
    /// JSON text: `result` is where in `text` the result is (`0..text.len()` for a result
    /// alone; a relay holding a JSON-RPC response gives its `result` member's range, or `None`
    /// for a response that carries no result, which passes). Gives back the text to send:
    /// `text` itself, unchanged, when the result passes (an error, a task handle, an
    /// `input_required` result, images, or below its threshold); otherwise `text` with the
    /// result replaced by one whose one text block is the pointer (or the notice of a failed
    /// store), keeping the result's other fields (`_meta`, extension fields) as written. What
    /// is around the result is never read, and goes out byte for byte.
    ///
    /// The result is read as text, so numbers no `f64` holds (`1e400`, 5,000 digits) pass byte
    /// for byte and are stored as written. A text of 4 MiB or more whose result is one text
    /// block with escapes has that block decoded in place, in `text`'s own buffer, once it is
    /// to be stored; should it then pass, its text is written anew (the same JSON; string
    /// escapes may be spelled differently).
    ///
    /// ```
    /// use overspill::Scratchpad;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let pad = Scratchpad::builder().scratchpad_dir(dir.path()).context_window(128_000).intercept_all(50).build()?;
    /// let log = "GET /api/pods 200 12ms\n".repeat(400);
    /// let result = serde_json::json!({"content": [{"type": "text", "text": log}]}).to_string();
    /// let response = format!(r#"{{"jsonrpc":"2.0","id":7,"result":{result}}}"#);
    /// let start = response.find(r#"{"content""#).unwrap();
    /// let sent = pad.intercept_mcp_text("web", "fetch_log", response.clone(), Some(start..response.len() - 1));
    /// assert!(sent.starts_with(r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"[overspill]"#));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn intercept_mcp_text(
        &self,
        server: &str,
        tool: &str,
        text: String,
        result: Option<Range<usize>>,
    ) -> String {
        mcp_result::respond(&self.inner, server, tool, text, result)
    }

    /// Runs the tool `tool` with `arguments` (JSON text) and returns exactly what the model
    /// receives: the extraction and its footer, or an error object (a successful tool result
    /// the model can react to). Never fails.
    pub fn call(&self, tool: &str, arguments: &str) -> String {
        match overspill_explore::args::from_text(arguments) {
            Ok(arguments) => self.call_value(tool, &arguments),
            Err(error) => error.render(),
        }
    }

    /// [`call`](Self::call) with already parsed arguments.
    pub fn call_value(&self, tool: &str, arguments: &Value) -> String {
        let prefix = self.inner.tool_prefix();
        let answer = self
            .inner
            .registry
            .answer_counted(self.inner.ctx(), &prefix, tool, arguments);
        self.inner.observe(&Event::Explored {
            tool: answer.tool.unwrap_or(UNKNOWN_TOOL),
            outcome: answer.outcome,
        });
        answer.text
    }

    /// Whether `tool` is one this scratchpad answers (so the host routes the call to
    /// [`call`](Self::call)).
    pub fn handles(&self, tool: &str) -> bool {
        self.tool_names().contains(&tool)
    }

    /// The names of the tools this scratchpad answers: the exploration tools (none for the
    /// coordinator), then `write_artifact` / `read_artifact` in orchestration.
    pub fn tool_names(&self) -> Vec<&'static str> {
        self.definitions().iter().map(|d| d.name).collect()
    }

    fn definitions(&self) -> Vec<&'static Definition> {
        self.inner.registry.definitions()
    }

    /// The definitions of [`tool_names`](Self::tool_names) in `format`, to add to the tools
    /// the host offers the model. Their tokens are in the baseline.
    pub fn tool_definitions(&self, format: ToolFormat) -> Vec<Value> {
        self.definitions()
            .into_iter()
            .map(|definition| format.render(definition))
            .collect()
    }

    /// The section to add to the system prompt: how pointers and the tools work. Its tokens
    /// are in the baseline.
    pub fn system_prompt_section(&self) -> &str {
        &self.inner.prompt
    }

    /// Feeds the provider-reported usage of a turn into the budget: the estimate rises to
    /// `input + output` when that is higher, and never falls.
    pub fn observe_llm_usage(&self, input_tokens: u64, output_tokens: u64) {
        if let Some(budget) = self.inner.budget() {
            budget.observe_llm_usage(input_tokens, output_tokens);
        }
    }

    /// The agent's turn limit with the scratchpad active: `base + turn_depth_bonus` (the
    /// coordinator, which explores nothing, gets `base`).
    pub fn effective_turn_limit(&self, base: u32) -> u32 {
        self.inner
            .budget()
            .map_or(base, |budget| budget.effective_turn_limit(base))
    }

    /// The usage event (docs/budget.md#the-usage-event), once: `None` when nothing was intercepted or extracted, or
    /// when `finish` was already called. `agent_id` is `main` for a single agent, the
    /// worker's name for a worker.
    pub fn finish(&self) -> Option<ScratchpadUsage> {
        let inner = &*self.inner;
        let budget = inner.budget()?;
        if inner.finished.swap(true, Ordering::AcqRel) {
            return None;
        }
        let mut event = budget.usage_event(&inner.agent_id)?;
        if let Some(session) = &inner.session_id {
            event = event.with_session_id(session.clone());
        }
        if let Some(trace) = &inner.trace_id {
            event = event.with_trace_id(trace.clone());
        }
        Some(event)
    }

    /// Records which tools `server` offers (e.g. after MCP `tools/list`) and resolves their
    /// thresholds once into an exact table. Returns the tool names intercepted on several
    /// servers with different thresholds (each gets the smallest); show them to the user.
    pub fn set_server_tools<T: Into<String>>(
        &self,
        server: &str,
        tools: impl IntoIterator<Item = T>,
    ) -> Vec<ThresholdClash> {
        self.inner
            .thresholds
            .set_server_tools(server, tools.into_iter().map(Into::into).collect())
    }

    /// The threshold `server`'s `tool` is intercepted from, `None` when it never is.
    pub fn threshold(&self, server: &str, tool: &str) -> Option<u64> {
        self.inner.thresholds.threshold(server, tool)
    }

    /// Notes that a result of `server`'s `tool` passed unread, as a host notes it when the
    /// result cannot reach its [`threshold`](Self::threshold) (fewer bytes than the threshold
    /// has tokens): the observer sees it as it sees any result that passes.
    pub fn passed(&self, server: &str, tool: &str) {
        self.inner.passed(server, tool);
    }

    /// Removes a single agent's scratchpad dir and everything stored in it (docs/storage.md
    /// retention); returns whether there was anything to remove. Stored files the model was
    /// pointed at are gone afterwards, so call it when the agent's conversation is over.
    ///
    /// # Errors
    /// [`LayoutError::WrongRole`](crate::store::LayoutError::WrongRole) for a worker or the
    /// coordinator (runs are pruned when a new one starts), or the I/O error of the removal.
    pub fn cleanup(&self) -> Result<bool, crate::store::LayoutError> {
        use crate::store::LayoutError;
        match &self.inner.role {
            Role::Single {
                layout: Some(layout),
                ..
            } => layout.cleanup(),
            Role::Single {
                layout: None,
                explorer,
            } => match std::fs::remove_dir_all(explorer.store.dir()) {
                Ok(()) => Ok(true),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
                Err(error) => Err(LayoutError::Io {
                    action: "remove",
                    dir: explorer.store.dir().to_owned(),
                    error,
                }),
            },
            _ => Err(LayoutError::WrongRole(
                "cleanup() removes a single agent's scratchpad; orchestration runs are pruned \
                 when the coordinator starts a new run",
            )),
        }
    }

    /// `main`, the worker's name, or the id the builder was given.
    pub fn agent_id(&self) -> &str {
        &self.inner.agent_id
    }

    /// Where intercepted outputs are written (`None` for the coordinator).
    pub fn scratchpad_dir(&self) -> Option<&Path> {
        self.inner.store().map(Store::dir)
    }

    /// The directory the exploration tools read under (`None` for the coordinator).
    pub fn read_root(&self) -> Option<&Path> {
        self.inner.ctx().map(|ctx| ctx.root().dir())
    }

    /// The orchestration run, for a worker or the coordinator.
    pub fn run(&self) -> Option<&Run> {
        self.inner.role.run()
    }

    /// The agent's budget (`None` for the coordinator, which has none).
    pub fn budget(&self) -> Option<&Budget> {
        self.inner.budget().map(Arc::as_ref)
    }

    /// The budget line footers show: `~93,210 of 102,400 budget tokens left`.
    pub fn window_hint(&self) -> Option<WindowHint> {
        self.inner.budget().map(|budget| budget.window_hint())
    }

    /// The prefix the host puts before the exploration tools' names (see
    /// [`ScratchpadBuilder::tool_prefix`](crate::ScratchpadBuilder::tool_prefix)); `""` when there is none.
    pub fn tool_prefix(&self) -> Arc<str> {
        self.inner.tool_prefix()
    }

    /// Puts `prefix` before the exploration tools' names from now on: pointers name the tools
    /// with it. For a host that learns only after building that a name is taken (the MCP
    /// proxy, at a server's first tool list); the [system prompt
    /// section](Scratchpad::system_prompt_section) keeps the prefix it was built with, so a
    /// host that uses it sets the prefix on the builder instead.
    pub fn set_tool_prefix(&self, prefix: &str) {
        *self
            .inner
            .tool_prefix
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::from(prefix);
    }

    /// The token counter of the agent's model.
    pub fn counter(&self) -> &'static dyn TokenCounter {
        self.inner.counter
    }
}

impl std::fmt::Debug for Scratchpad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scratchpad")
            .field("agent_id", &self.inner.agent_id)
            .field("role", &self.inner.role.kind())
            .field("counter", &self.inner.counter.name())
            .field("scratchpad_dir", &self.scratchpad_dir())
            .finish_non_exhaustive()
    }
}
