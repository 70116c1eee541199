//! What an MCP tool result is, when it is final, what of it is stored, how a pointer replaces
//! it, and how overspill writes a result of its own: the one contract behind
//! [`Scratchpad::intercept`](crate::Scratchpad::intercept) (a result a host holds as a value, as
//! the rig adapter does),
//! [`Scratchpad::intercept_mcp_text`](crate::Scratchpad::intercept_mcp_text) (a result held as
//! JSON text, as the MCP proxy holds it inside a JSON-RPC response) and [`ToolResult`] (every
//! result overspill writes). See docs/mcp-proxy.md, "How the relay works", and
//! docs/architecture.md, "A large MCP result".
//!
//! A result is read once, from either form, into a `Reading` (`mcp_result/reading.rs`), and
//! judged by one set of rules (`Reading::is_final`, `Reading::to_store`). Held as text, each
//! member stays the text it was sent as, so numbers no `f64` holds (`1e400`, 5,000 digits) and
//! unknown fields survive, and a large text block with escapes is decoded in place, in the
//! buffer it arrived in (`mcp_result/in_place.rs`). What is around a result held as text (a
//! JSON-RPC envelope) is never read here: the host says where the result is.

mod in_place;
mod reading;
mod write;

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;
use serde_json::value::RawValue;

pub use write::{ResultType, ToolResult};

use crate::handling::Handling;
use crate::session::Session;
use reading::Members;

/// The task a `CreateTaskResult` created (a task-augmented `tools/call` is answered
/// `{"task": {"taskId": …}}`; its `tasks/result` is the call's final result), from the
/// result's JSON text.
///
/// ```
/// use overspill::mcp_result::created_task;
///
/// let handle = r#"{"task": {"taskId": "t-9", "status": "working"}}"#;
/// assert_eq!(created_task(handle).as_deref(), Some("t-9"));
/// assert_eq!(created_task(r#"{"content": []}"#), None);
/// ```
pub fn created_task(result: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Created {
        task: Task,
    }
    #[derive(serde::Deserialize)]
    struct Task {
        #[serde(rename = "taskId")]
        task_id: String,
    }
    serde_json::from_str::<Created>(result)
        .ok()
        .map(|created| created.task.task_id)
}

/// What the scratchpad stores of a result, or why the result passes through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Normalised<'a> {
    /// The text to count, hash and store.
    Store(Cow<'a, str>),
    /// Content that is never stored (images, binary resources, an unknown shape), and why.
    PassThrough(&'static str),
}

/// A tool result as the rules read it, from a value a host holds or from the text a relay
/// holds (`mcp_result/reading.rs` reads both).
#[derive(Debug)]
pub(crate) struct Reading<'a> {
    /// `resultType` is absent or the string `complete`.
    complete: bool,
    /// It has a `task`: a task handle, whose result comes later.
    task: bool,
    /// `isError` is `true` (or the host said it is an error).
    error: bool,
    content: Content<'a>,
    /// `structuredContent`, unless absent or `null`.
    structured: Option<Structured<'a>>,
}

/// A result's `content`.
#[derive(Debug)]
enum Content<'a> {
    Absent,
    /// The blocks (none for `null`).
    Blocks(Vec<Block<'a>>),
    NotArray,
    /// Text that is not a JSON array of values.
    Unreadable,
}

/// A content block, as far as storing goes.
#[derive(Debug)]
enum Block<'a> {
    /// A text block, or an embedded text resource: its text.
    Text(Piece<'a>),
    /// Anything else: an image, audio, a binary resource, a link, an unknown shape.
    Other,
}

