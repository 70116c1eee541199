//! Serving MCP clients over Streamable HTTP (`overspill mcp --listen`): many clients at once,
//! each client session with its own relay, scratchpad and upstream (for a command, its own
//! child process).
//!
//! A POST carries one message or a batch. Notifications and responses are accepted with 202;
//! requests are answered on an SSE stream that carries their responses (and what the server
//! sends meanwhile) and ends once every request of the POST is answered. A GET opens the
//! session's stream for what the server sends on its own; DELETE ends the session.
//!
//! What the transport specification asks of a local server is enforced here: an `Origin` that
//! is not local is refused (DNS rebinding), an optional bearer token is required, bodies and
//! sessions are bounded, and each refusal has its HTTP status.
//!
//! Beside the endpoint, `/healthz` answers 200 while the process serves and `/readyz` 200
//! while it takes new sessions, for load balancers and probes (no token needed: they say
//! nothing but that). On the stop signal the server drains: `/readyz` answers 503 at once, new
//! sessions are refused with 503, and the calls in flight finish (for at most
//! [`Listen::drain_timeout`]) before the sessions close (docs/mcp-proxy.md#health-checks-and-stopping-without-losing-work).

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use serde_json::Value;
use tokio::sync::{mpsc, watch};

use crate::ProxyOptions;
use crate::error::ProxyError;
use crate::health::{HEALTH_PATH, READY_PATH, Readiness, ReadyCheck, is_health_path};
use crate::message::{self, Id, Kind, Message};
use crate::metrics::{Ended, Refused};
use crate::relay::Relay;
use crate::revision::{PROTOCOL_VERSION_HEADER, Revision, Streaming};
use crate::scratch::Scratch;
use crate::session::{self, Wiring};
use crate::sync::lock;
use events::{EventId, Frame};
use stateless::Agent;
use streams::{GetStreamOpen, Gone, Resumed, Streams, route, sse, sse_until};
pub use tokens::{Issued, LineProblem, Principal, Tokens, TokensError};

const SESSION_ID: &str = "mcp-session-id";
/// The header with which a client resumes a stream: the id of the last event it received.
const LAST_EVENT_ID: &str = "last-event-id";

/// The hex digits of a session's id its log lines carry (48 of its 128 bits).
const SESSION_LABEL_CHARS: usize = 12;

/// Makes the scratchpad of a new client session, or of an agent's context for stateless
/// requests ([`ScratchFor`] says which).
pub type ScratchFactory =
    Arc<dyn Fn(&ScratchFor) -> Result<Arc<dyn Scratch>, String> + Send + Sync + 'static>;

/// What a new scratchpad of `--listen` is for (docs/mcp-proxy.md#stateless-requests).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScratchFor {
    /// Its directory, relative to the proxy's: a session's id, or `principals/<hash>` for an
    /// agent's context (one per principal, whatever the agent).
    pub storage: String,
    /// For an agent's context: the file, relative to [`storage`](ScratchFor::storage), that
    /// keeps its budget's extractions for every instance serving it
    /// (`budgets/principal` for the principal's own agent, `budgets/agent-<name>` for a named
    /// one); `None` for a session, whose budget is its own.
    pub shared_budget: Option<String>,
}

/// How the HTTP side serves clients.
#[derive(Clone)]
#[non_exhaustive]
pub struct Listen {
    /// The endpoint's path (`/mcp`).
    pub path: String,
    /// Origins allowed besides the local ones (`http://localhost:*`, `127.0.0.1`, `[::1]`).
    pub allowed_origins: Vec<String>,
    /// The bearer token every request must carry, if any: its requests are
    /// [`Principal::shared`]'s.
    pub auth_token: Option<String>,
    /// The principals' tokens (`--auth-tokens`): a request with one of them is that
    /// principal's. With [`auth_token`](Listen::auth_token) too, either admits; with
    /// neither, every request is [`Principal::local`]'s.
    pub auth_tokens: Option<Tokens>,
    /// The most client sessions at once. At the limit a new session closes the least
    /// recently used idle one (no stream open, nothing in flight); only when every session is
    /// busy is it refused (503).
    pub max_sessions: usize,
    /// A session without requests for this long is closed.
    pub session_idle: Duration,
    /// The largest request body.
    pub max_body_bytes: usize,
    /// On the stop signal, how long the calls in flight may take to finish before the
    /// sessions close anyway.
    pub drain_timeout: Duration,
    /// On the stop signal, how long new sessions are still taken while `/readyz` already
    /// fails: the time a load balancer's health checks need to move new sessions away, so that
    /// none is refused (0: refused at once).
    pub drain_delay: Duration,
    /// Where [`listen_blocking`] serves `GET /metrics` (the options' [`Metrics`](crate::Metrics)), on a
    /// listener of its own so that the MCP endpoint's token does not cover it.
    pub metrics_address: Option<SocketAddr>,
    /// Whether a 2025-era session stores its results in its principal's directory, with the
    /// principal's agents (and its other sessions), rather than in a directory of its own:
    /// then a session that replaces one lost with its instance explores the pointers the lost
    /// one got (docs/team.md#a-shared-store). The CLI sets it with `--store`.
    pub sessions_store_with_principal: bool,
    /// What else a new session needs, checked by `/readyz` beside the server (e.g. the shared
    /// store every stored result goes to): `Err` says what is missing. It may block; it runs
    /// on the blocking pool, at most once a second.
    pub ready_check: Option<ReadyCheck>,
}

/// Where [`listen_blocking`] listens, once it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Bound {
    /// The MCP endpoint's (and the health checks') address.
    pub mcp: SocketAddr,
    /// The metrics' address, when they are served.
    pub metrics: Option<SocketAddr>,
}

