//! Tool arguments: a JSON object in, a typed `Args` struct out (docs/tools.md#1-common-rules).
//!
//! Every tool's `Args` derives `serde::Deserialize` with `#[serde(deny_unknown_fields)]` and is
//! read through [`parse`], which gives the model errors it can act on:
//!
//! - an unknown argument names itself and lists the accepted ones (taken from the derive, so the
//!   list never drifts from the struct);
//! - a missing argument is named;
//! - a wrong-typed or negative value is named, with what was expected.
//!
//! Field helpers ([`count`], [`opt_count`], [`flag`]) accept what models actually send:
//! integers as numbers or numeric strings (`50`, `"50"`, `50.0`), booleans as `true` or
//! `"true"`, and `null` for "not given".
//!
//! ```
//! use overspill_explore::args;
//! use serde::Deserialize;
//!
//! #[derive(Debug, Deserialize)]
//! #[serde(deny_unknown_fields)]
//! struct Args {
//!     file: String,
//!     #[serde(default, deserialize_with = "args::opt_count")]
//!     lines: Option<u64>,
//! }
//!
//! let ok: Args = args::parse("head", &serde_json::json!({"file": "a.txt", "lines": "20"})).unwrap();
//! assert_eq!(ok.lines, Some(20));
//!
//! let err = args::parse::<Args>("head", &serde_json::json!({"file": "a.txt", "lines_count": 5}))
//!     .unwrap_err();
//! assert_eq!(err.to_string(), "unknown argument `lines_count`; head accepts: file, lines");
//! ```

use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::error::ToolError;

/// Reads `arguments` (a JSON object, or `null` for none) into the tool's `Args`.
///
/// # Errors
/// [`ToolError::InvalidArgument`] naming the offending argument: unknown (with the accepted
/// list), missing, or of the wrong type or range.
pub fn parse<A: DeserializeOwned>(tool: &str, arguments: &Value) -> Result<A, ToolError> {
    let map = match arguments {
        Value::Null => Map::new(),
        Value::Object(map) => map.clone(),
        other => {
            return Err(ToolError::invalid_argument(
                None,
                format!(
                    "{tool} takes a JSON object of named arguments, not {}; \
                     for example {{\"file\": \"<name from the pointer>\"}}",
                    value_kind(other)
                ),
            ));
        }
    };
    check_lengths(&map)?;
    A::deserialize(ArgsDeserializer { map }).map_err(|error| error.into_tool_error(tool))
}

/// The longest string argument accepted, in bytes (a jq filter, a field list, a JSON path).
pub const MAX_STRING_BYTES: usize = 4_096;

/// The longest `file` argument accepted, in bytes: every cut-line note quotes it.
pub const MAX_FILE_BYTES: usize = 1_024;

/// Refuses a string argument longer than its limit before any tool reads it: a tool quotes
/// its arguments (footers, notes, retries), so a 100 KB argument would flood every answer.
fn check_lengths(map: &Map<String, Value>) -> Result<(), ToolError> {
    for (name, value) in map {
        let Value::String(text) = value else {
            continue;
        };
        let max = if name == "file" {
            MAX_FILE_BYTES
        } else {
            MAX_STRING_BYTES
        };
        if text.len() > max {
            return Err(ToolError::invalid_argument(
                Some(name),
                format!(
                    "argument `{name}` is {} bytes long, over the {}-byte limit ({}); send a \
                     shorter value",
                    crate::numbered::thousands(text.len() as u64),
                    crate::numbered::thousands(max as u64),
                    crate::error::quoted_start(text)
                ),
            ));
        }
    }
    Ok(())
}

/// The argument names a derived `Args` struct accepts, in declaration order.
///
/// Read from the `Deserialize` derive itself, so it is exactly what [`parse`] accepts. The
/// registry uses it to check every tool's JSON Schema against its struct.
pub fn accepted<A: DeserializeOwned>() -> Vec<&'static str> {
    // A key no struct declares makes the derive report its whole field list.
    let probe = Map::from_iter([("\u{0}".to_owned(), Value::Null)]);
    match A::deserialize(ArgsDeserializer { map: probe }) {
        Err(ArgError::Unknown { accepted, .. }) => accepted.to_vec(),
        _ => Vec::new(),
    }
}

/// Deserializes a non-negative integer given as a number (`50`, `50.0`) or a numeric string
/// (`"50"`). Use with `#[serde(deserialize_with = "args::count")]`.
///
/// # Errors
/// A message saying what was expected and what came instead (negative, fractional, text).
pub fn count<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    deserializer.deserialize_any(CountVisitor)
}

/// Like [`count`], with `null` meaning "not given". Use with
/// `#[serde(default, deserialize_with = "args::opt_count")]`.
///
/// # Errors
/// As [`count`].
pub fn opt_count<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    deserializer.deserialize_any(OptionVisitor(CountVisitor))
}

/// Deserializes a boolean given as `true`/`false` or `"true"`/`"false"`. Use with
/// `#[serde(deserialize_with = "args::flag")]`.
///
/// # Errors
/// A message saying a boolean was expected.
pub fn flag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    deserializer.deserialize_any(FlagVisitor)
}

