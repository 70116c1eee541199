//! What a tool returned, and the text of it overspill would store (SPEC §5 steps 3–4).

use std::borrow::Cow;

use serde_json::Value;

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
}

#[derive(Debug, Clone, PartialEq)]
enum Content {
    Text(String),
    Mcp(Value),
    /// A `CallToolResult` as its JSON text, read without converting numbers: `1e400` or a
    /// 5,000-digit integer, which a [`Value`] cannot hold, keep their text. Made only by
    /// [`Scratchpad::intercept_mcp_text`](crate::Scratchpad::intercept_mcp_text), which never
    /// hands the output back.
    McpJson(String),
}

/// What [`ToolOutput::normalise`] makes of an output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Normalised<'a> {
    /// The text to count, hash and store.
    Store(Cow<'a, str>),
    /// Content that is never stored (images, binary resources, an unknown shape), and why.
    PassThrough(&'static str),
}

impl ToolOutput {
    /// An MCP `CallToolResult` as its JSON text (see [`Content::McpJson`]).
    pub(crate) fn mcp_json(result: String) -> ToolOutput {
        #[derive(serde::Deserialize)]
        struct Flag {
            #[serde(default, rename = "isError")]
            is_error: Option<Value>,
        }
        let is_error = serde_json::from_str::<Flag>(&result)
            .ok()
            .and_then(|flag| flag.is_error)
            .and_then(|flag| flag.as_bool())
            == Some(true);
        ToolOutput {
            content: Content::McpJson(result),
            is_error,
            min_tokens: None,
        }
    }

    /// A plain-text result (which may hold JSON, Markdown or anything else).
    pub fn text(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            content: Content::Text(text.into()),
            is_error: false,
            min_tokens: None,
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
        }
    }

    /// The same output, marked as an error result (or not). Error results are never
    /// intercepted: the model must see them as they are (SPEC §5 step 1).
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

    /// Whether this is an error result.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// The per-call threshold, if one was set.
    pub fn min_tokens(&self) -> Option<u64> {
        self.min_tokens
    }

    /// The text, for a plain-text output.
    pub fn as_text(&self) -> Option<&str> {
        match &self.content {
            Content::Text(text) => Some(text),
            Content::Mcp(_) | Content::McpJson(_) => None,
        }
    }

    /// The `CallToolResult`, for an MCP output.
    pub fn as_mcp(&self) -> Option<&Value> {
        match &self.content {
            Content::Mcp(value) => Some(value),
            Content::Text(_) | Content::McpJson(_) => None,
        }
    }

    /// The output as an MCP `CallToolResult`: an MCP output as it is, a text output as one text
    /// block (with `isError` when it is an error).
    pub fn into_mcp(self) -> Value {
        match self.content {
            Content::Mcp(value) => value,
            // Never reached from outside the crate (see `Content::McpJson`).
            Content::McpJson(text) => serde_json::from_str(&text).unwrap_or(Value::Null),
            Content::Text(text) => {
                let mut result = serde_json::json!({"content": [{"type": "text", "text": text}]});
                if self.is_error {
                    result["isError"] = Value::Bool(true);
                }
                result
            }
        }
    }

    /// The text to store, or why the output passes through (SPEC §5 steps 3–4):
    ///
    /// - any block that is not text (an image, audio, a binary resource, a link) → pass through,
    ///   so nothing the model should see is ever lost;
    /// - `structuredContent` → that JSON, unless it only wraps the text (one key whose string
    ///   value equals the joined text blocks), where the text is stored instead;
    /// - otherwise the text blocks (and text resources) joined with `\n`; a single block is
    ///   taken as it is, so a block holding JSON is stored as JSON;
    /// - the host's persistence footer (`footer`), if present, is cut from the end of text.
    pub(crate) fn normalise(&self, footer: Option<&str>) -> Normalised<'_> {
        match &self.content {
            Content::Text(text) => Normalised::Store(strip_footer(Cow::Borrowed(text), footer)),
            Content::Mcp(result) => normalise_mcp(result, footer),
            Content::McpJson(text) => normalise_mcp_json(text, footer),
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

fn normalise_mcp<'a>(result: &'a Value, footer: Option<&str>) -> Normalised<'a> {
    let Some(object) = result.as_object() else {
        return Normalised::PassThrough("not a CallToolResult object");
    };
    let content = object.get("content");
    let texts = match block_texts(content) {
        Ok(texts) => texts,
        Err(why) => return Normalised::PassThrough(why),
    };
    let structured = object.get("structuredContent").filter(|v| !v.is_null());
    if texts.is_empty() && content.is_none() && structured.is_none() {
        return Normalised::PassThrough("neither `content` nor `structuredContent`");
    }
    if let Some(structured) = structured
        && !wraps_text(structured, &texts)
    {
        return Normalised::Store(Cow::Owned(structured.to_string()));
    }
    Normalised::Store(strip_footer(joined(&texts), footer))
}

