//! Tool errors and the one renderer of their JSON (docs/tools.md#1-common-rules).
//!
//! A tool error is not a failure of the call: it is returned to the model as a *successful*
//! tool result holding a JSON object, so the model can read it and react. [`ToolError::render`]
//! is the only place that JSON is produced; snapshot tests below pin every shape.

use overspill_budget::RefusalReason;
use overspill_tokens::TokenCounter;
use serde_json::{Map, Value, json};

use crate::call::Call;

/// Why a tool produced no extraction. Rendered for the model by [`ToolError::render`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The result does not fit the per-call cap or the remaining budget (`<tool>_too_large`).
    #[error(
        "the {} result (~{} tokens) does not fit (per-call limit {}, {} budget tokens left); \
         {}",
        .0.tool, .0.estimated_tokens, .0.per_call_limit, .0.remaining_budget_tokens,
        .0.next_step()
    )]
    TooLarge(Box<TooLarge>),
    /// The file does not exist under the read root (`not_found`).
    #[error("{message}")]
    NotFound {
        /// The file as the caller named it.
        file: String,
        /// What happened and what to do.
        message: String,
    },
    /// A JSON tool was pointed at a file that is not JSON (`not_json`).
    #[error("{message}")]
    NotJson {
        /// The file as the caller named it.
        file: String,
        /// The detected format (`markdown`, `text`).
        format: String,
        /// What happened and what to do.
        message: String,
    },
    /// A JSON path does not lead to a value (`path_not_found`).
    #[error("{}", .0.message)]
    PathNotFound(Box<PathNotFound>),
    /// A JSON path leads to a value that is not an array where one is needed (`not_an_array`).
    #[error("{message}")]
    NotAnArray {
        /// The path in `$.` form.
        path: String,
        /// The kind found there (`object`, `string`, …).
        value_type: String,
        /// What happened and what to do.
        message: String,
    },
    /// An argument is unknown, missing, or has the wrong type or range (`invalid_argument`).
    #[error("{message}")]
    InvalidArgument {
        /// The argument concerned, when one is.
        argument: Option<String>,
        /// What happened and what to do.
        message: String,
        /// For an unknown argument: the ones the tool accepts.
        accepted: Vec<String>,
    },
    /// The path leaves the read root, or is absolute or malformed (`path_outside_root`).
    #[error("{message}")]
    PathOutsideRoot {
        /// The file as the caller named it.
        file: String,
        /// What happened and what to do.
        message: String,
    },
    /// The file exists but could not be read (`io_error`).
    #[error("{message}")]
    Io {
        /// The file as the caller named it.
        file: String,
        /// What happened and what to do.
        message: String,
    },
    /// A window starts past the end of what it pages (`offset_out_of_range`): `get_in`'s
    /// lines of a string.
    #[error("{message}")]
    OffsetOutOfRange {
        /// The argument that is out of range (`offset`).
        argument: String,
        /// Its value.
        offset: u64,
        /// How many units there are.
        total: u64,
        /// What happened and what to do.
        message: String,
    },
    /// A `query` filter ran into one of its evaluation limits (`query_limit`).
    #[error("{message}")]
    QueryLimit {
        /// Which limit: `steps`, `time`, `results`, `recursion`, `value_size`, `memory`,
        /// `nesting`.
        limit: String,
        /// What happened and what to do.
        message: String,
    },
    /// A line tool ran into one of its limits (`<tool>_limit`): `grep`'s time limit.
    #[error("{message}")]
    Limit {
        /// The tool (`grep`).
        tool: String,
        /// Which limit: `time`.
        limit: String,
        /// What happened and what to do.
        message: String,
    },
}

/// The body of a `<tool>_too_large` error.
#[derive(Debug, Clone, PartialEq)]
pub struct TooLarge {
    /// The tool whose result was refused.
    pub tool: String,
    /// Tokens the full result would have cost (measured, or estimated from a sample when the
    /// result was refused before being rendered).
    pub estimated_tokens: u64,
    /// The per-call cap (`max_extraction_tokens`).
    pub per_call_limit: u64,
    /// What remained of the budget when the call was refused.
    pub remaining_budget_tokens: u64,
    /// Which limit it broke: the per-call cap, or (within it) what the budget had left.
    pub reason: RefusalReason,
    /// A ready-to-run smaller call, never the refused call itself; `None` (and no `retry` in
    /// the JSON) when the tools the host exposes have nothing smaller to offer.
    pub retry: Option<Call>,
    /// Plain-words advice.
    pub suggestions: Vec<String>,
}

impl TooLarge {
    /// What the model should do next, in the error's message.
    fn next_step(&self) -> &'static str {
        if self.retry.is_some() {
            "run the retry call instead"
        } else {
            "ask for a smaller part of it"
        }
    }
}

/// The body of a `path_not_found` error.
#[derive(Debug, Clone, PartialEq)]
pub struct PathNotFound {
    /// The full path asked for, in `$.` form.
    pub path: String,
    /// The longest prefix of the path that exists, in `$.` form.
    pub valid_prefix: String,
    /// The first segment that does not.
    pub failed_segment: String,
    /// What the valid prefix holds instead.
    pub found: FoundInstead,
    /// What happened and what to do.
    pub message: String,
}

