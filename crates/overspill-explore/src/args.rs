//! Tool arguments: a JSON object in, a typed `Args` struct out, and the JSON Schema the model
//! sees, derived from the same struct (docs/tools.md#1-common-rules).
//!
//! A tool's `Args` derives `serde::Deserialize`, `serde::Serialize` and
//! [`schemars::JsonSchema`]; its field docs are the descriptions the model reads. [`schema`]
//! derives the schema (closed, one paragraph per description), and [`parse`] reads a call
//! through it, so what a tool accepts, how it reads it and what it tells the model can never
//! drift apart. Adding a field to an `Args` struct is the whole edit that offers it.
//!
//! [`parse`] gives the model errors it can act on, and accepts what models actually send:
//!
//! - an unknown argument names itself and lists the accepted ones (the schema's properties);
//! - a missing argument is named; `null` means "not given";
//! - an integer may come as a number or a numeric string (`50`, `"50"`, `50.0`), a boolean as
//!   `true` or `"true"`; a wrong-typed or negative value is named, with what was expected.
//!
//! Arguments several tools take are one type each, flattened into the tools' `Args`: the
//! stored file and a path into it ([`Located`]), a page of results ([`Page`]), each generic
//! over the tool that takes it, whose own words describe its arguments ([`Tool::PATH_DOC`],
//! [`Tool::OFFSET_DOC`], [`Tool::LIMIT_DOC`]).
//!
//! ```
//! use overspill_explore::args;
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, Deserialize, Serialize, JsonSchema)]
//! struct Args {
//!     #[schemars(description = args::FILE)]
//!     file: String,
//!     /// How many lines to show.
//!     lines: Option<u64>,
//! }
//!
//! let ok: Args = args::parse("head", &serde_json::json!({"file": "a.txt", "lines": "20"})).unwrap();
//! assert_eq!(ok.lines, Some(20));
//!
//! let err = args::parse::<Args>("head", &serde_json::json!({"file": "a.txt", "lines_count": 5}))
//!     .unwrap_err();
//! assert_eq!(err.to_string(), "unknown argument `lines_count`; head accepts: file, lines");
//!
//! let schema = args::schema::<Args>();
//! assert_eq!(schema["properties"]["lines"]["description"], "How many lines to show.");
//! assert_eq!(schema["additionalProperties"], false);
//! ```

use std::any::TypeId;
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::error::ToolError;
use crate::tool::Tool;

/// What every tool's `file` argument tells the model.
pub const FILE: &str = "The stored file name exactly as the pointer gives it (or a path \
    relative to the readable directory).";

/// Reads `arguments` (a JSON object, or `null` for none) into the tool's `Args`, through the
/// schema [`schema`] derives from it.
///
/// # Errors
/// [`ToolError::InvalidArgument`] naming the offending argument: unknown (with the accepted
/// list), missing, too long, or of the wrong type or range.
pub fn parse<A: DeserializeOwned + JsonSchema + 'static>(
    tool: &str,
    arguments: &Value,
) -> Result<A, ToolError> {
    read(tool, arguments, true)
}

/// [`parse`] without the length limit of string arguments ([`MAX_STRING_BYTES`]), for a tool
/// whose string argument is content it keeps (`write_artifact`'s `content`), not words its
/// answer quotes back.
///
/// # Errors
/// As [`parse`], but for length.
pub fn parse_any_length<A: DeserializeOwned + JsonSchema + 'static>(
    tool: &str,
    arguments: &Value,
) -> Result<A, ToolError> {
    read(tool, arguments, false)
}

