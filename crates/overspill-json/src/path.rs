//! JSON paths as the tools take them (docs/tools.md#1-common-rules): `$`, `$.a.b`, `$.items[3].name`,
//! `$["key.with.dots"]`, and the bare dotted form `items.3.name`.
//!
//! ```
//! use overspill_json::{JsonPath, Segment};
//!
//! let path = JsonPath::parse("items.3.metadata.name").unwrap();
//! assert_eq!(path.to_string(), "$.items[3].metadata.name");
//! assert_eq!(path.segments()[1], Segment::Index(3));
//!
//! let dotted = JsonPath::parse(r#"$.labels["app.kubernetes.io/name"]"#).unwrap();
//! assert_eq!(dotted.to_string(), r#"$.labels["app.kubernetes.io/name"]"#);
//!
//! let error = JsonPath::parse("$.items[3x]").unwrap_err();
//! assert_eq!(error.segment, "[3x]");
//! ```
//!
//! Rules:
//! - a dotted name runs to the next `.` or `[`; a name made only of digits is an array index
//!   (`items.3`), so a key named `"0"` is reached with brackets, `$["0"]`;
//! - brackets hold an index (`[3]`, `[-1]` counts from the end) or a quoted key (`["a.b"]`,
//!   `['a.b']`, JSON escapes inside double quotes);
//! - the `$.` form is canonical: footers and suggestions print paths with [`JsonPath`]'s
//!   `Display`, which brackets any key that would not read back as the same key.

use std::fmt;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Segment {
    /// An object key.
    Key(String),
    /// An array index from the start (0-based).
    Index(u64),
    /// An array index from the end: `FromEnd(1)` is the last item (`[-1]`).
    FromEnd(u64),
}

/// A parsed JSON path: the steps from the document root to a value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct JsonPath {
    segments: Vec<Segment>,
}

/// A path that does not parse; `segment` is the piece that failed, as written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid path `{path}`: {reason} at `{segment}`; paths look like $.items[3].name, \
     $[\"key.with.dots\"] or items.3.name"
)]
pub struct PathSyntaxError {
    /// The whole path as given.
    pub path: String,
    /// The segment that failed, as written.
    pub segment: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl JsonPath {
    /// The root, `$`.
    pub fn root() -> JsonPath {
        JsonPath::default()
    }

    /// A path from its segments.
    pub fn from_segments(segments: Vec<Segment>) -> JsonPath {
        JsonPath { segments }
    }

    /// Parses an absolute path: `$…`, or the bare dotted form.
    ///
    /// # Errors
    /// [`PathSyntaxError`] naming the failing segment.
    pub fn parse(text: &str) -> Result<JsonPath, PathSyntaxError> {
        Parser::new(text).parse()
    }

    /// Parses a path relative to an item (an `iterate_over` field): like [`JsonPath::parse`],
    /// also accepting a leading `.` (`.metadata.name`).
    ///
    /// # Errors
    /// [`PathSyntaxError`] naming the failing segment.
    pub fn parse_relative(text: &str) -> Result<JsonPath, PathSyntaxError> {
        let trimmed = text.trim();
        match trimmed.strip_prefix('.') {
            Some(rest) if !rest.starts_with('.') && !rest.starts_with('[') && !rest.is_empty() => {
                let mut parser = Parser::new(text);
                // Past the leading whitespace and the `.`, measured on `text` itself: the
                // trailing whitespace `trim` dropped must not shift the start (fuzz find).
                parser.offset = text.len() - text.trim_start().len() + 1;
                parser.bare_start = true;
                parser.parse()
            }
            _ => JsonPath::parse(text),
        }
    }

    /// The steps, root first.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Whether this is `$`.
    pub fn is_root(&self) -> bool {
        self.segments.is_empty()
    }

    /// This path followed by `segment`.
    #[must_use]
    pub fn child(&self, segment: Segment) -> JsonPath {
        let mut segments = self.segments.clone();
        segments.push(segment);
        JsonPath { segments }
    }

    /// This path followed by the steps of `relative`.
    #[must_use]
    pub fn join(&self, relative: &JsonPath) -> JsonPath {
        let mut segments = self.segments.clone();
        segments.extend(relative.segments.iter().cloned());
        JsonPath { segments }
    }

    /// The first `n` steps.
    #[must_use]
    pub fn prefix(&self, n: usize) -> JsonPath {
        JsonPath {
            segments: self.segments[..n.min(self.segments.len())].to_vec(),
        }
    }

    /// The path without its leading `$`: `.a.b[3]`, `["x y"]`, or empty for the root —
    /// the form for a field relative to an item.
    pub fn relative_text(&self) -> String {
        let mut out = String::new();
        for segment in &self.segments {
            write_segment(&mut out, segment);
        }
        out
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("$")?;
        f.write_str(&self.relative_text())
    }
}

impl fmt::Display for Segment {
    /// A segment as it appears in a path: `.name`, `["a.b"]`, `[3]`, `[-1]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        write_segment(&mut out, self);
        f.write_str(&out)
    }
}