/// What a path's valid prefix holds, so the model can correct the failed segment.
#[derive(Debug, Clone, PartialEq)]
pub enum FoundInstead {
    /// An object: its keys (rendered as `available_keys`).
    Keys(Vec<String>),
    /// An object with more keys than are listed: the first ones (`available_keys`) and how
    /// many there are (`key_count`).
    KeysCut {
        /// The keys listed.
        keys: Vec<String>,
        /// All its keys.
        total: u64,
    },
    /// An array: its length (rendered as `array_length`).
    ArrayLength(u64),
    /// A scalar: its kind (rendered as `value_type`).
    ValueType(String),
}

impl ToolError {
    /// An `invalid_argument` error about `argument` (or the call as a whole).
    pub fn invalid_argument(argument: Option<&str>, message: impl Into<String>) -> ToolError {
        ToolError::InvalidArgument {
            argument: argument.map(str::to_owned),
            message: message.into(),
            accepted: Vec::new(),
        }
    }

    /// An `invalid_argument` error about the argument `name`, with the message every such
    /// error has: "argument `name`: {reason}" (the reason says what to send instead).
    pub fn bad_argument(name: &str, reason: impl std::fmt::Display) -> ToolError {
        ToolError::invalid_argument(Some(name), format!("argument `{name}`: {reason}"))
    }

    /// The machine-readable code: `head_too_large`, `not_found`, `invalid_argument`, …
    pub fn code(&self) -> String {
        match self {
            ToolError::TooLarge(body) => format!("{}_too_large", body.tool),
            ToolError::NotFound { .. } => "not_found".to_owned(),
            ToolError::NotJson { .. } => "not_json".to_owned(),
            ToolError::PathNotFound(_) => "path_not_found".to_owned(),
            ToolError::NotAnArray { .. } => "not_an_array".to_owned(),
            ToolError::InvalidArgument { .. } => "invalid_argument".to_owned(),
            ToolError::PathOutsideRoot { .. } => "path_outside_root".to_owned(),
            ToolError::Io { .. } => "io_error".to_owned(),
            ToolError::OffsetOutOfRange { .. } => "offset_out_of_range".to_owned(),
            ToolError::QueryLimit { .. } => "query_limit".to_owned(),
            ToolError::Limit { tool, .. } => format!("{tool}_limit"),
        }
    }