fn read<A: DeserializeOwned + JsonSchema + 'static>(
    tool: &str,
    arguments: &Value,
    limit_lengths: bool,
) -> Result<A, ToolError> {
    let mut map = match arguments {
        Value::Null => Map::new(),
        Value::Object(map) => map.clone(),
        other => {
            return Err(ToolError::invalid_argument(
                None,
                format!(
                    "{tool} takes a JSON object of named arguments, not {}; \
                     for example {{\"file\": \"<name from the pointer>\"}}",
                    overspill_json::Kind::of(other).in_words()
                ),
            ));
        }
    };
    if limit_lengths {
        check_lengths(&map)?;
    }
    let schema = schema::<A>();
    let no_properties = Map::new();
    let properties = schema["properties"].as_object().unwrap_or(&no_properties);
    map.retain(|_, value| !value.is_null());
    for (name, value) in &mut map {
        let Some(property) = properties.get(name) else {
            let accepted: Vec<String> = properties.keys().cloned().collect();
            let mut error = ToolError::invalid_argument(
                Some(name),
                format!(
                    "unknown argument `{name}`; {tool} accepts: {}",
                    accepted.join(", ")
                ),
            );
            if let ToolError::InvalidArgument { accepted: list, .. } = &mut error {
                *list = accepted;
            }
            return Err(error);
        };
        *value =
            read_as(value, property).map_err(|message| ToolError::bad_argument(name, message))?;
    }
    A::deserialize(ArgsDeserializer { map }).map_err(|error| error.into_tool_error(tool))
}

/// A call's arguments as the model sent them, JSON text, read into a value once: empty text is
/// `null` (no arguments).
///
/// # Errors
/// `invalid_argument` when the text is not JSON, saying what to send instead.
pub fn from_text(arguments: &str) -> Result<Value, ToolError> {
    if arguments.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(arguments).map_err(|error| {
        ToolError::invalid_argument(
            None,
            format!(
                "the arguments are not valid JSON ({error}); send a JSON object such as \
                 {{\"file\": \"…\"}}"
            ),
        )
    })
}

/// `value` as the type its schema `property` names, read leniently (see the module doc); the
/// message says what was expected when it cannot be.
fn read_as(value: &Value, property: &Value) -> Result<Value, String> {
    let read = match property["type"].as_str() {
        Some("integer") => value.deserialize_any(CountVisitor).map(Value::from),
        Some("boolean") => value.deserialize_any(FlagVisitor).map(Value::from),
        Some("string") => String::deserialize(value).map(Value::from),
        _ => return Ok(value.clone()),
    };
    read.map_err(|error| error.to_string())
}

/// The JSON Schema of a tool's arguments, derived from `A` once and then shared: a closed
/// object (`additionalProperties: false`) whose properties are `A`'s fields (flattened groups
/// included), each with its type, its field doc as a one-paragraph `description`, its range and
/// its default. Optional fields are simply not `required`: `null` is read as "not given"
/// anyway, so no property offers it.
pub fn schema<A: JsonSchema + 'static>() -> Arc<Value> {
    static SCHEMAS: OnceLock<Mutex<HashMap<TypeId, Arc<Value>>>> = OnceLock::new();
    let mut schemas = SCHEMAS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    Arc::clone(
        schemas
            .entry(TypeId::of::<A>())
            .or_insert_with(|| Arc::new(derive_schema::<A>())),
    )
}

/// [`schema`] as a value of its own, as [`crate::Definition::parameters`] builds it.
pub fn owned_schema<A: JsonSchema + 'static>() -> Value {
    Value::clone(&schema::<A>())
}

fn derive_schema<A: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.meta_schema = None;
    settings.inline_subschemas = true;
    let mut root = settings
        .into_generator()
        .into_root_schema_for::<A>()
        .to_value();
    let Value::Object(object) = &mut root else {
        return root;
    };
    object.remove("title");
    object.remove("description");
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for property in properties.values_mut() {
            plain_property(property);
        }
    }
    object.insert(
        "required".to_owned(),
        object
            .get("required")
            .cloned()
            .unwrap_or_else(|| Value::Array(Vec::new())),
    );
    object.insert("additionalProperties".to_owned(), Value::Bool(false));
    root
}

/// One property as the model reads it: its type first (without `null` and without Rust's
/// integer `format`), then its description in one paragraph, then the rest.
fn plain_property(property: &mut Value) {
    let Value::Object(object) = property else {
        return;
    };
    object.remove("format");
    object.remove("title");
    let kind = match object.remove("type") {
        Some(Value::Array(kinds)) => kinds.into_iter().find(|kind| kind != "null"),
        other => other,
    };
    let description = object.remove("description").map(|text| match text {
        Value::String(text) => Value::String(text.split_whitespace().collect::<Vec<_>>().join(" ")),
        other => other,
    });
    let rest = std::mem::take(object);
    object.extend(kind.map(|kind| ("type".to_owned(), kind)));
    object.extend(description.map(|text| ("description".to_owned(), text)));
    object.extend(rest);
}