impl Segment {
    /// The segment as `failed_segment` reports it: a key bare (`name`), an index in
    /// brackets (`[9]`), a key that needs quoting in brackets (`["a.b"]`).
    pub fn describe(&self) -> String {
        match self {
            Segment::Key(key) if is_plain_key(key) => key.clone(),
            other => {
                let mut out = String::new();
                write_segment(&mut out, other);
                out
            }
        }
    }
}

fn write_segment(out: &mut String, segment: &Segment) {
    match segment {
        Segment::Key(key) if is_plain_key(key) => {
            out.push('.');
            out.push_str(key);
        }
        Segment::Key(key) => {
            out.push('[');
            out.push_str(&serde_json::Value::String(key.clone()).to_string());
            out.push(']');
        }
        Segment::Index(i) => out.push_str(&format!("[{i}]")),
        Segment::FromEnd(i) => out.push_str(&format!("[-{i}]")),
    }
}

/// Whether `key` reads back as the same key in dotted form: non-empty, not all digits, and
/// free of the characters that end or open a segment.
pub fn is_plain_key(key: &str) -> bool {
    !key.is_empty()
        && key != "*"
        && !key.bytes().all(|b| b.is_ascii_digit())
        && key.chars().all(|c| {
            !matches!(c, '.' | '[' | ']' | '"' | '\'' | '$' | ',')
                && !c.is_whitespace()
                && !c.is_control()
        })
}

