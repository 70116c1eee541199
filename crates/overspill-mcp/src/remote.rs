//! The upstream as a remote MCP server spoken to over Streamable HTTP (MCP 2025-03-26 …
//! 2025-11-25): each message the relay sends upstream is POSTed; the answer is read as
//! `application/json` or as an SSE stream of messages; the session id and the negotiated
//! protocol version ride on every later request; a GET stream carries what the server sends on
//! its own; the session is DELETEd when the client goes.
//!
//! Header values (credentials, mostly) never appear in errors, logs or `Debug` output.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, WWW_AUTHENTICATE};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use sse_stream::SseByteStream;
use tokio::sync::mpsc;

use crate::error::ProxyError;
use crate::message::{self, Kind};
use crate::relay::Relay;
use crate::session::UpstreamPorts;

/// Where a remote server's diagnostics are: in its HTTP answers, which the proxy reports.
pub(crate) const DIAGNOSTICS: &str =
    "the HTTP errors the proxy reports on its stderr and in these answers";

/// The default time to connect.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The default time an answer may go silent before the request fails.
const READ_TIMEOUT: Duration = Duration::from_secs(300);
/// How often a dropped GET stream is reopened before the proxy stops trying.
const RECONNECTS: u32 = 5;
/// How much of an HTTP error body an error message quotes.
const QUOTED_BODY: usize = 300;

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";

/// A remote MCP server: its Streamable HTTP endpoint and how to reach it.
#[derive(Clone, PartialEq, Eq)]
pub struct Remote {
    url: reqwest::Url,
    headers: Vec<(String, String)>,
    connect_timeout: Duration,
    read_timeout: Duration,
}

impl Remote {
    /// The endpoint at `url` (`http` or `https`).
    ///
    /// # Errors
    ///
    /// [`ProxyError::InvalidUrl`] when `url` is not an absolute `http(s)` URL.
    pub fn new(url: &str) -> Result<Remote, ProxyError> {
        let invalid = |reason: String| ProxyError::InvalidUrl {
            url: url.to_owned(),
            reason,
        };
        let parsed = reqwest::Url::parse(url).map_err(|error| invalid(error.to_string()))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(invalid(
                "give the server's http:// or https:// endpoint, e.g. https://host/mcp".to_owned(),
            ));
        }
        Ok(Remote {
            url: parsed,
            headers: Vec::new(),
            connect_timeout: CONNECT_TIMEOUT,
            read_timeout: READ_TIMEOUT,
        })
    }

    /// The same endpoint with a header sent on every request (`Authorization`, an API key…).
    ///
    /// # Errors
    ///
    /// [`ProxyError::InvalidHeader`] when the name or the value cannot be sent as HTTP.
    pub fn with_header(mut self, name: &str, value: &str) -> Result<Remote, ProxyError> {
        let invalid = |reason: &str| ProxyError::InvalidHeader {
            name: name.to_owned(),
            reason: reason.to_owned(),
        };
        HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| invalid("not a valid HTTP header name"))?;
        HeaderValue::from_str(value).map_err(|_| {
            invalid("its value holds a character HTTP does not allow (a newline, say)")
        })?;
        self.headers.push((name.to_owned(), value.to_owned()));
        Ok(self)
    }

    /// The same endpoint with another time to connect (default 10 s).
    #[must_use]
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Remote {
        self.connect_timeout = timeout;
        self
    }

    /// The same endpoint with another time an answer may go silent (default 300 s).
    #[must_use]
    pub fn with_read_timeout(mut self, timeout: Duration) -> Remote {
        self.read_timeout = timeout;
        self
    }

    /// The endpoint.
    pub fn url(&self) -> &str {
        self.url.as_str()
    }

    /// The endpoint's host name or address.
    pub fn host(&self) -> &str {
        self.url.host_str().unwrap_or_default()
    }
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("Remote")
            .field("url", &self.url.as_str())
            .field("headers (values hidden)", &names)
            .field("connect_timeout", &self.connect_timeout)
            .field("read_timeout", &self.read_timeout)
            .finish()
    }
}

