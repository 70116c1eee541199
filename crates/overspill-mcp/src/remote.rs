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
use overspill::config::{HttpServer, VarError, expand_vars};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, WWW_AUTHENTICATE};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use sse_stream::SseByteStream;
use tokio::sync::{mpsc, oneshot};

use crate::MAX_LINE_BYTES;
use crate::error::ProxyError;
use crate::message::{self, Kind};
use crate::oauth::{Authorizer, Login, TokenStore};
use crate::relay::{ServerEnd, UpstreamPorts};
use crate::revision::{self, MCP_METHOD_HEADER, MCP_NAME_HEADER, PROTOCOL_VERSION_HEADER};

/// Where a remote server's diagnostics are: in its HTTP answers, which the proxy reports.
pub(crate) const DIAGNOSTICS: &str =
    "the HTTP errors the proxy reports on its stderr and in these answers";

/// How often a dropped GET stream is reopened before the proxy stops trying.
const RECONNECTS: u32 = 5;
/// How much of an HTTP error body an error message quotes.
const QUOTED_BODY: usize = 300;

const SESSION_ID: &str = "mcp-session-id";
const LAST_EVENT_ID: &str = "last-event-id";
/// How long to wait before reopening a stream when the server did not say (`retry:`).
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// The longest `retry:` a server may ask for; a longer one is cut to this.
const MAX_RETRY: Duration = Duration::from_secs(60);

/// A remote MCP server: its Streamable HTTP endpoint and how to reach it.
#[derive(Clone, PartialEq, Eq)]
pub struct Remote {
    url: reqwest::Url,
    headers: Vec<(String, String)>,
    connect_timeout: Duration,
    read_timeout: Duration,
    oauth: Option<Box<OAuthUse>>,
}

/// Where the proxy finds its sign-in to the server, and whether it may sign in itself.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OAuthUse {
    store: TokenStore,
    login: Option<Login>,
}

impl Remote {
    /// The time to connect unless [`Remote::with_connect_timeout`] says otherwise (`overspill
    /// mcp --connect-timeout`'s default).
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

    /// The time an answer may go silent before the request fails, unless
    /// [`Remote::with_read_timeout`] says otherwise (`overspill mcp --read-timeout`'s default).
    pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(300);

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
            connect_timeout: Remote::DEFAULT_CONNECT_TIMEOUT,
            read_timeout: Remote::DEFAULT_READ_TIMEOUT,
            oauth: None,
        })
    }

    /// The same endpoint signed in to with OAuth: the access token of its sign-in in `store`
    /// (from `overspill auth login`) rides on every request, renewed before it expires and
    /// after a 401 (the request that got the 401 is sent again once). Without a usable
    /// sign-in, `login` runs when given (`--oauth`); otherwise the client is told to sign in.
    #[must_use]
    pub fn with_oauth(mut self, store: TokenStore, login: Option<Login>) -> Remote {
        self.oauth = Some(Box::new(OAuthUse { store, login }));
        self
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

    /// The same endpoint with another time to connect than [`Remote::DEFAULT_CONNECT_TIMEOUT`].
    #[must_use]
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Remote {
        self.connect_timeout = timeout;
        self
    }

    /// The same endpoint with another time an answer may go silent than
    /// [`Remote::DEFAULT_READ_TIMEOUT`].
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

    /// Whether a TCP connection to the endpoint opens within `within`: what a readiness check
    /// can ask of a server every session shares. `Err` says why not.
    pub(crate) async fn reachable(&self, within: Duration) -> Result<(), String> {
        let port = self
            .url
            .port_or_known_default()
            .ok_or_else(|| format!("{} names no port", self.url))?;
        // An IPv6 literal is written in brackets in a URL, not in a socket address.
        let host = self.host().trim_start_matches('[').trim_end_matches(']');
        let connect = tokio::net::TcpStream::connect((host, port));
        match tokio::time::timeout(within, connect).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(error)) => Err(format!("cannot connect to {}: {error}", self.url)),
            Err(_) => Err(format!(
                "{} did not accept a connection within {} ms",
                self.url,
                within.as_millis()
            )),
        }
    }
}

