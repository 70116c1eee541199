//! Requests of the stateless revision (2026-07-28) on `--listen`: no `initialize`, no
//! `Mcp-Session-Id`; each request names its revision in `_meta` and mirrors its method and
//! target into headers, which are checked against the body (docs/mcp-proxy.md#stateless-requests).
//!
//! Without sessions, a request is served in the context of its agent: its principal (the
//! token it carries) and, when the client names one, the agent in the `Overspill-Agent`
//! header. One agent has one relay, one upstream and one budget, kept while it is used and
//! ended after `--session-idle` without a request; its stored results are its principal's.

use axum::http::{HeaderMap, StatusCode};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{Principal, Refusal};
use crate::message::{Kind, Message};
use crate::revision::{self, Revision};

/// The header in which a client names the agent a request is for.
pub(crate) const AGENT_HEADER: &str = "overspill-agent";

/// The longest agent name, in bytes.
const MAX_AGENT_LEN: usize = 64;

/// Who a stateless request is for: one agent of one principal. Its budget is one; its stored
/// results are its principal's ([`Agent::storage`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Agent {
    principal: String,
    /// The name the client gave, if it gave one; else the agent is the principal.
    name: Option<String>,
}

impl Agent {
    /// The agent of a request from `principal` with `headers`: the one `Overspill-Agent` names,
    /// else the principal's own. A name outside `[A-Za-z0-9._-]{1,64}` is refused (400).
    pub(super) fn of(principal: &Principal, headers: &HeaderMap) -> Result<Agent, Refusal> {
        let name = match headers.get(AGENT_HEADER) {
            None => None,
            Some(value) => {
                let name = value.to_str().unwrap_or_default();
                let valid = !name.is_empty()
                    && name.len() <= MAX_AGENT_LEN
                    && name
                        .bytes()
                        .all(|byte| byte.is_ascii_alphanumeric() || b"._-".contains(&byte));
                if !valid {
                    return Err(super::refusal(
                        StatusCode::BAD_REQUEST,
                        "the Overspill-Agent header must be 1 to 64 characters of A-Z, a-z, 0-9, \
                         '.', '_' and '-'",
                    ));
                }
                Some(name.to_owned())
            }
        };
        Ok(Agent {
            principal: principal.to_string(),
            name,
        })
    }

    /// Where its principal's results are stored, relative to the proxy's directory
    /// ([`principal_storage`]).
    pub(super) fn storage(&self) -> String {
        principal_storage(&self.principal)
    }

    /// The file, relative to [`storage`](Agent::storage), that keeps its budget's extractions
    /// for every instance serving it.
    pub(super) fn budget_file(&self) -> String {
        match &self.name {
            Some(name) => format!("budgets/agent-{name}"),
            None => "budgets/principal".to_owned(),
        }
    }

    /// How it is named in logs: its principal and its name.
    pub(super) fn label(&self) -> String {
        match &self.name {
            Some(name) => format!("{}/{name}", self.principal),
            None => self.principal.clone(),
        }
    }
}

/// Where `principal`'s results are stored, relative to the proxy's directory: one directory
/// per principal, named by a hash of the principal's name, so that what one principal stored
/// is never found by another, and every instance sharing the directory (or the shared store)
/// finds it at the same place (docs/mcp-proxy.md#stateless-requests).
///
/// ```
/// assert_eq!(
///     overspill_mcp::principal_storage("alice"),
///     "principals/2bd806c97f0e00af1a1fc3328fa763a9"
/// );
/// ```
pub fn principal_storage(principal: &str) -> String {
    let digest = Sha256::digest(principal.as_bytes());
    let hex: String = digest[..16]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("principals/{hex}")
}