/// The defaults of [`Listen::default`], which are also `overspill mcp --listen`'s flags'
/// (`--path`, `--max-sessions`, …): one definition each.
impl Listen {
    /// The endpoint's path.
    pub const DEFAULT_PATH: &str = "/mcp";
    /// The most client sessions at once.
    pub const DEFAULT_MAX_SESSIONS: usize = 16;
    /// How long a session may go without requests before it is closed: 30 minutes.
    pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(30 * 60);
    /// The largest request body: 16 MiB.
    pub const DEFAULT_MAX_BODY_BYTES: usize = 16 << 20;
    /// How long the calls in flight may take to finish on the stop signal.
    pub const DEFAULT_DRAIN_TIMEOUT: Duration = Duration::from_secs(30);
    /// How long new sessions are still taken on the stop signal: not at all.
    pub const DEFAULT_DRAIN_DELAY: Duration = Duration::ZERO;
}

impl Default for Listen {
    fn default() -> Listen {
        Listen {
            path: Listen::DEFAULT_PATH.to_owned(),
            allowed_origins: Vec::new(),
            auth_token: None,
            auth_tokens: None,
            max_sessions: Listen::DEFAULT_MAX_SESSIONS,
            session_idle: Listen::DEFAULT_SESSION_IDLE,
            max_body_bytes: Listen::DEFAULT_MAX_BODY_BYTES,
            drain_timeout: Listen::DEFAULT_DRAIN_TIMEOUT,
            drain_delay: Listen::DEFAULT_DRAIN_DELAY,
            metrics_address: None,
            sessions_store_with_principal: false,
            ready_check: None,
        }
    }
}

impl std::fmt::Debug for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listen")
            .field("path", &self.path)
            .field("allowed_origins", &self.allowed_origins)
            .field("auth_token", &self.auth_token.as_ref().map(|_| "(hidden)"))
            .field("auth_tokens", &self.auth_tokens)
            .field("max_sessions", &self.max_sessions)
            .field("session_idle", &self.session_idle)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("drain_timeout", &self.drain_timeout)
            .field("drain_delay", &self.drain_delay)
            .field("metrics_address", &self.metrics_address)
            .field(
                "sessions_store_with_principal",
                &self.sessions_store_with_principal,
            )
            .field("ready_check", &self.ready_check.as_ref().map(|_| "(set)"))
            .finish()
    }
}

/// Serves MCP over Streamable HTTP on `listener` until `shutdown` completes; then it drains
/// (no new sessions, `/readyz` 503, the calls in flight finish within
/// [`Listen::drain_timeout`]), and every session is closed and its upstream stopped.
///
/// # Errors
///
/// [`ProxyError::Http`] when the server cannot run on the listener.
pub async fn serve_http(
    listener: tokio::net::TcpListener,
    listen: Listen,
    options: ProxyOptions,
    scratch_for: ScratchFactory,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ProxyError> {
    if is_health_path(&listen.path) {
        return Err(ProxyError::Http(format!(
            "the MCP endpoint cannot be {}: that path answers health checks",
            listen.path
        )));
    }
    let loopback = listener
        .local_addr()
        .is_ok_and(|address| address.ip().is_loopback());
    let server = Arc::new(Server {
        listen,
        loopback,
        options,
        scratch_for,
        sessions: Mutex::new(HashMap::new()),
        draining: AtomicBool::new(false),
        refusing: AtomicBool::new(false),
        opening: tokio::sync::Mutex::new(()),
        readiness: Readiness::default(),
    });
    let reaper = tokio::spawn(reap(Arc::clone(&server)));
    let router = axum::Router::new()
        .route(HEALTH_PATH, axum::routing::get(healthy))
        .route(
            READY_PATH,
            axum::routing::get(ready).with_state(Arc::clone(&server)),
        )
        .route(
            &server.listen.path,
            axum::routing::any(endpoint).with_state(Arc::clone(&server)),
        );
    // On the signal the server drains while it still accepts connections (a probe sees 503,
    // not a refused connection); then the sessions close: that ends their open streams (a GET
    // stream never ends by itself), so the graceful shutdown, which waits for every
    // connection, can finish.
    let closing = Arc::clone(&server);
    let (closed, sessions_closed) = tokio::sync::oneshot::channel::<()>();
    let shutdown = async move {
        shutdown.await;
        closing.drain().await;
        closing.close_all().await;
        let _ = closed.send(());
    };
    // An answer is small writes (the SSE head, then each event): with Nagle's algorithm on,
    // the second waits for the client's delayed ACK, about 40 ms per request on Linux.
    let listener = listener.tap_io(|stream| {
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY could not be set on a client connection");
        }
    });
    let serving = axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .into_future();
    // Once the sessions are closed, a connection still open is a client that neither reads
    // what it was sent nor finishes its request: it is not waited for long.
    let stragglers = async move {
        if sessions_closed.await.is_ok() {
            tokio::time::sleep(STRAGGLERS).await;
        } else {
            std::future::pending::<()>().await;
        }
    };
    let served = tokio::select! {
        served = serving => served,
        () = stragglers => {
            tracing::warn!(
                seconds = STRAGGLERS.as_secs(),
                "stopping: connections still open after the sessions closed are dropped"
            );
            Ok(())
        }
    };
    reaper.abort();
    server.close_all().await;
    served.map_err(|error| ProxyError::Http(format!("the HTTP server failed: {error}")))
}

