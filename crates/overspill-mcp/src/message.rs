//! JSON-RPC 2.0 messages as the relay sees them: the text exactly as it arrived, and only as
//! much of it parsed as routing needs (its kind, id and method).
//!
//! The envelope is read with borrowed [`RawValue`]s, so a 60 MB result is scanned once and
//! nothing inside it is copied; a message the relay does not change is forwarded as its
//! original text.

pub(crate) mod envelope;

use std::ops::Range;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

pub(crate) use envelope::result_range;
use envelope::{Envelope, span};

use crate::revision::Revision;

/// JSON-RPC: the text is not JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: JSON, but not a request, notification or response.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: no such method.
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: the method's parameters are wrong.
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: the proxy failed inside.
pub(crate) const INTERNAL_ERROR: i64 = -32603;
/// The upstream server's connection is gone (the code the MCP SDKs use for a closed
/// connection).
pub(crate) const CONNECTION_CLOSED: i64 = -32000;
/// The upstream server did not answer in time (the SDKs' request-timeout code).
pub(crate) const REQUEST_TIMEOUT: i64 = -32001;

/// A request id as a map key: the number `1` and the string `"1"` are different ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Id {
    Number(String),
    Text(String),
}

impl Id {
    /// The id of a JSON value, when it is one JSON-RPC allows (a string or a number).
    pub(crate) fn of(value: &Value) -> Option<Id> {
        match value {
            Value::Number(number) => Some(Id::Number(number.to_string())),
            Value::String(text) => Some(Id::Text(text.clone())),
            _ => None,
        }
    }

    /// The id as JSON, as [`Id::of`] read it.
    pub(crate) fn value(&self) -> Value {
        match self {
            Id::Number(number) => serde_json::from_str(number).unwrap_or(Value::Null),
            Id::Text(text) => Value::String(text.clone()),
        }
    }
}

/// What a message is, as far as routing goes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// A request: it expects a response with the same id.
    Request { id: Id, method: String },
    /// A notification: no id, no response.
    Notification { method: String },
    /// A response (a result or an error) to the request with this id; `None` for the error
    /// answer to a message whose id could not be read. `error`: it is an error response.
    Response { id: Option<Id>, error: bool },
}

/// One message: its text as received and its routing head.
#[derive(Debug, Clone)]
pub(crate) struct Message {
    /// The message's JSON text, unchanged. A new text is given with [`Message::with_id`] or
    /// [`Message::set_text`], which keep what was read of it true.
    pub(crate) text: String,
    pub(crate) kind: Kind,
    /// The id as it was written (for answers the relay writes itself).
    pub(crate) id: Value,
    /// The revision a request names in `params._meta` (2026-07-28 and later; `None` for a
    /// request of a session, which named its revision in `initialize`, and for anything else).
    pub(crate) revision: Option<Revision>,
    /// What routing reads of a request's params, read with its envelope: the progress token
    /// it gave, and what it names (`params.name`, or `params.uri`).
    pub(crate) head: RequestHead,
    /// Where parts of `text` are, found when the envelope was read: so that replacing the id,
    /// or reading a call's arguments, does not parse the message again.
    places: Places,
}

/// Where the id and a request's `params.arguments` are in a message's text (`None`: absent, or
/// not known since the text was replaced).
#[derive(Debug, Clone, Default)]
struct Places {
    id: Option<Range<usize>>,
    arguments: Option<Range<usize>>,
}

impl Message {
    /// The message with its id replaced by `id` (in its text, its [`Kind`] and
    /// [`Message::id`]), the rest of its text exactly as it was: the old id's text is cut out
    /// and the new one put in its place, at the place read with the envelope.
    pub(crate) fn with_id(self, id: Value) -> Message {
        let written = id.to_string();
        let old = self.places.id.clone();
        let (text, places) = match old.filter(|old| self.text.get(old.clone()).is_some()) {
            Some(old) => {
                let shift = |range: Range<usize>| {
                    if range.start >= old.end {
                        (range.start + written.len() - old.len())
                            ..(range.end + written.len() - old.len())
                    } else {
                        range
                    }
                };
                let places = Places {
                    id: Some(old.start..old.start + written.len()),
                    arguments: self.places.arguments.clone().map(shift),
                };
                (splice(&self.text, old, &written), places)
            }
            None => (with_id(self.text, &id), Places::default()),
        };
        let kind = match (self.kind, Id::of(&id)) {
            (Kind::Request { method, .. }, Some(key)) => Kind::Request { id: key, method },
            (Kind::Response { error, .. }, key) => Kind::Response { id: key, error },
            (kind, _) => kind,
        };
        Message {
            text,
            kind,
            id,
            places,
            ..self
        }
    }

