//! The few changes the scratchpad makes to what the client sees, each on a parsed JSON value
//! so that everything it does not touch (unknown fields, `_meta`, key order) stays as it was.

use overspill::mcp_result::{ResultType, ToolResult};
use serde_json::{Map, Value};

use crate::names::ToolNames;
use crate::revision::Revision;

/// The line added to the server's instructions.
pub(crate) fn instructions_line(names: &ToolNames) -> String {
    format!(
        "Large tool results are stored by overspill and replaced by a short pointer; explore \
         them with the exploration tools, starting with `{}`.",
        names.exposed("schema")
    )
}

/// The server's `initialize` (or `server/discover`) result as the client sees it: the `tools`
/// capability present, and one line added to the instructions. Anything else is untouched.
pub(crate) fn server_info(result: &mut Value, names: &ToolNames) {
    let Some(result) = result.as_object_mut() else {
        return;
    };
    let capabilities = result
        .entry("capabilities")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(capabilities) = capabilities.as_object_mut() {
        let tools = capabilities
            .entry("tools")
            .or_insert_with(|| Value::Object(Map::new()));
        if !tools.is_object() {
            *tools = Value::Object(Map::new());
        }
    }
    let line = instructions_line(names);
    let instructions = match result.get("instructions").and_then(Value::as_str) {
        Some(text) if !text.trim().is_empty() => format!("{}\n\n{line}", text.trim_end()),
        _ => line,
    };
    result.insert("instructions".to_owned(), Value::String(instructions));
}

/// A tool result the proxy writes itself (an exploration tool's answer, or why a call could not
/// be made), by the facade's one writer of results ([`ToolResult`]), for a request of
/// `revision` (`None`: a request of a session, whose revisions have no `resultType`): `text` as
/// the one text block, an error result when `is_error` (the model reads it; the call itself
/// succeeded).
pub(crate) fn tool_result(text: String, is_error: bool, revision: Option<Revision>) -> Value {
    let result_type = revision.map_or(ResultType::Implicit, Revision::result_type);
    ToolResult::text(text)
        .with_error(is_error)
        .written_for(result_type)
        .into_value()
}

#[cfg(test)]
mod tests;