/// [`serve_http`] on `address`, on a runtime of its own, until Ctrl-C or SIGTERM (the CLI's
/// `overspill mcp --listen`), with the metrics on [`Listen::metrics_address`] when it is set.
/// Prints nothing; `bound` hears where it listens.
///
/// # Errors
///
/// [`ProxyError::Runtime`] without a runtime, [`ProxyError::Http`] when an address cannot
/// be bound or served, or metrics are to be served and the options have none.
pub fn listen_blocking(
    address: SocketAddr,
    listen: Listen,
    options: ProxyOptions,
    scratch_for: ScratchFactory,
    bound: impl FnOnce(Bound),
) -> Result<(), ProxyError> {
    let runtime = crate::runtime()?;
    runtime.block_on(async move {
        let stop = stop_signal();
        let listener = bind(address).await?;
        let metrics = match (listen.metrics_address, &options.metrics) {
            (None, _) => None,
            (Some(address), Some(metrics)) => Some((bind(address).await?, metrics.clone())),
            (Some(_), None) => {
                return Err(ProxyError::Http(
                    "metrics are to be served, but the proxy options count none: give them \
                     ProxyOptions::with_metrics"
                        .to_owned(),
                ));
            }
        };
        let mcp = listener.local_addr().map_err(|error| {
            ProxyError::Http(format!("cannot read the address listened on: {error}"))
        })?;
        let metrics_at = metrics
            .as_ref()
            .and_then(|(listener, _)| listener.local_addr().ok());
        bound(Bound {
            mcp,
            metrics: metrics_at,
        });
        // The metrics answer until the MCP server has drained and closed its sessions, so a
        // scrape during the drain still sees them.
        let (stopped, stopping) = tokio::sync::oneshot::channel::<()>();
        let metrics_server = metrics.map(|(listener, metrics)| {
            tokio::spawn(metrics.serve(listener, async move {
                let _ = stopping.await;
            }))
        });
        let served = serve_http(listener, listen, options, scratch_for, stop).await;
        let _ = stopped.send(());
        if let Some(metrics_server) = metrics_server
            && let Ok(Err(error)) = metrics_server.await
        {
            tracing::warn!(%error, "the metrics server failed");
        }
        served
    })
}

async fn bind(address: SocketAddr) -> Result<tokio::net::TcpListener, ProxyError> {
    tokio::net::TcpListener::bind(address)
        .await
        .map_err(|error| ProxyError::Http(format!("cannot listen on {address}: {error}")))
}

/// Ctrl-C, or SIGTERM where there is one. The handlers are in place when this returns (not
/// when the future is first polled), so a signal that comes right after the proxy says where it
/// listens drains it rather than killing it. Call it on the runtime.
fn stop_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt());
        let terminate = signal(SignalKind::terminate());
        async move {
            let wait = |signal: std::io::Result<tokio::signal::unix::Signal>| async move {
                match signal {
                    Ok(mut signal) => {
                        signal.recv().await;
                    }
                    Err(_) => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(interrupt) => {}
                () = wait(terminate) => {}
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// How long connections may stay open once every session is closed at a stop.
const STRAGGLERS: Duration = Duration::from_secs(5);

/// The listener's shared state.
struct Server {
    listen: Listen,
    /// Listening on a loopback address: the `Host` header must name this machine too.
    loopback: bool,
    options: ProxyOptions,
    scratch_for: ScratchFactory,
    sessions: Mutex<HashMap<SessionKey, Arc<HttpSession>>>,
    /// Stopping: `/readyz` 503.
    draining: AtomicBool,
    /// Stopping, and the drain delay over: no new sessions.
    refusing: AtomicBool,
    /// Held while a session is opened, one at a time: two `initialize`s at once cannot both
    /// take the last place, nor make room by ending the same session.
    opening: tokio::sync::Mutex<()>,
    readiness: Readiness,
}

/// What names a session in the listener's table: the id a client was given at `initialize`,
/// or the agent stateless requests are for (no header can name that one).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum SessionKey {
    Id(String),
    Agent(Agent),
}

/// One client session, or one agent's context for stateless requests.
struct HttpSession {
    /// Whose it is: a request of another principal never reaches it.
    principal: Principal,
    /// The ids its stateless requests are given on their way to the relay, so that two clients
    /// of one agent using the same id are kept apart.
    routed: AtomicU64,
    /// How the session is named in logs: the start of its id, enough to tell sessions apart,
    /// too little to take one over.
    label: String,
    /// It is an agent's, for stateless requests: it has no GET stream and no backlog.
    stateless: bool,
    /// Why it was ended, once something ended it.
    ended: Mutex<Option<Ended>>,
    relay: Relay,
    streams: Mutex<Streams>,
    last_seen: Mutex<Instant>,
    /// Raised when the client ends the session (DELETE, idle, shutdown).
    close: watch::Sender<bool>,
    /// The session's upstream, running until the session ends.
    upstream: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Held while a POST's messages are given to the relay: one POST after another, in the
    /// order they came.
    feeding: Arc<tokio::sync::Mutex<()>>,
}

/// `/healthz`: the process serves.
async fn healthy() -> &'static str {
    "ok\n"
}

/// `/readyz`: new sessions are taken and could work (503 while draining, or while the server
/// they need cannot be reached).
async fn ready(State(server): State<Arc<Server>>) -> Response {
    if server.draining.load(Ordering::Acquire) {
        return (StatusCode::SERVICE_UNAVAILABLE, "draining\n").into_response();
    }
    match server
        .readiness
        .check(&server.options, server.listen.ready_check.as_ref())
        .await
    {
        Ok(()) => "ready\n".into_response(),
        Err(why) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {why}\n"),
        )
            .into_response(),
    }
}

async fn endpoint(State(server): State<Arc<Server>>, request: axum::extract::Request) -> Response {
    let response = respond(&server, request).await;
    let status = response.status();
    if (status.is_client_error() || status.is_server_error())
        && let Some(metrics) = &server.options.metrics
    {
        metrics.http_refused(status.as_u16());
    }
    response
}