    /// Gives the message a new text (the same message, changed by the caller: a tool renamed,
    /// a reference rewritten); the places read in the old text are forgotten.
    pub(crate) fn set_text(&mut self, text: String) {
        self.text = text;
        self.places = Places::default();
    }

    /// A request's `params.arguments` as written (any JSON; `None` when absent), read with the
    /// envelope, or read again when the text was replaced since.
    pub(crate) fn arguments(&self) -> Option<&str> {
        if let Some(place) = &self.places.arguments {
            return self.text.get(place.clone());
        }
        let envelope = Envelope::read(&self.text).ok()?;
        let (_, _, arguments) = read_params(envelope.params?);
        arguments.map(RawValue::get)
    }
}

/// What routing reads of a request's params (empty for any other message).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RequestHead {
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]` as written, a version the
    /// proxy knows or not ([`Message::revision`] is the one it knows).
    pub(crate) version: Option<String>,
    /// `params._meta.progressToken`.
    pub(crate) progress: Option<Value>,
    /// `params.name` (a tool or prompt).
    pub(crate) name: Option<String>,
    /// `params.uri` (a resource).
    pub(crate) uri: Option<String>,
    /// `params.task` is there: the client asks for the request to run as a task, and only
    /// then may its answer be a task handle (MCP 2025-11-25, tasks).
    pub(crate) task: bool,
}

/// A message that cannot be routed, with the JSON-RPC error that answers it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Invalid {
    /// The id to answer with (`null` when none could be read).
    pub(crate) id: Value,
    pub(crate) code: i64,
    pub(crate) message: String,
}

impl Invalid {
    /// The error response for it.
    pub(crate) fn response(&self) -> String {
        error_response(&self.id, self.code, &self.message)
    }
}

/// Reads one line of input: one message, or the messages of a batch (each on its own), or
/// the error that answers it.
pub(crate) fn parse(text: String) -> Vec<Result<Message, Invalid>> {
    match text.trim_start().as_bytes().first() {
        Some(b'[') => parse_batch(&text),
        _ => vec![parse_one(text)],
    }
}

/// A batch (JSON-RPC 2.0, and MCP 2025-03-26): each element is routed as a message of its own.
fn parse_batch(text: &str) -> Vec<Result<Message, Invalid>> {
    match serde_json::from_str::<Vec<&RawValue>>(text) {
        Ok(items) if items.is_empty() => vec![Err(invalid(
            Value::Null,
            INVALID_REQUEST,
            "an empty batch is not a valid JSON-RPC request",
        ))],
        Ok(items) => items
            .into_iter()
            .map(|item| parse_one(item.get().to_owned()))
            .collect(),
        Err(error) => vec![Err(not_parsed(text, &error))],
    }
}

fn parse_one(text: String) -> Result<Message, Invalid> {
    read(text).map_err(|(_, invalid)| *invalid)
}

/// One message (not a batch), read for routing; when it cannot be, its text back with the
/// error that answers it.
pub(crate) fn read(text: String) -> Result<Message, (String, Box<Invalid>)> {
    let read = match Envelope::read(&text) {
        Ok(envelope) => route(&envelope).map(|(kind, id)| {
            let (revision, head, arguments) = match kind {
                Kind::Request { .. } => envelope.params.map(read_params).unwrap_or_default(),
                _ => (None, RequestHead::default(), None),
            };
            let places = Places {
                id: envelope.id.map(|raw| span(&text, raw)),
                arguments: arguments.map(|raw| span(&text, raw)),
            };
            (kind, id, revision, head, places)
        }),
        Err(error) => Err(not_parsed(&text, &error)),
    };
    match read {
        Ok((kind, id, revision, head, places)) => Ok(Message {
            text,
            kind,
            id,
            revision,
            head,
            places,
        }),
        Err(invalid) => Err((text, Box::new(invalid))),
    }
}

/// What a request's params say for routing, in one reading: the revision its `_meta` names,
/// its progress token, what it names, and its `arguments` as written. Params that are not an
/// object say nothing.
fn read_params(params: &RawValue) -> (Option<Revision>, RequestHead, Option<&RawValue>) {
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(default, borrow)]
        arguments: Option<&'a RawValue>,
        #[serde(default)]
        task: Option<serde::de::IgnoredAny>,
        #[serde(rename = "_meta", borrow)]
        meta: Option<Meta<'a>>,
        #[serde(borrow)]
        name: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow)]
        uri: Option<std::borrow::Cow<'a, str>>,
    }
    #[derive(Deserialize)]
    struct Meta<'a> {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow)]
        version: Option<std::borrow::Cow<'a, str>>,
        #[serde(rename = "progressToken")]
        progress: Option<Value>,
    }
    let Ok(params) = serde_json::from_str::<Params>(params.get()) else {
        return (None, RequestHead::default(), None);
    };
    let (version, progress) = match params.meta {
        Some(meta) => (
            meta.version.map(std::borrow::Cow::into_owned),
            meta.progress.filter(|token| !token.is_null()),
        ),
        None => (None, None),
    };
    let revision = version.as_deref().and_then(Revision::parse);
    let head = RequestHead {
        version,
        progress,
        name: params.name.map(std::borrow::Cow::into_owned),
        uri: params.uri.map(std::borrow::Cow::into_owned),
        task: params.task.is_some(),
    };
    (revision, head, params.arguments)
}

/// The method of a request or notification and what its params name (the revision's version
/// as written, the tool, prompt or resource), read from its text without copying it: for a
/// transport that mirrors them into headers. `None` for a message without both.
pub(crate) fn method_head(text: &str) -> Option<(String, RequestHead)> {
    let envelope = Envelope::read(text).ok()?;
    let method = serde_json::from_str::<String>(envelope.method?.get()).ok()?;
    let (_, head, _) = read_params(envelope.params?);
    Some((method, head))
}

/// The kind and id of one message (not a batch), read without copying its text: for a
/// transport that only needs to know where a message goes.
pub(crate) fn head(text: &str) -> Result<(Kind, Value), Invalid> {
    match Envelope::read(text) {
        Ok(envelope) => route(&envelope),
        Err(error) => Err(not_parsed(text, &error)),
    }
}

/// The kind and id of a well-formed envelope, or why it is not a JSON-RPC 2.0 message.
fn route(envelope: &Envelope) -> Result<(Kind, Value), Invalid> {
    let id = match envelope.id {
        Some(raw) => serde_json::from_str::<Value>(raw.get()).unwrap_or(Value::Null),
        None => Value::Null,
    };
    let key = Id::of(&id);
    if envelope.id.is_some() && key.is_none() {
        return Err(invalid(
            Value::Null,
            INVALID_REQUEST,
            "the id must be a string or a number",
        ));
    }
    let version = envelope
        .jsonrpc
        .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok());
    if version.as_deref() != Some("2.0") {
        return Err(invalid(
            id,
            INVALID_REQUEST,
            "not a JSON-RPC 2.0 message: \"jsonrpc\": \"2.0\" is missing",
        ));
    }
    if let Some(method) = envelope.method {
        let Ok(method) = serde_json::from_str::<String>(method.get()) else {
            return Err(invalid(id, INVALID_REQUEST, "the method must be a string"));
        };
        let kind = match key {
            Some(key) => Kind::Request { id: key, method },
            None => Kind::Notification { method },
        };
        return Ok((kind, id));
    }
    match (envelope.result.is_some(), envelope.error.is_some()) {
        (true, false) if key.is_some() => Ok((
            Kind::Response {
                id: key,
                error: false,
            },
            id,
        )),
        (false, true) => Ok((
            Kind::Response {
                id: key,
                error: true,
            },
            id,
        )),
        _ => Err(invalid(
            id,
            INVALID_REQUEST,
            "neither a request (no method) nor a response (it needs an id and exactly one of \
             result and error)",
        )),
    }
}

/// The answer to text that did not parse as an envelope: -32700 when it is not JSON, -32600
/// (with the id, when one can be read) when it is JSON of the wrong shape.
fn not_parsed(text: &str, error: &serde_json::Error) -> Invalid {
    if matches!(
        error.classify(),
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof
    ) {
        return invalid(
            Value::Null,
            PARSE_ERROR,
            format!("parse error: the message is not valid JSON ({error})"),
        );
    }
    let id = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|value| value.get("id").filter(|id| Id::of(id).is_some()).cloned())
        .unwrap_or(Value::Null);
    invalid(
        id,
        INVALID_REQUEST,
        format!("not a JSON-RPC message object ({error})"),
    )
}

fn invalid(id: Value, code: i64, message: impl Into<String>) -> Invalid {
    Invalid {
        id,
        code,
        message: message.into(),
    }
}

/// A JSON-RPC error response.
pub(crate) fn error_response(id: &Value, code: i64, message: &str) -> String {
    error_object_response(id, &json!({"code": code, "message": message}))
}

/// A JSON-RPC error response carrying `error` (its code, message and data) as it is.
pub(crate) fn error_object_response(id: &Value, error: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string()
}

/// A JSON-RPC result response.
pub(crate) fn result_response(id: &Value, result: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// A JSON-RPC request (with `id`) or notification (`id: None`) of `method` with `params`, as
/// one line of text: every request and notification overspill writes, the relay's and a host's
/// that speaks to a server itself (`overspill status`), is written here.
///
/// ```
/// let text = overspill_mcp::request(None, "notifications/initialized", &serde_json::json!({}));
/// assert_eq!(text, r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}"#);
/// ```
pub fn request(id: Option<&Value>, method: &str, params: &Value) -> String {
    match id {
        Some(id) => json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        None => json!({"jsonrpc": "2.0", "method": method, "params": params}),
    }
    .to_string()
}

