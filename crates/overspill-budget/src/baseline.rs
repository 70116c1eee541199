//! What an agent's context holds before its first extraction (docs/budget.md).

use std::fmt;

use overspill_tokens::TokenCounter;
use serde_json::Value;

/// Adds up the baseline of one agent: the scratchpad system-prompt section,
/// the tool definitions (the exploration tools and the host's own), and the
/// host's other texts (its system prompt, standing instructions).
///
/// Every text is counted with the agent's [`TokenCounter`], so the baseline
/// is in the same tokens as everything else the budget is charged with. The
/// parts are kept apart for reports; [`total`](Self::total) is what
/// [`Budget::new`](crate::Budget::new) takes.
///
/// A tool definition costs the tokens of its name, plus its description,
/// plus its argument schema as compact JSON, each counted on its own.
/// Providers wrap definitions in their own framing, which no one outside
/// them can count; this is the part that grows with the definitions.
///
/// ```
/// use overspill_budget::Baseline;
/// use overspill_tokens::TokenCounter;
/// use serde_json::json;
///
/// /// One token per word, for the example.
/// struct Words;
/// impl TokenCounter for Words {
///     fn count(&self, text: &str) -> usize { text.split_whitespace().count() }
///     fn count_up_to(&self, text: &str, limit: usize) -> Option<usize> {
///         Some(self.count(text)).filter(|&n| n <= limit)
///     }
///     fn name(&self) -> &'static str { "words" }
/// }
///
/// let baseline = Baseline::new(&Words)
///     .system_prompt("Large tool outputs are stored; explore them with the read tools.")
///     .tool("head", "Show the first lines.", &json!({"type": "object"}))
///     .host_text("You are a helpful operator.");
/// assert_eq!(baseline.system_prompt_tokens(), 11);
/// assert_eq!(baseline.tool_definition_tokens(), 1 + 4 + 1);
/// assert_eq!(baseline.host_tokens(), 5);
/// assert_eq!(baseline.total(), 22);
/// ```
#[derive(Clone, Copy)]
#[must_use = "a Baseline only adds up tokens; pass `total()` to `Budget::new`"]
pub struct Baseline<'c> {
    counter: &'c dyn TokenCounter,
    system_prompt: u64,
    tool_definitions: u64,
    host: u64,
}

impl<'c> Baseline<'c> {
    /// An empty baseline that counts with `counter`.
    pub fn new(counter: &'c dyn TokenCounter) -> Self {
        Self {
            counter,
            system_prompt: 0,
            tool_definitions: 0,
            host: 0,
        }
    }

    /// Adds a system-prompt section (the scratchpad's own instructions).
    pub fn system_prompt(mut self, text: &str) -> Self {
        self.system_prompt = self.system_prompt.saturating_add(self.count(text));
        self
    }

    /// Adds one tool definition: its name, description and argument schema
    /// (counted as compact JSON).
    pub fn tool(mut self, name: &str, description: &str, schema: &Value) -> Self {
        let tokens = tool_tokens(self.counter, name, description, schema);
        self.tool_definitions = self.tool_definitions.saturating_add(tokens);
        self
    }

    /// Adds one tool definition given as JSON, in any of the shapes tools
    /// are exported in:
    ///
    /// - MCP: `{"name", "description", "inputSchema"}`;
    /// - Anthropic: `{"name", "description", "input_schema"}`;
    /// - OpenAI: `{"type": "function", "function": {"name", "description", "parameters"}}`.
    ///
    /// A recognised shape costs the same as [`tool`](Self::tool) with its
    /// parts, whichever shape it came in (a missing description or schema
    /// costs nothing). Any other value is counted as its compact JSON.
    pub fn tool_value(mut self, definition: &Value) -> Self {
        let tokens = match ToolParts::of(definition) {
            Some(parts) => tool_tokens(self.counter, parts.name, parts.description, parts.schema),
            None => self.count(&definition.to_string()),
        };
        self.tool_definitions = self.tool_definitions.saturating_add(tokens);
        self
    }

    /// Adds every definition of `definitions`, as [`tool_value`](Self::tool_value).
    pub fn tool_values<'v>(self, definitions: impl IntoIterator<Item = &'v Value>) -> Self {
        definitions.into_iter().fold(self, Self::tool_value)
    }

    /// Adds a text of the host's: its system prompt, or any other standing
    /// text the model sees on every turn.
    pub fn host_text(mut self, text: &str) -> Self {
        self.host = self.host.saturating_add(self.count(text));
        self
    }

    /// Adds every text of `texts`, as [`host_text`](Self::host_text).
    pub fn host_texts<'t>(self, texts: impl IntoIterator<Item = &'t str>) -> Self {
        texts.into_iter().fold(self, Self::host_text)
    }

    /// The tokens of the system-prompt sections added.
    #[must_use]
    pub fn system_prompt_tokens(&self) -> u64 {
        self.system_prompt
    }

    /// The tokens of the tool definitions added.
    #[must_use]
    pub fn tool_definition_tokens(&self) -> u64 {
        self.tool_definitions
    }

    /// The tokens of the host texts added.
    #[must_use]
    pub fn host_tokens(&self) -> u64 {
        self.host
    }

    /// The whole baseline: every part added up.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.system_prompt
            .saturating_add(self.tool_definitions)
            .saturating_add(self.host)
    }

    fn count(&self, text: &str) -> u64 {
        tokens(self.counter, text)
    }
}

impl fmt::Debug for Baseline<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Baseline")
            .field("counter", &self.counter.name())
            .field("system_prompt", &self.system_prompt)
            .field("tool_definitions", &self.tool_definitions)
            .field("host", &self.host)
            .finish()
    }
}

/// The name, description and schema of a tool definition in one of the
/// export shapes.
struct ToolParts<'v> {
    name: &'v str,
    description: &'v str,
    schema: &'v Value,
}

impl<'v> ToolParts<'v> {
    fn of(definition: &'v Value) -> Option<Self> {
        let (body, schema_key) = match definition.get("function") {
            Some(function)
                if definition.get("type").and_then(Value::as_str) == Some("function") =>
            {
                (function, "parameters")
            }
            _ if definition.get("inputSchema").is_some() => (definition, "inputSchema"),
            _ => (definition, "input_schema"),
        };
        Some(Self {
            name: body.get("name")?.as_str()?,
            description: body
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or(""),
            schema: body.get(schema_key).unwrap_or(&Value::Null),
        })
    }
}

fn tool_tokens(counter: &dyn TokenCounter, name: &str, description: &str, schema: &Value) -> u64 {
    let schema_tokens = if schema.is_null() {
        0
    } else {
        tokens(counter, &schema.to_string())
    };
    tokens(counter, name)
        .saturating_add(tokens(counter, description))
        .saturating_add(schema_tokens)
}

fn tokens(counter: &dyn TokenCounter, text: &str) -> u64 {
    u64::try_from(counter.count(text)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;