/// The MCP endpoint's answer to one HTTP request. Its body is read only once its headers are
/// admitted, and no further than `--max-body-bytes`: a client without the token cannot make
/// the proxy hold a large body.
async fn respond(server: &Arc<Server>, request: axum::extract::Request) -> Response {
    let (parts, body) = request.into_parts();
    let (method, headers) = (parts.method, parts.headers);
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|length| length.to_str().ok()?.parse::<u64>().ok())
        .unwrap_or(0);
    let principal = match server.admit(&headers, declared) {
        Ok(principal) => principal,
        Err(refused) => return refused.into_response(),
    };
    tracing::debug!(%principal, %method, "request admitted");
    let body = match read_body(body, server.listen.max_body_bytes).await {
        Ok(body) => body,
        Err(refused) => return refused.into_response(),
    };
    let session = headers
        .get(SESSION_ID)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    match method {
        Method::POST => server.post(&principal, &headers, session, body).await,
        Method::GET => match server.session(&principal, session.as_deref()) {
            Ok(session) => match headers.get(LAST_EVENT_ID) {
                Some(last) => session.resume(last),
                None => session.open_get(client_revision(&headers, &[]).streaming()),
            },
            Err(refused) => refused.into_response(),
        },
        Method::DELETE => match session {
            Some(id)
                if server.session(&principal, Some(&id)).is_ok()
                    && server
                        .end(&SessionKey::Id(id.clone()), Ended::Deleted)
                        .await =>
            {
                StatusCode::OK.into_response()
            }
            _ => refusal(StatusCode::NOT_FOUND, "no such session").into_response(),
        },
        _ => refusal(
            StatusCode::METHOD_NOT_ALLOWED,
            "use POST, GET or DELETE on the MCP endpoint",
        )
        .into_response(),
    }
}

/// `body`, read whole if it is at most `limit` bytes (a chunked body declares no length).
async fn read_body(body: axum::body::Body, limit: usize) -> Result<Bytes, Refusal> {
    use http_body_util::BodyExt;
    match http_body_util::Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(error) if error.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        Err(error) => Err(refusal(
            StatusCode::BAD_REQUEST,
            &format!("the request body could not be read: {error}"),
        )),
    }
}

fn too_large() -> Refusal {
    refusal(
        StatusCode::PAYLOAD_TOO_LARGE,
        "the request body is larger than this proxy accepts (--max-body-bytes)",
    )
}

