//! A transparent MCP proxy that gives any MCP client the overspill scratchpad (docs/mcp-proxy.md).
//!
//! `overspill mcp -- <server command>` runs the real server as a child process over stdio and
//! relays the client's own MCP session to it, message by message: every JSON-RPC message is
//! forwarded as the text it arrived as, except the few the scratchpad changes — the server's
//! `initialize` result gains one instructions line, `tools/list` gains the exploration tools,
//! calls to the exploration tools are answered here (one budget per client session), and a
//! large final tool result is stored and replaced by a short pointer.
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
//! It speaks the MCP revisions side by side: the 2025 ones (a session opened with
//! `initialize`) and 2026-07-28 (stateless: each request names its revision in its `_meta`);
//! a gateway translates for a 2026-07-28 client in front of 2025-era servers, and
//! [`serve_http`] serves 2026-07-28 requests without a session, per agent and per
//! [`Principal`] (docs/mcp-proxy.md#revisions).
//!
//! A remote server is reached over Streamable HTTP ([`Remote`]); one that wants an OAuth
//! sign-in uses the tokens [`oauth::login`] stored (`overspill auth login`), renewed as they
//! expire ([`Remote::with_oauth`]).
//!
//! What a configuration says of the servers to front is overspill-config's
//! ([`overspill::config::Upstreams`]: a client's `mcpServers`, the TOML's `[mcp.servers]`);
//! [`Server::configured`] makes each one a [`Server`] as the proxy runs it, the host choosing a
//! remote endpoint's sign-in and timeouts, and [`Server::from`] a
//! [`BrokenServer`] one that never starts and says why.
//!
//! See `docs/mcp-proxy.md` for what is forwarded and how to configure a client.
//!
//! # Architecture invariant
//!
//! This crate routes JSON-RPC messages and forwards what it does not change as it arrived;
//! every scratchpad decision (what to intercept, what a tool answers, what a reference
//! resolves to) is the facade's, reached through [`Scratch`]. The relay core works on message
//! text, not on a transport, so stdio and HTTP drive the same code.

mod child;
mod edits;
mod error;
mod health;
mod lines;
mod listen;
mod message;
mod metrics;
mod names;
mod namespace;
pub mod oauth;
mod relay;
mod remote;
mod revision;
mod scratch;
mod session;
mod sync;
mod user_dirs;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use overspill::config::{self, BrokenServer, HttpServer, Transport};

pub use child::find_on_path;
pub use error::ProxyError;
pub use health::{HEALTH_PATH, READY_PATH, ReadyCheck, is_health_path};
pub use listen::{
    Bound, Issued, LineProblem, Listen, Principal, ScratchFactory, ScratchFor, Tokens, TokensError,
    is_loopback, listen_blocking, principal_storage, serve_http,
};
pub use message::request;
pub use metrics::{METRICS_PATH, Metrics};
pub use names::ToolNames;
pub use namespace::{
    DEFAULT_MAX_LEN, DEFAULT_SEPARATOR, MAX_NAME_LEN, NameTable, Namespace, Origin,
};
pub use overspill::config::CommandServer;
pub use remote::{Remote, parse_header};
pub use scratch::Scratch;
pub use session::serve;
pub use user_dirs::{cache_dir, config_dir, data_dir, home_dir, platform_config_dir, state_dir};

/// The longest JSON-RPC message the proxy reads, in either direction: 256 MiB.
pub const MAX_LINE_BYTES: usize = 256 << 20;

/// How long the upstream server may take to answer the client's `initialize`, by default.
pub const DEFAULT_INIT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a gateway waits for its servers before it answers the client's `initialize` with
/// those that answered, by default: below the 30 s Claude Code gives a server to connect. The
/// others join when they answer, announced with `list_changed`
/// (docs/mcp-proxy.md#when-a-server-fails).
pub const DEFAULT_ANSWER_WITHIN: Duration = Duration::from_secs(25);