/// The text of a block as the host holds it.
#[derive(Debug, Clone, Copy)]
enum Piece<'a> {
    /// A string of a value.
    Plain(&'a str),
    /// A JSON string as it was sent, quotes and escapes included.
    Escaped(&'a RawValue),
}

/// A result's structured content as the host holds it.
#[derive(Debug, Clone, Copy)]
enum Structured<'a> {
    Value(&'a Value),
    /// As it was sent, so every number keeps its digits.
    Text(&'a RawValue),
}

/// What of a final result is stored, before its text is decoded.
#[derive(Debug)]
enum Stored<'a> {
    /// The text blocks, joined with `\n`.
    Texts(Vec<Piece<'a>>),
    Structured(Structured<'a>),
}

impl<'a> Reading<'a> {
    /// Whether it is a final tool result the scratchpad may replace: not an error (`isError:
    /// true`), not a task handle (`CreateTaskResult`), not a request for more input (the
    /// 2026-07-28 `input_required` result, a `resultType` other than `complete`). What it
    /// holds is for [`Reading::to_store`] to judge.
    pub(crate) fn is_final(&self) -> bool {
        self.complete && !self.task && !self.error
    }

    /// The same reading, an error result or not as the host says.
    pub(crate) fn with_error(self, error: bool) -> Reading<'a> {
        Reading { error, ..self }
    }

    /// The text to store of a final result (docs/mcp-proxy.md, "How the relay works"), with
    /// the host's persistence footer (`footer`) cut from the end of text:
    ///
    /// - any block that is not text (an image, audio, a binary resource, a link) → pass
    ///   through, so nothing the model should see is ever lost;
    /// - `structuredContent` → that JSON as the host holds it, unless it only wraps the text
    ///   (one key whose string value equals the joined text blocks), where the text is stored
    ///   instead;
    /// - otherwise the text blocks (and text resources) joined with `\n`; a single block is
    ///   taken as it is, so a block holding JSON is stored as JSON.
    pub(crate) fn normalise(&self, footer: Option<&str>) -> Normalised<'a> {
        match self.to_store() {
            Ok(stored) => stored.into_text(footer),
            Err(why) => Normalised::PassThrough(why),
        }
    }

    /// What [`Reading::normalise`] stores, not yet decoded, or why the result passes through.
    fn to_store(&self) -> Result<Stored<'a>, &'static str> {
        let texts = match &self.content {
            Content::Absent => Vec::new(),
            Content::Blocks(blocks) => blocks
                .iter()
                .map(|block| match block {
                    Block::Text(piece) => Ok(*piece),
                    Block::Other => Err("a content block that is not text"),
                })
                .collect::<Result<_, _>>()?,
            Content::NotArray => return Err("`content` is not an array"),
            Content::Unreadable => return Err("content blocks that cannot be read"),
        };
        if matches!(self.content, Content::Absent) && self.structured.is_none() {
            return Err("neither `content` nor `structuredContent`");
        }
        match self.structured {
            Some(structured) if !wraps_text(structured, &texts) => {
                Ok(Stored::Structured(structured))
            }
            _ => Ok(Stored::Texts(texts)),
        }
    }
}

impl<'a> Stored<'a> {
    /// The text to store: the blocks decoded and joined, the footer cut; structured content as
    /// the host holds it (a value written compactly, text as it was sent).
    fn into_text(self, footer: Option<&str>) -> Normalised<'a> {
        match self {
            Stored::Structured(Structured::Value(value)) => {
                Normalised::Store(Cow::Owned(value.to_string()))
            }
            Stored::Structured(Structured::Text(raw)) => {
                Normalised::Store(Cow::Borrowed(raw.get()))
            }
            Stored::Texts(pieces) => {
                let texts: Option<Vec<Cow<'a, str>>> =
                    pieces.into_iter().map(Piece::decoded).collect();
                let Some(mut texts) = texts else {
                    return Normalised::PassThrough("a text block that cannot be decoded");
                };
                let joined = match texts.len() {
                    1 => texts.swap_remove(0),
                    _ => Cow::Owned(texts.join("\n")),
                };
                Normalised::Store(strip_footer(joined, footer))
            }
        }
    }
}

impl<'a> Piece<'a> {
    /// The text, decoded: borrowed unless it had escapes. `None` for a string whose escapes do
    /// not decode (a lone surrogate).
    fn decoded(self) -> Option<Cow<'a, str>> {
        match self {
            Piece::Plain(text) => Some(Cow::Borrowed(text)),
            Piece::Escaped(raw) => {
                let quoted = raw.get();
                let body = quoted.get(1..quoted.len().saturating_sub(1))?;
                // A JSON string without a backslash is its text between the quotes.
                if body.contains('\\') {
                    serde_json::from_str::<String>(quoted).ok().map(Cow::Owned)
                } else {
                    Some(Cow::Borrowed(body))
                }
            }
        }
    }
}