struct Parser<'a> {
    text: &'a str,
    offset: usize,
    bare_start: bool,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        Parser {
            text,
            offset: 0,
            bare_start: false,
        }
    }

    fn error(&self, segment: &str, reason: &'static str) -> PathSyntaxError {
        PathSyntaxError {
            path: self.text.to_owned(),
            segment: segment.to_owned(),
            reason,
        }
    }

    fn parse(mut self) -> Result<JsonPath, PathSyntaxError> {
        let mut segments = Vec::new();
        let full = self.text;
        // Leading and trailing whitespace is a copy-paste accident, not part of a key.
        let lead = full.len() - full.trim_start().len();
        let end = full.trim_end().len();
        if !self.bare_start {
            self.offset = lead;
        }
        let start = self.offset.max(lead);
        let mut rest = if start < end { &full[start..end] } else { "" };
        if rest.is_empty() {
            return Err(self.error(full, "the path is empty (use `$` for the whole document)"));
        }
        let mut bare = self.bare_start;
        if let Some(after) = rest.strip_prefix('$') {
            rest = after;
        } else if !bare {
            if let Some(after_dot) = rest.strip_prefix('.') {
                return Err(self.error(
                    &rest[..segment_end(after_dot) + 1],
                    "a path starts with `$` or a key, not a dot",
                ));
            }
            bare = !rest.starts_with('[');
        }
        if bare {
            // The bare form starts with a name, as if it followed `$.`.
            let len = segment_end(rest);
            segments.push(self.name(&rest[..len])?);
            rest = &rest[len..];
        }
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('.') {
                let len = segment_end(after);
                let written = &rest[..len + 1];
                if len == 0 {
                    let reason = if after.starts_with('[') {
                        "a dot cannot come before brackets (write `a[0]` or `a[\"k\"]`)"
                    } else if after.is_empty() {
                        "the path ends with a dot"
                    } else {
                        "an empty key between two dots"
                    };
                    return Err(self.error(written, reason));
                }
                segments.push(self.name(&after[..len]).map_err(|mut e| {
                    e.segment = written.to_owned();
                    e
                })?);
                rest = &after[len..];
            } else if rest.starts_with('[') {
                let (segment, len) = self.bracket(rest)?;
                segments.push(segment);
                rest = &rest[len..];
            } else {
                let len = segment_end(rest).max(1);
                return Err(self.error(
                    &rest[..rest.ceil_char_boundary(len)],
                    "expected `.key`, `[index]` or `[\"key\"]`",
                ));
            }
        }
        Ok(JsonPath { segments })
    }

    fn name(&self, name: &str) -> Result<Segment, PathSyntaxError> {
        if name.is_empty() {
            return Err(self.error(name, "an empty key"));
        }
        if name == "*" {
            return Err(self.error(
                name,
                "wildcards are not supported (use iterate_over to walk an array)",
            ));
        }
        if name.chars().any(char::is_whitespace) {
            return Err(self.error(
                name,
                "a key with spaces needs brackets and quotes, like [\"my key\"]",
            ));
        }
        if name.contains(['"', '\'', ']']) {
            return Err(self.error(
                name,
                "quotes and `]` belong inside brackets, like [\"key\"]",
            ));
        }
        if name.bytes().all(|b| b.is_ascii_digit()) {
            return parse_index(name)
                .map(Segment::Index)
                .ok_or_else(|| self.error(name, "the index is too large"));
        }
        Ok(Segment::Key(name.to_owned()))
    }

    /// Parses `[…]` at the start of `rest`; returns the segment and the bytes used.
    fn bracket(&self, rest: &str) -> Result<(Segment, usize), PathSyntaxError> {
        let inner = &rest[1..];
        let quote = inner.chars().next();
        if let Some(q @ ('"' | '\'')) = quote {
            let Some(close) = closing_quote(&inner[1..], q) else {
                return Err(self.error(rest, "the quoted key is not closed"));
            };
            let body = &inner[1..1 + close];
            let after = &inner[1 + close + 1..];
            if !after.starts_with(']') {
                let shown = 1 + 1 + close + 1 + after.len().min(1);
                return Err(self.error(
                    &rest[..rest.ceil_char_boundary(shown)],
                    "expected `]` after the quoted key",
                ));
            }
            let used = 1 + 1 + close + 1 + 1;
            let key = if q == '"' {
                serde_json::from_str::<String>(&format!("\"{body}\""))
                    .map_err(|_| self.error(&rest[..used], "invalid escape in the quoted key"))?
            } else {
                body.replace("\\'", "'").replace("\\\\", "\\")
            };
            return Ok((Segment::Key(key), used));
        }
        let Some(close) = inner.find(']') else {
            return Err(self.error(rest, "the bracket is not closed"));
        };
        let body = inner[..close].trim();
        let written = &rest[..close + 2];
        if body.is_empty() || body == "*" {
            return Err(self.error(
                written,
                "wildcards are not supported (use iterate_over to walk an array)",
            ));
        }
        if let Some(digits) = body.strip_prefix('-') {
            return match parse_index(digits) {
                Some(0) | None => Err(self.error(
                    written,
                    "a negative index needs digits, like [-1] for the last item",
                )),
                Some(n) => Ok((Segment::FromEnd(n), close + 2)),
            };
        }
        match parse_index(body) {
            Some(n) => Ok((Segment::Index(n), close + 2)),
            None if body.bytes().all(|b| b.is_ascii_digit()) => {
                Err(self.error(written, "the index is too large"))
            }
            None => Err(self.error(
                written,
                "brackets hold an index like [3] or a quoted key like [\"a.b\"]",
            )),
        }
    }
}

/// Bytes up to the next `.` or `[` (the end of a dotted name).
fn segment_end(text: &str) -> usize {
    text.find(['.', '[']).unwrap_or(text.len())
}

/// The byte offset of the quote closing a key in `text` (which follows the opening quote).
fn closing_quote(text: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == quote {
            return Some(at);
        }
    }
    None
}

fn parse_index(digits: &str) -> Option<u64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests;
