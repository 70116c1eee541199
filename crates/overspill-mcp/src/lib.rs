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
//! A remote server is reached over Streamable HTTP ([`Remote`]); one that wants an OAuth
//! sign-in uses the tokens [`oauth::login`] stored (`overspill auth login`), renewed as they
//! expire ([`Remote::with_oauth`]).
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
mod lines;
mod listen;
mod message;
mod names;
mod namespace;
pub mod oauth;
mod relay;
mod remote;
mod scratch;
mod session;
mod user_dirs;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use error::ProxyError;
pub use listen::{Listen, ScratchFactory, is_loopback, listen_blocking, serve_http};
pub use names::ToolNames;
pub use namespace::{
    DEFAULT_MAX_LEN, DEFAULT_SEPARATOR, MAX_NAME_LEN, NameTable, Namespace, Origin,
};
pub use overspill::config::CommandServer;
pub use remote::{Remote, parse_header};
pub use scratch::Scratch;
pub use session::serve;
pub use user_dirs::{config_dir, state_dir};

/// The longest JSON-RPC message the proxy reads, in either direction: 256 MiB.
pub const MAX_LINE_BYTES: usize = 256 << 20;

/// How long the upstream server may take to answer the client's `initialize`, by default.
pub const DEFAULT_INIT_TIMEOUT: Duration = Duration::from_secs(30);

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
}

/// One upstream server: its configured name and where it is.
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

    /// How messages name the server: its command line or its URL.
    pub fn label(&self) -> String {
        match &self.upstream {
            Upstream::Command(command) => format!("`{}`", child::command_line(command)),
            Upstream::Http(remote) => format!("at {}", remote.url()),
        }
    }
}

/// The upstream MCP server: a command spoken to over its stdio, or a remote endpoint spoken
/// to over Streamable HTTP.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Upstream {
    /// A server started as the proxy's child: its program, arguments, added environment and
    /// working directory.
    Command(CommandServer),
    /// A Streamable HTTP endpoint.
    Http(Remote),
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
        }
    }

    /// Fronts every one of `servers` in one session, their tools and prompts named by
    /// `namespace` (docs/mcp-proxy.md#several-servers).
    pub fn gateway(servers: Vec<Server>, namespace: Namespace) -> ProxyOptions {
        ProxyOptions {
            servers,
            namespace: Some(namespace),
            init_timeout: DEFAULT_INIT_TIMEOUT,
        }
    }

    /// The same options with another `initialize` timeout.
    #[must_use]
    pub fn with_init_timeout(mut self, timeout: Duration) -> ProxyOptions {
        self.init_timeout = timeout;
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
