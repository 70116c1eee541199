//! The revisions of the MCP specification the relay tells apart, and every rule in which they
//! differ for what the proxy writes itself (docs/mcp-proxy.md#revisions).
//!
//! The 2025 revisions open a session with `initialize`; 2026-07-28 has none: each request
//! carries its revision in `params._meta["io.modelcontextprotocol/protocolVersion"]`, every
//! result says whether it is complete (`resultType`), and list results say how long they may be
//! cached (`ttlMs`, `cacheScope`). What the servers send is forwarded as they wrote it; these
//! rules apply to what the proxy answers itself and to what a gateway merges.

use base64::Engine as _;
use overspill::mcp_result::ResultType;
use serde_json::{Map, Value};

use crate::message::envelope;

/// The `_meta` key that ties a 2026-07-28 notification to the `subscriptions/listen` request it
/// belongs to (that request's id).
pub(crate) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The header that names the revision of a request over HTTP (2025-06-18 and later).
pub(crate) const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
/// 2026-07-28: the header mirroring a request's method.
pub(crate) const MCP_METHOD_HEADER: &str = "mcp-method";
/// 2026-07-28: the header mirroring what a request names (a tool, a prompt, a resource URI).
pub(crate) const MCP_NAME_HEADER: &str = "mcp-name";

/// 2026-07-28: the headers of a request do not match its body (HTTP 400).
pub(crate) const HEADER_MISMATCH: i64 = -32020;
/// 2026-07-28: the request names a revision the server does not speak (HTTP 400).
pub(crate) const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// The HTTP status of a 2026-07-28 error response (its text) over Streamable HTTP: 404 for
/// -32601 (a method not served), 400 for a request refused as malformed or not acceptable
/// (-32700, -32600, -32602, -32020 header mismatch, -32021 missing client capability, -32022
/// unsupported version), 200 for any other error (a server's own failure is still an answer).
pub(crate) fn http_status(error_response: &str) -> u16 {
    match envelope::error_code(error_response) {
        Some(-32601) => 404,
        Some(
            -32700
            | -32600
            | -32602
            | HEADER_MISMATCH
            | MISSING_CLIENT_CAPABILITY
            | UNSUPPORTED_PROTOCOL_VERSION,
        ) => 400,
        _ => 200,
    }
}

/// 2026-07-28: the request needs a client capability its `_meta` does not declare (HTTP 400).
pub(crate) const MISSING_CLIENT_CAPABILITY: i64 = -32021;

/// Whether `method` is one the 2026-07-28 revision removed: a request of that revision naming
/// it is answered -32601 (method not found) by the proxy, whatever the server would do with it.
pub(crate) fn removed_in_stateless(method: &str) -> bool {
    matches!(
        method,
        "initialize"
            | "ping"
            | "logging/setLevel"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "notifications/initialized"
            | "notifications/roots/list_changed"
    )
}

/// A message of a 2026-07-28 client as a server joined at a 2025 revision must get it: its
/// `params._meta` without the revision's envelope (the `io.modelcontextprotocol/` keys: the
/// version, the client's identity and capabilities, the log level), which a 2025 connection
/// may refuse; everything else (a progress token, the host's own keys) as it was. Text
/// without the envelope is returned as it is.
pub(crate) fn without_envelope(text: String) -> String {
    if !text.contains(ENVELOPE_PREFIX) {
        return text;
    }
    let Ok(mut value) = serde_json::from_str::<Value>(&text) else {
        return text;
    };
    let Some(params) = value.get_mut("params").and_then(Value::as_object_mut) else {
        return text;
    };
    let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) else {
        return text;
    };
    meta.retain(|key, _| !key.starts_with(ENVELOPE_PREFIX));
    if meta.is_empty() {
        params.remove("_meta");
    }
    value.to_string()
}

/// The prefix of the keys the specification reserves in `_meta` for the envelope.
const ENVELOPE_PREFIX: &str = "io.modelcontextprotocol/";