/// Whether `structuredContent` is only a wrapper around the text blocks: an object with one key
/// whose value is a string equal to the blocks joined with `\n`. Servers do that to satisfy an
/// output schema (`{"content": "<file text>"}` from a file server, `{"result": "..."}` from
/// FastMCP); storing the wrapper would hide the real document inside one escaped string, so the
/// text is stored instead. Compared piece by piece, so a structured result that is not a wrapper
/// never pays for joining the blocks.
fn wraps_text(structured: Structured<'_>, texts: &[Piece<'_>]) -> bool {
    let parsed;
    let value = match structured {
        Structured::Value(value) => value,
        // A value with a number a `Value` cannot hold is no one-string wrapper.
        Structured::Text(raw) => match serde_json::from_str::<Value>(raw.get()) {
            Ok(value) => {
                parsed = value;
                &parsed
            }
            Err(_) => return false,
        },
    };
    let Some(inner) = value
        .as_object()
        .filter(|object| object.len() == 1)
        .and_then(|object| object.values().next())
        .and_then(Value::as_str)
    else {
        return false;
    };
    let mut rest = inner;
    for (i, piece) in texts.iter().enumerate() {
        if i > 0 {
            let Some(after) = rest.strip_prefix('\n') else {
                return false;
            };
            rest = after;
        }
        let Some(text) = piece.decoded() else {
            return false;
        };
        let Some(after) = rest.strip_prefix(text.as_ref()) else {
            return false;
        };
        rest = after;
    }
    rest.is_empty()
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

/// [`crate::Scratchpad::intercept_mcp_text`]: `text` as it goes out, the result at `result`
/// replaced by the pointer's when it is stored. Every result is decided (and so observed); one
/// that cannot be read passes, as an error result does.
pub(crate) fn respond(
    inner: &Session,
    server: &str,
    tool: &str,
    text: String,
    result: Option<Range<usize>>,
) -> String {
    let Some(range) = result.filter(|range| text.get(range.clone()).is_some()) else {
        inner.passed(server, tool);
        return text;
    };
    match judge(inner, server, tool, &text, range.clone()) {
        Judged::AsItCame => text,
        Judged::Replaced(replaced) => replaced,
        Judged::InPlace(plan) => plan.respond(inner, server, tool, text, range),
    }
}

/// What [`judge`] made of a result held as text.
enum Judged {
    /// It passes: the text goes out as it came.
    AsItCame,
    /// It was stored: the text with the pointer's result in its place.
    Replaced(String),
    /// It is one large text block to decode in place before it is decided.
    InPlace(in_place::Plan),
}

/// Decides the result at `range` of `whole` unless it is for [`in_place`] to decode first.
fn judge(inner: &Session, server: &str, tool: &str, whole: &str, range: Range<usize>) -> Judged {
    let Some((reading, members)) = whole.get(range.clone()).and_then(Reading::of_text) else {
        inner.passed(server, tool);
        return Judged::AsItCame;
    };
    // A result that is not final (an error, a task handle, a request for input) passes.
    if !reading.is_final() {
        inner.passed(server, tool);
        return Judged::AsItCame;
    }
    let stored = reading.to_store();
    if let Ok(Stored::Texts(pieces)) = &stored
        && let Some(plan) = in_place::Plan::of(whole, pieces, &members)
    {
        return Judged::InPlace(plan);
    }
    let decided = inner.decide(server, tool, Handling::default(), |footer| match stored {
        Ok(stored) => stored.into_text(footer),
        Err(why) => Normalised::PassThrough(why),
    });
    let Some(pointer) = decided.into_replacement() else {
        return Judged::AsItCame;
    };
    match replacement(&pointer, kept(&members)) {
        Some(result) => Judged::Replaced(format!(
            "{}{result}{}",
            &whole[..range.start],
            &whole[range.end..]
        )),
        None => Judged::AsItCame,
    }
}

/// The members of a stored result that the result replacing it keeps, as they were written:
/// all but its content and structured content, which the pointer replaces.
fn kept<'m>(members: &'m Members<'_>) -> impl Iterator<Item = (&'m str, &'m RawValue)> {
    members
        .iter()
        .map(|(key, raw)| (key.as_str(), *raw))
        .filter(|(key, _)| !matches!(*key, "content" | "structuredContent"))
}

/// The result that replaces a stored one: `pointer` as its one text block, and `kept`, the
/// stored result's other members (`_meta`, extension fields). `None` only if it cannot be
/// written.
fn replacement<'k>(
    pointer: &'k str,
    kept: impl Iterator<Item = (&'k str, &'k RawValue)>,
) -> Option<String> {
    ToolResult::text(pointer).keeping(kept).to_json()
}

#[cfg(test)]
mod tests;
