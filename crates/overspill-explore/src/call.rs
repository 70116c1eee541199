//! A ready-to-run tool call, the one value a refusal and a tool share: a `*_too_large` error
//! offers it as its `retry`, and a tool's smaller-retry chain proposes it.

use serde::Serialize;
use serde_json::Value;

/// A ready-to-run tool call: what a `*_too_large` error offers as `retry`.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The tool to call.
    pub tool: String,
    /// Its arguments, a JSON object.
    pub arguments: Value,
}

impl Call {
    /// A call of `tool` with `arguments` serialized to a JSON object.
    pub fn new(tool: &str, arguments: &impl Serialize) -> Call {
        Call {
            tool: tool.to_owned(),
            arguments: serde_json::to_value(arguments).unwrap_or(Value::Null),
        }
    }
}