/// A `--header` argument, `Name: value`, with each `${VAR}` in the value replaced by that
/// environment variable, so a secret can stay out of the client's configuration file.
///
/// # Errors
///
/// [`ProxyError::InvalidHeader`] without a `:` or a name; [`ProxyError::MissingEnv`] for a
/// variable that is not set. Neither quotes the value.
pub fn parse_header(spec: &str) -> Result<(String, String), ProxyError> {
    let Some((name, value)) = spec.split_once(':') else {
        return Err(ProxyError::InvalidHeader {
            name: spec
                .chars()
                .take_while(|c| !c.is_whitespace())
                .take(64)
                .collect(),
            reason: "write it as `Name: value`, e.g. `Authorization: Bearer ${TOKEN}`".to_owned(),
        });
    };
    let name = name.trim();
    if name.is_empty() {
        return Err(ProxyError::InvalidHeader {
            name: String::new(),
            reason: "the header has no name; write it as `Name: value`".to_owned(),
        });
    }
    let value = expand(value.trim(), |var| std::env::var(var).ok()).map_err(|var| {
        ProxyError::MissingEnv {
            var,
            header: name.to_owned(),
        }
    })?;
    Ok((name.to_owned(), value))
}

/// `text` with each `${VAR}` replaced by `lookup(VAR)`; `Err(VAR)` for the first one unset.
/// A `$` not followed by `{` is kept as it is.
fn expand(text: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let var = &after[..end];
        out.push_str(&lookup(var).ok_or_else(|| var.to_owned())?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// One session's connection to the remote server.
struct Link {
    http: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    read_timeout: Duration,
    relay: Relay,
    session: RwLock<Option<HeaderValue>>,
    protocol: RwLock<Option<HeaderValue>>,
    listening: AtomicBool,
    fatal: mpsc::UnboundedSender<ProxyError>,
}

/// Runs the session against the remote server until the client goes (`gone`) or the server
/// ends it.
pub(crate) async fn run(
    remote: &Remote,
    relay: &Relay,
    ports: UpstreamPorts,
    gone: Pin<&mut impl Future<Output = ()>>,
) -> Result<(), ProxyError> {
    let UpstreamPorts {
        mut queue,
        mut stopped,
    } = ports;
    let (fatal, mut failed) = mpsc::unbounded_channel();
    let link = Arc::new(Link::new(remote, relay.clone(), fatal)?);
    let sender = {
        let link = Arc::clone(&link);
        tokio::spawn(async move {
            while let Some(text) = queue.recv().await {
                Arc::clone(&link).send(text).await;
            }
        })
    };
    let outcome = tokio::select! {
        () = gone => Ok(()),
        Some(error) = stopped.recv() => Err(error),
        Some(error) = failed.recv() => {
            let why = match &error {
                ProxyError::AuthRequired { .. } => "refused the credentials (HTTP 401)",
                _ => "ended the session (HTTP 404 for its Mcp-Session-Id)",
            };
            relay.server_gone(why).await;
            Err(error)
        }
    };
    sender.abort();
    if outcome.is_ok() {
        link.close().await;
    }
    outcome
}

/// The head of a message the relay sends: its id when it is a request, and its method.
fn head(text: &str) -> Option<(Option<Value>, String)> {
    match message::head(text).ok()? {
        (Kind::Request { method, .. }, id) => Some((Some(id), method)),
        (Kind::Notification { method }, _) => Some((None, method)),
        (Kind::Response { .. }, _) => Some((None, String::new())),
    }
}

impl Link {
    fn new(
        remote: &Remote,
        relay: Relay,
        fatal: mpsc::UnboundedSender<ProxyError>,
    ) -> Result<Link, ProxyError> {
        // reqwest is built without a compiled-in crypto provider: ring is this process's.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let origin = remote.url.origin();
        let redirects = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= 5 || attempt.url().origin() != origin {
                attempt.stop()
            } else {
                attempt.follow()
            }
        });
        let http = reqwest::Client::builder()
            .connect_timeout(remote.connect_timeout)
            .redirect(redirects)
            .build()
            .map_err(|error| ProxyError::Http(format!("cannot set up the HTTP client: {error}")))?;
        let mut headers = HeaderMap::new();
        for (name, value) in &remote.headers {
            let (Ok(name), Ok(mut value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) else {
                continue;
            };
            value.set_sensitive(true);
            headers.append(name, value);
        }
        Ok(Link {
            http,
            url: remote.url.clone(),
            headers,
            read_timeout: remote.read_timeout,
            relay,
            session: RwLock::new(None),
            protocol: RwLock::new(None),
            listening: AtomicBool::new(false),
            fatal,
        })
    }

    /// A request to the endpoint with the user's headers and the session's.
    fn request(&self, method: Method) -> reqwest::RequestBuilder {
        let mut request = self
            .http
            .request(method, self.url.clone())
            .headers(self.headers.clone());
        if let Some(session) = read(&self.session) {
            request = request.header(SESSION_ID, session);
        }
        if let Some(version) = read(&self.protocol) {
            request = request.header(PROTOCOL_VERSION, version);
        }
        request
    }

    /// Sends one message upstream: `initialize` and every notification or response in order,
    /// other requests side by side (a slow tool call must not hold up the rest).
    async fn send(self: Arc<Self>, text: String) {
        let Some((id, method)) = head(&text) else {
            return;
        };
        match (&id, method.as_str()) {
            (Some(_), "initialize") => self.post(text, id, true).await,
            (Some(_), _) => {
                tokio::spawn(async move { self.post(text, id, false).await });
            }
            (None, "notifications/initialized") => {
                Arc::clone(&self).post(text, None, false).await;
                if !self.listening.swap(true, Ordering::SeqCst) {
                    tokio::spawn(self.listen());
                }
            }
            (None, _) => self.post(text, None, false).await,
        }
    }

    /// POSTs one message and relays what comes back; a request that gets no answer is
    /// answered with an error in the server's place.
    async fn post(&self, text: String, id: Option<Value>, initialize: bool) {
        let sent = self
            .request(Method::POST)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream")
            .body(text)
            .send()
            .await;
        let response = match sent {
            Ok(response) => response,
            Err(error) => {
                let why = format!(
                    "cannot reach the MCP server at {}: {}",
                    self.url,
                    plain(&error)
                );
                return self.fail_request(id.as_ref(), &why).await;
            }
        };
        if initialize && let Some(session) = response.headers().get(SESSION_ID) {
            *self.session.write().unwrap_or_else(PoisonError::into_inner) = Some(session.clone());
        }
        let status = response.status();
        if status == StatusCode::UNAUTHORIZED {
            let challenge = response
                .headers()
                .get(WWW_AUTHENTICATE)
                .and_then(|value| value.to_str().ok())
                .map(|value| value.chars().take(QUOTED_BODY).collect::<String>());
            let error = ProxyError::AuthRequired {
                url: self.url.to_string(),
                challenge: challenge.unwrap_or_default(),
            };
            self.fail_request(id.as_ref(), &error.to_string()).await;
            let _ = self.fatal.send(error);
            return;
        }
        if status == StatusCode::NOT_FOUND && read(&self.session).is_some() {
            let error = ProxyError::SessionEnded {
                url: self.url.to_string(),
            };
            self.fail_request(id.as_ref(), &error.to_string()).await;
            let _ = self.fatal.send(error);
            return;
        }
        if status == StatusCode::ACCEPTED || status == StatusCode::NO_CONTENT {
            return;
        }
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            let quoted: String = body.chars().take(QUOTED_BODY).collect();
            let why = format!(
                "the MCP server at {} answered HTTP {status}: {quoted}",
                self.url
            );
            tracing::warn!(%status, "an upstream request failed");
            return self.fail_request(id.as_ref(), &why).await;
        }
        let kind = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        if kind.starts_with("text/event-stream") {
            let answered = self
                .relay_events(response, id.as_ref(), initialize, &mut None)
                .await;
            if !answered && let Some(id) = &id {
                let why = format!(
                    "the MCP server at {} closed its event stream before answering",
                    self.url
                );
                self.fail_request(Some(id), &why).await;
            }
        } else if kind.starts_with("application/json") {
            match tokio::time::timeout(self.read_timeout, body_text(response)).await {
                Ok(Ok(body)) => {
                    if initialize {
                        self.note_protocol(&body);
                    }
                    self.relay.server_says(body).await;
                }
                Ok(Err(error)) => {
                    let why = format!(
                        "reading the answer of {} failed: {}",
                        self.url,
                        plain(&error)
                    );
                    self.fail_request(id.as_ref(), &why).await;
                }
                Err(_) => self.fail_request(id.as_ref(), &self.silent()).await,
            }
        } else if id.is_some() {
            let why = format!(
                "the MCP server at {} answered with content type `{kind}`, not JSON or an event stream",
                self.url
            );
            self.fail_request(id.as_ref(), &why).await;
        }
    }

    /// Relays each event of an SSE answer; returns whether the answer to `id` was among them.
    /// `last_event` keeps the last event id, to resume from.
    async fn relay_events(
        &self,
        response: reqwest::Response,
        id: Option<&Value>,
        initialize: bool,
        last_event: &mut Option<String>,
    ) -> bool {
        let mut events = SseByteStream::new(response.bytes_stream());
        let mut answered = false;
        loop {
            let next = if id.is_some() {
                match tokio::time::timeout(self.read_timeout, events.next()).await {
                    Ok(next) => next,
                    Err(_) => return answered,
                }
            } else {
                events.next().await
            };
            let Some(Ok(event)) = next else {
                return answered;
            };
            if let Some(event_id) = event.id {
                *last_event = Some(event_id);
            }
            let Some(data) = event.data.filter(|data| !data.trim().is_empty()) else {
                continue;
            };
            if let Some(id) = id
                && answers(&data, id)
            {
                answered = true;
                if initialize {
                    self.note_protocol(&data);
                }
            }
            self.relay.server_says(data).await;
            if answered {
                return true;
            }
        }
    }

    /// The GET stream: what the server sends on its own, reopened (from the last event) when
    /// it drops. A server that offers none answers 405.
    async fn listen(self: Arc<Self>) {
        let mut last_event = None;
        let mut failures = 0;
        while failures < RECONNECTS {
            let mut request = self
                .request(Method::GET)
                .header(ACCEPT, "text/event-stream");
            if let Some(event) = &last_event {
                request = request.header(LAST_EVENT_ID, event);
            }
            match request.send().await {
                Ok(response) if response.status() == StatusCode::METHOD_NOT_ALLOWED => return,
                Ok(response) if response.status() == StatusCode::NOT_FOUND => {
                    let _ = self.fatal.send(ProxyError::SessionEnded {
                        url: self.url.to_string(),
                    });
                    return;
                }
                Ok(response) if response.status().is_success() => {
                    failures = 0;
                    self.relay_events(response, None, false, &mut last_event)
                        .await;
                }
                Ok(_) | Err(_) => failures += 1,
            }
            tokio::time::sleep(Duration::from_millis(500 * u64::from(failures + 1))).await;
        }
    }

    /// Ends the session on the server (a server that does not support it answers 405).
    async fn close(&self) {
        if read(&self.session).is_none() {
            return;
        }
        let request = self.request(Method::DELETE).send();
        let _ = tokio::time::timeout(Duration::from_secs(5), request).await;
    }

    /// Records the protocol version the server chose in its `initialize` result.
    fn note_protocol(&self, text: &str) {
        let version = serde_json::from_str::<Value>(text).ok().and_then(|value| {
            let version = value.get("result")?.get("protocolVersion")?.as_str()?;
            HeaderValue::from_str(version).ok()
        });
        if version.is_some() {
            *self
                .protocol
                .write()
                .unwrap_or_else(PoisonError::into_inner) = version;
        }
    }

    /// Answers the request `id` (if it is one) with an error, as if the server had.
    async fn fail_request(&self, id: Option<&Value>, why: &str) {
        tracing::warn!(%why, "an upstream request got no answer");
        if let Some(id) = id {
            let text = message::error_response(id, message::CONNECTION_CLOSED, why);
            self.relay.server_says(text).await;
        }
    }

    fn silent(&self) -> String {
        format!(
            "the MCP server at {} sent nothing for {} s (raise --read-timeout for slow tools)",
            self.url,
            self.read_timeout.as_secs()
        )
    }
}

