//! What a `--listen` gateway counts, in the Prometheus text format (docs/mcp-proxy.md#metrics).
//!
//! One [`Metrics`] serves a process: the listener counts its sessions and each client request,
//! every session's relay counts what went upstream and how long it took, and every session's
//! scratchpad reports, as its [`Observer`], what it stored and what the exploration tools
//! delivered or refused. [`Metrics::serve`] answers `GET /metrics` on a listener of its own.
//!
//! Every label takes its values from a set the operator bounds: MCP methods from a fixed list
//! (anything else is `other`), server names from the configuration, exploration tools from the
//! scratchpad's own. No session id, tool argument or upstream tool name becomes a label, so a
//! thousand sessions with random arguments add no series.

use std::sync::Arc;
use std::time::Duration;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use overspill::{Event, Observer, Outcome};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::error::ProxyError;

/// The path the metrics are served on.
pub const METRICS_PATH: &str = "/metrics";

/// The MCP methods counted under their own name; any other is counted as `other`.
const METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "server/discover",
];

/// `method` as a label: itself when it is one of [`METHODS`], else `other`.
pub(crate) fn method_label(method: &str) -> &'static str {
    METHODS
        .iter()
        .find(|known| **known == method)
        .copied()
        .unwrap_or("other")
}

/// Seconds from 1 ms to ~65 s, doubling: a request's or an upstream call's duration.
fn duration_buckets() -> impl Iterator<Item = f64> {
    prometheus_client::metrics::histogram::exponential_buckets(0.001, 2.0, 17)
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

fn histograms<L: Clone + std::hash::Hash + Eq>() -> Histograms<L> {
    Family::new_with_constructor(|| Histogram::new(duration_buckets()))
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabel {
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StatusLabel {
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct MethodLabel {
    method: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ServerMethodLabels {
    server: String,
    method: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ServerLabel {
    server: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ServerOutcomeLabels {
    server: String,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolOutcomeLabels {
    tool: &'static str,
    outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ToolLabel {
    tool: &'static str,
}

/// How a client request ended, as the `outcome` label of `overspill_requests_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// A result went to the client.
    Result,
    /// A JSON-RPC error went to the client.
    Error,
    /// The client cancelled it (`notifications/cancelled`); no answer goes out.
    Cancelled,
    /// Its session ended first (DELETE, idle, reclaimed, the proxy's stop, the upstream's end).
    Unanswered,
}

impl Answer {
    /// The label value.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Answer::Result => "result",
            Answer::Error => "error",
            Answer::Cancelled => "cancelled",
            Answer::Unanswered => "unanswered",
        }
    }
}

/// Why a new session was refused, as the `reason` label of `overspill_sessions_refused_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Every session busy at `--max-sessions`.
    Full,
    /// The proxy is stopping.
    Draining,
}

/// Why a session ended, as the `reason` label of `overspill_sessions_ended_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The client sent DELETE.
    Deleted,
    /// No request for `--session-idle`.
    Idle,
    /// Closed to make room for a new session at `--max-sessions`.
    Reclaimed,
    /// The process stopped.
    Shutdown,
    /// Its upstream ended it (the one server of a plain proxy exited).
    Upstream,
}

impl Ended {
    /// The label value.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Ended::Deleted => "deleted",
            Ended::Idle => "idle",
            Ended::Reclaimed => "reclaimed",
            Ended::Shutdown => "shutdown",
            Ended::Upstream => "upstream",
        }
    }
}

/// The families, registered once.
struct Families {
    registry: Registry,
    sessions_open: Gauge,
    sessions_started: Counter,
    sessions_ended: Family<ReasonLabel, Counter>,
    sessions_refused: Family<ReasonLabel, Counter>,
    http_refusals: Family<StatusLabel, Counter>,
    requests: Family<RequestLabels, Counter>,
    request_seconds: Histograms<MethodLabel>,
    upstream_seconds: Histograms<ServerMethodLabels>,
    upstream_starts: Family<ServerLabel, Counter>,
    upstream_failures: Family<ServerLabel, Counter>,
    upstream_restarts: Family<ServerLabel, Counter>,
    oauth_refreshes: Family<ServerOutcomeLabels, Counter>,
    tool_results: Family<ServerOutcomeLabels, Counter>,
    tokens_intercepted: Family<ServerLabel, Counter>,
    bytes_stored: Family<ServerLabel, Counter>,
    explorations: Family<ToolOutcomeLabels, Counter>,
    tokens_extracted: Family<ToolLabel, Counter>,
}

/// A process's metrics: cheap to clone (the clones count into one registry). Render them with
/// [`Metrics::render`] or serve them with [`Metrics::serve`]; hand one to the proxy with
/// [`ProxyOptions::with_metrics`](crate::ProxyOptions::with_metrics) and to each session's
/// scratchpad as its [`Observer`].
#[derive(Clone)]
pub struct Metrics(Arc<Families>);

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl PartialEq for Metrics {
    fn eq(&self, other: &Metrics) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Metrics {}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl Metrics {
    /// Every family registered, each at zero.
    pub fn new() -> Metrics {
        let mut families = Families {
            registry: Registry::with_prefix("overspill"),
            sessions_open: Gauge::default(),
            sessions_started: Counter::default(),
            sessions_ended: Family::default(),
            sessions_refused: Family::default(),
            http_refusals: Family::default(),
            requests: Family::default(),
            request_seconds: histograms(),
            upstream_seconds: histograms(),
            upstream_starts: Family::default(),
            upstream_failures: Family::default(),
            upstream_restarts: Family::default(),
            oauth_refreshes: Family::default(),
            tool_results: Family::default(),
            tokens_intercepted: Family::default(),
            bytes_stored: Family::default(),
            explorations: Family::default(),
            tokens_extracted: Family::default(),
        };
        let registry = &mut families.registry;
        registry.register(
            "sessions_open",
            "Client sessions open now",
            families.sessions_open.clone(),
        );
        registry.register(
            "sessions_started",
            "Client sessions started",
            families.sessions_started.clone(),
        );
        registry.register(
            "sessions_ended",
            "Client sessions ended, by why (deleted, idle, reclaimed, shutdown, upstream)",
            families.sessions_ended.clone(),
        );
        registry.register(
            "sessions_refused",
            "New sessions refused, by why (full: every session busy at --max-sessions; draining)",
            families.sessions_refused.clone(),
        );
        registry.register(
            "http_refusals",
            "HTTP requests to the MCP endpoint answered with an error status, by status (401: no or a wrong token; 404: an unknown session; 503: full or draining; …)",
            families.http_refusals.clone(),
        );
        registry.register(
            "requests",
            "Client requests ended, by MCP method and outcome (result, error, cancelled, unanswered)",
            families.requests.clone(),
        );
        registry.register(
            "request_duration_seconds",
            "From a client request's arrival to its answer, by MCP method",
            families.request_seconds.clone(),
        );
        registry.register(
            "upstream_request_duration_seconds",
            "From a request's forwarding to a server to the server's answer, by server and MCP method",
            families.upstream_seconds.clone(),
        );
        registry.register(
            "upstream_starts",
            "Upstream server transports started (attempts: a child process to spawn, an HTTP server to open a session with), by server",
            families.upstream_starts.clone(),
        );
        registry.register(
            "upstream_failures",
            "Upstream server transports that ended with an error, by server",
            families.upstream_failures.clone(),
        );
        registry.register(
            "upstream_restarts",
            "Gateway servers restarted after they stopped, by server",
            families.upstream_restarts.clone(),
        );
        registry.register(
            "oauth_refreshes",
            "OAuth access-token refreshes, by server and outcome (ok, failed)",
            families.oauth_refreshes.clone(),
        );
        registry.register(
            "tool_results",
            "Upstream tool results, by server and outcome (stored: the model got a pointer; passed: below the threshold, an error or an image; store_failed; unwatched: the tool has no threshold)",
            families.tool_results.clone(),
        );
        registry.register(
            "tokens_intercepted",
            "Tokens of the tool results stored and kept out of the model's context, by server",
            families.tokens_intercepted.clone(),
        );
        registry.register(
            "stored_bytes",
            "Bytes of tool results stored, by server",
            families.bytes_stored.clone(),
        );
        registry.register(
            "exploration_calls",
            "Exploration tool calls, by tool and outcome (delivered, over_call_limit, over_budget, failed)",
            families.explorations.clone(),
        );
        registry.register(
            "tokens_extracted",
            "Tokens the exploration tools delivered and charged to the sessions' budgets, by tool",
            families.tokens_extracted.clone(),
        );
        Metrics(Arc::new(families))
    }

    /// The metrics in the OpenMetrics text format (which Prometheus scrapes).
    pub fn render(&self) -> String {
        let mut text = String::new();
        // Writing to a String does not fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.0.registry);
        text
    }

    /// Answers `GET /metrics` on `listener` until `shutdown` completes (every other path is
    /// 404).
    ///
    /// # Errors
    ///
    /// [`ProxyError::Http`] when the server cannot run on the listener.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ProxyError> {
        let router = axum::Router::new().route(
            METRICS_PATH,
            axum::routing::get(move || {
                let metrics = self.clone();
                async move { metrics.response() }
            }),
        );
        axum::serve(listener, router)
            .with_graceful_shutdown(shutdown)
            .await
            .map_err(|error| ProxyError::Http(format!("the metrics server failed: {error}")))
    }

    fn response(&self) -> Response {
        (
            StatusCode::OK,
            [(
                header::CONTENT_TYPE,
                // What the encoder writes: OpenMetrics text (`# EOF` at the end).
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            self.render(),
        )
            .into_response()
    }

    pub(crate) fn session_started(&self) {
        self.0.sessions_started.inc();
        self.0.sessions_open.inc();
    }

    pub(crate) fn session_ended(&self, why: Ended) {
        self.0.sessions_open.dec();
        self.0
            .sessions_ended
            .get_or_create(&ReasonLabel {
                reason: why.as_str(),
            })
            .inc();
    }

    /// A new session refused.
    pub(crate) fn session_refused(&self, why: Refused) {
        let reason = match why {
            Refused::Full => "full",
            Refused::Draining => "draining",
        };
        self.0
            .sessions_refused
            .get_or_create(&ReasonLabel { reason })
            .inc();
    }

    /// An HTTP request to the MCP endpoint answered with the error `status` (one of the few
    /// the endpoint gives).
    pub(crate) fn http_refused(&self, status: u16) {
        self.0
            .http_refusals
            .get_or_create(&StatusLabel { status })
            .inc();
    }

    /// A client request answered (or cancelled) after `took`.
    pub(crate) fn request(&self, method: &'static str, answer: Answer, took: Duration) {
        let outcome = answer.as_str();
        self.0
            .requests
            .get_or_create(&RequestLabels { method, outcome })
            .inc();
        self.0
            .request_seconds
            .get_or_create(&MethodLabel { method })
            .observe(took.as_secs_f64());
    }

    /// `server` answered a `method` request after `took`.
    pub(crate) fn upstream_request(&self, server: &str, method: &'static str, took: Duration) {
        self.0
            .upstream_seconds
            .get_or_create(&ServerMethodLabels {
                server: server.to_owned(),
                method,
            })
            .observe(took.as_secs_f64());
    }

    pub(crate) fn upstream_started(&self, server: &str) {
        self.0.upstream_starts.get_or_create(&label(server)).inc();
    }

    pub(crate) fn upstream_failed(&self, server: &str) {
        self.0.upstream_failures.get_or_create(&label(server)).inc();
    }

    pub(crate) fn upstream_restarted(&self, server: &str) {
        self.0.upstream_restarts.get_or_create(&label(server)).inc();
    }

    pub(crate) fn oauth_refreshed(&self, server: &str, ok: bool) {
        self.server_outcome(
            &self.0.oauth_refreshes,
            server,
            if ok { "ok" } else { "failed" },
        );
    }

    /// A result of `server`'s tool that has no threshold, so the scratchpad never saw it.
    pub(crate) fn unwatched(&self, server: &str) {
        self.server_outcome(&self.0.tool_results, server, "unwatched");
    }

    fn server_outcome(
        &self,
        family: &Family<ServerOutcomeLabels, Counter>,
        server: &str,
        outcome: &'static str,
    ) {
        family
            .get_or_create(&ServerOutcomeLabels {
                server: server.to_owned(),
                outcome,
            })
            .inc();
    }
}

fn label(server: &str) -> ServerLabel {
    ServerLabel {
        server: server.to_owned(),
    }
}

/// The scratchpad's side: what it stored, passed, delivered and refused. The relay calls the
/// scratchpad with configured server names and, for explorations, only the names of the
/// scratchpad's own tools, so the labels stay bounded.
impl Observer for Metrics {
    fn observe(&self, event: &Event<'_>) {
        match *event {
            Event::Stored {
                server,
                tokens,
                bytes,
                ..
            } => {
                self.server_outcome(&self.0.tool_results, server, "stored");
                self.0
                    .tokens_intercepted
                    .get_or_create(&label(server))
                    .inc_by(tokens);
                self.0
                    .bytes_stored
                    .get_or_create(&label(server))
                    .inc_by(bytes);
            }
            Event::Passed { server, .. } => {
                self.server_outcome(&self.0.tool_results, server, "passed");
            }
            Event::StoreFailed { server, .. } => {
                self.server_outcome(&self.0.tool_results, server, "store_failed");
            }
            Event::Explored { tool, outcome } => {
                self.0
                    .explorations
                    .get_or_create(&ToolOutcomeLabels {
                        tool,
                        outcome: outcome.as_str(),
                    })
                    .inc();
                if let Outcome::Delivered { tokens } = outcome {
                    self.0
                        .tokens_extracted
                        .get_or_create(&ToolLabel { tool })
                        .inc_by(tokens);
                }
            }
            // Events added later are not counted until they are given a family.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
