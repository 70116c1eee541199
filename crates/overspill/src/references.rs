//! `overspill://` references: a stored output handed to another tool as an argument, without
//! the model reading it first.
//!
//! A string argument that is exactly `overspill://<file>`, optionally followed by a JSON path
//! (`#$.items[3]`) or a line range (`#L10-L80`), is replaced by the stored content before the
//! call is forwarded. A string that merely contains `overspill://` inside other text is left
//! alone. The file goes through the same [`ReadRoot`](crate::store::ReadRoot) validation as
//! the exploration tools, so a reference can reach nothing they cannot.

use serde_json::Value;

use crate::json::{JsonPath, Segment};
use crate::scratchpad::Scratchpad;
use crate::store::PathError;

/// The prefix every reference starts with.
pub const REFERENCE_SCHEME: &str = "overspill://";

/// The largest stored file a reference may insert, unless the builder sets another cap
/// ([`ScratchpadBuilder::max_reference_bytes`](crate::ScratchpadBuilder::max_reference_bytes)).
pub const DEFAULT_MAX_REFERENCE_BYTES: u64 = 50 * 1024 * 1024;

/// Why a reference could not be resolved. Every message names the reference and says what to
/// do; nothing is forwarded when resolution fails.
#[derive(Debug, thiserror::Error)]
pub enum RefError {
    /// This scratchpad reads no files (the coordinator).
    #[error(
        "cannot resolve `{}`: this agent has no stored outputs to refer to; pass the content \
         itself",
        shown(.reference)
    )]
    NoReadRoot {
        /// The reference as written.
        reference: String,
    },
    /// The reference does not parse.
    #[error(
        "cannot resolve `{}`: {}; write overspill://<file>, overspill://<file>#$.items[3] or \
         overspill://<file>#L10-L80",
        shown(.reference),
        shown(.reason)
    )]
    Syntax {
        /// The reference as written.
        reference: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The read root refused the file (outside the root, not found, …).
    #[error("cannot resolve `{}`: {code}: {source}", shown(.reference))]
    Path {
        /// The reference as written.
        reference: String,
        /// The error code, as the exploration tools report it (`path_outside_root`, …).
        code: &'static str,
        /// Why the read root refused it.
        #[source]
        source: PathError,
    },
    /// The file could not be read, or is not text.
    #[error("cannot resolve `{}`: cannot read the file: {}", shown(.reference), shown(.reason))]
    Read {
        /// The reference as written.
        reference: String,
        /// What failed.
        reason: String,
    },
    /// The file is larger than the cap.
    #[error(
        "cannot resolve `{}`: the file is {bytes} bytes, over the {cap}-byte limit for \
         references; refer to a part of it with #<json path> or #L<a>-L<b>",
        shown(.reference)
    )]
    TooLarge {
        /// The reference as written.
        reference: String,
        /// The file's size.
        bytes: u64,
        /// The cap.
        cap: u64,
    },
    /// A JSON path into a file that is not JSON.
    #[error(
        "cannot resolve `{}`: the file is not valid JSON ({}); use a line range such as #L1-L20 \
         instead of a JSON path",
        shown(.reference),
        shown(.reason)
    )]
    NotJson {
        /// The reference as written.
        reference: String,
        /// The parser's message.
        reason: String,
    },
    /// The JSON path leads to no value.
    #[error(
        "cannot resolve `{}`: there is no value at {}; check the path with the schema or \
         get_in tool",
        shown(.reference),
        shown(.path)
    )]
    NoValue {
        /// The reference as written.
        reference: String,
        /// The path, canonically written.
        path: String,
    },
    /// The line range is outside the file.
    #[error(
        "cannot resolve `{}`: the file has {lines} lines; pick a range within 1-{lines}",
        shown(.reference)
    )]
    LinesOutOfRange {
        /// The reference as written.
        reference: String,
        /// How many lines the file has.
        lines: usize,
    },
}

/// Characters of a reference (or of a reason quoting it) that an error message shows: a
/// hostile 1 MB reference must not come back whole (issue 22).
pub const MAX_QUOTED_CHARS: usize = 200;

/// `text` as a message quotes it: whole up to [`MAX_QUOTED_CHARS`] characters, else its start
/// and how much was cut.
fn shown(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTED_CHARS) {
        None => text.to_owned(),
        Some((end, _)) => format!(
            "{}…({} more chars)",
            &text[..end],
            text[end..].chars().count()
        ),
    }
}

