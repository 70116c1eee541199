//! A large tool result's one text block, decoded in place: in the buffer the result arrived in,
//! without a second copy.
//!
//! Decoding a 60 MB JSON string the usual way holds the text it came in, serde_json's unescape
//! buffer and the decoded string at once (about 3× the result); decoding in place holds it once.
//! Only a result the rules would store as one escaped text block of a large text takes this path
//! (a text without escapes is stored straight from the text it came in); the block is decoded
//! only once the result is to be stored, so a result that passes before that goes out as it came.

use std::borrow::Cow;
use std::ops::Range;

use serde_json::value::RawValue;

use super::reading::Members;
use super::{Normalised, Piece, kept, replacement, strip_footer};
use crate::handling::Handling;
use crate::session::Session;

/// Texts at least this long have their one text block decoded in place.
pub(crate) const IN_PLACE_BYTES: usize = 4 << 20;

/// A text block to decode in place, and what the result that replaces it keeps.
pub(crate) struct Plan {
    /// The block's JSON string between its quotes, in the whole text.
    body: Range<usize>,
    /// The result's members, as written: the text they are in is decoded over.
    kept: Vec<(String, Box<RawValue>)>,
}

impl Plan {
    /// The plan for `pieces`, the text blocks of a result of `members` inside `whole`, when
    /// `whole` is at least [`IN_PLACE_BYTES`] and they are one text with escapes that decode
    /// in place.
    pub(crate) fn of(whole: &str, pieces: &[Piece<'_>], members: &Members<'_>) -> Option<Plan> {
        let [Piece::Escaped(raw)] = pieces else {
            return None;
        };
        if whole.len() < IN_PLACE_BYTES {
            return None;
        }
        let quoted = raw.get().as_bytes();
        let body = quoted.get(1..quoted.len().checked_sub(1)?)?;
        if !body.contains(&b'\\') || !overspill_json::escapes_decode(body) {
            return None;
        }
        let start = offset(whole, raw.get())? + 1;
        let kept = kept(members)
            .map(|(key, raw)| (key.to_owned(), raw.to_owned()))
            .collect();
        Some(Plan {
            body: start..start + body.len(),
            kept,
        })
    }

    /// `whole` as it goes out, its result (at `result`) decided: with the pointer's result in
    /// its place when stored; as it came when it passed before the block was decoded; with the
    /// block's text written anew (the same JSON; its escapes may be spelled differently) when
    /// it passed after.
    pub(crate) fn respond(
        self,
        inner: &Session,
        server: &str,
        tool: &str,
        whole: String,
        result: Range<usize>,
    ) -> String {
        let Plan { body, kept } = self;
        let mut bytes = whole.into_bytes();
        let mut decoded_end = None;
        let decided = {
            let (buffer, end) = (&mut bytes, &mut decoded_end);
            let body = body.clone();
            inner.decide(server, tool, Handling::default(), move |footer| {
                let text = decode(buffer, body, end);
                match std::str::from_utf8(text) {
                    Ok(text) => Normalised::Store(strip_footer(Cow::Borrowed(text), footer)),
                    Err(_) => Normalised::PassThrough("a text block that is not UTF-8"),
                }
            })
        };
        let pointer = decided.into_replacement();
        let kept = kept.iter().map(|(key, raw)| (key.as_str(), &**raw));
        let mut out = Vec::new();
        let replaced = pointer
            .as_deref()
            .and_then(|pointer| replacement(pointer, kept));
        match (replaced, decoded_end) {
            (Some(result_text), _) => {
                out.reserve(result.start + result_text.len() + bytes.len() - result.end);
                out.extend_from_slice(&bytes[..result.start]);
                out.extend_from_slice(result_text.as_bytes());
                out.extend_from_slice(&bytes[result.end..]);
            }
            (None, None) => out = bytes,
            (None, Some(end)) => {
                // The quotes around the body are where they were.
                let (open, close) = (body.start - 1, body.end + 1);
                out.reserve(bytes.len() + bytes.len() / 8);
                out.extend_from_slice(&bytes[..open]);
                push_json_string(&mut out, &bytes[body.start..end]);
                out.extend_from_slice(&bytes[close..]);
            }
        }
        // The text was UTF-8 and its escapes were checked, so the output is too; should that
        // ever not hold, it is shown with replacement characters rather than lost.
        String::from_utf8(out)
            .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
    }
}

/// Decodes the JSON string body at `body` of `buffer` in place (unescaping only shrinks it),
/// notes where the decoded text ends, and gives the decoded text.
fn decode<'b>(buffer: &'b mut [u8], body: Range<usize>, end: &mut Option<usize>) -> &'b [u8] {
    let start = body.start;
    let length = overspill_json::unescape_in_place(&mut buffer[body]);
    *end = Some(start + length);
    &buffer[start..start + length]
}

/// Writes `text` as a JSON string (quotes and escapes) at the end of `out`.
fn push_json_string(out: &mut Vec<u8>, text: &[u8]) {
    let text = String::from_utf8_lossy(text);
    if serde_json::to_writer(&mut *out, &text).is_err() {
        // Writing into a `Vec` does not fail; a value's text is the same JSON if it did.
        out.extend_from_slice(
            serde_json::Value::from(text.as_ref())
                .to_string()
                .as_bytes(),
        );
    }
}

/// Where `part` (a slice of `whole`) starts in `whole`.
fn offset(whole: &str, part: &str) -> Option<usize> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    (start + part.len() <= whole.len()).then_some(start)
}

#[cfg(test)]
mod tests;