/// [`normalise_mcp`] on a result's JSON text: the same rules, with `structuredContent` stored
/// as the text it was sent as, so every number keeps its digits (`1e400`, `1E2`, `-0`).
fn normalise_mcp_json<'a>(text: &'a str, footer: Option<&str>) -> Normalised<'a> {
    use serde_json::value::RawValue;
    #[derive(serde::Deserialize)]
    struct Parts<'a> {
        #[serde(default, borrow)]
        content: Option<&'a RawValue>,
        #[serde(default, borrow, rename = "structuredContent")]
        structured: Option<&'a RawValue>,
    }
    let Ok(parts) = serde_json::from_str::<Parts>(text) else {
        return Normalised::PassThrough("not a CallToolResult object");
    };
    let content = match parts
        .content
        .map(|raw| serde_json::from_str::<Value>(raw.get()))
    {
        None => None,
        Some(Ok(value)) => Some(value),
        Some(Err(_)) => return Normalised::PassThrough("content blocks that cannot be read"),
    };
    let texts = match block_texts(content.as_ref()) {
        Ok(texts) => texts,
        Err(why) => return Normalised::PassThrough(why),
    };
    let structured = parts.structured.filter(|raw| raw.get() != "null");
    if texts.is_empty() && content.is_none() && structured.is_none() {
        return Normalised::PassThrough("neither `content` nor `structuredContent`");
    }
    if let Some(raw) = structured {
        // A value with a number a `Value` cannot hold is no one-string wrapper.
        let wrapper = serde_json::from_str::<Value>(raw.get())
            .is_ok_and(|structured| wraps_text(&structured, &texts));
        if !wrapper {
            return Normalised::Store(Cow::Borrowed(raw.get()));
        }
    }
    let stored = strip_footer(joined(&texts), footer);
    Normalised::Store(Cow::Owned(stored.into_owned()))
}

/// The texts of a result's `content` blocks, or why the result passes through.
fn block_texts(content: Option<&Value>) -> Result<Vec<&str>, &'static str> {
    let blocks: &[Value] = match content {
        Some(Value::Array(blocks)) => blocks,
        None | Some(Value::Null) => &[],
        Some(_) => return Err("`content` is not an array"),
    };
    blocks
        .iter()
        .map(|block| block_text(block).ok_or("a content block that is not text"))
        .collect()
}

/// The blocks' texts joined with `\n`; a single block is taken as it is.
fn joined<'a>(texts: &[&'a str]) -> Cow<'a, str> {
    match texts {
        [one] => Cow::Borrowed(*one),
        many => Cow::Owned(many.join("\n")),
    }
}

/// Whether `structuredContent` is only a wrapper around the text blocks: an object with one key
/// whose value is a string equal to the blocks joined with `\n`. Servers do that to satisfy an
/// output schema (`{"content": "<file text>"}` from a file server, `{"result": "..."}` from
/// FastMCP); storing the wrapper would hide the real document inside one escaped string, so the
/// text is stored instead. Compared piece by piece, so a structured result that is not a wrapper
/// never pays for joining the blocks.
fn wraps_text(structured: &Value, texts: &[&str]) -> bool {
    let Some(inner) = structured
        .as_object()
        .filter(|object| object.len() == 1)
        .and_then(|object| object.values().next())
        .and_then(Value::as_str)
    else {
        return false;
    };
    let mut rest = inner;
    for (i, text) in texts.iter().enumerate() {
        if i > 0 {
            let Some(after) = rest.strip_prefix('\n') else {
                return false;
            };
            rest = after;
        }
        let Some(after) = rest.strip_prefix(text) else {
            return false;
        };
        rest = after;
    }
    rest.is_empty()
}

/// The text of a text block or of an embedded text resource; `None` for anything else.
fn block_text(block: &Value) -> Option<&str> {
    match block.get("type")?.as_str()? {
        "text" => block.get("text")?.as_str(),
        "resource" => {
            let resource = block.get("resource")?;
            if resource.get("blob").is_some() {
                return None;
            }
            resource.get("text")?.as_str()
        }
        _ => None,
    }
}

