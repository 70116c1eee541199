//! What a tool definition is (name, description, JSON Schema of the arguments) and how it is
//! exported (docs/tools.md#4-definitions-and-export), with the schema pieces the tools share.
//!
//! Each tool writes its own definition beside its `run`, as its
//! [`crate::tool::Tool::DEFINITION`]. Descriptions are written for an LLM: what the tool is for,
//! when to reach for it, what it returns and how it pages. Every schema is a closed object
//! (`additionalProperties: false`, built by [`closed`]). The registry exports only the tools
//! that are registered.

use overspill_store::Format;
use serde_json::{Value, json};

/// A tool's name, description and argument schema.
#[derive(Debug)]
pub struct Definition {
    /// The tool name, e.g. `head`.
    pub name: &'static str,
    /// One paragraph, written for the model.
    pub description: &'static str,
    /// Builds the JSON Schema of the arguments.
    pub parameters: fn() -> Value,
}

impl Definition {
    /// The JSON Schema of the tool's arguments.
    pub fn input_schema(&self) -> Value {
        (self.parameters)()
    }

    /// As an MCP tool: `{"name", "description", "inputSchema"}`.
    pub fn to_mcp(&self) -> Value {
        json!({"name": self.name, "description": self.description, "inputSchema": self.input_schema()})
    }

    /// As an OpenAI function tool: `{"type": "function", "function": {"name", "description", "parameters"}}`.
    pub fn to_openai(&self) -> Value {
        json!({
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.input_schema()},
        })
    }

    /// As an Anthropic tool: `{"name", "description", "input_schema"}`.
    pub fn to_anthropic(&self) -> Value {
        json!({"name": self.name, "description": self.description, "input_schema": self.input_schema()})
    }
}

/// The tools that read JSON only: on a Markdown or text file they can only answer
/// `not_json`.
const JSON_ONLY: [&str; 4] = ["item_schema", "iterate_over", "get_in", "query"];

/// Whether the tool `name` can read a file stored as `format`; the pointer lists only those.
pub fn reads_format(name: &str, format: Format) -> bool {
    format == Format::Json || !JSON_ONLY.contains(&name)
}

pub(crate) fn closed(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

pub(crate) fn file_property() -> Value {
    json!({
        "type": "string",
        "description": "The stored file name exactly as the pointer gives it (or a path relative to the readable directory).",
    })
}

pub(crate) fn path_property(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

pub(crate) fn count_property(description: &str, default: Option<u64>, minimum: u64) -> Value {
    let mut property = json!({"type": "integer", "description": description, "minimum": minimum});
    if let (Some(default), Some(object)) = (default, property.as_object_mut()) {
        object.insert("default".to_owned(), json!(default));
    }
    property
}

#[cfg(test)]
mod tests;