/// What to run and how to present it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProxyOptions {
    /// The servers fronted, in their configured order (a resource URI two servers list goes to
    /// the first).
    pub servers: Vec<Server>,
    /// How the servers' tools and prompts are named for the client: `None` fronts the one
    /// server as itself (its names unchanged, the session ends with it); `Some` is a gateway
    /// (`<server>__<name>`, each server restarted when it fails, docs/mcp-proxy.md#several-servers).
    pub namespace: Option<Namespace>,
    /// How long a server may take to answer `initialize`. The one server of a plain proxy that
    /// takes longer ends the session; a gateway's is withdrawn and restarted.
    pub init_timeout: Duration,
    /// How long a gateway waits for its servers before it answers the client's `initialize`
    /// with those that answered; a server that answers later joins then. A plain proxy's answer
    /// is its server's, whenever it comes (up to `init_timeout`).
    pub answer_within: Duration,
    /// Where a gateway's sessions learn a new server list ([`Reload`]).
    pub reload: Option<Reload>,
    /// Where the sessions count what they do (docs/mcp-proxy.md#metrics).
    pub metrics: Option<Metrics>,
}

/// A new server list for running gateways: every session of options made
/// [`with_reload`](ProxyOptions::with_reload) starts the servers [`apply`](Reload::apply) adds,
/// stops the ones it drops, and restarts the ones it changes, telling the client through
/// `list_changed` (docs/mcp-proxy.md#reloading-the-server-list).
#[derive(Clone)]
pub struct Reload(tokio::sync::watch::Sender<Vec<Server>>);

impl Reload {
    /// A reload whose current list is `servers` (the list the sessions start with).
    pub fn new(servers: Vec<Server>) -> Reload {
        Reload(tokio::sync::watch::Sender::new(servers))
    }

    /// Makes `servers` the list of every running session, and of sessions started later.
    pub fn apply(&self, servers: Vec<Server>) {
        self.0.send_replace(servers);
    }

    /// The current list, and its changes to come.
    pub(crate) fn subscribe(&self) -> tokio::sync::watch::Receiver<Vec<Server>> {
        self.0.subscribe()
    }

    /// On every SIGHUP, asks `read` for the list (from the file it came from) and applies it;
    /// a list `read` refuses is logged as a warning (`tracing`), and the running servers stay. The handler is in
    /// place when this returns, so a SIGHUP from then on no longer ends the process. Unix only:
    /// elsewhere there is no SIGHUP and this does nothing.
    ///
    /// # Errors
    ///
    /// The signal handler could not be installed (no thread or runtime could be started).
    pub fn on_hangup(
        self,
        read: impl Fn() -> Result<Vec<Server>, String> + Send + 'static,
    ) -> std::io::Result<()> {
        on_hangup("overspill-reload", move || match read() {
            Ok(servers) => {
                let names: Vec<&str> = servers.iter().map(|server| server.name.as_str()).collect();
                tracing::info!(servers = %names.join(", "), "reloaded the server list");
                self.apply(servers);
            }
            Err(why) => {
                tracing::warn!("the new server list is refused ({why}); the running servers stay")
            }
        })
    }
}

/// Runs `reload` on a thread of its own (named `name`) at each SIGHUP the process gets, for as
/// long as it runs; the handler is installed before this returns. Unix only: elsewhere there
/// is no SIGHUP and this does nothing.
///
/// # Errors
///
/// The signal handler could not be installed (no thread or runtime could be started).
pub(crate) fn on_hangup(name: &str, reload: impl Fn() + Send + 'static) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let mut hangups = {
            let _entered = runtime.enter();
            signal(SignalKind::hangup())?
        };
        std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    while hangups.recv().await.is_some() {
                        reload();
                    }
                });
            })?;
    }
    #[cfg(not(unix))]
    let _ = (name, reload);
    Ok(())
}

impl std::fmt::Debug for Reload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reload")
            .field("servers", &*self.0.borrow())
            .finish()
    }
}

impl PartialEq for Reload {
    fn eq(&self, other: &Reload) -> bool {
        self.0.same_channel(&other.0)
    }
}

impl Eq for Reload {}