/// A message's text with its `id` replaced by `id`, the rest exactly as it was: the old id's
/// text is cut out and the new one put in its place, so a 60 MB result is copied once, never
/// parsed into values. Text without a readable id is returned as it was.
pub(crate) fn with_id(text: String, id: &Value) -> String {
    let Ok(envelope) = Envelope::read(&text) else {
        return text;
    };
    let Some(old) = envelope.id.map(|raw| span(&text, raw)) else {
        return text;
    };
    splice(&text, old, &id.to_string())
}

/// `text` with the bytes at `place` replaced by `new`.
fn splice(text: &str, place: Range<usize>, new: &str) -> String {
    let mut replaced = String::with_capacity(text.len() - place.len() + new.len());
    replaced.push_str(&text[..place.start]);
    replaced.push_str(new);
    replaced.push_str(&text[place.end..]);
    replaced
}

/// The request a `notifications/cancelled` message (`text`) cancels: its `params.requestId`.
pub(crate) fn cancelled_request(text: &str) -> Option<Id> {
    params(text).get("requestId").and_then(Id::of)
}

/// The `params` of a message, parsed (`Null` when absent or not JSON the relay can hold).
pub(crate) fn params(text: &str) -> Value {
    #[derive(Deserialize)]
    struct Params {
        #[serde(default)]
        params: Value,
    }
    serde_json::from_str::<Params>(text)
        .map(|p| p.params)
        .unwrap_or(Value::Null)
}

