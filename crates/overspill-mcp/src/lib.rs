//! A transparent MCP proxy that gives any MCP client the overspill scratchpad (SPEC §11).
//!
//! `overspill mcp -- <server command>` runs the real server as a child process over stdio and
//! speaks MCP on its own stdio to the client. Everything is forwarded; `tools/list` gains the
//! exploration tools; a large `tools/call` result is stored and replaced by a short pointer;
//! calls to the exploration tools are answered here, with one budget per client session.
//!
//! ```no_run
//! # async fn demo(scratch: std::sync::Arc<dyn overspill_mcp::Scratch>) -> Result<(), overspill_mcp::ProxyError> {
//! use overspill_mcp::{ProxyOptions, run};
//!
//! let options = ProxyOptions::new("k8s", "kubectl-mcp", Vec::<String>::new());
//! run(options, scratch).await?; // until the client disconnects, or the server exits
//! # Ok(()) }
//! ```
//!
//! See `docs/mcp-proxy.md` for what is forwarded and how to configure a client.
//!
//! # Architecture invariant
//!
//! This crate speaks MCP and forwards; every scratchpad decision (what to intercept, what a
//! tool answers, what a reference resolves to) is the facade's, reached through [`Scratch`].

mod error;
mod names;
mod proxy;
mod scratch;
mod upstream;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::Tool;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{RoleServer, ServiceExt};
use tokio::io::{AsyncRead, AsyncWrite};

pub use error::ProxyError;
pub use names::ToolNames;
pub use scratch::Scratch;
pub use upstream::MAX_LINE_BYTES;

use proxy::Proxy;

/// How long answers already under way may take to reach the client after the upstream server
/// exits, before the proxy stops.
const DRAIN: Duration = Duration::from_secs(2);

/// What to run and how to present it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyOptions {
    /// The server's name, which selects `[mcp.servers.<name>.scratchpad]`.
    pub server: String,
    /// The upstream server's program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// A prefix for the exploration tools' names (`sp_` makes `sp_schema` …), for servers that
    /// have tools of the same names.
    pub tool_prefix: Option<String>,
}

impl ProxyOptions {
    /// Runs `program args…` as the server named `server`, with unprefixed exploration tools.
    pub fn new(
        server: impl Into<String>,
        program: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> ProxyOptions {
        ProxyOptions {
            server: server.into(),
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            tool_prefix: None,
        }
    }

    /// The same options with a prefix for the exploration tools.
    #[must_use]
    pub fn with_tool_prefix(mut self, prefix: impl Into<String>) -> ProxyOptions {
        self.tool_prefix = Some(prefix.into());
        self
    }
}

/// Runs the proxy on this process's stdin and stdout until the client disconnects (`Ok`) or
/// the upstream server exits ([`ProxyError::UpstreamExited`]).
///
/// # Errors
///
/// Every [`ProxyError`]: the server cannot start or complete its handshake, a tool name
/// clashes, the client connection fails, or the server exits.
pub async fn run(options: ProxyOptions, scratch: Arc<dyn Scratch>) -> Result<(), ProxyError> {
    serve(options, scratch, tokio::io::stdin(), tokio::io::stdout()).await
}

/// [`run`] on a tokio runtime of its own, for a caller that has none (the CLI).
///
/// # Errors
///
/// As for [`run`], plus [`ProxyError::Runtime`] when no runtime can be started.
pub fn run_blocking(options: ProxyOptions, scratch: Arc<dyn Scratch>) -> Result<(), ProxyError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ProxyError::Runtime)?;
    let outcome = runtime.block_on(run(options, scratch));
    // tokio reads stdin on a blocking thread that only returns at the next line or EOF; when
    // the upstream server exits first, waiting for it would keep the proxy alive.
    runtime.shutdown_background();
    outcome
}

/// [`run`] on any byte streams to the client (a socket, or an in-memory pipe in tests).
///
/// # Errors
///
/// As for [`run`].
pub async fn serve<R, W>(
    options: ProxyOptions,
    scratch: Arc<dyn Scratch>,
    read: R,
    write: W,
) -> Result<(), ProxyError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let definitions = scratch.tool_definitions();
    let local_names = definitions
        .iter()
        .filter_map(|definition| definition.get("name")?.as_str().map(str::to_owned));
    let names = ToolNames::new(options.tool_prefix.as_deref(), local_names)?;
    let exploration = exploration_tools(&definitions, &names)?;

    let downstream = upstream::Downstream::new();
    let upstream::Upstream { service, mut child } =
        upstream::start(&options.program, &options.args, downstream.clone()).await?;
    let tools = service
        .peer()
        .list_all_tools()
        .await
        .map_err(|error| ProxyError::ListTools(error.to_string()))?;
    names.check_clash(tools.iter().map(|tool| tool.name.as_ref()))?;
    scratch.set_server_tools(
        &options.server,
        tools.iter().map(|tool| tool.name.to_string()).collect(),
    );

    let info = proxy::merged_info(service.peer().peer_info().as_deref(), &names);
    let in_flight = Arc::new(AtomicUsize::new(0));
    let schemas = proxy::Schemas::default();
    schemas.record(&tools);
    let proxy = Proxy {
        upstream: service.peer().clone(),
        info,
        server: options.server.clone(),
        names: Arc::new(names),
        exploration: Arc::new(exploration),
        scratch,
        downstream,
        in_flight: Arc::clone(&in_flight),
        schemas: Arc::new(schemas),
    };
    let transport =
        AsyncRwTransport::<RoleServer, _, _>::new(read, write).with_max_line_length(MAX_LINE_BYTES);

    let client_session = async {
        let running = proxy
            .serve(transport)
            .await
            .map_err(|error| ProxyError::Downstream(error.to_string()))?;
        let stop = running.cancellation_token();
        let waiting = running.waiting();
        tokio::pin!(waiting);
        tokio::select! {
            quit = &mut waiting => quit
                .map(drop)
                .map_err(|error| ProxyError::Downstream(error.to_string())),
            status = child.wait() => {
                drain(&in_flight).await;
                stop.cancel();
                let _ = waiting.await;
                Err(match status {
                    Ok(status) => ProxyError::UpstreamExited { status },
                    Err(error) => ProxyError::UpstreamLost(error.to_string()),
                })
            }
        }
    };
    let ended = client_session.await;
    let _ = service.cancel().await;
    ended
}

/// Waits until no request is under way, for at most [`DRAIN`].
async fn drain(in_flight: &AtomicUsize) {
    let deadline = tokio::time::Instant::now() + DRAIN;
    while in_flight.load(Ordering::SeqCst) > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Let the last answers leave the transport's write queue.
    tokio::time::sleep(Duration::from_millis(50)).await;
}

/// The exploration tools' MCP definitions under their client-facing names.
fn exploration_tools(
    definitions: &[serde_json::Value],
    names: &ToolNames,
) -> Result<Vec<Tool>, ProxyError> {
    definitions
        .iter()
        .map(|definition| {
            let mut definition = definition.clone();
            if let Some(name) = definition.get("name").and_then(|name| name.as_str()) {
                let exposed = names.exposed(name);
                definition["name"] = serde_json::Value::String(exposed);
            }
            serde_json::from_value::<Tool>(definition).map_err(|error| {
                ProxyError::Downstream(format!("invalid exploration tool definition: {error}"))
            })
        })
        .collect()
}
