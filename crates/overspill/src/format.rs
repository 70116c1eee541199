//! The three shapes tool definitions are exported in (docs/tools.md#4-definitions-and-export).

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use crate::explore::{Definition, Registry};

/// How to export tool definitions.
///
/// ```
/// use overspill::ToolFormat;
///
/// assert_eq!("openai".parse::<ToolFormat>(), Ok(ToolFormat::OpenAi));
/// let tools = overspill::tool_definitions(ToolFormat::Mcp);
/// assert!(tools.iter().any(|tool| tool["name"] == "grep" && tool["inputSchema"].is_object()));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolFormat {
    /// MCP `tools/list` entries: `{"name", "description", "inputSchema"}`.
    Mcp,
    /// OpenAI function tools: `{"type": "function", "function": {"name", "description", "parameters"}}`.
    OpenAi,
    /// Anthropic tools: `{"name", "description", "input_schema"}`.
    Anthropic,
}

impl ToolFormat {
    /// Every format, in the order the CLI lists them.
    pub const ALL: [ToolFormat; 3] = [ToolFormat::Mcp, ToolFormat::OpenAi, ToolFormat::Anthropic];

    /// The name used on the command line: `mcp`, `openai` or `anthropic`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolFormat::Mcp => "mcp",
            ToolFormat::OpenAi => "openai",
            ToolFormat::Anthropic => "anthropic",
        }
    }

    /// `definition` in this format.
    pub fn render(self, definition: &Definition) -> Value {
        match self {
            ToolFormat::Mcp => definition.to_mcp(),
            ToolFormat::OpenAi => definition.to_openai(),
            ToolFormat::Anthropic => definition.to_anthropic(),
        }
    }
}

impl fmt::Display for ToolFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A format name that is not `mcp`, `openai` or `anthropic`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool format `{0}`; use mcp, openai or anthropic")]
pub struct UnknownToolFormat(pub String);

impl FromStr for ToolFormat {
    type Err = UnknownToolFormat;

    fn from_str(name: &str) -> Result<ToolFormat, UnknownToolFormat> {
        ToolFormat::ALL
            .into_iter()
            .find(|format| format.as_str().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| UnknownToolFormat(name.to_owned()))
    }
}

/// The definitions of every exploration tool in `format`, in the order the model should learn
/// them. A [`Scratchpad`](crate::Scratchpad) gives the set it exposes (and the artifact tools
/// of its mode) with [`Scratchpad::tool_definitions`](crate::Scratchpad::tool_definitions).
pub fn tool_definitions(format: ToolFormat) -> Vec<Value> {
    Registry::new()
        .definitions()
        .into_iter()
        .map(|definition| format.render(definition))
        .collect()
}

#[cfg(test)]
mod tests;