impl Server {
    /// The checks every request passes first: host, origin, token, and the body's size as
    /// the request declares it. An admitted request's principal is the one its token names.
    fn admit(&self, headers: &HeaderMap, body: u64) -> Result<Principal, Refusal> {
        // DNS rebinding without an Origin (a same-origin GET from a page whose name was
        // rebound to 127.0.0.1) still names that page's host in `Host`.
        if self.loopback
            && let Some(host) = headers.get(header::HOST)
        {
            let host = host.to_str().unwrap_or_default();
            let allowed = |scheme: &str| {
                let origin = format!("{scheme}{host}");
                is_local_origin(&origin) || self.listen.allowed_origins.contains(&origin)
            };
            if !allowed("http://") && !allowed("https://") {
                return Err(refusal(
                    StatusCode::FORBIDDEN,
                    "this Host may not use the MCP endpoint: a proxy on a loopback address answers \
                     only to localhost, 127.0.0.1 and [::1] (or the hosts of --allow-origin)",
                ));
            }
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or_default();
            if !is_local_origin(origin) && !self.listen.allowed_origins.iter().any(|o| o == origin)
            {
                return Err(refusal(
                    StatusCode::FORBIDDEN,
                    "this origin may not use the MCP endpoint (start overspill with --allow-origin to allow it)",
                ));
            }
        }
        let (shared, named) = (&self.listen.auth_token, &self.listen.auth_tokens);
        let principal = if shared.is_none() && named.is_none() {
            Principal::local()
        } else {
            let given = headers
                .get(header::AUTHORIZATION)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.strip_prefix("Bearer "));
            let of_file = given
                .zip(named.as_ref())
                .and_then(|(given, tokens)| tokens.principal(given));
            let of_env = given.zip(shared.as_ref()).and_then(|(given, token)| {
                same(given.as_bytes(), token.as_bytes()).then(Principal::shared)
            });
            of_file.or(of_env).ok_or_else(|| {
                refusal(
                    StatusCode::UNAUTHORIZED,
                    "a valid `Authorization: Bearer <token>` header is required",
                )
            })?
        };
        if usize::try_from(body).map_or(true, |body| body > self.listen.max_body_bytes) {
            return Err(too_large());
        }
        Ok(principal)
    }

    fn session(
        &self,
        principal: &Principal,
        id: Option<&str>,
    ) -> Result<Arc<HttpSession>, Refusal> {
        let Some(id) = id else {
            return Err(no_session_id());
        };
        let found = lock(&self.sessions)
            .get(&SessionKey::Id(id.to_owned()))
            .filter(|session| &session.principal == principal)
            .cloned();
        let session = found.ok_or_else(|| {
            refusal(
                StatusCode::NOT_FOUND,
                "no such session (it ended, or timed out): send `initialize` again",
            )
        })?;
        *lock(&session.last_seen) = Instant::now();
        Ok(session)
    }

    async fn post(
        self: &Arc<Self>,
        principal: &Principal,
        headers: &HeaderMap,
        session: Option<String>,
        body: Bytes,
    ) -> Response {
        // The body's own allocation when nothing else holds it, so a large one is not copied.
        let Ok(text) = String::from_utf8(Vec::from(body)) else {
            let refused = Refusal {
                code: message::PARSE_ERROR,
                ..refusal(
                    StatusCode::BAD_REQUEST,
                    "parse error: the body is not UTF-8",
                )
            };
            return refused.into_response();
        };
        // Parsed once: the relay takes these messages as they are.
        let mut requests = HashSet::new();
        let mut progress = Vec::new();
        let mut initialize = false;
        let mut cancelled = Vec::new();
        let mut messages = Vec::new();
        for item in message::parse(text) {
            match item {
                Ok(parsed) => {
                    match &parsed.kind {
                        Kind::Request { id, method } => {
                            initialize |= method == "initialize";
                            requests.insert(id.clone());
                            progress.extend(parsed.head.progress.clone());
                        }
                        Kind::Notification { method } if method == "notifications/cancelled" => {
                            cancelled.extend(message::cancelled_request(&parsed.text));
                        }
                        _ => {}
                    }
                    messages.push(parsed);
                }
                Err(invalid) => {
                    return (StatusCode::BAD_REQUEST, json_body(invalid.response()))
                        .into_response();
                }
            }
        }
        if session.is_none() {
            // A retired `initialize` of the revision too: it is answered -32601 there.
            if let Some(revision) = stateless::revision_of(headers, &messages) {
                return self
                    .post_stateless(principal, headers, messages, revision.streaming())
                    .await;
            }
            let id = messages
                .first()
                .map_or(Value::Null, |first| first.id.clone());
            if let Some(refused) = stateless::unknown_revision(headers, &id) {
                // One server fronted as itself says which revisions it speaks, as it would
                // directly; a gateway answers for its servers.
                if self.options.namespace.is_none() {
                    return self
                        .post_stateless(principal, headers, messages, Streaming::Plain)
                        .await;
                }
                return refused.into_response();
            }
        }
        let (id, session) = match session {
            Some(id) => match self.session(principal, Some(&id)) {
                Ok(session) => (id, session),
                Err(refused) => return refused.into_response(),
            },
            None if initialize => {
                let opened = match session_id() {
                    Ok(id) => self
                        .open(principal, SessionKey::Id(id.clone()))
                        .await
                        .map(|session| (id, session)),
                    Err(why) => Err(refusal(StatusCode::INTERNAL_SERVER_ERROR, &why)),
                };
                match opened {
                    Ok(opened) => opened,
                    Err(refused) => return refused.into_response(),
                }
            }
            None => return no_session_id().into_response(),
        };
        if !cancelled.is_empty() {
            lock(&session.streams).cancelled(&cancelled);
        }
        let turn = Arc::clone(&session.feeding).lock_owned().await;
        if requests.is_empty() {
            session.relay.client_sent(messages).await;
            drop(turn);
            return StatusCode::ACCEPTED.into_response();
        }
        let streaming = client_revision(headers, &messages).streaming();
        let receiver = session.open_post(streaming, requests, progress, None);
        // The answers' stream goes back before the messages are all given to the relay, so
        // that answers flow while a large batch is still being fed: else they would fill this
        // stream's queue, then the relay's, before anyone reads them, and the session would
        // stop for good.
        let relay = session.relay.clone();
        tokio::spawn(async move {
            relay.client_sent(messages).await;
            drop(turn);
        });
        let mut response = sse(receiver);
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert(SESSION_ID, value);
        }
        response
    }

    /// One POST of the stateless revision: a single request, its headers checked against its
    /// body, served in its agent's context (opened at its first request) under an id of the
    /// proxy's, answered on an SSE stream of its own written as `streaming` says
    /// (docs/mcp-proxy.md#stateless-requests).
    async fn post_stateless(
        self: &Arc<Self>,
        principal: &Principal,
        headers: &HeaderMap,
        mut messages: Vec<Message>,
        streaming: Streaming,
    ) -> Response {
        let (Some(message), true) = (messages.pop(), messages.is_empty()) else {
            return refusal(
                StatusCode::BAD_REQUEST,
                "a 2026-07-28 request is one JSON-RPC message per POST, not a batch",
            )
            .into_response();
        };
        let Kind::Request { .. } = &message.kind else {
            // The revision defines no notification from the client over HTTP (closing a
            // stream is what cancels); one is taken and has no effect.
            return match message.kind {
                Kind::Notification { .. } => StatusCode::ACCEPTED.into_response(),
                _ => refusal(
                    StatusCode::BAD_REQUEST,
                    "a 2026-07-28 client sends requests, never responses",
                )
                .into_response(),
            };
        };
        if let Err(refused) = stateless::check_headers(headers, &message) {
            return refused.into_response();
        }
        let agent = match Agent::of(principal, headers) {
            Ok(agent) => agent,
            Err(refused) => return refused.into_response(),
        };
        let found = lock(&self.sessions)
            .get(&SessionKey::Agent(agent.clone()))
            .cloned();
        let session = match found {
            Some(session) => session,
            None => match self.open(principal, SessionKey::Agent(agent)).await {
                Ok(session) => session,
                Err(refused) => return refused.into_response(),
            },
        };
        if let Kind::Request { method, .. } = &message.kind
            && method == "tools/call"
        {
            let schema =
                (message.head.name.as_deref()).and_then(|tool| session.relay.tool_schema(tool));
            if let Err(refused) = stateless::check_params(headers, &message, schema.as_deref()) {
                return refused.into_response();
            }
        }
        *lock(&session.last_seen) = Instant::now();
        let routed = Value::from(session.routed.fetch_add(1, Ordering::Relaxed));
        let Some(key) = Id::of(&routed) else {
            return refusal(StatusCode::INTERNAL_SERVER_ERROR, "an id of the proxy's")
                .into_response();
        };
        let original = message.id.clone();
        let message = message.with_id(routed);
        let receiver = session.open_post(
            streaming,
            HashSet::from([key.clone()]),
            message.head.progress.clone().into_iter().collect(),
            Some((key.clone(), original)),
        );
        let turn = Arc::clone(&session.feeding).lock_owned().await;
        let relay = session.relay.clone();
        let mut feeding = Box::pin(async move {
            relay.client_sent(vec![message]).await;
            drop(turn);
        });
        // Fed here when the relay takes the request at once, as it does unless a queue is full:
        // a task of its own would cost a wake-up on every call. What waits goes on as a task,
        // so that this handler reads its answers meanwhile, and no client that goes away can
        // cut the request's feeding short.
        if futures_util::FutureExt::now_or_never(&mut feeding).is_none() {
            tokio::spawn(feeding);
        }
        // A client that goes before the answer (the handler dropped, or the stream closed)
        // cancels the request (the revision has no other way to): the server is told, and its
        // late answer is dropped.
        let guard = {
            let session = Arc::clone(&session);
            Gone::new(move || {
                // Dropped where no runtime runs (the proxy stopping): nothing is left to cancel.
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    runtime.spawn(cancel_if_waiting(session, key));
                }
            })
        };
        answer_stateless(receiver, guard).await
    }

    /// `Err` once the proxy is stopping and takes no new session (counted).
    fn still_taking(&self) -> Result<(), Refusal> {
        if !self.refusing.load(Ordering::Acquire) {
            return Ok(());
        }
        if let Some(metrics) = &self.options.metrics {
            metrics.session_refused(Refused::Draining);
        }
        Err(refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            "this proxy is stopping and takes no new session; start the session again \
             (a load balancer sends it to another instance)",
        ))
    }

    /// A new session of `principal`'s, named `key` (an id for a client that sent `initialize`,
    /// or an agent for stateless requests): its scratchpad, relay and upstream.
    async fn open(
        self: &Arc<Self>,
        principal: &Principal,
        key: SessionKey,
    ) -> Result<Arc<HttpSession>, Refusal> {
        let _opening = self.opening.lock().await;
        self.still_taking()?;
        // At the limit, the least recently used idle session makes room: clients that go
        // without DELETE (the TypeScript SDK's `close()`) must not lock the next ones out
        // (docs/mcp-proxy.md, "Sessions").
        let full = lock(&self.sessions).len() >= self.listen.max_sessions;
        if full {
            let Some(reclaimed) = self.least_recently_used_idle() else {
                if let Some(metrics) = &self.options.metrics {
                    metrics.session_refused(Refused::Full);
                }
                return Err(refusal(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the proxy serves as many sessions as it may (--max-sessions), each with a \
                     stream open or a call under way; end one or try later",
                ));
            };
            self.end(&reclaimed, Ended::Reclaimed).await;
        }
        let (scratch_for, label) = match &key {
            SessionKey::Agent(agent) => (
                ScratchFor {
                    storage: agent.storage(),
                    shared_budget: Some(agent.budget_file()),
                },
                format!("agent {}", agent.label()),
            ),
            SessionKey::Id(id) => (
                ScratchFor {
                    storage: if self.listen.sessions_store_with_principal {
                        stateless::principal_storage(&principal.to_string())
                    } else {
                        id.clone()
                    },
                    shared_budget: None,
                },
                id.chars().take(SESSION_LABEL_CHARS).collect(),
            ),
        };
        let scratch = (self.scratch_for)(&scratch_for)
            .map_err(|why| refusal(StatusCode::INTERNAL_SERVER_ERROR, &why))?;
        let Wiring {
            relay,
            client_queue,
            upstream,
        } = session::wire(&self.options, scratch, true)
            .map_err(|error| refusal(StatusCode::INTERNAL_SERVER_ERROR, &error.to_string()))?;
        // The stop may have begun while a session made room: this one would outlive it.
        self.still_taking()?;
        let (close, mut closing) = watch::channel(false);
        let session = Arc::new(HttpSession {
            label,
            stateless: matches!(key, SessionKey::Agent(_)),
            principal: principal.clone(),
            routed: AtomicU64::new(0),
            ended: Mutex::new(None),
            relay: relay.clone(),
            streams: Mutex::new(Streams::default()),
            last_seen: Mutex::new(Instant::now()),
            close,
            upstream: Mutex::new(None),
            feeding: Arc::new(tokio::sync::Mutex::new(())),
        });
        tokio::spawn(route(Arc::clone(&session), client_queue));
        // In the map before its runner starts: a runner that ends at once removes it.
        lock(&self.sessions).insert(key.clone(), Arc::clone(&session));
        if let Some(metrics) = &self.options.metrics {
            metrics.session_started();
        }
        let runner = {
            let server = Arc::clone(self);
            let options = self.options.clone();
            let key = key.clone();
            let this = Arc::clone(&session);
            let closed = HttpSession::on_stream_closed(&session);
            tokio::spawn(async move {
                let gone = async move {
                    let _ = closing.wait_for(|closed| *closed).await;
                };
                tokio::pin!(gone);
                let ran =
                    session::run_upstream(&options, &relay, upstream, gone, Some(closed)).await;
                // Why it ended is settled now: a DELETE or the reaper during the drain below
                // does not make an upstream's end theirs.
                let why = *lock(&this.ended).get_or_insert(Ended::Upstream);
                if let Err(error) = ran {
                    tracing::warn!(session = %this.label, %error, "a session's upstream ended");
                }
                relay.drain().await;
                relay.log_usage(&this.label);
                // Its router stops once what is queued for the client has gone out.
                let _ = this.close.send(true);
                lock(&server.sessions).remove(&key);
                tracing::info!(session = %this.label, reason = why.as_str(), "session ended");
                if let Some(metrics) = &options.metrics {
                    metrics.session_ended(why);
                }
            })
        };
        *lock(&session.upstream) = Some(runner);
        Ok(session)
    }

    /// The idle session used least recently, if any: idle is no stream open and nothing in
    /// flight ([`HttpSession::idle`]).
    fn least_recently_used_idle(&self) -> Option<SessionKey> {
        lock(&self.sessions)
            .iter()
            .filter(|(_, session)| session.idle())
            .min_by_key(|(_, session)| session.last_seen())
            .map(|(id, _)| id.clone())
    }

    /// Ends a session (`why` says why): its streams close and its upstream stops. `false` if
    /// there was none.
    async fn end(&self, key: &SessionKey, why: Ended) -> bool {
        let removed = lock(&self.sessions).remove(key);
        match removed {
            Some(session) => {
                session.shut(why).await;
                true
            }
            None => false,
        }
    }

    /// Fails `/readyz`, stops taking sessions after [`Listen::drain_delay`], and waits until
    /// no session has a call in flight, for at most [`Listen::drain_timeout`] more.
    async fn drain(&self) {
        self.draining.store(true, Ordering::Release);
        if !self.listen.drain_delay.is_zero() {
            tracing::info!(
                seconds = self.listen.drain_delay.as_secs_f64(),
                "stopping: /readyz fails; new sessions are still taken for the drain delay"
            );
            tokio::time::sleep(self.listen.drain_delay).await;
        }
        self.refusing.store(true, Ordering::Release);
        let busy = || {
            lock(&self.sessions)
                .values()
                .filter(|session| session.working())
                .count()
        };
        let started = Instant::now();
        let at_first = busy();
        tracing::info!(
            sessions_working = at_first,
            "stopping: no new sessions; waiting for the calls in flight"
        );
        let mut left = at_first;
        while left > 0 && started.elapsed() < self.listen.drain_timeout {
            tokio::time::sleep(Duration::from_millis(50)).await;
            left = busy();
        }
        if left > 0 {
            tracing::warn!(
                sessions_working = left,
                "stopping: the drain timeout passed with calls still in flight; they end now"
            );
        }
    }

    async fn close_all(&self) {
        let all: Vec<Arc<HttpSession>> = lock(&self.sessions)
            .drain()
            .map(|(_, session)| session)
            .collect();
        futures_util::future::join_all(all.iter().map(|session| session.shut(Ended::Shutdown)))
            .await;
    }
}