/// Like [`flag`], with `null` meaning "not given".
///
/// # Errors
/// As [`flag`].
pub fn opt_flag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    deserializer.deserialize_any(OptionVisitor(FlagVisitor))
}

/// What went wrong while reading one tool's arguments.
#[derive(Debug)]
enum ArgError {
    Unknown {
        name: String,
        accepted: &'static [&'static str],
    },
    Missing {
        name: &'static str,
    },
    Invalid {
        name: String,
        message: String,
    },
    Other(String),
}

impl ArgError {
    fn into_tool_error(self, tool: &str) -> ToolError {
        match self {
            ArgError::Unknown { name, accepted } => {
                let mut error = ToolError::invalid_argument(
                    Some(&name),
                    format!(
                        "unknown argument `{name}`; {tool} accepts: {}",
                        accepted.join(", ")
                    ),
                );
                if let ToolError::InvalidArgument { accepted: list, .. } = &mut error {
                    *list = accepted.iter().map(|&a| a.to_owned()).collect();
                }
                error
            }
            ArgError::Missing { name } => ToolError::invalid_argument(
                Some(name),
                format!("{tool} needs the argument `{name}`"),
            ),
            ArgError::Invalid { name, message } => ToolError::bad_argument(&name, message),
            ArgError::Other(message) => ToolError::invalid_argument(None, message),
        }
    }
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgError::Unknown { name, .. } => write!(f, "unknown argument `{name}`"),
            ArgError::Missing { name } => write!(f, "missing argument `{name}`"),
            ArgError::Invalid { name, message } => write!(f, "argument `{name}`: {message}"),
            ArgError::Other(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for ArgError {}

impl de::Error for ArgError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        ArgError::Other(msg.to_string())
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        ArgError::Unknown {
            name: field.to_owned(),
            accepted: expected,
        }
    }

    fn missing_field(field: &'static str) -> Self {
        ArgError::Missing { name: field }
    }
}

/// Feeds an argument map to a derived struct, remembering which key each value belongs to so
/// a value error can name its argument.
struct ArgsDeserializer {
    map: Map<String, Value>,
}

impl<'de> Deserializer<'de> for ArgsDeserializer {
    type Error = ArgError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, ArgError> {
        visitor.visit_map(Fields {
            entries: self.map.into_iter(),
            pending: None,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct Fields {
    entries: serde_json::map::IntoIter,
    pending: Option<(String, Value)>,
}

impl<'de> MapAccess<'de> for Fields {
    type Error = ArgError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, ArgError> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        let parsed = seed.deserialize(key.as_str().into_deserializer())?;
        self.pending = Some((key, value));
        Ok(Some(parsed))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, ArgError> {
        let Some((name, value)) = self.pending.take() else {
            return Err(ArgError::Other(
                "an argument value came without its name".to_owned(),
            ));
        };
        seed.deserialize(value).map_err(|error| ArgError::Invalid {
            name,
            message: error.to_string(),
        })
    }
}

struct CountVisitor;

impl<'de> Visitor<'de> for CountVisitor {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a non-negative integer such as 50 (a numeric string like \"50\" also works)")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        Ok(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        u64::try_from(v).map_err(|_| E::custom(format!("must not be negative, got {v}")))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
        if v < 0.0 {
            return Err(E::custom(format!("must not be negative, got {v}")));
        }
        // Exact integers only, and only where f64 still counts in ones.
        if v.is_finite() && v.fract() == 0.0 && v <= 9_007_199_254_740_992.0 {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            return Ok(v as u64);
        }
        Err(E::custom(format!("expected a whole number, got {v}")))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        let text = v.trim();
        if let Ok(n) = text.parse::<u64>() {
            return Ok(n);
        }
        if text.parse::<i64>().is_ok_and(|n| n < 0) {
            return Err(E::custom(format!("must not be negative, got {text}")));
        }
        if text.chars().all(|c| c.is_ascii_digit()) && !text.is_empty() {
            return Err(E::custom(format!("{text} is too large")));
        }
        Err(E::custom(format!(
            "expected a non-negative integer such as 50, got the text {}",
            Value::String(v.to_owned())
        )))
    }
}

struct FlagVisitor;

impl<'de> Visitor<'de> for FlagVisitor {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("true or false")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        Ok(v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        match v.trim() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(E::custom(format!(
                "expected true or false, got the text {}",
                Value::String(v.to_owned())
            ))),
        }
    }
}

/// Wraps a visitor so that `null` reads as `None`.
struct OptionVisitor<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for OptionVisitor<V> {
    type Value = Option<V::Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self.0).map(Some)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        self.0.visit_bool(v).map(Some)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        self.0.visit_u64(v).map(Some)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        self.0.visit_i64(v).map(Some)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        self.0.visit_f64(v).map(Some)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.0.visit_str(v).map(Some)
    }
}

/// Deserializes any JSON value unchanged; handy for `Args` fields that take structured input.
pub fn any_value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    Value::deserialize(deserializer)
}

/// "a string", "an array", … for messages about a JSON value of the wrong kind.
pub(crate) fn value_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests;
