//! What a tool definition is (name, description, JSON Schema of the arguments) and how it is
//! exported (docs/tools.md#4-definitions-and-export).
//!
//! An exploration tool's definition is made by the registry from the tool's own module: its
//! [`crate::tool::Tool::NAME`], its description, its line in the system prompt, and the schema
//! derived from its `Args` ([`crate::args::schema`]). Every schema is a closed object (`additionalProperties: false`).

use serde_json::{Value, json};

/// A tool's name, description and argument schema.
#[derive(Debug)]
pub struct Definition {
    /// The tool name, e.g. `head`.
    pub name: &'static str,
    /// One paragraph, written for the model.
    pub description: &'static str,
    /// The tool's line in the system prompt's list of exploration tools ([`crate::Tool::BLURB`]);
    /// `None` for a host's tool, which the prompt does not list.
    pub blurb: Option<&'static str>,
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

#[cfg(test)]
mod tests;