impl TryFrom<&HttpServer> for Remote {
    type Error = ProxyError;

    /// The endpoint a configured server's entry names, with its headers
    /// ([`overspill::config::HttpServer`]), as [`Remote::new`] and [`Remote::with_header`] make
    /// it. Its `oauth` is the host's to act on, since the host chooses where sign-ins are kept
    /// and how a sign-in runs ([`Remote::with_oauth`]).
    ///
    /// # Errors
    ///
    /// [`ProxyError::InvalidUrl`] or [`ProxyError::InvalidHeader`], as `new` and `with_header`.
    fn try_from(http: &HttpServer) -> Result<Remote, ProxyError> {
        http.headers
            .iter()
            .try_fold(Remote::new(&http.url)?, |remote, (name, value)| {
                remote.with_header(name, value)
            })
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
            .field("oauth", &self.oauth.is_some())
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
    let value =
        expand_vars(value.trim(), |var| std::env::var(var).ok()).map_err(|error| match error {
            VarError::Unset(var) => ProxyError::MissingEnv {
                var,
                header: name.to_owned(),
            },
            other => ProxyError::InvalidHeader {
                name: name.to_owned(),
                reason: other.to_string(),
            },
        })?;
    Ok((name.to_owned(), value))
}

/// One session's connection to the remote server.
struct Link {
    http: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    read_timeout: Duration,
    /// How long the first GET may take to be answered before messages go on without it.
    open_timeout: Duration,
    relay: ServerEnd,
    session: RwLock<Option<HeaderValue>>,
    protocol: RwLock<Option<HeaderValue>>,
    listening: AtomicBool,
    /// The run is over: what a request or the GET stream still reads is dropped, not relayed
    /// (a restarted server's new run has a link of its own).
    ended: AtomicBool,
    fatal: mpsc::UnboundedSender<ProxyError>,
    auth: Option<Authorizer>,
    /// Told of each request whose event stream the server closed before answering.
    closed: Option<StreamClosed>,
}

/// Told the id of a request (as the relay sent it upstream) whose event stream the server
/// closed before answering, as a server that polls (SEP-1699) does: the proxy comes back for
/// the answer with `Last-Event-ID`, and `--listen` closes its own client's stream of that
/// request, when that client can come back for it too (docs/mcp-proxy.md#resuming-a-stream).
pub(crate) type StreamClosed = Arc<dyn Fn(&Value) + Send + Sync>;

/// Runs the session against the remote server until the client goes (`gone`) or the server
/// ends it; `closed` hears of the streams the server closes before answering.
pub(crate) async fn run(
    remote: &Remote,
    relay: &ServerEnd,
    ports: UpstreamPorts,
    gone: Pin<&mut impl Future<Output = ()>>,
    closed: Option<StreamClosed>,
) -> Result<(), ProxyError> {
    let UpstreamPorts {
        mut queue,
        mut stopped,
    } = ports;
    let (fatal, mut failed) = mpsc::unbounded_channel();
    let link = Arc::new(Link::new(remote, relay.clone(), fatal, closed)?);
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
                ProxyError::AuthRequired { .. } => "refused the credentials (HTTP 401)".to_owned(),
                // Every waiting request learns what to do: sign in (again).
                ProxyError::SignIn(cause) => format!("refused the credentials (HTTP 401): {cause}"),
                _ => "ended the session (HTTP 404 for its Mcp-Session-Id)".to_owned(),
            };
            relay.gone(&why).await;
            Err(error)
        }
    };
    sender.abort();
    link.ended.store(true, Ordering::SeqCst);
    link.close().await;
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
        relay: ServerEnd,
        fatal: mpsc::UnboundedSender<ProxyError>,
        closed: Option<StreamClosed>,
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
        let auth = remote.oauth.as_ref().map(|oauth| {
            let authorizer = Authorizer::new(
                remote.url.to_string(),
                oauth.store.clone(),
                oauth.login.clone(),
            );
            match relay.metrics() {
                Some(metrics) => {
                    let server = relay.server_name();
                    authorizer.on_refresh(move |ok| metrics.oauth_refreshed(&server, ok))
                }
                None => authorizer,
            }
        });
        Ok(Link {
            http,
            url: remote.url.clone(),
            headers,
            read_timeout: remote.read_timeout,
            open_timeout: remote.connect_timeout,
            relay,
            session: RwLock::new(None),
            protocol: RwLock::new(None),
            listening: AtomicBool::new(false),
            ended: AtomicBool::new(false),
            fatal,
            auth,
            closed,
        })
    }

    /// A request to the endpoint with the user's headers, the session's and the bearer.
    fn request(&self, method: Method, bearer: Option<&str>) -> reqwest::RequestBuilder {
        let mut request = self
            .http
            .request(method, self.url.clone())
            .headers(self.headers.clone());
        if let Some(token) = bearer {
            request = request.bearer_auth(token);
        }
        if let Some(session) = read(&self.session) {
            request = request.header(SESSION_ID, session);
        }
        if let Some(version) = read(&self.protocol) {
            request = request.header(PROTOCOL_VERSION_HEADER, version);
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
                    // The next message waits until the server has answered the GET: a server
                    // sends its own requests (sampling, elicitation, roots) on that stream and
                    // drops them while it is not open, so a tool call that overtook the GET
                    // would never see its sampling request (docs/mcp-proxy.md, "--url").
                    let (opened, answered) = oneshot::channel();
                    let timeout = self.open_timeout;
                    tokio::spawn(self.listen(opened));
                    if tokio::time::timeout(timeout, answered).await.is_err() {
                        tracing::warn!(
                            seconds = timeout.as_secs(),
                            "the server has not answered the GET stream; messages go on without it"
                        );
                    }
                }
            }
            (None, _) => self.post(text, None, false).await,
        }
    }

    /// POSTs one message and relays what comes back; a request that gets no answer is
    /// answered with an error in the server's place.
    async fn post(&self, text: String, id: Option<Value>, initialize: bool) {
        let bearer = match self.bearer().await {
            Ok(bearer) => bearer,
            Err(error) => return self.sign_in_failed(id.as_ref(), error).await,
        };
        // The request is sent again once after a 401 that a renewed token may cure.
        let request = self.post_request(text);
        // A request built from bytes clones without copying them.
        let again = self.auth.as_ref().and_then(|_| request.try_clone());
        let mut sent = with_bearer(request, bearer.as_deref()).send().await;
        let refused = match &sent {
            Ok(response) => Some((response.status(), challenge_of(response))),
            Err(_) => None,
        };
        if let (Some((status, challenge)), Some(auth), Some(again)) = (refused, &self.auth, again) {
            if status == StatusCode::UNAUTHORIZED {
                match auth
                    .after_unauthorized(bearer.as_deref(), challenge.as_deref())
                    .await
                {
                    Ok(token) => sent = with_bearer(again, Some(&token)).send().await,
                    Err(error) => return self.sign_in_failed(id.as_ref(), error).await,
                }
            } else if status == StatusCode::FORBIDDEN
                && let Some(challenge) =
                    challenge.filter(|c| crate::oauth::asks_for_scope(c, &self.url))
            {
                // Step-up: the server names the scopes this request needs (MCP
                // authorization, scope challenge handling); signing in for them needs --oauth.
                match auth.step_up(&challenge).await {
                    Ok(token) => sent = with_bearer(again, Some(&token)).send().await,
                    Err(error) => {
                        let why = ProxyError::SignIn(error).to_string();
                        return self.fail_request(id.as_ref(), &why).await;
                    }
                }
            }
        }
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
            let challenge = challenge_of(&response)
                .map(|value| value.chars().take(QUOTED_BODY).collect::<String>());
            let error = ProxyError::AuthRequired {
                url: self.url.to_string(),
                challenge: challenge.unwrap_or_default(),
            };
            self.fail_request(id.as_ref(), &error.to_string()).await;
            let _ = self.fatal.send(error);
            return;
        }
        if self.ended(status) {
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
            // A JSON-RPC error is the server's answer, whatever the HTTP status says of it
            // (2026-07-28 gives its errors 400 and 404): the client gets it as the server wrote
            // it, under its request's id.
            if let Some(id) = &id
                && let Ok((Kind::Response { error: true, .. }, _)) = message::head(&body)
            {
                return self.deliver(message::with_id(body, id)).await;
            }
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
            let mut place = StreamPlace::default();
            let mut answered = self
                .relay_events(response, id.as_ref(), initialize, &mut place)
                .await;
            if !answered && let Some(id) = &id {
                // An event id first: the server means its client to come back (SEP-1699).
                if place.last_event.is_some()
                    && let Some(closed) = &self.closed
                {
                    closed(id);
                }
                answered = self.resume(id, initialize, &mut place).await;
            }
            if !answered && let Some(id) = &id {
                let why = format!(
                    "the MCP server at {} closed its event stream before answering",
                    self.url
                );
                self.fail_request(Some(id), &why).await;
            }
        } else if kind.starts_with("application/json") {
            match self.read_body(response).await {
                Ok(body) => {
                    if initialize {
                        self.note_protocol(&body);
                    }
                    self.deliver(body).await;
                }
                Err(why) => self.fail_request(id.as_ref(), &why).await,
            }
        } else if id.is_some() {
            let why = format!(
                "the MCP server at {} answered with content type `{kind}`, not JSON or an event stream",
                self.url
            );
            self.fail_request(id.as_ref(), &why).await;
        }
    }

    /// The POST of one message, without the bearer.
    fn post_request(&self, text: String) -> reqwest::RequestBuilder {
        let mut request = self
            .request(Method::POST, None)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream");
        let stateless = stateless_headers(&text, |tool| self.relay.input_schema(tool));
        if !stateless.is_empty() {
            // In place of the session's protocol version, if there is one.
            let mut headers = HeaderMap::new();
            for (name, value) in stateless {
                headers.insert(name, value);
            }
            request = request.headers(headers);
        }
        request.body(text)
    }

    /// The bearer for the next request, if the server is signed in to.
    async fn bearer(&self) -> Result<Option<String>, crate::oauth::OAuthError> {
        match &self.auth {
            Some(auth) => auth.bearer().await,
            None => Ok(None),
        }
    }

    /// No token to send: the request is answered with what to do, and the session ends.
    async fn sign_in_failed(&self, id: Option<&Value>, error: crate::oauth::OAuthError) {
        let error = ProxyError::SignIn(error);
        self.fail_request(id, &error.to_string()).await;
        let _ = self.fatal.send(error);
    }

    /// A JSON answer's body as one `String`, read piece by piece into one buffer (sized from
    /// `Content-Length` when the server gives it; a large buffer grows in place, so a 60 MB
    /// result is held about once, not three times as `Response::text` would). Each piece must
    /// come within the read timeout, and the body may not pass [`MAX_LINE_BYTES`], the limit of
    /// a message on stdio. An error is the message for the client.
    async fn read_body(&self, response: reqwest::Response) -> Result<String, String> {
        let announced = response.content_length().unwrap_or(0);
        let mut body = Vec::with_capacity(
            usize::try_from(announced).map_or(MAX_LINE_BYTES, |n| n.min(MAX_LINE_BYTES)),
        );
        let mut stream = response.bytes_stream();
        loop {
            match tokio::time::timeout(self.read_timeout, stream.next()).await {
                Err(_) => return Err(self.silent()),
                Ok(None) => break,
                Ok(Some(Err(error))) => {
                    return Err(format!(
                        "reading the answer of {} failed: {}",
                        self.url,
                        plain(&error)
                    ));
                }
                Ok(Some(Ok(piece))) => {
                    if body.len().saturating_add(piece.len()) > MAX_LINE_BYTES {
                        return Err(format!(
                            "the MCP server at {} sent an answer longer than {} MiB; it was \
                             dropped",
                            self.url,
                            MAX_LINE_BYTES >> 20
                        ));
                    }
                    body.extend_from_slice(&piece);
                }
            }
        }
        Ok(String::from_utf8(body)
            .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()))
    }

    /// A request's event stream closed before its answer: the server means the client to come
    /// back for it (SEP-1699, 2025-11-25). When the stream gave event ids, the stream is reopened
    /// with a GET carrying `Last-Event-ID`, after the delay the server asked for (`retry:`),
    /// until the answer arrives or [`RECONNECTS`] tries have failed. Returns whether it came.
    async fn resume(&self, id: &Value, initialize: bool, place: &mut StreamPlace) -> bool {
        for _ in 0..RECONNECTS {
            let Some(event) = place.last_event.clone() else {
                return false;
            };
            tokio::time::sleep(place.retry.unwrap_or(DEFAULT_RETRY)).await;
            let bearer = self.bearer().await.ok().flatten();
            let sent = self
                .request(Method::GET, bearer.as_deref())
                .header(ACCEPT, "text/event-stream")
                .header(LAST_EVENT_ID, event)
                .send()
                .await;
            match sent {
                Ok(response) if response.status().is_success() => {
                    if self
                        .relay_events(response, Some(id), initialize, place)
                        .await
                    {
                        return true;
                    }
                }
                Ok(response) if self.ended(response.status()) => {
                    let _ = self.fatal.send(ProxyError::SessionEnded {
                        url: self.url.to_string(),
                    });
                    return false;
                }
                Ok(_) => return false,
                Err(error) => {
                    tracing::warn!(why = %plain(&error), "resuming an event stream failed");
                }
            }
        }
        false
    }

    /// Relays each event of an SSE answer; returns whether the answer to `id` was among them.
    /// `place` keeps the last event id, to resume from, and the server's reconnection delay.
    async fn relay_events(
        &self,
        response: reqwest::Response,
        id: Option<&Value>,
        initialize: bool,
        place: &mut StreamPlace,
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
                place.last_event = Some(event_id);
            }
            if let Some(retry) = event.retry {
                place.retry = Some(Duration::from_millis(retry).min(MAX_RETRY));
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
            self.deliver(data).await;
            if answered {
                return true;
            }
        }
    }

    /// The GET stream: what the server sends on its own, reopened (from the last event) when
    /// it drops. A server that offers none answers 405. `opened` is told once the server has
    /// answered the first GET, whatever the answer (dropped unsent if it never does).
    async fn listen(self: Arc<Self>, opened: oneshot::Sender<()>) {
        let mut opened = Some(opened);
        let mut place = StreamPlace::default();
        let mut failures = 0;
        let mut renewed = false;
        while failures < RECONNECTS {
            let Ok(bearer) = self.bearer().await else {
                return;
            };
            let mut request = self
                .request(Method::GET, bearer.as_deref())
                .header(ACCEPT, "text/event-stream");
            if let Some(event) = &place.last_event {
                request = request.header(LAST_EVENT_ID, event);
            }
            let sent = request.send().await;
            let renewing = !renewed
                && self.auth.is_some()
                && matches!(&sent, Ok(response) if response.status() == StatusCode::UNAUTHORIZED);
            if !renewing && let Some(opened) = opened.take() {
                let _ = opened.send(());
            }
            match sent {
                Ok(response) if self.ended(response.status()) => {
                    let _ = self.fatal.send(ProxyError::SessionEnded {
                        url: self.url.to_string(),
                    });
                    return;
                }
                // A token that expired is renewed once (a POST may already have done so).
                Ok(response)
                    if response.status() == StatusCode::UNAUTHORIZED
                        && !renewed
                        && let Some(auth) = &self.auth =>
                {
                    renewed = true;
                    let challenge = challenge_of(&response);
                    if auth
                        .after_unauthorized(bearer.as_deref(), challenge.as_deref())
                        .await
                        .is_err()
                    {
                        return;
                    }
                    continue;
                }
                // 405, or any other refusal: this server offers no stream of its own (a
                // stateless server may not know the GET at all: 404 without a session).
                Ok(response) if response.status().is_client_error() => return,
                Ok(response) if response.status().is_success() => {
                    failures = 0;
                    self.relay_events(response, None, false, &mut place).await;
                }
                Ok(_) | Err(_) => failures += 1,
            }
            let backoff = Duration::from_millis(500 * u64::from(failures + 1));
            tokio::time::sleep(place.retry.unwrap_or(backoff).max(backoff / 2)).await;
        }
    }

    /// Whether `status` says the server ended this session: a 404 to a request that carried
    /// the session's id.
    fn ended(&self, status: StatusCode) -> bool {
        status == StatusCode::NOT_FOUND && read(&self.session).is_some()
    }

    /// Ends the session on the server (a server that does not support it answers 405).
    async fn close(&self) {
        if read(&self.session).is_none() {
            return;
        }
        let bearer = self.bearer().await.ok().flatten();
        let request = self.request(Method::DELETE, bearer.as_deref()).send();
        let _ = tokio::time::timeout(Duration::from_secs(5), request).await;
    }

    /// Hands a message the server sent to the relay, unless the run is over.
    async fn deliver(&self, text: String) {
        if !self.ended.load(Ordering::SeqCst) {
            self.relay.says(text).await;
        }
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
            self.deliver(text).await;
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

/// `request` with `Authorization: Bearer <token>` (a sensitive header) when there is a token.
fn with_bearer(request: reqwest::RequestBuilder, bearer: Option<&str>) -> reqwest::RequestBuilder {
    match bearer {
        Some(token) => request.bearer_auth(token),
        None => request,
    }
}

/// The `WWW-Authenticate` challenge of a 401.
fn challenge_of(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get(WWW_AUTHENTICATE)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
}

/// The headers a request of the 2026-07-28 revision's stateless form must carry over HTTP
/// (SEP-2243): `MCP-Protocol-Version` from the request's own
/// `_meta["io.modelcontextprotocol/protocolVersion"]`, `Mcp-Method`, and `Mcp-Name` (the tool or
/// prompt name, or the resource URI). Empty for a message without that envelope: a session of
/// an earlier revision is sent exactly as before. A value that cannot be a header value is left
/// out.
///
/// A `tools/call` also mirrors the arguments its tool's input schema (from `schema_of`, by the
/// tool's name at the server) marks with `x-mcp-header` into `Mcp-Param-*` headers
/// ([`revision::param_headers`]).
fn stateless_headers(
    text: &str,
    schema_of: impl Fn(&str) -> Option<std::sync::Arc<Value>>,
) -> Vec<(HeaderName, HeaderValue)> {
    let Some((method, head)) = message::method_head(text) else {
        return Vec::new();
    };
    let Some(version) = head.version else {
        return Vec::new();
    };
    let mirrored = match (method.as_str(), &head.name) {
        ("tools/call", Some(tool)) => schema_of(tool)
            .map(|schema| {
                let arguments = message::params(text)
                    .get_mut("arguments")
                    .map(Value::take)
                    .unwrap_or(Value::Null);
                revision::param_headers(&schema, &arguments)
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let target = match revision::named_by(&method) {
        Some("name") => head.name,
        Some(_) => head.uri,
        None => None,
    };
    let standard = [
        (PROTOCOL_VERSION_HEADER, Some(version)),
        (MCP_METHOD_HEADER, Some(method)),
        (MCP_NAME_HEADER, target),
    ]
    .into_iter()
    .filter_map(|(name, value)| {
        let value = value?;
        // What a body names may need the header's encoded form; the version and method never do.
        let text = if name == MCP_NAME_HEADER {
            revision::header_value(&value)
        } else {
            value
        };
        Some((
            HeaderName::from_static(name),
            HeaderValue::from_str(&text).ok()?,
        ))
    });
    let params = mirrored.into_iter().filter_map(|(name, value)| {
        Some((
            HeaderName::from_bytes(name.as_bytes()).ok()?,
            HeaderValue::from_str(&value).ok()?,
        ))
    });
    standard.chain(params).collect()
}

/// Where a server's event stream stands, for reopening it.
#[derive(Default)]
struct StreamPlace {
    /// The id of the last event that had one (`Last-Event-ID` of the next GET).
    last_event: Option<String>,
    /// The server's `retry:` delay, at most [`MAX_RETRY`].
    retry: Option<Duration>,
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

#[cfg(test)]
mod tests;
