//! The login's first question: what the server answers a request without credentials. A 401
//! names the protected resource metadata in its challenge (a 403 `insufficient_scope` does the
//! same, with the scopes it wants); an answer says the server is open, or open for that request.
//!
//! The server may speak either era of MCP (docs/mcp-proxy.md#signing-in-to-a-hosted-server-oauth):
//! the probe asks as a dual-era client does over Streamable HTTP, a 2026-07-28 `server/discover`
//! first, and `initialize` only when the answer is not one of that revision (a legacy server),
//! so a server of either era sees a request it understands before it is asked anything else.

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, WWW_AUTHENTICATE};
use reqwest::{StatusCode, Url};
use rmcp::transport::auth::WWWAuthenticateParams;
use serde_json::{Value, json};

use super::{CLIENT_NAME, OAuthError};
use crate::message;
use crate::revision::{
    HEADER_MISMATCH, MCP_METHOD_HEADER, MISSING_CLIENT_CAPABILITY, PROTOCOL_VERSION_HEADER,
    Revision, UNSUPPORTED_PROTOCOL_VERSION,
};

/// The longest `WWW-Authenticate` challenge kept.
const MAX_CHALLENGE: usize = 4096;
/// The most of an answer read to tell the server's era: a `server/discover` result is small.
const MAX_ANSWER: usize = 64 * 1024;
/// Time to connect to, and hear back from, the server for each request of the probe.
const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// What the server said to a request without credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Probe {
    /// It refused: with this challenge when it asked for authorization (a 401, or a 403
    /// `insufficient_scope`), else without one (discovery goes on from the well-known URLs).
    Refused(Option<String>),
    /// It answered (this status): the server may be open, or protect only some methods.
    Open(u16),
}

/// Asks the server at `url` for its challenge: `server/discover` of 2026-07-28, then, when the
/// answer is not a 2026-07-28 one, `initialize` (closing the session it opens).
///
/// # Errors
///
/// [`OAuthError::Unreachable`] when the server cannot be reached.
pub(super) async fn probe(url: &str) -> Result<Probe, OAuthError> {
    let unreachable = |error: reqwest::Error| OAuthError::Unreachable {
        url: url.to_owned(),
        reason: error.to_string(),
    };
    let base = Url::parse(url).map_err(|error| OAuthError::InvalidUrl {
        url: url.to_owned(),
        reason: error.to_string(),
    })?;
    // reqwest is built without a compiled-in crypto provider: ring is this process's.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder()
        .connect_timeout(PROBE_TIMEOUT)
        .timeout(PROBE_TIMEOUT)
        .redirect(reqwest::redirect::Policy::limited(5))
        .build()
        .map_err(unreachable)?;

    let modern = Revision::R2026_07_28.as_str();
    let response = post(&http, url, discover_request())
        .header(PROTOCOL_VERSION_HEADER, modern)
        .header(MCP_METHOD_HEADER, "server/discover")
        .send()
        .await
        .map_err(unreachable)?;
    let status = response.status();
    let challenge = challenge_of(response.headers());
    let message = if status == StatusCode::UNAUTHORIZED {
        None
    } else {
        answer_of(response).await
    };
    if let Some(probe) = verdict(
        Asked::Discover,
        status,
        challenge.as_deref(),
        message.as_ref(),
        &base,
    ) {
        tracing::debug!(?status, "server/discover answered the probe");
        return Ok(probe);
    }

    tracing::debug!(?status, "not a 2026-07-28 answer; probing with initialize");
    let response = post(&http, url, initialize_request())
        .send()
        .await
        .map_err(unreachable)?;
    let status = response.status();
    let challenge = challenge_of(response.headers());
    let session = response.headers().get("mcp-session-id").cloned();
    drop(response);
    let probe = verdict(Asked::Initialize, status, challenge.as_deref(), None, &base)
        .unwrap_or(Probe::Refused(None));
    if let (Probe::Open(_), Some(session)) = (&probe, session) {
        // The session the probe opened is closed again.
        let _ = http
            .delete(url)
            .header("mcp-session-id", session)
            .send()
            .await;
    }
    Ok(probe)
}

/// Which request an answer is to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    /// `server/discover` with the 2026-07-28 headers and `_meta` envelope.
    Discover,
    /// A 2025-11-25 `initialize`.
    Initialize,
}

/// Whether a 403's `WWW-Authenticate` challenge is `insufficient_scope` (RFC 6750): the
/// request needs a token for the scopes it names, which a sign-in for them gets. The
/// challenge is read as a header, not searched for the word (a description may hold it).
pub(crate) fn asks_for_scope(challenge: &str, base: &Url) -> bool {
    WWWAuthenticateParams::parse(challenge, base).is_insufficient_scope()
}

