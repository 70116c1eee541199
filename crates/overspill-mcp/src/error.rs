//! Why the proxy could not start, or why it stopped.

use std::process::ExitStatus;

/// Why [`run`](crate::run) failed. Each message says what to do next.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProxyError {
    /// No upstream command was given.
    #[error(
        "no upstream server command: put it after `--`, e.g. \
         `overspill mcp -- npx -y @modelcontextprotocol/server-filesystem /data`"
    )]
    NoCommand,
    /// The upstream server could not be started.
    #[error(
        "cannot start the upstream server `{command}`: {error}; check that it is installed and on PATH"
    )]
    Spawn {
        /// The program as given.
        command: String,
        /// Why, stated in the message (not returned by `source()`).
        error: std::io::Error,
    },
    /// The upstream server did not answer the client's `initialize` in time.
    #[error(
        "the MCP server {server} did not answer `initialize` within {} s; its diagnostics are \
         in {diagnostics}. Check that the command starts an MCP server speaking stdio, or raise \
         --init-timeout if it is slow to start",
        after.as_secs_f64()
    )]
    InitTimeout {
        /// The server's command line (or URL).
        server: String,
        /// How long the proxy waited.
        after: std::time::Duration,
        /// Where the server's own output went.
        diagnostics: String,
    },
    /// The server's entry cannot be started from ([`Upstream::Invalid`](crate::Upstream::Invalid)).
    #[error("the MCP server `{server}` cannot be started from its entry: {problem}")]
    InvalidEntry {
        /// The server's name.
        server: String,
        /// Why, as the configuration's reader said.
        problem: String,
    },
    /// `--url` is not an `http(s)` endpoint.
    #[error("invalid --url {url:?}: {reason}")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `--header` cannot be sent (its value is never quoted).
    #[error("invalid --header {name:?}: {reason}")]
    InvalidHeader {
        /// The header's name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `--header` names an environment variable that is not set.
    #[error(
        "the --header {header:?} uses ${{{var}}}, but the environment variable {var} is not set; \
         set it in the environment that starts the proxy (e.g. the `env` block of your MCP \
         client's configuration)"
    )]
    MissingEnv {
        /// The variable.
        var: String,
        /// The header that names it.
        header: String,
    },
    /// The remote server wants credentials it did not get (HTTP 401).
    #[error(
        "the MCP server at {url} requires authorization (HTTP 401; it asks for: {challenge}); \
         pass credentials with --header 'Authorization: Bearer ${{TOKEN}}', or sign in with \
         `overspill auth login --url {url}` where the server uses OAuth"
    )]
    AuthRequired {
        /// The endpoint.
        url: String,
        /// Its `WWW-Authenticate` challenge (cut to 300 characters).
        challenge: String,
    },
    /// The remote server needs a sign-in the proxy does not have (or cannot renew).
    #[error(transparent)]
    SignIn(#[from] crate::oauth::OAuthError),
    /// The remote server no longer knows the session (HTTP 404 for its session id).
    #[error(
        "the MCP server at {url} ended the session (HTTP 404 for its Mcp-Session-Id); restart \
         the proxy (your MCP client reconnects it) to open a new one"
    )]
    SessionEnded {
        /// The endpoint.
        url: String,
    },
    /// The HTTP client could not be set up.
    #[error("{0}")]
    Http(String),
    /// An upstream tool has the same name as an exploration tool.
    #[error(
        "the upstream server has a tool named `{name}`, which is also the name of an exploration \
         tool; start the proxy with a prefix for the exploration tools, e.g. `--tool-prefix sp_` \
         (then they are called `sp_{name}` and so on)"
    )]
    NameClash {
        /// The clashing tool name.
        name: String,
    },
    /// The prefix would not make a valid MCP tool name.
    #[error(
        "invalid --tool-prefix {prefix:?}: use ASCII letters, digits, `_`, `-` or `.` \
         (at most 32 characters), e.g. `sp_`"
    )]
    InvalidPrefix {
        /// The prefix as given.
        prefix: String,
    },
    /// A name separator or longest name the namespaced names cannot be made with.
    #[error("invalid server namespace: {0}")]
    InvalidNamespace(String),
    /// The upstream server exited while the proxy was running.
    #[error("the upstream server exited ({status}); the proxy stops with it")]
    UpstreamExited {
        /// How it exited.
        status: ExitStatus,
    },
    /// No tokio runtime could be started (threads or file descriptors exhausted).
    #[error("cannot start the proxy's async runtime: {0}; free some threads or file descriptors")]
    Runtime(std::io::Error),
    /// A server's log file cannot be opened.
    #[error(
        "cannot open the server log {}: {error}; make its directory writable", path.display()
    )]
    Log {
        /// The log file.
        path: std::path::PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The upstream server's stdout or stdin closed, or waiting for it failed.
    #[error("lost the upstream server: {0}")]
    UpstreamLost(String),
    /// A gateway's server answered `initialize` with an error, or went while it was asked.
    #[error("the MCP server {server} did not initialize: {why}")]
    InitRefused {
        /// The server, as its name and what runs it.
        server: String,
        /// What it answered, or how it went.
        why: String,
    },
}

impl ProxyError {
    /// What befell a gateway's server, as the words that follow its name in the messages about
    /// it ("the MCP server `x` {reason}"): the message itself, less what would name the server
    /// twice.
    pub(crate) fn reason(&self) -> String {
        match self {
            ProxyError::InitTimeout { after, .. } => format!(
                "did not answer `initialize` within {} s",
                after.as_secs_f64()
            ),
            ProxyError::UpstreamExited { status } => format!("exited ({status})"),
            ProxyError::InitRefused { why, .. } => format!("did not initialize: {why}"),
            other => other.to_string(),
        }
    }
}