impl HttpSession {
    /// What hears that the server closed a request's event stream before answering (SEP-1699
    /// polling): the client's stream of that request closes too, when its client can resume it,
    /// and the answer waits for the client to come back (docs/mcp-proxy.md#resuming-a-stream).
    fn on_stream_closed(session: &Arc<HttpSession>) -> crate::remote::StreamClosed {
        let session = Arc::downgrade(session);
        Arc::new(move |id: &Value| {
            if let (Some(session), Some(id)) = (session.upgrade(), Id::of(id)) {
                lock(&session.streams).server_closed(&id);
            }
        })
    }

    /// A POST's stream, written as `streaming` says: what answers `waiting` (and progress of
    /// `progress`) comes on it; `routed`, for a stateless request, the id it was given and the
    /// client's own.
    fn open_post(
        &self,
        streaming: Streaming,
        waiting: HashSet<Id>,
        progress: Vec<Value>,
        routed: Option<(Id, Value)>,
    ) -> mpsc::Receiver<Frame> {
        lock(&self.streams).open_post(streaming, waiting, progress, routed)
    }

    /// Whether the session may be reclaimed: no stream open to its client (a POST stream
    /// whose client went away counts as closed) and no request or scratchpad work under way.
    fn idle(&self) -> bool {
        let streaming = lock(&self.streams).open();
        !streaming && !self.relay.in_flight()
    }