    /// The error as the JSON object the model receives; `error` is always the first key.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("error".to_owned(), Value::String(self.code()));
        let message = self.to_string();
        match self {
            ToolError::TooLarge(body) => {
                out.insert("estimated_tokens".to_owned(), json!(body.estimated_tokens));
                out.insert("per_call_limit".to_owned(), json!(body.per_call_limit));
                out.insert(
                    "remaining_budget_tokens".to_owned(),
                    json!(body.remaining_budget_tokens),
                );
                if let Some(retry) = &body.retry {
                    out.insert(
                        "retry".to_owned(),
                        json!({"tool": retry.tool, "arguments": retry.arguments}),
                    );
                }
                out.insert("suggestions".to_owned(), json!(body.suggestions));
                return Value::Object(out);
            }
            ToolError::NotFound { file, .. }
            | ToolError::PathOutsideRoot { file, .. }
            | ToolError::Io { file, .. } => {
                out.insert("file".to_owned(), json!(cut(file, MAX_ECHO_CHARS)));
            }
            ToolError::NotJson { file, format, .. } => {
                out.insert("file".to_owned(), json!(cut(file, MAX_ECHO_CHARS)));
                out.insert("format".to_owned(), json!(format));
            }
            ToolError::PathNotFound(body) => {
                out.insert("path".to_owned(), json!(cut(&body.path, MAX_ECHO_CHARS)));
                out.insert(
                    "valid_prefix".to_owned(),
                    json!(cut(&body.valid_prefix, MAX_ECHO_CHARS)),
                );
                out.insert(
                    "failed_segment".to_owned(),
                    json!(cut(&body.failed_segment, MAX_ECHO_CHARS)),
                );
                match &body.found {
                    FoundInstead::Keys(keys) => out.insert(
                        "available_keys".to_owned(),
                        json!(
                            keys.iter()
                                .map(|k| cut(k, MAX_ECHO_CHARS))
                                .collect::<Vec<_>>()
                        ),
                    ),
                    FoundInstead::KeysCut { keys, total } => {
                        out.insert(
                            "available_keys".to_owned(),
                            json!(
                                keys.iter()
                                    .map(|k| cut(k, MAX_ECHO_CHARS))
                                    .collect::<Vec<_>>()
                            ),
                        );
                        out.insert("key_count".to_owned(), json!(total))
                    }
                    FoundInstead::ArrayLength(n) => out.insert("array_length".to_owned(), json!(n)),
                    FoundInstead::ValueType(kind) => {
                        out.insert("value_type".to_owned(), json!(kind))
                    }
                };
            }
            ToolError::NotAnArray {
                path, value_type, ..
            } => {
                out.insert("path".to_owned(), json!(cut(path, MAX_ECHO_CHARS)));
                out.insert("value_type".to_owned(), json!(value_type));
            }
            ToolError::InvalidArgument { argument, .. } => {
                if let Some(argument) = argument {
                    out.insert("argument".to_owned(), json!(cut(argument, MAX_ECHO_CHARS)));
                }
            }
            ToolError::OffsetOutOfRange {
                argument,
                offset,
                total,
                ..
            } => {
                out.insert("argument".to_owned(), json!(argument));
                out.insert("offset".to_owned(), json!(offset));
                out.insert("total".to_owned(), json!(total));
            }
            ToolError::QueryLimit { limit, .. } | ToolError::Limit { limit, .. } => {
                out.insert("limit".to_owned(), json!(limit));
            }
        }
        out.insert(
            "message".to_owned(),
            Value::String(cut(&message, MAX_MESSAGE_CHARS)),
        );
        if let ToolError::InvalidArgument { accepted, .. } = self
            && !accepted.is_empty()
        {
            out.insert("accepted".to_owned(), json!(accepted));
        }
        Value::Object(out)
    }

    /// The text the model receives: the JSON object on one line.
    pub fn render(&self) -> String {
        self.to_json().to_string()
    }

    /// [`ToolError::render`], made to cost at most `max_tokens` (the per-call cap) as counted
    /// by `counter`: no answer, error or not, may exceed it (issue 22). An error that does
    /// not fit has every value it quotes (file names, paths, keys, retry arguments, the
    /// message) cut to `MAX_CUT_CHARS` characters and lists to `MAX_CUT_ITEMS` entries,
    /// with a `note` saying so; then loses its `suggestions` and `accepted` lists; then is
    /// only its code, the note and the start of its message. A cap too small even for that
    /// gets that last form.
    pub fn render_within(&self, counter: &dyn TokenCounter, max_tokens: u64) -> String {
        let limit = usize::try_from(max_tokens).unwrap_or(usize::MAX);
        let fits = |text: &str| counter.count_up_to(text, limit).is_some();
        let full = self.render();
        if fits(&full) {
            return full;
        }
        let Value::Object(mut fields) = self.to_json() else {
            return full;
        };
        let note = Value::String(format!(
            "long values in this error were cut to fit the per-call cap of {} tokens (each cut \
             one ends in `…(N more chars)`)",
            overspill_budget::thousands(max_tokens)
        ));
        let mut shorter = Map::new();
        for (key, value) in &mut fields {
            if key != "error" && key != "suggestions" {
                cut_values(value);
            }
        }
        for (key, value) in fields {
            shorter.insert(key.clone(), value);
            if key == "error" {
                shorter.insert("note".to_owned(), note.clone());
            }
        }
        let text = Value::Object(shorter.clone()).to_string();
        if fits(&text) {
            return text;
        }
        shorter.remove("suggestions");
        shorter.remove("accepted");
        let text = Value::Object(shorter.clone()).to_string();
        if fits(&text) {
            return text;
        }
        let mut minimal = Map::new();
        minimal.insert("error".to_owned(), Value::String(self.code()));
        minimal.insert("note".to_owned(), note);
        minimal.insert(
            "message".to_owned(),
            Value::String(cut(&self.to_string(), MAX_CUT_CHARS)),
        );
        Value::Object(minimal).to_string()
    }
}

/// Characters each quoted value keeps when an error must be cut to fit the cap.
pub const MAX_CUT_CHARS: usize = 64;

/// Entries each list keeps when an error must be cut to fit the cap.
pub const MAX_CUT_ITEMS: usize = 8;

/// Cuts every string in `value` to [`MAX_CUT_CHARS`] and every list to [`MAX_CUT_ITEMS`].
fn cut_values(value: &mut Value) {
    match value {
        Value::String(text) if text.chars().count() > MAX_CUT_CHARS => {
            *text = cut(text, MAX_CUT_CHARS);
        }
        Value::Array(items) => {
            items.truncate(MAX_CUT_ITEMS);
            items.iter_mut().for_each(cut_values);
        }
        Value::Object(map) => map.values_mut().for_each(cut_values),
        _ => {}
    }
}

/// The most characters of a value the model sent (a file name, a path) that an error quotes
/// back: a hostile 200 KB argument must not come back as a 100,000-token error (docs/security.md).
pub const MAX_ECHO_CHARS: usize = 256;

/// The most characters of an error's `message`.
pub const MAX_MESSAGE_CHARS: usize = 1024;

/// The start of a long value the model sent, as a message quotes it: backquoted, cut at 64
/// characters with how much was left out: `` it starts `a,b,c…(102,336 more chars)` ``.
pub fn quoted_start(text: &str) -> String {
    format!("it starts `{}`", cut(text, MAX_CUT_CHARS))
}

/// `text` whole when it has at most `max` characters, else its start and how much was cut.
fn cut(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max).collect();
    format!("{kept}…({} more chars)", total - max)
}

#[cfg(test)]
mod tests;
