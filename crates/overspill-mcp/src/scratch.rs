//! What the proxy needs from a scratchpad session.

use serde_json::Value;

/// The scratchpad behind the proxy: one per client session, so one exploration budget.
///
/// [`overspill::Scratchpad`] implements it; the proxy calls these methods on tokio's blocking
/// pool, since they read and write files.
pub trait Scratch: Send + Sync + 'static {
    /// The exploration tools as MCP tool definitions (`name`, `description`, `inputSchema`).
    fn tool_definitions(&self) -> Vec<Value>;

    /// Decides on one upstream `CallToolResult` (as JSON) of `tool` on `server`: `Some(text)` is
    /// what the client gets instead (the pointer, or a failure notice); `None` passes the result
    /// through untouched.
    fn intercept(&self, server: &str, tool: &str, result: Value) -> Option<String>;

    /// Runs the exploration tool `tool` with `args` and returns what the model sees.
    fn call(&self, tool: &str, args: Value) -> String;
}