/// The envelope's key for the request's revision.
pub(crate) const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The envelope's key for the client's identity (`initialize`'s `clientInfo`).
pub(crate) const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// The envelope's key for the client's capabilities (`initialize`'s `capabilities`).
pub(crate) const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";

/// The 2026-07-28 envelope of a client that opened a session with `initialize` params `init`:
/// what a gateway puts in the `_meta` of each request it sends a server of the stateless
/// revision for that client (the revision, the client's identity and its capabilities).
pub(crate) fn envelope(init: &Value) -> Map<String, Value> {
    let mut envelope = Map::new();
    envelope.insert(
        PROTOCOL_VERSION_KEY.to_owned(),
        Value::from(Revision::R2026_07_28.as_str()),
    );
    if let Some(info) = init.get("clientInfo") {
        envelope.insert(CLIENT_INFO_KEY.to_owned(), info.clone());
    }
    envelope.insert(
        CLIENT_CAPABILITIES_KEY.to_owned(),
        init.get("capabilities")
            .cloned()
            .unwrap_or_else(|| Value::Object(Map::new())),
    );
    envelope
}

/// A message as a server that speaks only the stateless revision must get it: a request with
/// the `envelope` keys its `_meta` lacks (a 2026-07-28 client's own are kept); `None` for a
/// message that revision removed (`notifications/initialized`, `logging/setLevel`, …), which
/// such a server must not be sent. Anything else, and text that does not parse, as it is.
pub(crate) fn for_stateless_server(text: String, envelope: &Map<String, Value>) -> Option<String> {
    let Ok(mut value) = serde_json::from_str::<Value>(&text) else {
        return Some(text);
    };
    let Some(request) = value.as_object_mut() else {
        return Some(text);
    };
    // A response has no method; a notification has no id.
    let Some(method) = request.get("method").and_then(Value::as_str) else {
        return Some(text);
    };
    if removed_in_stateless(method) {
        return None;
    }
    if !request.contains_key("id") {
        return Some(text);
    }
    let params = request
        .entry("params")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(params) = params.as_object_mut() else {
        return Some(text);
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(meta) = meta.as_object_mut() else {
        return Some(text);
    };
    for (key, field) in envelope {
        meta.entry(key.as_str()).or_insert_with(|| field.clone());
    }
    Some(value.to_string())
}

/// The field of a request's params that `Mcp-Name` mirrors, for the methods that have one.
pub(crate) fn named_by(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    }
}

/// A value as a 2026-07-28 mirrored header carries it (`Mcp-Name`, `Mcp-Param-*`): as it is
/// when it is plain visible ASCII (spaces inside allowed), else — non-ASCII, control
/// characters, spaces at either end, or text that looks like the encoded form — as
/// `=?base64?<Base64 of its UTF-8>?=`.
pub(crate) fn header_value(value: &str) -> String {
    let plain = value
        .bytes()
        .all(|byte| byte == b' ' || byte == b'\t' || (0x21..=0x7e).contains(&byte))
        && value.trim() == value
        && !(value.starts_with(BASE64_OPEN) && value.ends_with(BASE64_CLOSE));
    if plain {
        return value.to_owned();
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(value.as_bytes());
    format!("{BASE64_OPEN}{encoded}{BASE64_CLOSE}")
}

/// The value a mirrored header carries: the inside of `=?base64?…?=` decoded, any other
/// header as it is. `None` when the inside is not Base64 of UTF-8 text.
pub(crate) fn header_text(header: &str) -> Option<String> {
    match header
        .strip_prefix(BASE64_OPEN)
        .and_then(|rest| rest.strip_suffix(BASE64_CLOSE))
    {
        Some(encoded) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()?;
            String::from_utf8(bytes).ok()
        }
        None => Some(header.to_owned()),
    }
}

/// The `Mcp-Param-{name}` headers of a 2026-07-28 `tools/call` with `arguments`, as the tool's
/// `input_schema` asks: for each property marked `x-mcp-header` and reached from the root
/// through `properties` only, the argument at that path — a string as it is (in the header
/// form, [`header_value`]), an integer in decimal, a boolean as `true`/`false` — under
/// `mcp-param-<x-mcp-header>` (lowercase). An argument that is missing or null, of another
/// type, or an annotation that is not a header name, gives no header.
pub(crate) fn param_headers(input_schema: &Value, arguments: &Value) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    collect_params(input_schema, Some(arguments), 0, &mut headers);
    headers
}

/// How deep `properties` are followed for `x-mcp-header` (a schema is the server's input).
const MAX_SCHEMA_DEPTH: usize = 32;