    /// Whether a call of the session is under way: a request not answered yet (a POST stream
    /// waiting), or work of the relay's.
    fn working(&self) -> bool {
        let waiting = {
            let mut streams = lock(&self.streams);
            streams.forget_closed_posts();
            !streams.posts.is_empty()
        };
        waiting || self.relay.in_flight()
    }

    /// When the client last sent a request in this session.
    fn last_seen(&self) -> Instant {
        *lock(&self.last_seen)
    }

    /// Closes the session's streams and waits (a little) for its upstream to stop.
    async fn shut(&self, why: Ended) {
        lock(&self.ended).get_or_insert(why);
        let _ = self.close.send(true);
        lock(&self.streams).close();
        let runner = lock(&self.upstream).take();
        if let Some(runner) = runner {
            let _ = tokio::time::timeout(Duration::from_secs(5), runner).await;
        }
    }

    /// The session's GET stream, written as `streaming` says.
    fn open_get(&self, streaming: Streaming) -> Response {
        let opened = lock(&self.streams).open_get(streaming);
        match opened {
            Ok(connection) => sse(connection),
            Err(GetStreamOpen) => refusal(
                StatusCode::CONFLICT,
                "this session already has a GET stream open: close it first, or resume it with \
                 Last-Event-ID",
            )
            .into_response(),
        }
    }

    /// A GET with `Last-Event-ID`: the stream of that event resumed, what came after it
    /// replayed (docs/mcp-proxy.md#resuming-a-stream). A stream that has ended and has nothing
    /// more for the client is 204.
    fn resume(&self, last: &HeaderValue) -> Response {
        let Some(after) = last.to_str().ok().and_then(EventId::parse) else {
            return refusal(
                StatusCode::BAD_REQUEST,
                "the Last-Event-ID header is not an event id this proxy wrote: send the id of \
                 the last event received, or open the GET stream without it",
            )
            .into_response();
        };
        let resumed = lock(&self.streams).resume(after);
        let missed = match &resumed {
            Resumed::Open { missed, .. } | Resumed::Ended { missed, .. } => *missed,
            Resumed::Unknown => 0,
        };
        if missed > 0 {
            tracing::warn!(
                session = %self.label,
                event = %after,
                missed,
                "a resumed stream misses events the session no longer kept"
            );
        }
        match resumed {
            Resumed::Open { connection, .. } => sse(connection),
            Resumed::Ended { frames, .. } if frames.is_empty() => {
                StatusCode::NO_CONTENT.into_response()
            }
            Resumed::Ended { frames, .. } => events::replayed(frames),
            Resumed::Unknown => refusal(
                StatusCode::BAD_REQUEST,
                "the Last-Event-ID header names no stream of this session that can be resumed: \
                 open the GET stream without it",
            )
            .into_response(),
        }
    }
}

/// How long a stateless request's answer may take to be sent as a JSON body with its own
/// status (the first request of an agent starts its server, which may take seconds on a busy
/// machine); one that takes longer goes on an SSE stream, whose keep-alive comments keep an
/// intermediary's idle timeout (commonly 30 s or more) from cutting a long call.
const JSON_ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// The HTTP answer to a stateless request whose messages `receiver` brings: a JSON body when its
/// answer comes first and within [`JSON_ANSWER_WITHIN`], with the status the revision gives
/// its error (404 for -32601, 400 for a request the server refused as malformed, unsupported
/// or lacking a capability; [`revision::http_status`]), else an SSE stream that starts with
/// what came first (progress) and ends with the answer. `guard` is held until the answer has
/// gone out.
async fn answer_stateless(mut receiver: mpsc::Receiver<Frame>, guard: Gone) -> Response {
    let first = match tokio::time::timeout(JSON_ANSWER_WITHIN, receiver.recv()).await {
        Ok(Some(first)) => first,
        Ok(None) => {
            return refusal(
                StatusCode::BAD_GATEWAY,
                "the request got no answer (its session ended)",
            )
            .into_response();
        }
        Err(_) => return sse_until(None, receiver, Some(guard)),
    };
    match first {
        Frame::Answer { text, status } => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            guard.answered();
            (status, json_body(text)).into_response()
        }
        first => sse_until(Some(first), receiver, Some(guard)),
    }
}