/// Whether `text` is the response to the request `id`.
fn answers(text: &str, id: &Value) -> bool {
    matches!(message::head(text), Ok((Kind::Response { .. }, answered)) if &answered == id)
}

/// An HTTP error without its source chain's repetition (reqwest's errors never hold header
/// values).
fn plain(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn read(lock: &RwLock<Option<HeaderValue>>) -> Option<HeaderValue> {
    lock.read().unwrap_or_else(PoisonError::into_inner).clone()
}

/// A JSON answer's body as text, held once: its chunks go into one buffer (sized from
/// `Content-Length`, within the message limit) that becomes the `String` without a copy, so a
/// 60 MB result costs the proxy what it does on stdio. (`Response::text` collects the chunks,
/// copies them into one buffer, then copies that into the `String`.) A body that is not UTF-8
/// is read lossily, as `text` reads it.
async fn body_text(mut response: reqwest::Response) -> reqwest::Result<String> {
    let expected = response
        .content_length()
        .and_then(|length| usize::try_from(length).ok())
        .unwrap_or(0)
        .min(crate::MAX_LINE_BYTES);
    let mut body = Vec::with_capacity(expected);
    while let Some(chunk) = response.chunk().await? {
        body.extend_from_slice(&chunk);
    }
    Ok(String::from_utf8(body)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_in_a_header_value_are_expanded() {
        let lookup = |var: &str| (var == "TOKEN").then(|| "s3cret".to_owned());
        assert_eq!(
            expand("Bearer ${TOKEN}", lookup),
            Ok("Bearer s3cret".to_owned())
        );
        assert_eq!(expand("a $b ${", lookup), Ok("a $b ${".to_owned()));
        assert_eq!(expand("${NOPE}", lookup), Err("NOPE".to_owned()));
    }

    #[test]
    fn a_header_spec_needs_a_name_and_a_colon() {
        assert!(matches!(
            parse_header("Authorization Bearer x"),
            Err(ProxyError::InvalidHeader { .. })
        ));
        assert_eq!(
            parse_header("X-Api-Key:  abc ").unwrap(),
            ("X-Api-Key".to_owned(), "abc".to_owned())
        );
    }

    #[test]
    fn a_missing_variable_names_the_variable_not_a_value() {
        let error = parse_header("Authorization: Bearer ${OVERSPILL_TEST_UNSET_VAR}").unwrap_err();
        let text = error.to_string();
        assert!(text.contains("OVERSPILL_TEST_UNSET_VAR"), "{text}");
        assert!(text.contains("Authorization"), "{text}");
    }

    #[test]
    fn debug_output_hides_header_values() {
        let remote = Remote::new("https://example.invalid/mcp")
            .unwrap()
            .with_header("Authorization", "Bearer s3cret")
            .unwrap();
        let shown = format!("{remote:?}");
        assert!(
            shown.contains("Authorization") && !shown.contains("s3cret"),
            "{shown}"
        );
    }

    #[test]
    fn only_http_urls_are_endpoints() {
        assert!(Remote::new("ftp://host/mcp").is_err());
        assert!(Remote::new("not a url").is_err());
        assert!(Remote::new("http://127.0.0.1:8080/mcp").is_ok());
    }
}