/// One upstream server as the proxy runs it: its configured name, how it is reached and where
/// its stderr goes. What a configuration says of it is overspill-config's
/// ([`overspill::config::Upstream`]); [`Server::configured`] is the one translation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Server {
    /// The server's name, which selects `[mcp.servers.<name>.scratchpad]` and, in a gateway,
    /// prefixes its tools and prompts.
    pub name: String,
    /// Where the server is.
    pub upstream: Upstream,
    /// Where a child server's stderr goes (appended); `None` leaves it the proxy's.
    pub log: Option<PathBuf>,
}

impl Server {
    /// The server `name` at `upstream`, its stderr the proxy's.
    pub fn new(name: impl Into<String>, upstream: Upstream) -> Server {
        Server {
            name: name.into(),
            upstream,
            log: None,
        }
    }

    /// The same server with its stderr appended to `log`.
    #[must_use]
    pub fn with_log(mut self, log: impl Into<PathBuf>) -> Server {
        self.log = Some(log.into());
        self
    }

    /// The server `upstream` of a configuration ([`overspill::config::Upstreams`]) as the
    /// proxy runs it, its stderr the proxy's: a command as its entry says; a remote endpoint as
    /// `remote` makes it of its entry, since the sign-in and the timeouts are the host's to
    /// choose ([`Remote::try_from`] reads the entry's URL and headers). This is the one
    /// translation of a configured server into the proxy's; an entry that cannot be started
    /// from at all is a [`BrokenServer`]'s, [`Server::from`].
    ///
    /// # Errors
    ///
    /// Those of `remote`, for a remote endpoint.
    pub fn configured<E>(
        upstream: &config::Upstream,
        remote: impl FnOnce(&HttpServer) -> Result<Remote, E>,
    ) -> Result<Server, E> {
        let reached = match &upstream.transport {
            Transport::Command(command) => Upstream::Command(command.clone()),
            Transport::Http(http) => Upstream::Http(remote(http)?),
        };
        Ok(Server::new(&upstream.name, reached))
    }

    /// How messages name the server: its command line or its URL.
    pub fn label(&self) -> String {
        match &self.upstream {
            Upstream::Command(command) => format!("`{}`", child::command_line(command)),
            Upstream::Http(remote) => format!("at {}", remote.url()),
            Upstream::Invalid(_) => "whose entry cannot be started from".to_owned(),
        }
    }
}

impl From<&BrokenServer> for Server {
    /// The configured server whose entry cannot be started from, as a server that never starts
    /// and says why ([`Upstream::Invalid`] with the entry's error), its stderr the proxy's.
    fn from(broken: &BrokenServer) -> Server {
        Server::new(&broken.name, Upstream::Invalid(broken.error.to_string()))
    }
}

/// How the proxy reaches an upstream MCP server: a command spoken to over its stdio, or a
/// remote endpoint spoken to over Streamable HTTP (the configuration's
/// [`overspill::config::Transport`], with what the host chose for a remote: its sign-in and
/// timeouts), or an entry that cannot be started from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Upstream {
    /// A server started as the proxy's child: its program, arguments, added environment and
    /// working directory.
    Command(CommandServer),
    /// A Streamable HTTP endpoint.
    Http(Remote),
    /// A server whose entry cannot be started from (an unset `${VAR}`, neither a command nor
    /// a URL; [`overspill::config::BrokenServer`]), with why: a gateway keeps it as a member
    /// that never starts and says why, as it does of a server whose program is missing
    /// (docs/mcp-proxy.md#when-a-server-fails); a plain proxy stops with
    /// [`ProxyError::InvalidEntry`].
    Invalid(String),
}

