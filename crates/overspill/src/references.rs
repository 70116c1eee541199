//! `overspill://` references: a stored output handed to another tool as an argument, without
//! the model reading it first.
//!
//! A string argument that is exactly `overspill://<file>`, optionally followed by a JSON path
//! (`#$.items[3]`) or a line range (`#L10-L80`), is replaced by the stored content before the
//! call is forwarded. A string that merely contains `overspill://` inside other text is left
//! alone. The file goes through the same [`ReadRoot`](crate::store::ReadRoot) validation as
//! the exploration tools, so a reference can reach nothing they cannot; a JSON path is found
//! exactly as `get_in` finds it (the same file cache, path rules and errors), and the value
//! goes in with its tokens as the file writes them.

use serde_json::Value;

use crate::explore::ToolError;
use crate::explore::{ExploreContext, Referenced, referenced_value};
use crate::json::JsonPath;
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
#[non_exhaustive]
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
    #[error("cannot resolve `{}`: {code}: {error}", shown(.reference))]
    Path {
        /// The reference as written.
        reference: String,
        /// The error code, as the exploration tools report it (`path_outside_root`, …).
        code: &'static str,
        /// Why the read root refused it, stated in the message (not returned by `source()`).
        error: PathError,
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
        "cannot resolve `{}`: it names {bytes} bytes, over the {cap}-byte limit for \
         references; refer to a smaller part with #<json path> or #L<a>-L<b>",
        shown(.reference)
    )]
    TooLarge {
        /// The reference as written.
        reference: String,
        /// The size of what it names (the file, or the value at its JSON path).
        bytes: u64,
        /// The cap.
        cap: u64,
    },
    /// The JSON path cannot be followed: what `get_in` answers for the same file and path
    /// (`not_json`, `path_not_found` with `valid_prefix` and `available_keys`, …), its JSON
    /// in the message.
    #[error(
        "cannot resolve `{}`: {}",
        shown(.reference),
        cut(&.error.render(), MAX_TOOL_ERROR_CHARS)
    )]
    Tool {
        /// The reference as written.
        reference: String,
        /// The tool error, stated in the message (not returned by `source()`).
        error: ToolError,
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

/// Characters of a tool error's JSON that a [`RefError::Tool`] message shows: its details
/// fit, a hostile path echoed in them does not make the message grow.
const MAX_TOOL_ERROR_CHARS: usize = 800;

/// `text` as a message quotes it: whole up to [`MAX_QUOTED_CHARS`] characters, else its start
/// and how much was cut.
fn shown(text: &str) -> String {
    cut(text, MAX_QUOTED_CHARS)
}

/// `text` whole up to `max` characters, else its start and how much was cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((end, _)) => format!(
            "{}…({} more chars)",
            &text[..end],
            text[end..].chars().count()
        ),
    }
}

impl RefError {
    /// The error code, as the exploration tools report it: `path_outside_root`, `not_found`
    /// or `io_error` for a refused path; a JSON path's errors as `get_in` gives them
    /// (`not_json`, `path_not_found`, …); `offset_out_of_range` for a line range past the end;
    /// otherwise `invalid_argument`, `too_large` or `io_error`.
    pub fn code(&self) -> String {
        match self {
            RefError::NoReadRoot { .. } | RefError::Syntax { .. } => "invalid_argument".to_owned(),
            RefError::Path { code, .. } => (*code).to_owned(),
            RefError::Read { .. } => "io_error".to_owned(),
            RefError::TooLarge { .. } => "too_large".to_owned(),
            RefError::Tool { error, .. } => error.code(),
            RefError::LinesOutOfRange { .. } => "offset_out_of_range".to_owned(),
        }
    }

    /// The tool error behind a JSON path that cannot be followed, with its details
    /// (`valid_prefix`, `available_keys`, …) in [`ToolError::to_json`].
    pub fn tool_error(&self) -> Option<&ToolError> {
        match self {
            RefError::Tool { error, .. } => Some(error),
            _ => None,
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
        match fragment {
            Fragment::Json(path) => self.resolve_json(reference, file, path, declared),
            Fragment::Whole => {
                let text = self.read_referenced(reference, file)?;
                if declared == Declared::Other
                    && let Ok(value) = serde_json::from_str::<Value>(&text)
                {
                    return Ok(value);
                }
                Ok(Value::String(text))
            }
            Fragment::Lines(start, end) => {
                let text = self.read_referenced(reference, file)?;
                let lines: Vec<&str> = text.split_inclusive('\n').collect();
                if *end > lines.len() {
                    return Err(RefError::LinesOutOfRange {
                        reference: reference_owned(),
                        lines: lines.len(),
                    });
                }
                Ok(Value::String(lines[start - 1..*end].concat()))
            }
        }
    }

    /// The value at `path` in `file`, found as `get_in` finds it.
    fn resolve_json(
        &self,
        reference: &str,
        file: &str,
        path: &JsonPath,
        declared: Declared,
    ) -> Result<Value, RefError> {
        let ctx = self.inner.ctx().ok_or_else(|| RefError::NoReadRoot {
            reference: reference.to_owned(),
        })?;
        let found = referenced_value(ctx, file, path).map_err(|error| RefError::Tool {
            reference: reference.to_owned(),
            error,
        })?;
        let (bytes, value) = match found {
            Referenced::String(text) => (text.len(), Value::String(text)),
            Referenced::Json { text, exact } => {
                let bytes = text.len();
                // A value whose numbers a `serde_json::Value` cannot hold as written (a
                // 30-digit integer, `1e400`) goes in as its exact JSON text.
                let value = match declared {
                    Declared::String => Value::String(text),
                    _ if exact => serde_json::from_str(&text).unwrap_or(Value::String(text)),
                    _ => Value::String(text),
                };
                (bytes, value)
            }
        };
        let cap = self.inner.max_reference_bytes;
        if bytes as u64 > cap {
            return Err(RefError::TooLarge {
                reference: reference.to_owned(),
                bytes: bytes as u64,
                cap,
            });
        }
        Ok(value)
    }

    /// The referenced file's text, through the read root and under the size cap.
    fn read_referenced(&self, reference: &str, file: &str) -> Result<String, RefError> {
        let root =
            self.inner
                .ctx()
                .map(ExploreContext::root)
                .ok_or_else(|| RefError::NoReadRoot {
                    reference: reference.to_owned(),
                })?;
        // Judged and opened in one lookup beneath the root: nothing outside it, and never a
        // FIFO or device waited on.
        let mut handle = root.open(file).map_err(|error| RefError::Path {
            reference: reference.to_owned(),
            code: error.code(),
            error,
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
mod tests;