impl RefError {
    /// The error code: `path_outside_root`, `not_found` or `io_error` for a refused path (as
    /// the exploration tools report them), otherwise `invalid_argument`, `too_large`,
    /// `io_error`, `not_json`, `no_value` or `out_of_range`.
    pub fn code(&self) -> &'static str {
        match self {
            RefError::NoReadRoot { .. } | RefError::Syntax { .. } => "invalid_argument",
            RefError::Path { code, .. } => code,
            RefError::Read { .. } => "io_error",
            RefError::TooLarge { .. } => "too_large",
            RefError::NotJson { .. } => "not_json",
            RefError::NoValue { .. } => "no_value",
            RefError::LinesOutOfRange { .. } => "out_of_range",
        }
    }
}

/// What follows the `#` of a reference.
#[derive(Debug)]
enum Fragment {
    Whole,
    Json(JsonPath),
    /// 1-based, inclusive.
    Lines(usize, usize),
}

/// Whether any string in `args` (at any depth) is a reference, so a caller can skip
/// [`Scratchpad::resolve_references`] and its file work.
pub fn has_references(args: &Value) -> bool {
    match args {
        Value::String(s) => s.starts_with(REFERENCE_SCHEME),
        Value::Array(items) => items.iter().any(has_references),
        Value::Object(map) => map.values().any(has_references),
        _ => false,
    }
}

/// Splits `text` into the file and the fragment; `None` when it is not a reference at all.
fn parse(text: &str) -> Option<Result<(&str, Fragment), String>> {
    let rest = text.strip_prefix(REFERENCE_SCHEME)?;
    Some(parse_rest(rest))
}

fn parse_rest(rest: &str) -> Result<(&str, Fragment), String> {
    let (file, fragment) = match rest.split_once('#') {
        Some((file, fragment)) => (file, Some(fragment)),
        None => (rest, None),
    };
    if file.is_empty() {
        return Err("the file name is missing".to_owned());
    }
    let fragment = match fragment {
        None => Fragment::Whole,
        Some("") => return Err("nothing follows `#`".to_owned()),
        Some(f) if f.starts_with('L') && f.as_bytes().get(1).is_some_and(u8::is_ascii_digit) => {
            parse_lines(f)?
        }
        Some(f) => Fragment::Json(JsonPath::parse(f).map_err(|e| e.to_string())?),
    };
    Ok((file, fragment))
}

fn parse_lines(fragment: &str) -> Result<Fragment, String> {
    let bad = || format!("`#{fragment}` is not a line range such as #L10-L80 or #L7");
    let line = |s: &str| -> Result<usize, String> {
        let digits = s.strip_prefix('L').ok_or_else(bad)?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        digits.parse::<usize>().map_err(|_| bad())
    };
    let (start, end) = match fragment.split_once('-') {
        Some((a, b)) => (line(a)?, line(b)?),
        None => {
            let n = line(fragment)?;
            (n, n)
        }
    };
    if start == 0 || end < start {
        return Err(format!(
            "`#{fragment}`: lines count from 1 and the range must not run backwards"
        ));
    }
    Ok(Fragment::Lines(start, end))
}

/// Whether `schema` declares the top-level argument `key` as `"type": "string"`.
fn declared_type<'a>(schema: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    schema?.get("properties")?.get(key)?.get("type")
}

fn is_string_type(declared: Option<&Value>) -> bool {
    match declared {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(types)) => {
            types.iter().any(|t| t == "string")
                && types.iter().all(|t| t == "string" || t == "null")
        }
        _ => false,
    }
}

/// How the argument holding the reference is declared.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Declared {
    /// `"type": "string"`: insert text.
    String,
    /// Another type: insert a JSON value where there is one.
    Other,
    /// Not declared (or nested): JSON paths insert values, whole files insert text.
    Unknown,
}

fn follow<'v>(mut value: &'v Value, path: &JsonPath) -> Option<&'v Value> {
    for segment in path.segments() {
        value = match (segment, value) {
            (Segment::Key(key), Value::Object(map)) => map.get(key)?,
            (Segment::Index(i), Value::Array(items)) => items.get(usize::try_from(*i).ok()?)?,
            (Segment::FromEnd(n), Value::Array(items)) => {
                let n = usize::try_from(*n).ok()?;
                if n == 0 || n > items.len() {
                    return None;
                }
                &items[items.len() - n]
            }
            _ => return None,
        };
    }
    Some(value)
}