impl ProxyOptions {
    /// Runs `program args…` as the server named `server`.
    pub fn new(
        server: impl Into<String>,
        program: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> ProxyOptions {
        ProxyOptions::command(
            server,
            CommandServer {
                command: program.into(),
                args: args.into_iter().map(Into::into).collect(),
                env: BTreeMap::new(),
                cwd: None,
            },
        )
    }

    /// Runs the server named `server` as `command` says (from a configuration,
    /// [`overspill::config::Upstreams`]).
    pub fn command(server: impl Into<String>, command: CommandServer) -> ProxyOptions {
        ProxyOptions::single(Server::new(server, Upstream::Command(command)))
    }

    /// Speaks to the remote server named `server` (see [`Remote`]).
    pub fn remote(server: impl Into<String>, remote: Remote) -> ProxyOptions {
        ProxyOptions::single(Server::new(server, Upstream::Http(remote)))
    }

    /// Fronts `server` as itself.
    pub fn single(server: Server) -> ProxyOptions {
        ProxyOptions {
            servers: vec![server],
            namespace: None,
            init_timeout: DEFAULT_INIT_TIMEOUT,
            answer_within: DEFAULT_ANSWER_WITHIN,
            reload: None,
            metrics: None,
        }
    }

    /// Fronts every one of `servers` in one session, their tools and prompts named by
    /// `namespace` (docs/mcp-proxy.md#several-servers).
    pub fn gateway(servers: Vec<Server>, namespace: Namespace) -> ProxyOptions {
        ProxyOptions {
            servers,
            namespace: Some(namespace),
            init_timeout: DEFAULT_INIT_TIMEOUT,
            answer_within: DEFAULT_ANSWER_WITHIN,
            reload: None,
            metrics: None,
        }
    }

    /// The same options, a gateway's sessions following `reload`'s server list (its current
    /// list replaces [`ProxyOptions::servers`]).
    #[must_use]
    pub fn with_reload(mut self, reload: &Reload) -> ProxyOptions {
        self.servers = reload.0.borrow().clone();
        self.reload = Some(reload.clone());
        self
    }

    /// The same options, the sessions counting into `metrics` (their scratchpads need it as
    /// their observer too, [`overspill::ScratchpadBuilder::observer`]). Client requests are
    /// counted by the HTTP server ([`serve_http`]), which sees each one answered; on stdio the
    /// rest is counted (servers, upstream latency, what the scratchpad did).
    #[must_use]
    pub fn with_metrics(mut self, metrics: &Metrics) -> ProxyOptions {
        self.metrics = Some(metrics.clone());
        self
    }

    /// The same options with another `initialize` timeout.
    #[must_use]
    pub fn with_init_timeout(mut self, timeout: Duration) -> ProxyOptions {
        self.init_timeout = timeout;
        self
    }

    /// The same options, a gateway answering the client's `initialize` within `deadline`
    /// ([`ProxyOptions::answer_within`]).
    #[must_use]
    pub fn with_answer_within(mut self, deadline: Duration) -> ProxyOptions {
        self.answer_within = deadline;
        self
    }
}

/// Runs the proxy on this process's stdin and stdout until the client disconnects (`Ok`) or
/// the upstream server exits ([`ProxyError::UpstreamExited`]).
///
/// # Errors
///
/// Every [`ProxyError`]: the server cannot start, does not answer `initialize` in time, has a
/// tool named like an exploration tool, or exits.
pub async fn run(options: ProxyOptions, scratch: Arc<dyn Scratch>) -> Result<(), ProxyError> {
    serve(options, scratch, tokio::io::stdin(), tokio::io::stdout()).await
}

/// [`run`] on a tokio runtime of its own, for a caller that has none (the CLI).
///
/// # Errors
///
/// As for [`run`], plus [`ProxyError::Runtime`] when no runtime can be started.
pub fn run_blocking(options: ProxyOptions, scratch: Arc<dyn Scratch>) -> Result<(), ProxyError> {
    let runtime = runtime()?;
    let outcome = runtime.block_on(run(options, scratch));
    // tokio reads stdin on a blocking thread that only returns at the next line or EOF; when
    // the upstream server exits first, waiting for it would keep the proxy alive.
    runtime.shutdown_background();
    outcome
}

/// The runtime the proxy runs on when it starts its own ([`run_blocking`],
/// [`listen_blocking`]): one thread for every message of every session, and the blocking pool
/// for what takes longer (a result to count and store, an exploration call, a reference to
/// resolve). Each message costs microseconds on it; with a worker per core, every message that
/// went from one task to another woke a second thread, which cost the proxy about a third of
/// its CPU time per call (docs/mcp-proxy.md#one-thread).
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, ProxyError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ProxyError::Runtime)
}

#[cfg(test)]
mod tests;
