//! The natives that turn text into values and back — `fromjson`, `tojson`, `explode` —
//! rewritten to check what they will build before they build it: jaq's `fromjson` recurses
//! once per nesting level of the text (a string nested 1,000,000 deep overflows the stack and
//! aborts the process) and allocates up to 20 times the text, `tojson` recurses on the
//! value, and `explode` makes 16 bytes of array out of each character. They give the values
//! and errors jaq's give, except that a `fromjson` error quotes the text cut short.
//!
//! Characters are counted as jaq counts them: a valid UTF-8 sequence is one character, and
//! so is each maximal invalid one (what `String::from_utf8_lossy` replaces by one U+FFFD).

use jaq_core::box_iter::{BoxIter, box_once};
use jaq_core::native::{Fun, v};
use jaq_core::{Error, Exn, Native, ValX};
use jaq_json::Val;

use super::guard::{
    Data, Tripped, fits_value, halt, limits, once_or_halt, render_json, reserve, trip,
};

/// The natives of this module, by jaq's names.
pub(crate) fn natives() -> Vec<Fun<Data>> {
    vec![
        ("fromjson", v(0), Native::new(|cv| fromjson(cv.1))),
        (
            "tojson",
            v(0),
            Native::new(|cv| once_or_halt(render_json(&cv.1).map(Val::utf8_str))),
        ),
        ("explode", v(0), Native::new(|cv| explode(cv.1))),
    ]
}

/// What jaq's reader allocates per container (the reference-counted vector or map) and per
/// item or entry (its slot, and for entries the key and the hash index), besides the text of
/// strings and numbers (counted by the text's length).
const CONTAINER_BYTES: u64 = 64;
const ITEM_BYTES: u64 = 48;

/// Characters of the text a `fromjson` error quotes.
const QUOTED_CHARS: usize = 40;

fn fromjson<'a>(value: Val) -> BoxIter<'a, ValX<'a, Val>> {
    let Val::TStr(text) = &value else {
        return box_once(Err(Exn::from(Error::typ(value, "string"))));
    };
    let cost = json_text_cost(text);
    let limits = limits();
    if cost.depth > limits.max_nesting {
        let _ = trip(Tripped::Nesting);
        return halt();
    }
    if reserve(cost.bytes).is_err() {
        return halt();
    }
    let mut values = Vec::new();
    for parsed in jaq_json::read::parse_many(text) {
        match parsed {
            Ok(parsed) => values.push(Ok(parsed)),
            Err(error) => {
                let message = format!("cannot parse {} as JSON: {error}", quoted(text));
                // jaq's reader does not move past an error: it is the last result.
                values.push(Err(Exn::from(Error::str(message))));
                break;
            }
        }
    }
    Box::new(values.into_iter())
}

/// What parsing a JSON text takes: how deep it nests and about how many bytes the values
/// will hold.
struct TextCost {
    depth: usize,
    bytes: u64,
}

/// One pass over a JSON text (with jaq's extensions: `#` comments, `b"…"` byte strings)
/// counting its nesting and its values, without parsing it.
fn json_text_cost(text: &[u8]) -> TextCost {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut containers, mut items) = (0u64, 0u64);
    let mut i = 0usize;
    while let Some(&b) = text.get(i) {
        match b {
            b'"' => {
                // Skip the string: its brackets are text.
                i += 1;
                while let Some(&c) = text.get(i) {
                    i += if c == b'\\' { 2 } else { 1 };
                    if c == b'"' {
                        break;
                    }
                }
                continue;
            }
            b'#' => {
                i = memchr::memchr(b'\n', &text[i..]).map_or(text.len(), |n| i + n);
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
                containers += 1;
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b',' | b':' => items += 1,
            _ => {}
        }
        i += 1;
    }
    TextCost {
        depth: deepest,
        bytes: (containers + 1)
            .saturating_mul(CONTAINER_BYTES)
            .saturating_add(items.saturating_mul(ITEM_BYTES))
            .saturating_add(text.len() as u64),
    }
}

/// The start of a text as an error quotes it.
fn quoted(text: &[u8]) -> String {
    let shown: String = String::from_utf8_lossy(&text[..text.len().min(4 * QUOTED_CHARS)])
        .chars()
        .take(QUOTED_CHARS)
        .collect();
    let more = if shown.len() < text.len() { "…" } else { "" };
    format!("{:?}", format!("{shown}{more}"))
}

fn explode<'a>(value: Val) -> BoxIter<'a, ValX<'a, Val>> {
    let Val::TStr(text) = &value else {
        return box_once(Err(Exn::from(Error::typ(value, "string"))));
    };
    // One item per character, and one per byte of an invalid sequence.
    let items: usize = text
        .utf8_chunks()
        .map(|chunk| chunk.valid().chars().count() + chunk.invalid().len())
        .sum();
    let bytes = items as u64 * 16;
    if fits_value(bytes).and_then(|()| reserve(bytes)).is_err() {
        return halt();
    }
    let mut codes = Vec::with_capacity(items);
    for chunk in text.utf8_chunks() {
        codes.extend(chunk.valid().chars().map(|c| Val::from(c as isize)));
        codes.extend(chunk.invalid().iter().map(|&b| Val::from(-isize::from(b))));
    }
    box_once(Ok(codes.into_iter().collect()))
}

/// Converts byte offsets into character indices, for offsets given in increasing order.
pub(crate) struct CharStarts<'t> {
    text: &'t [u8],
    /// The last offset converted and its character index.
    byte: usize,
    index: usize,
}

impl<'t> CharStarts<'t> {
    pub(crate) fn new(text: &'t [u8]) -> CharStarts<'t> {
        CharStarts {
            text,
            byte: 0,
            index: 0,
        }
    }

    /// The index of the character starting at byte `at` (`at` not below the previous one);
    /// `None` when a character starts before `at` and ends after it.
    pub(crate) fn index_of(&mut self, at: usize) -> Option<usize> {
        if at < self.byte {
            return None;
        }
        let between = self.text.get(self.byte..at)?;
        let counted = crate::lossy::char_count(between);
        // `at` starts a character if the text up to it ends on a character boundary: the
        // characters counted up to `at` do not change when one more byte is added at a
        // start, and they do inside a sequence.
        if !starts_character(self.text, at) {
            return None;
        }
        self.index += counted;
        self.byte = at;
        Some(self.index)
    }

    /// The character index of byte offset `at` (not below the previous one), counting a
    /// character that starts before `at` as before it.
    pub(crate) fn index_at(&mut self, at: usize) -> usize {
        if at > self.byte
            && let Some(between) = self.text.get(self.byte..at)
        {
            self.index += crate::lossy::char_count(between);
            self.byte = at;
        }
        self.index
    }
}

/// Whether a character (valid or an invalid sequence) starts at byte `at` of `text`.
fn starts_character(text: &[u8], at: usize) -> bool {
    let continuation = |b: u8| b & 0xC0 == 0x80;
    match text.get(at) {
        None => return true,
        Some(&b) if !continuation(b) => return true,
        Some(_) => {}
    }
    // A continuation byte belongs to the sequence of a lead byte at most 3 bytes before it,
    // if that sequence reaches it; otherwise it stands alone.
    let Some(lead) = (at.saturating_sub(3)..at)
        .rev()
        .find(|&j| !continuation(text[j]))
    else {
        return true;
    };
    let window = &text[lead..text.len().min(lead + 4)];
    let first = window.utf8_chunks().next().map_or(1, |chunk| {
        chunk
            .valid()
            .chars()
            .next()
            .map_or(chunk.invalid().len(), char::len_utf8)
    });
    lead + first <= at
}