fn collect_params(
    schema: &Value,
    value: Option<&Value>,
    depth: usize,
    headers: &mut Vec<(String, String)>,
) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    if depth >= MAX_SCHEMA_DEPTH {
        return;
    }
    for (name, property) in properties {
        let argument = value.and_then(|value| value.get(name));
        if let Some(header) = property.get("x-mcp-header").and_then(Value::as_str) {
            let text = match argument {
                Some(Value::String(text)) => Some(header_value(text)),
                Some(Value::Number(number)) if number.is_i64() || number.is_u64() => {
                    Some(number.to_string())
                }
                Some(Value::Bool(flag)) => Some(flag.to_string()),
                _ => None,
            };
            let token = !header.is_empty()
                && header
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte));
            if let (Some(text), true) = (text, token) {
                headers.push((format!("mcp-param-{}", header.to_ascii_lowercase()), text));
            }
        }
        collect_params(property, argument, depth + 1, headers);
    }
}

const BASE64_OPEN: &str = "=?base64?";
const BASE64_CLOSE: &str = "?=";

/// A revision of the MCP specification, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Revision {
    R2024_11_05,
    R2025_03_26,
    R2025_06_18,
    R2025_11_25,
    /// The stateless revision: no `initialize`, no session.
    R2026_07_28,
}

impl Revision {
    /// Every revision the proxy speaks, newest first (the order a version list is offered in).
    pub(crate) const ALL: [Revision; 5] = [
        Revision::R2026_07_28,
        Revision::R2025_11_25,
        Revision::R2025_06_18,
        Revision::R2025_03_26,
        Revision::R2024_11_05,
    ];

    /// The newest revision that opens a session with `initialize`.
    pub(crate) const NEWEST_WITH_SESSIONS: Revision = Revision::R2025_11_25;

    /// The revision a version string names, if the proxy knows it.
    pub(crate) fn parse(version: &str) -> Option<Revision> {
        Revision::ALL
            .into_iter()
            .find(|revision| revision.as_str() == version)
    }

    /// Its version string, as the specification writes it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Revision::R2024_11_05 => "2024-11-05",
            Revision::R2025_03_26 => "2025-03-26",
            Revision::R2025_06_18 => "2025-06-18",
            Revision::R2025_11_25 => "2025-11-25",
            Revision::R2026_07_28 => "2026-07-28",
        }
    }

    /// Whether it has no sessions: each request stands alone.
    pub(crate) fn is_stateless(self) -> bool {
        self >= Revision::R2026_07_28
    }

    /// How the SSE streams answering a client of this revision are written
    /// (docs/mcp-proxy.md#resuming-a-stream).
    pub(crate) fn streaming(self) -> Streaming {
        match self {
            // A priming event's data is empty: the TypeScript and Python SDKs parsed it as a
            // message and failed until their releases of 2025-11-25, and their clients of
            // earlier revisions do not resume a POST stream.
            Revision::R2024_11_05 | Revision::R2025_03_26 | Revision::R2025_06_18 => {
                Streaming::Plain
            }
            Revision::R2025_11_25 => Streaming::Resumable,
            // The revision supports no `Last-Event-ID`: closing a stream cancels its request.
            Revision::R2026_07_28 => Streaming::Plain,
        }
    }

    /// Whether a complete result of this revision says so: 2026-07-28 requires `resultType`;
    /// the earlier revisions have no such field. The facade writes it
    /// ([`ResultType::complete`], `ToolResult::written_for`).
    pub(crate) fn result_type(self) -> ResultType {
        if self.is_stateless() {
            ResultType::Stated
        } else {
            ResultType::Implicit
        }
    }

    /// `result`, as a complete result of this revision (`"resultType": "complete"` in
    /// 2026-07-28 unless the result already says otherwise).
    pub(crate) fn complete(self, result: Value) -> Value {
        self.result_type().complete(result)
    }

    /// A list result (`tools/list`, `prompts/list`, `resources/list`, …) made by the proxy from
    /// the servers' `lists`, complete and, in 2026-07-28, cacheable as the most conservative of
    /// them allows ([`Cache::merge`]).
    pub(crate) fn list(self, mut result: Value, lists: &[&Value]) -> Value {
        if self.is_stateless()
            && let Some(fields) = result.as_object_mut()
        {
            let cache = Cache::merge(lists.iter().map(|list| Cache::of(list)));
            fields.insert("ttlMs".to_owned(), Value::from(cache.ttl_ms));
            fields.insert(
                "cacheScope".to_owned(),
                Value::String(cache.scope.as_str().to_owned()),
            );
        }
        self.complete(result)
    }
}

/// How the SSE streams of `--listen` are written for a client ([`Revision::streaming`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Streaming {
    /// Events without ids, nothing kept for a client that loses its stream.
    Plain,
    /// SEP-1699 (2025-11-25): a priming event first (an id, empty data and the `retry` delay),
    /// an id on every event, and the latest events kept for a client that resumes the stream
    /// with a GET carrying `Last-Event-ID`.
    Resumable,
}

