//! What a tool returned, and the text of it overspill would store (docs/facade.md#2-intercepting steps 3–4).

use std::borrow::Cow;

use serde_json::Value;

use crate::handling::Handling;
use crate::mcp_result::{Normalised, Reading, ToolResult, strip_footer};
use crate::store::TextLayout;

/// One tool result, as the host received it: plain text, or an MCP `CallToolResult`.
///
/// ```
/// use overspill::ToolOutput;
/// use serde_json::json;
///
/// let text = ToolOutput::text("NAME   READY\napi-1  1/1\n");
/// assert!(!text.is_error());
///
/// // An MCP result says itself whether it is an error (`isError`).
/// let failed = ToolOutput::mcp(json!({"content": [{"type": "text", "text": "forbidden"}], "isError": true}));
/// assert!(failed.is_error());
///
/// // A host that knows better says so.
/// assert!(ToolOutput::text("exit status 1").with_error(true).is_error());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    content: Content,
    is_error: bool,
    min_tokens: Option<u64>,
    text_layout: TextLayout,
}

#[derive(Debug, Clone, PartialEq)]
enum Content {
    Text(String),
    Mcp(Value),
}

impl ToolOutput {
    /// A plain-text result (which may hold JSON, Markdown or anything else).
    pub fn text(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            content: Content::Text(text.into()),
            is_error: false,
            min_tokens: None,
            text_layout: TextLayout::Reindented,
        }
    }

    /// An MCP `CallToolResult` as JSON: `{"content": [...], "structuredContent"?: {...},
    /// "isError"?: bool}`. Its `isError` says whether it is an error result.
    pub fn mcp(result: Value) -> ToolOutput {
        let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
        ToolOutput {
            content: Content::Mcp(result),
            is_error,
            min_tokens: None,
            text_layout: TextLayout::Reindented,
        }
    }

    /// The same output, marked as an error result (or not). Error results are never
    /// intercepted: the model must see them as they are (docs/facade.md#2-intercepting step 1).
    #[must_use]
    pub fn with_error(mut self, is_error: bool) -> ToolOutput {
        self.is_error = is_error;
        self
    }

    /// The same output with its own interception threshold, for a host without configured
    /// thresholds: intercepted from `min_tokens` tokens whatever the tool.
    #[must_use]
    pub fn with_min_tokens(mut self, min_tokens: u64) -> ToolOutput {
        self.min_tokens = Some(min_tokens);
        self
    }

    /// The same output, stored byte for byte as written if it is intercepted: a JSON object or
    /// array is not re-indented (it is still JSON to the exploration tools), so the stored
    /// file's lines are the output's own. For a text the model will change with text it copies
    /// from the stored file, such as a file it read to edit (docs/storage.md#what-is-written).
    ///
    /// ```
    /// use overspill::ToolOutput;
    /// use overspill::store::TextLayout;
    ///
    /// let file = "{\"name\":\"payments-api\",\"version\":\"2.4.1\"}";
    /// assert_eq!(ToolOutput::text(file).text_layout(), TextLayout::Reindented);
    /// let read = ToolOutput::text(file).stored_as_written();
    /// assert_eq!(read.text_layout(), TextLayout::AsGiven);
    /// ```
    #[must_use]
    pub fn stored_as_written(mut self) -> ToolOutput {
        self.text_layout = TextLayout::AsGiven;
        self
    }

    /// Whether this is an error result.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// The per-call threshold, if one was set.
    pub fn min_tokens(&self) -> Option<u64> {
        self.min_tokens
    }

    /// How the output's text is laid out if it is stored: re-indented JSON unless
    /// [`ToolOutput::stored_as_written`] was asked.
    pub fn text_layout(&self) -> TextLayout {
        self.text_layout
    }

    /// The text, for a plain-text output.
    pub fn as_text(&self) -> Option<&str> {
        match &self.content {
            Content::Text(text) => Some(text),
            Content::Mcp(_) => None,
        }
    }

    /// The `CallToolResult`, for an MCP output.
    pub fn as_mcp(&self) -> Option<&Value> {
        match &self.content {
            Content::Mcp(value) => Some(value),
            Content::Text(_) => None,
        }
    }

    /// The output as an MCP `CallToolResult`: an MCP output as it is, a text output as one text
    /// block (with `isError` when it is an error), written by [`ToolResult`].
    pub fn into_mcp(self) -> Value {
        match self.content {
            Content::Mcp(value) => value,
            Content::Text(text) => ToolResult::text(text)
                .with_error(self.is_error)
                .into_value(),
        }
    }

    /// What the host asked of this output besides its content, as interception reads it.
    pub(crate) fn handling(&self) -> Handling {
        Handling {
            must_pass: self.must_pass(),
            min_tokens: self.min_tokens,
            text_layout: self.text_layout,
        }
    }

    /// Whether the output passes whatever its size (docs/facade.md#2-intercepting step 1): an
    /// error, or an MCP result that is not final (a task handle, a request for input), by the
    /// tool-result contract (`mcp_result.rs`).
    fn must_pass(&self) -> bool {
        match &self.content {
            Content::Text(_) => self.is_error,
            Content::Mcp(result) => match Reading::of_value(result) {
                Some(reading) => !reading.with_error(self.is_error).is_final(),
                None => self.is_error,
            },
        }
    }

    /// The text to store, or why the output passes through (docs/facade.md#2-intercepting
    /// steps 3–4): a text output as it is, an MCP result by the tool-result contract
    /// (`mcp_result.rs`); the host's persistence footer (`footer`), if present, is cut from
    /// the end of text.
    pub(crate) fn normalise(&self, footer: Option<&str>) -> Normalised<'_> {
        match &self.content {
            Content::Text(text) => Normalised::Store(strip_footer(Cow::Borrowed(text), footer)),
            Content::Mcp(result) => match Reading::of_value(result) {
                Some(reading) => reading.normalise(footer),
                None => Normalised::PassThrough("not a CallToolResult object"),
            },
        }
    }
}

impl From<String> for ToolOutput {
    fn from(text: String) -> ToolOutput {
        ToolOutput::text(text)
    }
}

impl From<&str> for ToolOutput {
    fn from(text: &str) -> ToolOutput {
        ToolOutput::text(text)
    }
}

#[cfg(test)]
mod tests;