/// The stream of the stateless request `key` of `session` went before its answer did: if the
/// request still waits for one, it is cancelled as a client's `notifications/cancelled` would.
async fn cancel_if_waiting(session: Arc<HttpSession>, key: Id) {
    // After the request itself has reached the relay.
    let _turn = session.feeding.lock().await;
    let waiting = {
        let mut streams = lock(&session.streams);
        let waiting = streams.posts.iter().any(|post| post.waiting.contains(&key));
        if waiting {
            streams.cancelled(std::slice::from_ref(&key));
        }
        waiting
    };
    if !waiting {
        return;
    }
    let note = message::request(
        None,
        "notifications/cancelled",
        &serde_json::json!({"requestId": key.value(), "reason": "the client closed the request's stream"}),
    );
    session.relay.client_says(note).await;
}

/// Closes sessions idle for longer than allowed (no request, no open stream, nothing in
/// flight).
async fn reap(server: Arc<Server>) {
    let idle = server.listen.session_idle;
    let every = (idle / 4).clamp(Duration::from_millis(100), Duration::from_secs(60));
    loop {
        tokio::time::sleep(every).await;
        let stale: Vec<SessionKey> = lock(&server.sessions)
            .iter()
            .filter(|(_, session)| session.last_seen().elapsed() > idle && session.idle())
            .map(|(id, _)| id.clone())
            .collect();
        for key in stale {
            server.end(&key, Ended::Idle).await;
        }
    }
}

/// Whether an `Origin` is this machine: `http(s)://localhost`, `127.0.0.1` or `[::1]`, any port.
fn is_local_origin(origin: &str) -> bool {
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = match rest.strip_prefix('[') {
        Some(v6) => v6.split(']').next().map(|host| format!("[{host}]")),
        None => rest.split(':').next().map(str::to_owned),
    };
    matches!(host.as_deref(), Some("localhost" | "127.0.0.1" | "[::1]"))
}

/// Compares two secrets in time that does not depend on where they differ.
fn same(given: &[u8], expected: &[u8]) -> bool {
    given.len() == expected.len()
        && given
            .iter()
            .zip(expected)
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0
}

/// A random session id: 128 bits, hex.
fn session_id() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|error| format!("cannot draw a random session id: {error}"))?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// Why a request is turned away: its HTTP status, and a JSON-RPC error as its body so that a
/// client shows the reason (with the request's id where the revision asks for it, else
/// `null`).
#[derive(Debug)]
struct Refusal {
    status: StatusCode,
    code: i64,
    why: String,
    /// The request's id, and the error's `data`, where the answer has them.
    detail: Option<Box<Detail>>,
}

/// What a refusal may say besides its code and message.
#[derive(Debug, Default)]
struct Detail {
    id: Value,
    /// The error's `data` (the revisions a proxy speaks, for an unsupported one).
    data: Option<Value>,
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let Detail { id, data } = self.detail.map(|detail| *detail).unwrap_or_default();
        let mut error = serde_json::json!({"code": self.code, "message": self.why});
        if let Some(data) = data {
            error["data"] = data;
        }
        let body = message::error_object_response(&id, &error);
        let mut response = (self.status, json_body(body)).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

impl Refusal {
    /// The 400 that answers the request `id` with the JSON-RPC error `code` (the revision names
    /// the request it refuses).
    fn bad_request(code: i64, why: String, id: &Value) -> Refusal {
        Refusal {
            status: StatusCode::BAD_REQUEST,
            code,
            why,
            detail: Some(Box::new(Detail {
                id: id.clone(),
                data: None,
            })),
        }
    }

    /// The same refusal with the error's `data`.
    fn with_data(mut self, data: Value) -> Refusal {
        self.detail.get_or_insert_with(Box::default).data = Some(data);
        self
    }
}

/// A request of a session that names none.
fn no_session_id() -> Refusal {
    refusal(
        StatusCode::BAD_REQUEST,
        "the Mcp-Session-Id header is missing: send `initialize` first (or, in the 2026-07-28 \
         revision, name the revision in each request's _meta)",
    )
}

fn refusal(status: StatusCode, why: &str) -> Refusal {
    Refusal {
        status,
        code: message::INVALID_REQUEST,
        why: why.to_owned(),
        detail: None,
    }
}

/// The revision a session's client speaks in a request with `headers` and `messages`: its
/// `MCP-Protocol-Version`, else the one an `initialize` among the messages asks for, else
/// 2025-03-26, whose clients send no header (the transport specification says to assume it).
/// What matters is what the client can read, so an `initialize` is taken at its word even
/// when the server settles on an older revision.
fn client_revision(headers: &HeaderMap, messages: &[Message]) -> Revision {
    let header = headers
        .get(PROTOCOL_VERSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .and_then(Revision::parse);
    let asked = || {
        messages.iter().find_map(|message| match &message.kind {
            Kind::Request { method, .. } if method == "initialize" => {
                let params = message::params(&message.text);
                params
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .and_then(Revision::parse)
            }
            _ => None,
        })
    };
    header.or_else(asked).unwrap_or(Revision::R2025_03_26)
}

fn json_body(text: String) -> ([(header::HeaderName, &'static str); 1], String) {
    ([(header::CONTENT_TYPE, "application/json")], text)
}

/// The address `--listen` binds, and whether it stays on this machine.
pub fn is_loopback(address: &SocketAddr) -> bool {
    address.ip().is_loopback()
}

mod events;
mod stateless;
pub use stateless::principal_storage;
mod streams;
#[cfg(test)]
mod tests;
mod tokens;