/// The revision of a POST body's messages when they are stateless: `Some` for one request
/// whose `_meta` names 2026-07-28 or later, or for a body sent with that revision's
/// `MCP-Protocol-Version` header. `None` is a body of a session.
pub(super) fn revision_of(headers: &HeaderMap, messages: &[Message]) -> Option<Revision> {
    let named = messages.iter().find_map(|message| message.revision);
    let header = headers
        .get(revision::PROTOCOL_VERSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .and_then(Revision::parse);
    named.or(header).filter(|revision| revision.is_stateless())
}

/// A POST that names a revision the proxy does not know in its header, without a session:
/// `Some` with the 400 `UnsupportedProtocolVersion` answer listing the revisions it speaks.
pub(super) fn unknown_revision(headers: &HeaderMap, id: &Value) -> Option<Refusal> {
    let given = headers
        .get(revision::PROTOCOL_VERSION_HEADER)?
        .to_str()
        .unwrap_or_default();
    if Revision::parse(given).is_some() {
        return None;
    }
    let supported: Vec<&str> = Revision::ALL.iter().map(|r| r.as_str()).collect();
    let why = format!(
        "the protocol version {given:?} is not one this proxy speaks; it speaks {}",
        supported.join(", ")
    );
    let refusal = Refusal::bad_request(revision::UNSUPPORTED_PROTOCOL_VERSION, why, id);
    Some(refusal.with_data(serde_json::json!({"supported": supported, "requested": given})))
}

/// Checks one stateless request against the headers the revision mirrors it into
/// (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`): each required one present and equal to
/// the body's value (an `Mcp-Name` in the Base64 form decoded first). A mismatch is a 400
/// with `HeaderMismatch` (-32020), so that an intermediary routing on a header can never be
/// told one thing while the proxy does another.
pub(super) fn check_headers(headers: &HeaderMap, message: &Message) -> Result<(), Refusal> {
    let Kind::Request { method, .. } = &message.kind else {
        return Ok(());
    };
    let mismatch = |why: String| {
        let why = format!("header mismatch: {why}");
        Refusal::bad_request(revision::HEADER_MISMATCH, why, &message.id)
    };
    let header = |name: &str| -> Result<Option<String>, Refusal> {
        match headers.get(name) {
            None => Ok(None),
            Some(value) => value
                .to_str()
                .map(|value| Some(value.to_owned()))
                .map_err(|_| mismatch(format!("the {name} header is not visible ASCII"))),
        }
    };
    // A version the proxy does not know is compared as written (the server answers it).
    let version = message.head.version.clone();
    match (header(revision::PROTOCOL_VERSION_HEADER)?, version) {
        (Some(given), Some(body)) if given == body => {}
        // A request of the revision without its envelope is malformed, whatever its headers.
        (Some(_), None) => {
            let why = "the request's params._meta must name its revision \
                       (io.modelcontextprotocol/protocolVersion) and the client's capabilities \
                       (io.modelcontextprotocol/clientCapabilities): MCP 2026-07-28 has no \
                       session to remember them";
            return Err(Refusal::bad_request(
                crate::message::INVALID_PARAMS,
                why.to_owned(),
                &message.id,
            ));
        }
        (Some(given), body) => {
            return Err(mismatch(format!(
                "MCP-Protocol-Version is {given:?}, the body's _meta names {}",
                body.map_or("none".to_owned(), |body| format!("{body:?}"))
            )));
        }
        (None, _) => {
            return Err(mismatch(
                "the MCP-Protocol-Version header is missing".into(),
            ));
        }
    }
    match header(revision::MCP_METHOD_HEADER)? {
        Some(given) if &given == method => {}
        Some(given) => {
            return Err(mismatch(format!(
                "Mcp-Method is {given:?}, the body's method is {method:?}"
            )));
        }
        None => return Err(mismatch("the Mcp-Method header is missing".into())),
    }
    if let Some(field) = revision::named_by(method) {
        let body = match field {
            "name" => message.head.name.clone(),
            _ => message.head.uri.clone(),
        };
        match (header(revision::MCP_NAME_HEADER)?, body) {
            (None, None) => {}
            (None, Some(_)) => return Err(mismatch("the Mcp-Name header is missing".into())),
            (Some(given), body) => {
                let decoded = revision::header_text(&given)
                    .ok_or_else(|| mismatch("the Mcp-Name header's Base64 is not valid".into()))?;
                if body.as_deref() != Some(decoded.as_str()) {
                    return Err(mismatch(format!(
                        "Mcp-Name is {decoded:?}, the body's params.{field} is {}",
                        body.map_or("missing".to_owned(), |body| format!("{body:?}"))
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Checks a stateless `tools/call`'s `Mcp-Param-*` headers against its arguments, as its tool's
/// input schema (`schema`, when the tools were listed in this agent's context) marks them
/// with `x-mcp-header`: each argument it marks must come with its header, equal once decoded
/// (integers compared as numbers). A header no argument calls for is let be.
pub(super) fn check_params(
    headers: &HeaderMap,
    message: &Message,
    schema: Option<&Value>,
) -> Result<(), Refusal> {
    let Some(schema) = schema else {
        return Ok(());
    };
    let arguments = message
        .arguments()
        .and_then(|written| serde_json::from_str::<Value>(written).ok())
        .unwrap_or(Value::Null);
    for (name, expected) in revision::param_headers(schema, &arguments) {
        let given = headers
            .get(name.as_str())
            .and_then(|value| value.to_str().ok())
            .and_then(revision::header_text);
        let expected = revision::header_text(&expected);
        let same = match (&given, &expected) {
            (Some(given), Some(expected)) => {
                given == expected
                    || given
                        .parse::<f64>()
                        .ok()
                        .zip(expected.parse::<f64>().ok())
                        .is_some_and(|(a, b)| a == b)
            }
            _ => false,
        };
        if !same {
            let why = match given {
                None => format!("header mismatch: the {name} header is missing or not valid"),
                Some(given) => format!(
                    "header mismatch: {name} is {given:?}, the argument it mirrors is {}",
                    expected.map_or("missing".to_owned(), |e| format!("{e:?}"))
                ),
            };
            return Err(Refusal::bad_request(
                revision::HEADER_MISMATCH,
                why,
                &message.id,
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