/// What an answer to `asked` (its status, challenge and, for `server/discover`, the JSON-RPC
/// message it carried) says, or `None` when it is not a 2026-07-28 answer to `server/discover`
/// (the server is asked again with `initialize`).
///
/// A 401 is a challenge to either request, and so is a 403 whose challenge is
/// `insufficient_scope` (its scopes are the ones to ask for). `server/discover` is a 2026-07-28
/// server's when it has a result, or an error only that revision defines (a header mismatch, a
/// missing client capability, an unsupported version when no session revision is offered
/// instead); anything else (a legacy server's "no session", "method not found", an empty
/// 4xx) calls for `initialize`, as the revision's backward compatibility rules say.
fn verdict(
    asked: Asked,
    status: StatusCode,
    challenge: Option<&str>,
    message: Option<&Value>,
    base: &Url,
) -> Option<Probe> {
    if status == StatusCode::UNAUTHORIZED {
        return Some(Probe::Refused(challenge.map(str::to_owned)));
    }
    if status == StatusCode::FORBIDDEN
        && let Some(challenge) = challenge
        && asks_for_scope(challenge, base)
    {
        return Some(Probe::Refused(Some(challenge.to_owned())));
    }
    let answered = if status.is_success() {
        Probe::Open(status.as_u16())
    } else {
        Probe::Refused(None)
    };
    match asked {
        Asked::Initialize => Some(answered),
        Asked::Discover => is_modern_answer(status, message?).then_some(answered),
    }
}

/// Whether `message`, the answer to `server/discover`, is a 2026-07-28 server's.
fn is_modern_answer(status: StatusCode, message: &Value) -> bool {
    if message.get("result").is_some() {
        return status.is_success();
    }
    let Some(error) = message.get("error") else {
        return false;
    };
    match error.get("code").and_then(Value::as_i64) {
        Some(HEADER_MISMATCH | MISSING_CLIENT_CAPABILITY) => true,
        // A server that offers a session revision instead is asked with `initialize`.
        Some(UNSUPPORTED_PROTOCOL_VERSION) => !error
            .pointer("/data/supported")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter_map(Revision::parse)
            .any(|revision| !revision.is_stateless()),
        _ => false,
    }
}

/// The `WWW-Authenticate` challenge of an answer, at most [`MAX_CHALLENGE`] characters.
fn challenge_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get(WWW_AUTHENTICATE)
        .and_then(|value| value.to_str().ok())
        .map(|value| value.chars().take(MAX_CHALLENGE).collect())
}

/// The JSON-RPC response in an answer's body (JSON, or the first response of an SSE stream),
/// reading at most [`MAX_ANSWER`] bytes.
async fn answer_of(mut response: reqwest::Response) -> Option<Value> {
    let events = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/event-stream"));
    let mut body = Vec::new();
    while body.len() < MAX_ANSWER {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            Ok(None) | Err(_) => break,
        }
        // A stream may stay open after its answer: stop at the answer.
        if events && let Some(message) = first_response(&String::from_utf8_lossy(&body)) {
            return Some(message);
        }
    }
    let text = String::from_utf8_lossy(&body);
    if events {
        first_response(&text)
    } else {
        serde_json::from_str::<Value>(&text)
            .ok()
            .filter(is_response)
    }
}

/// The first JSON-RPC response among the events of an SSE stream (notifications before it,
/// such as progress, are passed over).
fn first_response(stream: &str) -> Option<Value> {
    let mut data = String::new();
    let mut found = None;
    for line in stream.lines().chain(std::iter::once("")) {
        if line.is_empty() {
            found = serde_json::from_str::<Value>(&data)
                .ok()
                .filter(is_response);
            if found.is_some() {
                break;
            }
            data.clear();
        } else if let Some(value) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    found
}

fn is_response(message: &Value) -> bool {
    message.get("result").is_some() || message.get("error").is_some()
}

/// A POST of the JSON-RPC message `body` to `url`, accepting what a Streamable HTTP server
/// may answer with.
fn post(http: &reqwest::Client, url: &str, body: String) -> reqwest::RequestBuilder {
    http.post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .body(body)
}

/// `server/discover` with the 2026-07-28 `_meta` envelope.
fn discover_request() -> String {
    let params = json!({
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": Revision::R2026_07_28.as_str(),
            "io.modelcontextprotocol/clientInfo": client_info(),
            "io.modelcontextprotocol/clientCapabilities": {}
        }
    });
    message::request(Some(&json!(0)), "server/discover", &params)
}

/// `initialize` of the newest revision with sessions.
fn initialize_request() -> String {
    let params = json!({
        "protocolVersion": Revision::NEWEST_WITH_SESSIONS.as_str(),
        "capabilities": {},
        "clientInfo": client_info()
    });
    message::request(Some(&json!(0)), "initialize", &params)
}

fn client_info() -> Value {
    json!({"name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION")})
}

#[cfg(test)]
mod tests;