/// A JSON-RPC response from a server of an earlier revision as a 2026-07-28 client must get it:
/// its result says `resultType` (`"complete"`; earlier revisions have no other kind) and, when
/// `cacheable` (the answer to `tools/list`, `prompts/list`, `resources/list`,
/// `resources/templates/list` or `resources/read`), `ttlMs` and `cacheScope`
/// ([`Cache::UNCACHED`]: an earlier server says nothing of caching). A field the result has is
/// kept; the fields added are spliced in after the result's `{`, so a large result is copied
/// once, never parsed into values. Anything else (an error, a text that does not parse) is
/// returned as it is.
pub(crate) fn completed_response(text: String, cacheable: bool) -> String {
    #[derive(serde::Deserialize)]
    struct Said {
        #[serde(rename = "resultType")]
        result_type: Option<serde::de::IgnoredAny>,
        #[serde(rename = "ttlMs")]
        ttl_ms: Option<serde::de::IgnoredAny>,
        #[serde(rename = "cacheScope")]
        cache_scope: Option<serde::de::IgnoredAny>,
    }
    let Some(result) = envelope::result_range(&text) else {
        return text;
    };
    let Ok(said) = serde_json::from_str::<Said>(&text[result.clone()]) else {
        return text;
    };
    let mut fields = Vec::new();
    if said.result_type.is_none() {
        fields.push(r#""resultType":"complete""#.to_owned());
    }
    if cacheable {
        let cache = Cache::UNCACHED;
        if said.ttl_ms.is_none() {
            fields.push(format!(r#""ttlMs":{}"#, cache.ttl_ms));
        }
        if said.cache_scope.is_none() {
            fields.push(format!(r#""cacheScope":"{}""#, cache.scope.as_str()));
        }
    }
    if fields.is_empty() {
        return text;
    }
    // The result is an object (it parsed as one): its `{` is where it starts.
    let open = result.start + 1;
    let empty = text[open..].trim_start().starts_with('}');
    let mut added = fields.join(",");
    if !empty {
        added.push(',');
    }
    let mut spliced = String::with_capacity(text.len() + added.len());
    spliced.push_str(&text[..open]);
    spliced.push_str(&added);
    spliced.push_str(&text[open..]);
    spliced
}

/// Whether the answer to `method` is a `CacheableResult` in 2026-07-28.
pub(crate) fn is_cacheable(method: &str) -> bool {
    matches!(
        method,
        "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
    )
}

/// How long, and for whom, a 2026-07-28 result may be cached (`ttlMs`, `cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cache {
    pub(crate) ttl_ms: u64,
    pub(crate) scope: Scope,
}

/// `cacheScope`: whether a cached result may be shared between users.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Scope {
    /// Only for the user it was fetched for (the conservative one).
    Private,
    /// For anyone.
    Public,
}

impl Scope {
    fn as_str(self) -> &'static str {
        match self {
            Scope::Private => "private",
            Scope::Public => "public",
        }
    }
}

impl Cache {
    /// What the proxy says of a list with no server behind it, or of one whose server said
    /// nothing (a 2025-era server): not to be cached, and only for this user.
    pub(crate) const UNCACHED: Cache = Cache {
        ttl_ms: 0,
        scope: Scope::Private,
    };

    /// What a server's result says: its `ttlMs` (a non-negative integer) and `cacheScope`, each
    /// taken as [`Cache::UNCACHED`]'s when missing or not valid.
    pub(crate) fn of(result: &Value) -> Cache {
        let ttl_ms = result.get("ttlMs").and_then(Value::as_u64).unwrap_or(0);
        let scope = match result.get("cacheScope").and_then(Value::as_str) {
            Some("public") => Scope::Public,
            _ => Scope::Private,
        };
        Cache { ttl_ms, scope }
    }

    /// The most conservative of `caches`: the shortest time and the narrowest scope; no cache
    /// at all for none.
    pub(crate) fn merge(caches: impl IntoIterator<Item = Cache>) -> Cache {
        caches
            .into_iter()
            .reduce(|a, b| Cache {
                ttl_ms: a.ttl_ms.min(b.ttl_ms),
                scope: a.scope.min(b.scope),
            })
            .unwrap_or(Cache::UNCACHED)
    }
}

#[cfg(test)]
mod tests;
