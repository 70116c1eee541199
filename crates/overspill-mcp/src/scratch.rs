//! What the proxy needs from a scratchpad session, and the facade's [`Scratchpad`] providing it.

use std::ops::Range;

use overspill::{Scratchpad, ScratchpadUsage, ToolFormat};
use serde_json::Value;

/// The scratchpad behind the proxy: one per client session, so one exploration budget.
///
/// [`Scratchpad`] implements it; the proxy calls these methods on tokio's blocking pool, since
/// they read and write files.
pub trait Scratch: Send + Sync + 'static {
    /// The exploration tools as MCP tool definitions (`name`, `description`, `inputSchema`).
    fn tool_definitions(&self) -> Vec<Value>;

    /// The prefix before the exploration tools' names as the client sees them (`sp_` →
    /// `sp_grep`); `""` for none. The pointer must name the tools the same way.
    fn tool_prefix(&self) -> String {
        String::new()
    }

    /// Puts `prefix` before the exploration tools' names from now on (the proxy renames them
    /// when a server's tool takes one of their names), so that pointers name them so.
    fn set_tool_prefix(&self, prefix: &str);

    /// Records the tools `server` offers, so its threshold patterns resolve to them.
    fn set_server_tools(&self, server: &str, tools: Vec<String>);

    /// The threshold in tokens from which results of `server`'s `tool` are replaced by a
    /// pointer; `None` when they never are.
    fn threshold(&self, server: &str, tool: &str) -> Option<u64>;

    /// Notes that a result of `server`'s `tool` passed without being read: it has fewer bytes
    /// than its threshold has tokens, so it cannot reach it. The default notes nothing.
    fn passed(&self, server: &str, tool: &str) {
        let _ = (server, tool);
    }

    /// The response to send for `server`'s answer to a call of `tool` (a JSON-RPC response,
    /// as text, whose `result` is at `result` as the relay read its envelope; `None` for an
    /// error response): `response` itself when the result passes, else the response with the
    /// pointer (see [`Scratchpad::intercept_mcp_text`]).
    fn intercept_response(
        &self,
        server: &str,
        tool: &str,
        response: String,
        result: Option<Range<usize>>,
    ) -> String;

    /// Runs the exploration tool `tool` with `args` and returns what the model sees.
    fn call(&self, tool: &str, args: Value) -> String;

    /// The session's usage event (docs/budget.md#the-usage-event), once, when it ends: `None`
    /// when nothing was stored or explored, or when it was already taken. The default: none.
    fn finish(&self) -> Option<ScratchpadUsage> {
        None
    }

    /// Replaces the `overspill://` references in an upstream call's `args` with the stored
    /// content they name (see [`Scratchpad::resolve_references`]); `input_schema` is the
    /// upstream tool's. `Err` is the message for the model; the call is then not forwarded.
    /// The default passes `args` through unchanged.
    fn resolve_references(
        &self,
        args: Value,
        input_schema: Option<&Value>,
    ) -> Result<Value, String> {
        let _ = input_schema;
        Ok(args)
    }
}

impl Scratch for Scratchpad {
    fn tool_definitions(&self) -> Vec<Value> {
        Scratchpad::tool_definitions(self, ToolFormat::Mcp)
    }

    fn tool_prefix(&self) -> String {
        Scratchpad::tool_prefix(self).to_string()
    }

    fn set_tool_prefix(&self, prefix: &str) {
        Scratchpad::set_tool_prefix(self, prefix);
    }

    fn set_server_tools(&self, server: &str, tools: Vec<String>) {
        // A tool matched by rules of several servers gets the smallest threshold; the proxy
        // has one server, so there is nothing to report.
        let _ = Scratchpad::set_server_tools(self, server, tools);
    }

    fn threshold(&self, server: &str, tool: &str) -> Option<u64> {
        Scratchpad::threshold(self, server, tool)
    }

    fn passed(&self, server: &str, tool: &str) {
        Scratchpad::passed(self, server, tool);
    }

    fn intercept_response(
        &self,
        server: &str,
        tool: &str,
        response: String,
        result: Option<Range<usize>>,
    ) -> String {
        // The envelope is the relay's to read; the result in it is the facade's.
        self.intercept_mcp_text(server, tool, response, result)
    }

    fn call(&self, tool: &str, args: Value) -> String {
        self.call_value(tool, &args)
    }

    fn finish(&self) -> Option<ScratchpadUsage> {
        Scratchpad::finish(self)
    }

    fn resolve_references(
        &self,
        args: Value,
        input_schema: Option<&Value>,
    ) -> Result<Value, String> {
        if !overspill::references::has_references(&args) {
            return Ok(args);
        }
        Scratchpad::resolve_references(self, &args, input_schema).map_err(|error| error.to_string())
    }
}