/// Cuts the host's persistence footer (its marker and everything after it) from the end.
fn strip_footer<'a>(text: Cow<'a, str>, footer: Option<&str>) -> Cow<'a, str> {
    let Some(marker) = footer.filter(|m| !m.is_empty()) else {
        return text;
    };
    let Some(at) = text.rfind(marker) else {
        return text;
    };
    match text {
        Cow::Borrowed(text) => Cow::Borrowed(&text[..at]),
        Cow::Owned(mut text) => {
            text.truncate(at);
            Cow::Owned(text)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn stored(output: &ToolOutput) -> String {
        match output.normalise(None) {
            Normalised::Store(text) => text.into_owned(),
            Normalised::PassThrough(why) => panic!("passed through: {why}"),
        }
    }

    #[test]
    fn structured_content_is_stored_as_that_json() {
        let output = ToolOutput::mcp(json!({
            "content": [{"type": "text", "text": "3 pods"}],
            "structuredContent": {"items": [1, 2, 3]},
        }));
        assert_eq!(stored(&output), r#"{"items":[1,2,3]}"#);
    }

    #[test]
    fn text_blocks_are_joined_with_a_newline() {
        let output = ToolOutput::mcp(json!({"content": [
            {"type": "text", "text": "first"},
            {"type": "resource", "resource": {"uri": "file:///x", "text": "second"}},
            {"type": "text", "text": "third"},
        ]}));
        assert_eq!(stored(&output), "first\nsecond\nthird");
    }

    #[test]
    fn a_single_json_text_block_is_that_json() {
        let output =
            ToolOutput::mcp(json!({"content": [{"type": "text", "text": "{\"a\": [1, 2]}"}]}));
        assert_eq!(stored(&output), "{\"a\": [1, 2]}");
    }

    #[test]
    fn image_audio_blob_and_link_blocks_pass_through() {
        for block in [
            json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}),
            json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}),
            json!({"type": "resource", "resource": {"uri": "file:///a.bin", "blob": "AAEC"}}),
            json!({"type": "resource_link", "uri": "file:///a.txt", "name": "a"}),
        ] {
            let output = ToolOutput::mcp(json!({
                "content": [{"type": "text", "text": "caption"}, block],
                "structuredContent": {"x": 1},
            }));
            assert!(
                matches!(output.normalise(None), Normalised::PassThrough(_)),
                "{block}"
            );
        }
    }

    #[test]
    fn shapes_that_are_not_a_call_tool_result_pass_through() {
        for value in [json!([1, 2]), json!({"content": "x"}), json!({"other": 1})] {
            let output = ToolOutput::mcp(value.clone());
            assert!(
                matches!(output.normalise(None), Normalised::PassThrough(_)),
                "{value}"
            );
        }
    }

    #[test]
    fn the_persistence_footer_is_cut_from_the_end() {
        let marker = "\n\n[Tool output saved to artifact: ";
        let output = ToolOutput::text("payload\n\n[Tool output saved to artifact: `a.txt`]");
        assert_eq!(
            output.normalise(Some(marker)),
            Normalised::Store(Cow::Borrowed("payload"))
        );
        let blocks = ToolOutput::mcp(json!({"content": [
            {"type": "text", "text": "a"},
            {"type": "text", "text": "b\n\n[Tool output saved to artifact: `x`]"},
        ]}));
        assert_eq!(
            blocks.normalise(Some(marker)),
            Normalised::Store(Cow::Borrowed("a\nb"))
        );
        let without = ToolOutput::text("no footer here");
        assert_eq!(
            without.normalise(Some(marker)),
            Normalised::Store(Cow::Borrowed("no footer here"))
        );
    }

    #[test]
    fn is_error_comes_from_the_result_or_the_host() {
        assert!(ToolOutput::mcp(json!({"content": [], "isError": true})).is_error());
        assert!(!ToolOutput::mcp(json!({"content": [], "isError": false})).is_error());
        assert!(!ToolOutput::text("x").is_error());
        assert!(ToolOutput::text("x").with_error(true).is_error());
    }

    #[test]
    fn a_text_output_converts_to_a_call_tool_result() {
        assert_eq!(
            ToolOutput::text("boom").with_error(true).into_mcp(),
            json!({"content": [{"type": "text", "text": "boom"}], "isError": true})
        );
    }

    #[test]
    fn a_result_given_as_text_keeps_every_number_of_its_structured_content() {
        let text = r#"{"content":[{"type":"text","text":"n"}],"structuredContent":{"v":[1e400,-0,1.0,1E2]}}"#;
        assert_eq!(
            stored(&ToolOutput::mcp_json(text.to_owned())),
            r#"{"v":[1e400,-0,1.0,1E2]}"#
        );
    }

    #[test]
    fn a_result_given_as_text_follows_the_same_rules_as_a_parsed_one() {
        for result in [
            json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
            json!({"content": [{"type": "text", "text": "x"}], "structuredContent": {"result": "x"}}),
            json!({"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}),
            json!({"isError": true, "content": []}),
            json!({"other": 1}),
        ] {
            let parsed = ToolOutput::mcp(result.clone());
            let text = ToolOutput::mcp_json(result.to_string());
            assert_eq!(parsed.is_error(), text.is_error(), "{result}");
            match (parsed.normalise(None), text.normalise(None)) {
                (Normalised::Store(a), Normalised::Store(b)) => assert_eq!(a, b, "{result}"),
                (Normalised::PassThrough(_), Normalised::PassThrough(_)) => {}
                (a, b) => panic!("{result}: {a:?} vs {b:?}"),
            }
        }
    }
}