/// The stored file and a path into its JSON document: the arguments of every tool that reads
/// one value or one array.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(bound = "")]
#[schemars(bound = "D: Tool")]
pub struct Located<D: Tool> {
    /// The stored file (its description: [`FILE`]).
    #[schemars(description = FILE)]
    pub file: String,
    /// Where in the file's document (its description: the tool's [`Tool::PATH_DOC`]).
    #[schemars(description = D::PATH_DOC)]
    pub path: String,
    #[serde(skip)]
    #[schemars(skip)]
    describe: PhantomData<fn() -> D>,
}

impl<D: Tool> Located<D> {
    /// `path` in `file`.
    pub fn new(file: impl Into<String>, path: impl Into<String>) -> Located<D> {
        Located {
            file: file.into(),
            path: path.into(),
            describe: PhantomData,
        }
    }

    /// The same place, as the arguments of the tool `E` (a retry that switches tools).
    pub fn for_tool<E: Tool>(&self) -> Located<E> {
        Located::new(self.file.clone(), self.path.clone())
    }
}

/// A page of what stands at a path of a stored file (`file`, `path`, `offset`, `limit`): the
/// whole arguments of a tool that reads one value or array in pages (`get_in`, `item_schema`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(bound = "")]
#[schemars(bound = "D: Tool")]
pub struct PagedAt<D: Tool> {
    /// The file and the path.
    #[serde(flatten)]
    pub at: Located<D>,
    /// The page of what is there.
    #[serde(flatten)]
    pub page: Page<D>,
}

/// A page of a tool's results: `offset` units skipped, at most `limit` shown (all when absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(bound = "")]
#[schemars(bound = "D: Tool")]
pub struct Page<D: Tool> {
    /// The first unit shown, 0-based (its description: the tool's [`Tool::OFFSET_DOC`]).
    #[serde(default)]
    #[schemars(description = D::OFFSET_DOC)]
    pub offset: u64,
    /// The most units shown; all when absent (its description: [`Tool::LIMIT_DOC`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = D::LIMIT_DOC, range(min = 1))]
    pub limit: Option<u64>,
    #[serde(skip)]
    #[schemars(skip)]
    describe: PhantomData<fn() -> D>,
}

impl<D: Tool> Page<D> {
    /// `limit` units from `offset`.
    pub fn new(offset: u64, limit: Option<u64>) -> Page<D> {
        Page {
            offset,
            limit,
            describe: PhantomData,
        }
    }

    /// Refuses a `limit` of 0, which could show nothing.
    ///
    /// # Errors
    /// `invalid_argument` naming `limit`.
    pub fn check(&self) -> Result<(), ToolError> {
        match self.limit {
            Some(0) => Err(ToolError::bad_argument(
                "limit",
                "must be at least 1 (leave it out to take everything)",
            )),
            _ => Ok(()),
        }
    }

    /// Whether the page is the whole sequence: no offset, no limit.
    pub fn is_everything(&self) -> bool {
        self.offset == 0 && self.limit.is_none()
    }
}

impl<D: Tool> Default for Page<D> {
    fn default() -> Page<D> {
        Page::new(0, None)
    }
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

/// The argument names `A` accepts, in declaration order: the properties of its [`schema`].
pub fn accepted<A: JsonSchema + 'static>() -> Vec<String> {
    schema::<A>()["properties"]
        .as_object()
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// What went wrong while reading one tool's arguments.
#[derive(Debug)]
enum ArgError {
    Missing { name: &'static str },
    Invalid { name: String, message: String },
    Other(String),
}

impl ArgError {
    fn into_tool_error(self, tool: &str) -> ToolError {
        match self {
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

#[cfg(test)]
mod tests;
