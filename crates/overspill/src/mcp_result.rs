//! What an MCP tool result is, when it is final, and how a pointer replaces it: the one
//! contract behind [`Scratchpad::intercept`](crate::Scratchpad::intercept) (a result a host
//! holds as a value, as the rig adapter does) and
//! [`Scratchpad::intercept_mcp_response`](crate::Scratchpad::intercept_mcp_response) (the
//! JSON-RPC response text a relay holds, as the MCP proxy does). See docs/mcp-proxy.md, "How
//! the relay works", and docs/architecture.md, "A large MCP result".
//!
//! A response is read as text: its `result` member by member, each field kept as the text it
//! was sent as, so numbers no `f64` holds (`1e400`, 5,000 digits) and unknown fields survive; a
//! large result with one text block has its text decoded in place (`mcp_result/in_place.rs`).

mod in_place;

use std::borrow::Cow;

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::session::Session;

/// What the scratchpad stores of a result, or why the result passes through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Normalised<'a> {
    /// The text to count, hash and store.
    Store(Cow<'a, str>),
    /// Content that is never stored (images, binary resources, an unknown shape), and why.
    PassThrough(&'static str),
}

/// The task a response's result created (a task-augmented `tools/call` answers with a
/// `CreateTaskResult`, `{"task": {"taskId": …}}`); its `tasks/result` is the call's final result.
pub fn created_task(response: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Response {
        result: Created,
    }
    #[derive(Deserialize)]
    struct Created {
        task: Task,
    }
    #[derive(Deserialize)]
    struct Task {
        #[serde(rename = "taskId")]
        task_id: String,
    }
    serde_json::from_str::<Response>(response)
        .ok()
        .map(|response| response.result.task.task_id)
}

/// [`crate::Scratchpad::intercept_mcp_response`].
pub(crate) fn respond(inner: &Session, server: &str, tool: &str, response: String) -> String {
    let response = match in_place::take(response) {
        Ok(taken) => return taken.respond(inner, server, tool),
        Err(response) => response,
    };
    replacement(inner, server, tool, &response).unwrap_or(response)
}

/// The response that replaces `response`, or `None` when it goes out as it came. Every
/// response is decided (and so observed), a JSON-RPC error or an unreadable one as passing.
fn replacement(inner: &Session, server: &str, tool: &str, response: &str) -> Option<String> {
    let parsed = serde_json::from_str::<Envelope>(response)
        .ok()
        .and_then(|envelope| {
            let fields = serde_json::from_str::<Fields>(envelope.result?.get()).ok()?;
            Some((envelope, fields))
        });
    let Some((envelope, fields)) = parsed else {
        // Not a result: it passes, as an error result does.
        inner.passed(server, tool);
        return None;
    };
    let passes = !is_final(|name| fields.get(name).map(|raw| raw.get()));
    let content = fields.get("content").copied();
    let structured = fields.get("structuredContent").copied();
    // A result that is not final (an error, a task handle, a request for input) passes.
    let decided = inner.decide(server, tool, passes, None, |footer| {
        normalise_text(content, structured, footer)
    });
    let pointer = decided.into_replacement()?;
    let kept = fields.iter().map(|(key, raw)| (key.as_str(), raw.get()));
    Some(replaced_response(envelope.id?.get(), kept, &pointer))
}

/// A result's fields in order, each as the text it was sent as.
type Fields<'a> = IndexMap<String, &'a RawValue>;

/// The members of a JSON-RPC response a decision reads.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    result: Option<&'a RawValue>,
}

/// Whether a result, whose fields `field` gives as text, is a final tool result the
/// scratchpad may replace: not an error (`isError: true`), not a task handle
/// (`CreateTaskResult`), not a request for more input (the 2026-07-28 `input_required` result,
/// a `resultType` other than `complete`). What it holds is for the normalisation to judge.
fn is_final<'a>(field: impl Fn(&str) -> Option<&'a str>) -> bool {
    let complete = field("resultType").is_none_or(|kind| kind.trim() == r#""complete""#);
    complete && field("task").is_none() && field("isError").map(str::trim) != Some("true")
}

/// The response to `id` with `pointer` as the result's one text block and the result's other
/// fields (`_meta`, extension fields) as they were written; its content and structured
/// content are what the pointer replaces.
fn replaced_response<'a>(
    id: &str,
    fields: impl Iterator<Item = (&'a str, &'a str)>,
    pointer: &str,
) -> String {
    let block = serde_json::json!([{"type": "text", "text": pointer}]);
    let mut result = format!(r#"{{"content":{block}"#);
    for (key, raw) in fields {
        if !matches!(key, "content" | "structuredContent") {
            result.push(',');
            result.push_str(&Value::from(key).to_string());
            result.push(':');
            result.push_str(raw);
        }
    }
    result.push('}');
    response(id, &result)
}

/// A JSON-RPC result response from the texts of its id and its result.
fn response(id: &str, result: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

/// The text to store of a `CallToolResult` held as a value (docs/mcp-proxy.md, "How the relay
/// works"):
///
/// - any block that is not text (an image, audio, a binary resource, a link) → pass through,
///   so nothing the model should see is ever lost;
/// - `structuredContent` → that JSON, unless it only wraps the text (one key whose string
///   value equals the joined text blocks), where the text is stored instead;
/// - otherwise the text blocks (and text resources) joined with `\n`; a single block is
///   taken as it is, so a block holding JSON is stored as JSON;
/// - the host's persistence footer (`footer`), if present, is cut from the end of text.
pub(crate) fn normalise<'a>(result: &'a Value, footer: Option<&str>) -> Normalised<'a> {
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

/// [`normalise`] on a result held as the texts of its `content` and `structuredContent`: the
/// same rules, with the structured content stored as the text it was sent as, so every number
/// keeps its digits.
pub(crate) fn normalise_text<'a>(
    content: Option<&RawValue>,
    structured: Option<&'a RawValue>,
    footer: Option<&str>,
) -> Normalised<'a> {
    let content = match content.map(|raw| serde_json::from_str::<Value>(raw.get())) {
        None => None,
        Some(Ok(value)) => Some(value),
        Some(Err(_)) => return Normalised::PassThrough("content blocks that cannot be read"),
    };
    let texts = match block_texts(content.as_ref()) {
        Ok(texts) => texts,
        Err(why) => return Normalised::PassThrough(why),
    };
    let structured = structured.filter(|raw| raw.get().trim() != "null");
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
    Normalised::Store(Cow::Owned(
        strip_footer(joined(&texts), footer).into_owned(),
    ))
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
pub(crate) fn strip_footer<'a>(text: Cow<'a, str>, footer: Option<&str>) -> Cow<'a, str> {
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
mod tests;