impl Scratchpad {
    /// Replaces every `overspill://` reference in `args` with the stored content it names.
    ///
    /// A string is a reference only when the whole string is one: `overspill://<file>`,
    /// `overspill://<file>#<json path>` or `overspill://<file>#L<a>-L<b>` (or `#L<a>`).
    /// `<file>` is a file name from a pointer or a path relative to the read root, judged
    /// exactly as the exploration tools judge it. What goes in:
    /// - a JSON path: the value there; as compact JSON text (a string value as itself) when
    ///   `input_schema` declares the top-level argument `"type": "string"`;
    /// - a line range: exactly those lines (1-based, inclusive), with their newlines;
    /// - the whole file: its text byte for byte, or its parsed JSON value when the argument is
    ///   declared with a type other than string and the file is JSON.
    ///
    /// # Errors
    /// The first reference that fails, as a [`RefError`] naming it: a refused path
    /// (`path_outside_root`, `not_found`), a file over the size cap, a path to no value, …
    pub fn resolve_references(
        &self,
        args: &Value,
        input_schema: Option<&Value>,
    ) -> Result<Value, RefError> {
        match args {
            Value::Object(map) => {
                let mut out = serde_json::Map::with_capacity(map.len());
                for (key, value) in map {
                    let declared = declared_type(input_schema, key);
                    let declared = if is_string_type(declared) {
                        Declared::String
                    } else if declared.is_some() {
                        Declared::Other
                    } else {
                        Declared::Unknown
                    };
                    out.insert(key.clone(), self.resolve_value(value, declared)?);
                }
                Ok(Value::Object(out))
            }
            other => self.resolve_value(other, Declared::Unknown),
        }
    }

    fn resolve_value(&self, value: &Value, declared: Declared) -> Result<Value, RefError> {
        match value {
            Value::String(text) => match parse(text) {
                None => Ok(value.clone()),
                Some(Err(reason)) => Err(RefError::Syntax {
                    reference: text.clone(),
                    reason,
                }),
                Some(Ok((file, fragment))) => self.resolve_one(text, file, &fragment, declared),
            },
            Value::Array(items) => items
                .iter()
                .map(|item| self.resolve_value(item, Declared::Unknown))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array),
            Value::Object(map) => {
                let mut out = serde_json::Map::with_capacity(map.len());
                for (key, item) in map {
                    out.insert(key.clone(), self.resolve_value(item, Declared::Unknown)?);
                }
                Ok(Value::Object(out))
            }
            other => Ok(other.clone()),
        }
    }

    fn resolve_one(
        &self,
        reference: &str,
        file: &str,
        fragment: &Fragment,
        declared: Declared,
    ) -> Result<Value, RefError> {
        let reference_owned = || reference.to_owned();
        let text = self.read_referenced(reference, file)?;
        match fragment {
            Fragment::Whole => {
                if declared == Declared::Other
                    && let Ok(value) = serde_json::from_str::<Value>(&text)
                {
                    return Ok(value);
                }
                Ok(Value::String(text))
            }
            Fragment::Lines(start, end) => {
                let lines: Vec<&str> = text.split_inclusive('\n').collect();
                if *end > lines.len() {
                    return Err(RefError::LinesOutOfRange {
                        reference: reference_owned(),
                        lines: lines.len(),
                    });
                }
                Ok(Value::String(lines[start - 1..*end].concat()))
            }
            Fragment::Json(path) => {
                let document: Value =
                    serde_json::from_str(&text).map_err(|e| RefError::NotJson {
                        reference: reference_owned(),
                        reason: e.to_string(),
                    })?;
                let found = follow(&document, path).ok_or_else(|| RefError::NoValue {
                    reference: reference_owned(),
                    path: path.to_string(),
                })?;
                Ok(match (declared, found) {
                    (Declared::String, Value::String(_)) => found.clone(),
                    (Declared::String, other) => Value::String(other.to_string()),
                    _ => found.clone(),
                })
            }
        }
    }

    /// The referenced file's text, through the read root and under the size cap.
    fn read_referenced(&self, reference: &str, file: &str) -> Result<String, RefError> {
        let root = self.inner.ctx_root().ok_or_else(|| RefError::NoReadRoot {
            reference: reference.to_owned(),
        })?;
        // Judged and opened in one lookup beneath the root: nothing outside it, and never a
        // FIFO or device waited on.
        let mut handle = root.open(file).map_err(|source| RefError::Path {
            reference: reference.to_owned(),
            code: source.code(),
            source,
        })?;
        let cap = self.inner.max_reference_bytes;
        if handle.len() > cap {
            return Err(RefError::TooLarge {
                reference: reference.to_owned(),
                bytes: handle.len(),
                cap,
            });
        }
        // The size just checked: a file growing meanwhile gives the bytes it had. One
        // rewritten meanwhile is read again at its new size, which is checked once more.
        let bytes = handle.read_to_end().map_err(|e| RefError::Read {
            reference: reference.to_owned(),
            reason: e.to_string(),
        })?;
        if bytes.len() as u64 > cap {
            return Err(RefError::TooLarge {
                reference: reference.to_owned(),
                bytes: bytes.len() as u64,
                cap,
            });
        }
        String::from_utf8(bytes).map_err(|_| RefError::Read {
            reference: reference.to_owned(),
            reason: "it is not UTF-8 text; only text files can be passed by reference".to_owned(),
        })
    }
}

#[cfg(test)]
#[path = "references_tests.rs"]
mod tests;
