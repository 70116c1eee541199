//! `query`'s document: jaq's value of a stored JSON file, built from the file's tape.
//!
//! jq evaluates over jaq's own values (`jaq_json::Val`), so the file is turned into one once
//! and kept in the file cache (docs/performance.md, "Memory"). It is built from the
//! `overspill_json` tape the other JSON tools already parsed, not by a second JSON reader, and
//! costs as little as jaq's value type allows:
//!
//! - a string without escapes is a slice of the file's bytes (`bytes::Bytes`), not a copy:
//!   each costs its handle, 32 bytes in a box of its own (jaq's string type), and pins the
//!   file's bytes, which the cache holds anyway;
//! - arrays and objects are allocated at their final size (the tape knows it), so nothing is
//!   over-allocated and no hash table is rebuilt as it grows;
//! - numbers are jaq's: an integer is held inline, any other number keeps its text (so `1.10`
//!   prints as written).
//!
//! On the 1,000,000-key object of the hostile bench this is 108 MB where jaq's own reader left
//! 239 MB; see docs/performance.md for the figures. The walk is iterative, so a document as
//! deep as `query` accepts builds without recursing.

use std::borrow::Cow;

use bytes::Bytes;
use jaq_json::{Map, Num, Rc, Val};
use overspill_json::{Entries, Items, Kind, NodeRef, Tape};

use super::QueryError;
use super::guard::{
    ARRAY_BYTES, ENTRY_BYTES, NUMBER_TEXT_BYTES, OBJECT_BYTES, SLOT_BYTES, STRING_BUFFER_BYTES,
    STRING_BYTES,
};

/// A JSON document as jq sees it, built once and shared by every query on it (cloning is a
/// reference count).
#[derive(Debug, Clone)]
pub struct Document(Val);

impl Document {
    /// Parses one JSON document (RFC 8259, as every JSON tool reads it) and builds jq's value
    /// of it.
    ///
    /// # Errors
    /// [`QueryError::Invalid`] when the bytes are not JSON.
    pub fn parse(bytes: &[u8]) -> Result<Document, QueryError> {
        let tape = overspill_json::parse(bytes).map_err(|error| {
            QueryError::Invalid(format!("the file is not JSON jq can read: {error}"))
        })?;
        let src = Bytes::copy_from_slice(bytes);
        Ok(Document::from_tape(&tape, &src).0)
    }

    /// jq's value of the document `tape` was parsed from `src`, and about how many bytes of
    /// memory it holds besides `src` (for the file cache's accounting).
    pub(crate) fn from_tape(tape: &Tape, src: &Bytes) -> (Document, u64) {
        let mut builder = Builder { src, bytes: 0 };
        let value = builder.value(tape.root(src));
        (Document(value), builder.bytes)
    }

    /// The value itself.
    pub(crate) fn into_value(self) -> Val {
        self.0
    }
}

/// A container being filled, with what is left of it on the tape.
enum Open<'a> {
    Array(Vec<Val>, Items<'a>),
    Object(Map, Entries<'a>, Option<Val>),
}

struct Builder<'s> {
    src: &'s Bytes,
    bytes: u64,
}

impl Builder<'_> {
    /// jq's value of `root`, built depth first with an explicit stack.
    fn value(&mut self, root: NodeRef<'_>) -> Val {
        let mut stack: Vec<Open<'_>> = Vec::new();
        let mut next = root;
        loop {
            let mut done = match next.kind() {
                Kind::Array => {
                    let len = container_len(next);
                    self.bytes += ARRAY_BYTES + len as u64 * SLOT_BYTES;
                    stack.push(Open::Array(Vec::with_capacity(len), next.items()));
                    None
                }
                Kind::Object => {
                    let len = container_len(next);
                    self.bytes += OBJECT_BYTES + len as u64 * ENTRY_BYTES;
                    let map = Map::with_capacity_and_hasher(len, Default::default());
                    stack.push(Open::Object(map, next.entries(), None));
                    None
                }
                _ => Some(self.scalar(next)),
            };
            // Hand the finished value to its container, and close every container it
            // completes, until one has more to read.
            loop {
                match stack.last_mut() {
                    None => return done.unwrap_or_default(),
                    Some(Open::Array(items, rest)) => {
                        if let Some(value) = done.take() {
                            items.push(value);
                        }
                        if let Some(item) = rest.next() {
                            next = item;
                            break;
                        }
                    }
                    Some(Open::Object(map, rest, key)) => {
                        if let (Some(value), Some(key)) = (done.take(), key.take()) {
                            // A repeated key keeps its first place and its last value, as
                            // jaq's reader (and jq) read it.
                            map.insert(key, value);
                        }
                        if let Some((k, v)) = rest.next() {
                            *key = Some(self.scalar(k));
                            next = v;
                            break;
                        }
                    }
                }
                done = match stack.pop() {
                    Some(Open::Array(items, _)) => Some(Val::Arr(Rc::new(items))),
                    Some(Open::Object(map, _, _)) => Some(Val::obj(map)),
                    None => None,
                };
            }
        }
    }

    /// A string, number, boolean or null.
    fn scalar(&mut self, node: NodeRef<'_>) -> Val {
        match node.kind() {
            Kind::String => {
                self.bytes += STRING_BYTES;
                match node.str() {
                    // No escape: the token itself, in the source.
                    Cow::Borrowed(raw) => Val::TStr(Box::new(self.src.slice_ref(raw.as_bytes()))),
                    Cow::Owned(decoded) => {
                        self.bytes += STRING_BUFFER_BYTES + decoded.len() as u64;
                        Val::utf8_str(decoded)
                    }
                }
            }
            Kind::Number => {
                let number = number(node.raw_str());
                if !matches!(number, Num::Int(_)) {
                    self.bytes += NUMBER_TEXT_BYTES;
                }
                Val::Num(number)
            }
            Kind::Bool => Val::Bool(node.is_true()),
            Kind::Null | Kind::Object | Kind::Array => Val::Null,
        }
    }
}

/// A container's length as an allocation size (a tape holds fewer than 2^32 nodes).
fn container_len(node: NodeRef<'_>) -> usize {
    usize::try_from(node.len()).unwrap_or(0)
}

/// A number as jaq's reader makes it: an integer (inline, or big), or the decimal text.
fn number(text: &str) -> Num {
    let integer = !text.contains(['.', 'e', 'E']);
    integer
        .then(|| Num::from_str_radix(text, 10))
        .flatten()
        .unwrap_or_else(|| Num::Dec(Rc::new(text.to_owned())))
}

#[cfg(test)]
mod tests;
