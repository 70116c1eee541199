//! The few changes the scratchpad makes to what the client sees, each on a parsed JSON value
//! so that everything it does not touch (unknown fields, `_meta`, key order) stays as it was.

use serde_json::{Map, Value, json};

use crate::names::ToolNames;

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

/// Whether a `tools/call` (or `tasks/result`) result is a final tool result the scratchpad may
/// replace: not an error, not a task handle (`CreateTaskResult`), not a request for more input
/// (the 2026-07-28 `input_required` result). What it holds is the scratchpad's to judge.
pub(crate) fn is_final_result(result: &Value) -> bool {
    let Some(object) = result.as_object() else {
        return false;
    };
    let complete = match object.get("resultType") {
        None => true,
        Some(kind) => kind.as_str() == Some("complete"),
    };
    complete
        && !object.contains_key("task")
        && object.get("isError").and_then(Value::as_bool) != Some(true)
}

/// The task id of a `CreateTaskResult`, which a later `tasks/result` names.
pub(crate) fn created_task(result: &Value) -> Option<&str> {
    result.get("task")?.get("taskId")?.as_str()
}

/// An intercepted result: one text block with the pointer, and the original result's other
/// fields (`_meta`, extension fields) kept; its content and structured content are what the
/// pointer replaces.
pub(crate) fn replaced_result(original: Map<String, Value>, pointer: String) -> Value {
    let mut result = Map::new();
    result.insert(
        "content".to_owned(),
        json!([{"type": "text", "text": pointer}]),
    );
    for (key, value) in original {
        if !matches!(key.as_str(), "content" | "structuredContent") {
            result.insert(key, value);
        }
    }
    Value::Object(result)
}

/// The result of an exploration tool call: the text the model reads.
/// [`replaced_result`] as the text of the whole response to `id`, for a result the relay holds
/// as text: its other fields (`_meta`, extensions) are copied as they were written.
pub(crate) fn replaced_result_text(
    id: &Value,
    fields: &indexmap::IndexMap<String, &serde_json::value::RawValue>,
    pointer: &str,
) -> String {
    let mut result = String::from(r#"{"content":"#);
    result.push_str(&json!([{"type": "text", "text": pointer}]).to_string());
    for (key, value) in fields {
        if !matches!(key.as_str(), "content" | "structuredContent") {
            result.push(',');
            result.push_str(&Value::String(key.clone()).to_string());
            result.push(':');
            result.push_str(value.get());
        }
    }
    result.push('}');
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

pub(crate) fn exploration_result(text: String) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

/// An error result of a tool call (the model reads it; the call itself succeeded).
pub(crate) fn error_result(text: String) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> ToolNames {
        ToolNames::new(Some("sp_"), ["schema".to_owned()]).unwrap()
    }

    #[test]
    fn server_info_adds_the_tools_capability_and_one_instructions_line_only() {
        let mut result = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"logging": {}, "x-vendor": {"a": 1}},
            "serverInfo": {"name": "s", "version": "1"},
            "instructions": "Use carefully.",
            "x-extra": [1, 2],
        });
        server_info(&mut result, &names());
        assert_eq!(result["capabilities"]["tools"], json!({}));
        assert_eq!(result["capabilities"]["x-vendor"], json!({"a": 1}));
        assert_eq!(result["x-extra"], json!([1, 2]));
        let instructions = result["instructions"].as_str().unwrap();
        assert!(
            instructions.starts_with("Use carefully.\n\n"),
            "{instructions}"
        );
        assert!(instructions.contains("`sp_schema`"), "{instructions}");
    }

    #[test]
    fn server_info_keeps_an_existing_tools_capability() {
        let mut result = json!({"capabilities": {"tools": {"listChanged": true}}});
        server_info(&mut result, &names());
        assert_eq!(
            result["capabilities"]["tools"],
            json!({"listChanged": true})
        );
    }

    #[test]
    fn only_final_results_are_interceptable() {
        assert!(is_final_result(&json!({"content": []})));
        assert!(is_final_result(
            &json!({"content": [], "resultType": "complete"})
        ));
        assert!(!is_final_result(&json!({"content": [], "isError": true})));
        assert!(!is_final_result(
            &json!({"task": {"taskId": "t1", "status": "working"}})
        ));
        assert!(!is_final_result(
            &json!({"resultType": "input_required", "inputRequests": {}})
        ));
        assert!(!is_final_result(&json!("text")));
    }

    #[test]
    fn a_replaced_result_keeps_meta_and_extension_fields() {
        let original = json!({
            "content": [{"type": "text", "text": "huge"}],
            "structuredContent": {"huge": true},
            "_meta": {"k": "v"},
            "x-vendor-result": 7,
        });
        let Value::Object(original) = original else {
            unreachable!()
        };
        let result = replaced_result(original, "pointer".to_owned());
        assert_eq!(
            result,
            json!({"content": [{"type": "text", "text": "pointer"}], "_meta": {"k": "v"}, "x-vendor-result": 7})
        );
    }
}
