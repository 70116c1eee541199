//! A tool result read into what the contract's rules look at ([`Reading`]), from the value a
//! host holds or from the JSON text a relay holds. Reading is all that differs between the two;
//! the rules are `mcp_result.rs`'s.
//!
//! Text is read member by member on borrowed [`RawValue`]s: nothing is copied, a number keeps
//! the text it was sent as, and a block's text stays an escaped JSON string until it is stored.

use indexmap::IndexMap;
use serde_json::Value;
use serde_json::value::RawValue;

use super::write::{COMPLETE, RESULT_TYPE};
use super::{Block, Content, Piece, Reading, Structured};

/// An object's members in order, each as the text it was sent as.
pub(crate) type Members<'a> = IndexMap<String, &'a RawValue>;

impl<'a> Reading<'a> {
    /// A result a host holds as a value; `None` for a value that is not an object.
    pub(crate) fn of_value(result: &'a Value) -> Option<Reading<'a>> {
        let object = result.as_object()?;
        let content = match object.get("content") {
            None => Content::Absent,
            Some(Value::Null) => Content::Blocks(Vec::new()),
            Some(Value::Array(blocks)) => Content::Blocks(blocks.iter().map(value_block).collect()),
            Some(_) => Content::NotArray,
        };
        Some(Reading {
            complete: object
                .get(RESULT_TYPE)
                .is_none_or(|kind| kind.as_str() == Some(COMPLETE)),
            task: object.contains_key("task"),
            error: object.get("isError").and_then(Value::as_bool) == Some(true),
            content,
            structured: object
                .get("structuredContent")
                .filter(|structured| !structured.is_null())
                .map(Structured::Value),
        })
    }

    /// A result held as JSON text, with its members; `None` for text that is not a JSON
    /// object.
    pub(crate) fn of_text(result: &'a str) -> Option<(Reading<'a>, Members<'a>)> {
        let members: Members<'a> = serde_json::from_str(result).ok()?;
        let content = match members.get("content") {
            None => Content::Absent,
            Some(raw) => text_content(raw),
        };
        let reading = Reading {
            complete: members
                .get(RESULT_TYPE)
                .is_none_or(|raw| string(raw).as_deref() == Some(COMPLETE)),
            task: members.contains_key("task"),
            error: members
                .get("isError")
                .is_some_and(|raw| raw.get().trim() == "true"),
            content,
            structured: members
                .get("structuredContent")
                .filter(|raw| raw.get().trim() != "null")
                .map(|raw| Structured::Text(raw)),
        };
        Some((reading, members))
    }
}

/// A block of a value: its text for a text block or an embedded text resource.
fn value_block(block: &Value) -> Block<'_> {
    let text = match block.get("type").and_then(Value::as_str) {
        Some("text") => block.get("text").and_then(Value::as_str),
        Some("resource") => block
            .get("resource")
            .filter(|resource| resource.get("blob").is_none())
            .and_then(|resource| resource.get("text"))
            .and_then(Value::as_str),
        _ => None,
    };
    text.map_or(Block::Other, |text| Block::Text(Piece::Plain(text)))
}

/// `content` as it was sent: an array of blocks, `null` (none), or something else.
fn text_content(raw: &RawValue) -> Content<'_> {
    match raw.get().trim_start().as_bytes().first() {
        // Read in one pass when every block is an object, as they are.
        Some(b'[') => match serde_json::from_str::<Vec<Sent<'_>>>(raw.get()) {
            Ok(blocks) => Content::Blocks(blocks.into_iter().map(Sent::block).collect()),
            Err(_) => match serde_json::from_str::<Vec<&RawValue>>(raw.get()) {
                Ok(blocks) => Content::Blocks(blocks.into_iter().map(text_block).collect()),
                Err(_) => Content::Unreadable,
            },
        },
        Some(b'n') => Content::Blocks(Vec::new()),
        _ => Content::NotArray,
    }
}

/// The members of a block as it was sent that say what it is; a `null` one says nothing.
#[derive(serde::Deserialize)]
struct Sent<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<&'a RawValue>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    #[serde(borrow)]
    resource: Option<&'a RawValue>,
}

/// A block as it was sent, one that may not be an object.
fn text_block(raw: &RawValue) -> Block<'_> {
    serde_json::from_str::<Sent<'_>>(raw.get()).map_or(Block::Other, Sent::block)
}

impl<'a> Sent<'a> {
    /// Its text, still escaped, for a text block or an embedded text resource.
    fn block(self) -> Block<'a> {
        let text = match self.kind.and_then(string).as_deref() {
            Some("text") => self.text,
            // A resource with a `blob`, even a `null` one, is binary.
            Some("resource") => self
                .resource
                .and_then(|resource| serde_json::from_str::<Members<'_>>(resource.get()).ok())
                .filter(|resource| !resource.contains_key("blob"))
                .and_then(|resource| resource.get("text").copied()),
            _ => None,
        };
        match text {
            Some(text) if text.get().starts_with('"') => Block::Text(Piece::Escaped(text)),
            _ => Block::Other,
        }
    }
}

/// A short member's string, decoded; `None` for any other JSON.
fn string(raw: &RawValue) -> Option<std::borrow::Cow<'_, str>> {
    serde_json::from_str::<std::borrow::Cow<'_, str>>(raw.get()).ok()
}