/// What could be read of a message the transport could not read whole (not UTF-8, or over
/// the size limit): its id, and whether it was a response (so the id is one of the other
/// side's requests) or a request of the side that sent it.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Salvaged {
    pub(crate) id: Option<Value>,
    pub(crate) response: bool,
}

/// Reads the id of an unreadable message from the text of its start (`head`) and of its end
/// (`tail`; empty when `head` is the whole message). The start is read member by member up to
/// where it breaks off (JSON-RPC writers in Python and Go put `id` first); the end is checked
/// for a last member `"id": <number or string>` (the TypeScript SDK writes `id` last).
pub(crate) fn salvage(head: &str, tail: &str) -> Salvaged {
    let mut found = Salvaged::default();
    let mut reader = serde_json::Deserializer::from_str(head);
    // The text breaks off (or stops being JSON) somewhere: what was read before counts.
    let _ = serde::Deserializer::deserialize_map(&mut reader, Members(&mut found));
    if found.id.is_none() {
        found.id = last_member_id(tail);
    }
    found
}

/// Reads the members of the top-level object into a [`Salvaged`].
struct Members<'a>(&'a mut Salvaged);

impl<'de> serde::de::Visitor<'de> for Members<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        use serde::de::IgnoredAny;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "id" => self.0.id = Some(map.next_value::<Value>()?),
                "result" | "error" => {
                    self.0.response = true;
                    map.next_value::<IgnoredAny>()?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// The id of `… ,"id": <number or string> }` at the very end of `tail`, if it ends so.
fn last_member_id(tail: &str) -> Option<Value> {
    let body = tail.trim_end().strip_suffix('}')?;
    let mut search = body.len();
    while let Some(at) = body[..search].rfind("\"id\"") {
        search = at;
        let before = body[..at].trim_end();
        if !(before.ends_with(',') || before.ends_with('{')) {
            continue;
        }
        let Some(value) = body[at + 4..].trim_start().strip_prefix(':') else {
            continue;
        };
        match serde_json::from_str::<Value>(value) {
            Ok(id @ (Value::Number(_) | Value::String(_))) => return Some(id),
            _ => continue,
        }
    }
    None
}

#[cfg(test)]
mod tests;
