//! Companion files: large JSON or Markdown documents hidden inside a top-level string value.
//!
//! Tools often return `{"status": "ok", "body": "{\"items\": [...]}"}` or a report in a
//! `"markdown"` field. Line tools cannot see the structure of an escaped string, so such a value
//! is also stored on its own (docs/storage.md) as `{tool}-{hash}.{slug}.{json|md}`.

use std::collections::HashSet;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::format::{Format, is_markdown};
use crate::name::{count_lines, sanitize_name};
use overspill_json::{Reindent, first_token_byte, reindent};

/// A value must fill at least this many lines (as stored) to get a companion file.
pub const COMPANION_MIN_LINES: usize = 10;

/// At most this many companions per output; an object with more qualifying values keeps the
/// first ones in document order (the pointer could not name more anyway).
pub const MAX_COMPANIONS: usize = 32;

/// A companion file written beside a stored output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Companion {
    /// The top-level key whose string value the file holds.
    pub key: String,
    /// `{tool}-{hash}.{slug}.{json|md}`, in the same directory as the output.
    pub file_name: String,
    /// [`Format::Json`] (stored pretty-printed) or [`Format::Markdown`] (stored as is).
    pub format: Format,
    /// Lines in the companion file.
    pub lines: usize,
    /// Bytes in the companion file.
    pub bytes: u64,
}

/// A companion and the text to write.
#[derive(Debug)]
pub(crate) struct Planned {
    pub(crate) companion: Companion,
    pub(crate) content: String,
}

/// Finds the companions of a JSON object. `members` are the `(key, value)` token ranges of its
/// top-level string members in `input`; `stem` is `{tool}-{hash}`.
pub(crate) fn plan(
    input: &str,
    members: &[(Range<usize>, Range<usize>)],
    stem: &str,
) -> Vec<Planned> {
    let mut taken = HashSet::new();
    let mut planned = Vec::new();
    for (key, value) in members {
        if planned.len() == MAX_COMPANIONS {
            tracing::debug!(
                stem,
                "more than {MAX_COMPANIONS} companion candidates; the rest are not written"
            );
            break;
        }
        let (Some(key), Some(value)) = (decode(input, key), decode(input, value)) else {
            continue;
        };
        let Some((format, content)) = embedded_document(value) else {
            continue;
        };
        let lines = count_lines(&content);
        if lines < COMPANION_MIN_LINES {
            continue;
        }
        let slug = unique_slug(&mut taken, sanitize_name(&key, "value"));
        let companion = Companion {
            file_name: format!("{stem}.{slug}.{}", format.extension()),
            key,
            format,
            lines,
            bytes: content.len() as u64,
        };
        planned.push(Planned { companion, content });
    }
    planned
}

/// The unescaped text of a JSON string token, or `None` if it cannot be a Rust string (a lone
/// surrogate escape).
fn decode(input: &str, token: &Range<usize>) -> Option<String> {
    serde_json::from_str(input.get(token.clone())?).ok()
}

/// The companion content of a string value, if it holds a JSON document or Markdown.
fn embedded_document(value: String) -> Option<(Format, String)> {
    if matches!(first_token_byte(&value), Some(b'{' | b'[')) {
        match reindent(&value) {
            Reindent::Pretty(pretty) => return Some((Format::Json, pretty.text)),
            Reindent::TooLarge => return Some((Format::Json, value)),
            Reindent::Invalid => {}
        }
    }
    is_markdown(&value).then_some((Format::Markdown, value))
}

/// `slug`, or `slug-2`, `slug-3`, … whichever is free first.
fn unique_slug(taken: &mut HashSet<String>, slug: String) -> String {
    if taken.insert(slug.clone()) {
        return slug;
    }
    let mut n = 2u64;
    loop {
        let candidate = format!("{slug}-{n}");
        if taken.insert(candidate.clone()) {
            return candidate;
        }
        n += 1;
    }
}

#[cfg(test)]
mod tests;
