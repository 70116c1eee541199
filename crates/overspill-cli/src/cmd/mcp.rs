//! `overspill mcp [--config FILE] [--name SERVER] [--tool-prefix P] [--dir DIR]
//! [--context-window N] [--provider P] [--model M] [--init-timeout SECS] [--answer-within SECS]
//! (-- <command> [args…] | --url URL [--header 'Name: value']… [--connect-timeout SECS]
//! [--read-timeout SECS] [--oauth [--no-browser] [--callback-port PORT]] | --servers FILE)`:
//! the MCP proxy; without `--name`, the servers of `--servers` or of `--config` are fronted
//! all at once (a gateway).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use overspill::config::{Config, DEFAULT_MIN_TOKENS, HttpServer, Upstreams};
use overspill::store::SharedStore;
use overspill::store::shared::Redis;
use overspill::tokens::TokenCounter;
use overspill::{BuildError, Scratchpad, ScratchpadBuilder};
use overspill_mcp::oauth::{ClientIdentity, TokenStore};
use overspill_mcp::{
    DEFAULT_ANSWER_WITHIN, DEFAULT_INIT_TIMEOUT, DEFAULT_MAX_LEN, DEFAULT_SEPARATOR, Listen,
    METRICS_PATH, Metrics, Namespace, ProxyError, ProxyOptions, ReadyCheck, Reload, Remote,
    ScratchFactory, Server, Tokens, Upstream, parse_header,
};

pub const EXAMPLES: &str = "Speaks MCP on stdin/stdout to the client and runs the real server as a \
child process. Large tool results are stored (in --dir, under the configuration's memory_dir, or \
in your state directory, e.g. ~/.local/state/overspill/mcp/<server>/) and replaced by a pointer; the exploration tools are added to the server's tools.\n\n\
Examples:\n  \
overspill mcp -- npx -y @modelcontextprotocol/server-filesystem /data\n  \
overspill mcp --config overspill.toml --name k8s -- kubectl-mcp-server\n  \
overspill mcp --tool-prefix sp_ -- my-server   # exploration tools become sp_grep, sp_head …\n  \
overspill mcp --url https://mcp.example.com/mcp   # after `overspill auth login --url …`\n  \
overspill mcp --servers ~/.cursor/mcp.json --name github   # a server of a client's mcpServers
  \
overspill mcp --servers ~/.cursor/mcp.json   # all of them, one budget: tools named github__search …";

/// How the process's diagnostics are written on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One line of text each; warnings and errors by default.
    Text,
    /// One JSON object per line; by default also one line per answered request (`info`).
    Json,
}

/// The window the budget is sized by when neither the flag nor `[agent.llm]` gives one.
const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;

#[derive(Debug, Clone, Args)]
pub struct McpArgs {
    /// The overspill configuration: interception rules, memory_dir, [agent.llm].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The server's name, which selects [mcp.servers.<name>.scratchpad] (default: the command's
    /// file name); with --servers or a configured [mcp.servers], the one server to front
    /// (without it, all of them are).
    #[arg(long, value_name = "SERVER")]
    name: Option<String>,
    /// Between a server's name and its tool's or prompt's when all of a file's servers are
    /// fronted (`github__search`).
    #[arg(long, value_name = "SEP", default_value = DEFAULT_SEPARATOR)]
    separator: String,
    /// The longest tool or prompt name offered when all of a file's servers are fronted
    /// (16–64; longer names are cut and end in a hash). The default leaves room for a client's
    /// own prefix, such as Claude Code's `mcp__overspill__`.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_LEN)]
    max_name_len: usize,
    /// A prefix for the exploration tools' names, for servers with tools of the same names.
    #[arg(long, value_name = "P")]
    tool_prefix: Option<String>,
    /// The scratchpad dir itself (overrides memory_dir).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// The model's context window in tokens (default: [agent.llm] context_window, else 128,000).
    #[arg(long, value_name = "N")]
    context_window: Option<u64>,
    /// The LLM provider, for the token counter (default: [agent.llm], else openai).
    #[arg(long, value_name = "P")]
    provider: Option<String>,
    /// The model id, for the token counter (default: [agent.llm], else gpt-4o).
    #[arg(long, value_name = "M")]
    model: Option<String>,
    /// Seconds the server may take to answer the client's `initialize` before the proxy
    /// answers with an error and exits 1.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_INIT_TIMEOUT.as_secs_f64())]
    init_timeout: f64,
    /// Seconds the gateway of several servers waits for them before it answers the client's
    /// `initialize` with those that answered; the others join when they answer, announced with
    /// notifications/tools/list_changed.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_ANSWER_WITHIN.as_secs_f64())]
    answer_within: f64,
    /// A remote MCP server's Streamable HTTP endpoint, instead of a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// A header sent to the --url server on every request, `Name: value`; `${VAR}` in the
    /// value is replaced by that environment variable (repeatable).
    #[arg(long = "header", value_name = "'NAME: VALUE'", requires = "url")]
    headers: Vec<String>,
    /// Seconds to connect to the --url server.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = Remote::DEFAULT_CONNECT_TIMEOUT.as_secs_f64(),
        requires = "url"
    )]
    connect_timeout: f64,
    /// Seconds an answer from the --url server may go silent before the request fails.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = Remote::DEFAULT_READ_TIMEOUT.as_secs_f64(),
        requires = "url"
    )]
    read_timeout: f64,
    /// Sign in to the --url server itself (printing the URL on stderr, opening a browser)
    /// when there is no sign-in or it cannot be renewed, instead of telling the client to run
    /// `overspill auth login`.
    #[arg(long, requires = "url")]
    oauth: bool,
    /// With --oauth: only print the authorization URL, do not open a browser.
    #[arg(long, requires = "oauth")]
    no_browser: bool,
    /// With --oauth: the loopback port the browser is sent back to (default: a free one).
    #[arg(long, value_name = "PORT", requires = "oauth")]
    callback_port: Option<u16>,
    /// Serve MCP clients over Streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of
    /// stdio: each client session gets its own scratchpad (under --dir) and upstream.
    #[arg(long, value_name = "ADDR")]
    listen: Option<std::net::SocketAddr>,
    /// The HTTP endpoint's path.
    #[arg(long, value_name = "PATH", default_value = Listen::DEFAULT_PATH, requires = "listen")]
    path: String,
    /// An origin allowed besides this machine's (repeatable), e.g. https://app.example.com.
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "listen")]
    allow_origins: Vec<String>,
    /// Require `Authorization: Bearer <value of this environment variable>` on every request
    /// (one token, one principal: `shared`).
    #[arg(long, value_name = "VAR", requires = "listen")]
    auth_token_env: Option<String>,
    /// Require a bearer token of this file on every request, each the token of a principal:
    /// lines `NAME sha256:<hex of the token>`, read again on SIGHUP. `overspill auth token NAME
    /// --append FILE` makes one (docs/mcp-proxy.md#named-tokens).
    #[arg(
        long,
        value_name = "FILE",
        requires = "listen",
        conflicts_with = "auth_token_env"
    )]
    auth_tokens: Option<PathBuf>,
    /// The most client sessions at once.
    #[arg(long, value_name = "N", default_value_t = Listen::DEFAULT_MAX_SESSIONS, requires = "listen")]
    max_sessions: usize,
    /// Seconds after which a session without requests is closed.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = Listen::DEFAULT_SESSION_IDLE.as_secs_f64(),
        requires = "listen"
    )]
    session_idle: f64,
    /// The largest request body, in bytes.
    #[arg(long, value_name = "N", default_value_t = Listen::DEFAULT_MAX_BODY_BYTES, requires = "listen")]
    max_body_bytes: usize,
    /// On SIGTERM or Ctrl-C, the seconds the calls in flight may take to finish (no new
    /// session is taken meanwhile, and /readyz answers 503) before the sessions close.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = Listen::DEFAULT_DRAIN_TIMEOUT.as_secs_f64(),
        requires = "listen"
    )]
    drain_timeout: f64,
    /// On SIGTERM or Ctrl-C, the seconds new sessions are still taken while /readyz already
    /// answers 503: behind a load balancer, as long as its health checks take to notice
    /// (docs/team.md).
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = Listen::DEFAULT_DRAIN_DELAY.as_secs_f64(),
        requires = "listen"
    )]
    drain_delay: f64,
    /// Keep every stored result in this object store too, so that any instance serves any
    /// request: s3://bucket/prefix (S3 and the stores that speak it) or file:///dir,
    /// with credentials, region and endpoint from the environment (AWS_ENDPOINT, …); --dir is
    /// then its local cache (docs/storage.md#a-shared-store).
    #[arg(long, value_name = "URL", requires = "listen")]
    store: Option<String>,
    /// Keep each agent's budget in this Redis server (redis://[user:password@]host[:port][/db],
    /// rediss:// for TLS), so that every instance charges one budget per agent, whichever
    /// machine it runs on (docs/budget.md#one-agent-served-by-several-machines).
    #[arg(long, value_name = "URL", requires = "listen")]
    budget_store: Option<String>,
    /// With a shared store: the most bytes of stored results kept in --dir, the least
    /// recently read removed first (they are fetched again when read); default `[store]
    /// cache_bytes`, else 1 GiB.
    #[arg(long, value_name = "BYTES", requires = "listen")]
    store_cache_bytes: Option<u64>,
    /// Serve Prometheus metrics at http://ADDR/metrics (e.g. 0.0.0.0:9464), a listener of
    /// their own that --auth-token-env does not cover (docs/mcp-proxy.md#metrics).
    #[arg(long, value_name = "ADDR", requires = "listen")]
    metrics: Option<std::net::SocketAddr>,
    /// How diagnostics are written on stderr: `text`, or `json` (one JSON object per line,
    /// with one line per answered request at the default level; docs/mcp-proxy.md#logs).
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// A client's MCP configuration (the `mcpServers` JSON of Claude Desktop, Cursor, Claude
    /// Code's .mcp.json or Gemini CLI's settings.json; VS Code's `servers`): front all of its
    /// servers, or the one --name picks.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["url", "command"])]
    servers: Option<PathBuf>,
    /// The upstream MCP server's command and its arguments, after `--` (else --url, or a
    /// server of --servers or of the --config file's [mcp.servers.<name>]).
    #[arg(
        last = true,
        value_name = "COMMAND",
        required_unless_present_any = ["url", "servers", "config"]
    )]
    command: Vec<String>,
}

pub fn run(args: McpArgs) -> anyhow::Result<ExitCode> {
    let config = match &args.config {
        Some(path) => Some(
            Config::from_path(path)
                .with_context(|| format!("cannot use the configuration {}", path.display()))?,
        ),
        None => None,
    };
    // The counter's tables are built (or loaded) from now on, beside the rest of the start:
    // nothing before the first answer waits for them, and the first count usually finds them
    // ready (docs/tokens.md#the-first-answer-does-not-wait). One counter serves every mode.
    prepare_in_background(
        PadArgs::of(&args)
            .builder(config.as_ref(), None)
            .token_counter(),
    );
    let mut options = match options(&args) {
        Ok(options) => options,
        Err(message) => return Ok(super::usage_error(message)),
    };
    let sessions = match args.listen {
        Some(_) => match sessions_base(&args, config.as_ref(), &options) {
            Ok(base) => Some(base),
            Err(message) => return Ok(super::usage_error(message)),
        },
        None => None,
    };
    let logs = match logs_dir(&args, &options, sessions.as_deref()) {
        Ok(logs) => logs,
        Err(message) => return Ok(super::usage_error(message)),
    };
    if let Some(logs) = &logs
        && let Err(message) = log_to_files(&mut options.servers, logs)
    {
        return Ok(super::usage_error(message));
    }
    let options = reloading_on_hangup(&args, options, logs)?;
    if let (Some(address), Some(sessions)) = (args.listen, sessions) {
        return listen(&args, address, options, config, sessions);
    }
    let default_dir = match default_dir(&args, config.as_ref(), &options) {
        Ok(dir) => dir,
        Err(message) => return Ok(super::usage_error(message)),
    };
    let pad = scratchpad(&args, config.as_ref(), default_dir.as_deref())?;
    if let Some(dir) = pad.scratchpad_dir() {
        say(
            args.log_format,
            &format!("large results are stored in {}", dir.display()),
        );
    }
    announce_logs(&options, args.log_format);
    match overspill_mcp::run_blocking(options, Arc::new(pad)) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(error @ (ProxyError::NameClash { .. } | ProxyError::InvalidPrefix { .. })) => {
            Ok(super::usage_error(error))
        }
        Err(error) => {
            tell!("overspill mcp: {error}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// `--listen`: many HTTP clients, each session with its own scratchpad dir under the base.
fn listen(
    args: &McpArgs,
    address: std::net::SocketAddr,
    options: ProxyOptions,
    config: Option<Config>,
    base: PathBuf,
) -> anyhow::Result<ExitCode> {
    let auth_token = match &args.auth_token_env {
        Some(var) => match std::env::var(var) {
            Ok(token) if !token.is_empty() => Some(token),
            _ => {
                return Ok(super::usage_error(format!(
                    "--auth-token-env {var}: the environment variable {var} is not set (or empty)"
                )));
            }
        },
        None => None,
    };
    let auth_tokens = match &args.auth_tokens {
        Some(path) => match Tokens::load(path) {
            Ok(tokens) => Some(tokens),
            Err(error) => return Ok(super::usage_error(format!("--auth-tokens: {error}"))),
        },
        None => None,
    };
    if !overspill_mcp::is_loopback(&address) && auth_token.is_none() && auth_tokens.is_none() {
        return Ok(super::usage_error(format!(
            "--listen {address} serves beyond this machine: also give --auth-tokens FILE (a \
             token per principal) or --auth-token-env VAR (one shared token), so that only \
             clients with a token get in"
        )));
    }
    if let Some(tokens) = &auth_tokens {
        tokens
            .reload_on_hangup()
            .context("cannot listen for SIGHUP, which reloads the --auth-tokens file")?;
        let path = tokens.path().display();
        let read = match tokens.len() {
            0 => format!("{path} names no principal yet: every request is refused until it does"),
            count => format!("{count} principal(s) from {path}"),
        };
        say(args.log_format, &format!("{read} (read again on SIGHUP)"));
    }
    let session_idle = match seconds("--session-idle", args.session_idle) {
        Ok(idle) => idle,
        Err(message) => return Ok(super::usage_error(message)),
    };
    let drain_timeout = match seconds("--drain-timeout", args.drain_timeout) {
        Ok(drain) => drain,
        Err(message) => return Ok(super::usage_error(message)),
    };
    let drain_delay = match seconds("--drain-delay", args.drain_delay) {
        Ok(delay) => delay,
        Err(message) => return Ok(super::usage_error(message)),
    };
    if overspill_mcp::is_health_path(&args.path) {
        return Ok(super::usage_error(format!(
            "--path {}: that path answers health checks; choose another for the MCP endpoint",
            args.path
        )));
    }
    let mut listen = Listen::default();
    listen.path = args.path.clone();
    listen.allowed_origins = args.allow_origins.clone();
    listen.auth_token = auth_token;
    listen.auth_tokens = auth_tokens;
    listen.max_sessions = args.max_sessions;
    listen.session_idle = session_idle;
    listen.max_body_bytes = args.max_body_bytes;
    listen.drain_timeout = drain_timeout;
    listen.drain_delay = drain_delay;
    listen.metrics_address = args.metrics;
    // Counted only when the metrics are served.
    let metrics = args.metrics.map(|_| Metrics::new());
    let options = match &metrics {
        Some(metrics) => options.with_metrics(metrics),
        None => options,
    };
    // A store that cannot be used now is not a reason to stop: /readyz says so until it can,
    // and each result that cannot be stored, or budget that cannot be shared, says why
    // (docs/team.md#a-shared-store).
    // The flags win over the configuration's [store] (docs/configuration.md#store).
    let stored = config.as_ref().map(Config::store);
    let store_url = args
        .store
        .as_ref()
        .or_else(|| stored.and_then(|store| store.url.as_ref()));
    let cache_bytes = args
        .store_cache_bytes
        .or_else(|| stored.and_then(|store| store.cache_bytes))
        .unwrap_or(overspill::store::shared::DEFAULT_CACHE_BYTES);
    let budget_url = args
        .budget_store
        .as_ref()
        .or_else(|| stored.and_then(|store| store.budgets.as_ref()));
    let shared = match store_url {
        Some(url) => {
            let shared = shared_store(url, &base, cache_bytes)?;
            match shared.check() {
                Ok(()) => say(
                    args.log_format,
                    &format!("results are shared in {}", shared.location()),
                ),
                Err(error) => warn(args.log_format, &format!("{error}")),
            }
            listen.sessions_store_with_principal = true;
            Some(shared)
        }
        None => None,
    };
    let budgets = match budget_url {
        Some(url) => {
            let redis =
                Redis::open(url).map_err(|error| anyhow::anyhow!("--budget-store: {error}"))?;
            match redis.check() {
                Ok(()) => say(
                    args.log_format,
                    &format!("each agent's budget is kept in {}", redis.location()),
                ),
                Err(error) => warn(args.log_format, &format!("{error}")),
            }
            Some(redis)
        }
        None => None,
    };
    listen.ready_check = ready_check(shared.clone(), budgets.clone());
    let stored_in = match &shared {
        Some(shared) => format!(
            "each session's large results are stored in {} and cached in {}",
            shared.location(),
            base.display()
        ),
        None => format!(
            "each session's large results are stored in {}",
            base.display()
        ),
    };
    let session_args = PadArgs::of(args);
    let factory: ScratchFactory = {
        Arc::new(move |scratch_for: &overspill_mcp::ScratchFor| {
            let dir = base.join(&scratch_for.storage);
            let mut builder = session_args.builder(config.as_ref(), Some(&dir));
            if let Some(metrics) = &metrics {
                builder = builder.observer(Arc::new(metrics.clone()));
            }
            if let Some(file) = &scratch_for.shared_budget {
                builder = match &budgets {
                    Some(redis) => {
                        let key = format!("overspill/{}/{file}", scratch_for.storage);
                        builder.redis_budget(redis.counter(key))
                    }
                    None => builder.shared_budget(dir.join(file)),
                };
            }
            if let Some(shared) = &shared {
                builder = builder.shared_store(shared.clone());
            }
            let pad =
                build_scratchpad(builder, Some(&dir)).map_err(|error| format!("{error:#}"))?;
            Ok(Arc::new(pad) as Arc<dyn overspill_mcp::Scratch>)
        })
    };
    let path = args.path.clone();
    let format = args.log_format;
    announce_logs(&options, format);
    let outcome = overspill_mcp::listen_blocking(address, listen, options, factory, |bound| {
        say(
            format,
            &format!("serving MCP on http://{}{path}", bound.mcp),
        );
        if let Some(metrics) = bound.metrics {
            say(
                format,
                &format!("serving metrics on http://{metrics}{METRICS_PATH}"),
            );
        }
        say(format, &stored_in);
    });
    match outcome {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(error) => {
            match format {
                LogFormat::Text => tell!("overspill mcp: {error}"),
                LogFormat::Json => tracing::error!(%error, "overspill mcp stopped"),
            }
            Ok(ExitCode::FAILURE)
        }
    }
}

/// What `/readyz` checks besides the server: the shared store and the budget store, when
/// given. Each failure is named; why is in the debug log.
fn ready_check(shared: Option<SharedStore>, budgets: Option<Redis>) -> Option<ReadyCheck> {
    if shared.is_none() && budgets.is_none() {
        return None;
    }
    Some(Arc::new(move || {
        if let Some(shared) = &shared
            && let Err(error) = shared.check()
        {
            tracing::debug!(%error, "not ready");
            return Err(format!(
                "the shared store {} cannot be used",
                shared.location()
            ));
        }
        if let Some(redis) = &budgets
            && let Err(error) = redis.check()
        {
            tracing::debug!(%error, "not ready");
            return Err(format!(
                "the budget store {} cannot be used",
                redis.location()
            ));
        }
        Ok(())
    }))
}

/// The shared store `url` names, cached in `base`.
fn shared_store(url: &str, base: &Path, cache_bytes: u64) -> anyhow::Result<SharedStore> {
    let objects = overspill::store::shared::open_url(url)
        .map_err(|error| anyhow::anyhow!("--store: {error}"))?;
    SharedStore::new(objects, base, cache_bytes)
        .with_context(|| format!("--store: cannot cache its results in {}", base.display()))
}

/// The flags a scratchpad is built from, owned (a `--listen` factory outlives the parse);
/// `overspill run` and `overspill hook` build theirs from the same flags the same way.
pub(crate) struct PadArgs {
    pub(crate) tool_prefix: Option<String>,
    pub(crate) context_window: Option<u64>,
    pub(crate) provider: Option<String>,
    pub(crate) model: Option<String>,
}

impl PadArgs {
    fn of(args: &McpArgs) -> PadArgs {
        PadArgs {
            tool_prefix: args.tool_prefix.clone(),
            context_window: args.context_window,
            provider: args.provider.clone(),
            model: args.model.clone(),
        }
    }

    /// A scratchpad's builder: these flags over the configuration, written in `dir` when given,
    /// else under the configuration's memory_dir.
    pub(crate) fn builder(&self, config: Option<&Config>, dir: Option<&Path>) -> ScratchpadBuilder {
        let mut builder = match config {
            // The proxy runs to intercept: [agent.scratchpad]'s `enabled` is an agent
            // framework's switch, off unless written (docs/mcp-proxy.md).
            Some(config) => Scratchpad::from_config(config).enabled(true),
            // No configuration: every tool is intercepted from the default threshold.
            None => Scratchpad::builder().intercept_all(DEFAULT_MIN_TOKENS),
        };
        let llm = config.map(|config| &config.agent().llm);
        if let Some(dir) = dir {
            builder = builder.scratchpad_dir(dir);
        }
        let window = self
            .context_window
            .or(llm.and_then(|llm| llm.context_window))
            .unwrap_or(DEFAULT_CONTEXT_WINDOW);
        builder = builder.context_window(window);
        if let Some(prefix) = self.tool_prefix.as_deref() {
            builder = builder.tool_prefix(prefix);
        }
        let configured = llm.is_some_and(|llm| llm.provider.is_some() || llm.model.is_some());
        match (self.provider.as_deref(), self.model.as_deref()) {
            (None, None) if configured => {}
            (provider, model) => {
                builder = builder
                    .provider(provider.unwrap_or("openai"))
                    .model(model.unwrap_or("gpt-4o"));
            }
        }
        builder
    }
}

/// The upstream and its timeouts from the flags; `Err` is the usage error to print.
fn options(args: &McpArgs) -> Result<ProxyOptions, String> {
    let init_timeout = seconds("--init-timeout", args.init_timeout)?;
    if args.url.is_none() && (args.oauth || args.no_browser || args.callback_port.is_some()) {
        return Err(
            "--oauth (with --no-browser, --callback-port) signs in to a --url server; a server \
             started as a command has no sign-in"
                .to_owned(),
        );
    }
    let options = match (&args.url, args.command.split_first()) {
        (Some(url), _) => {
            // The flags describe a remote server as a servers file's entry does.
            let http = HttpServer {
                url: url.clone(),
                headers: args
                    .headers
                    .iter()
                    .map(|spec| parse_header(spec).map_err(|error| error.to_string()))
                    .collect::<Result<_, _>>()?,
                oauth: args.oauth,
            };
            let remote = remote(args, &http)?
                .with_connect_timeout(seconds("--connect-timeout", args.connect_timeout)?)
                .with_read_timeout(seconds("--read-timeout", args.read_timeout)?);
            let server = args.name.clone().unwrap_or_else(|| url_name(url));
            ProxyOptions::remote(server, remote)
        }
        (None, Some((program, program_args))) => {
            let server = args.name.clone().unwrap_or_else(|| default_name(program));
            ProxyOptions::new(server, program.clone(), program_args.iter().cloned())
        }
        (None, None) => configured(args)?,
    };
    let mut options = options
        .with_init_timeout(init_timeout)
        .with_answer_within(seconds("--answer-within", args.answer_within)?);
    // A servers file may list overspill itself; a proxy that starts itself again and again
    // stops at a depth no real chain of proxies reaches (docs/mcp-proxy.md#servers-from-a-file).
    // `depth` proxies started this one, so it would be proxy `depth + 1` of the chain.
    let depth: u32 = std::env::var(DEPTH_VAR)
        .ok()
        .and_then(|depth| depth.parse().ok())
        .unwrap_or(0);
    if depth >= MAX_DEPTH {
        return Err(format!(
            "overspill mcp would be proxy {} of a chain, each started by the one before, which \
             holds at most {MAX_DEPTH}: the server it is told to front starts overspill mcp \
             again (check the --servers file and --name)",
            depth.saturating_add(1)
        ));
    }
    // Only overspill itself is told: any other server sees the environment it would see
    // without the proxy.
    for server in &mut options.servers {
        if let Upstream::Command(command) = &mut server.upstream
            && is_overspill(&command.command)
        {
            command
                .env
                .insert(DEPTH_VAR.to_owned(), (depth + 1).to_string());
        }
    }
    Ok(options)
}

/// A gateway of a servers file follows the file: on SIGHUP it is read again and the running
/// servers made to match it (a file that cannot be read is refused and the running set kept;
/// docs/mcp-proxy.md#reloading-the-server-list).
fn reloading_on_hangup(
    args: &McpArgs,
    options: ProxyOptions,
    logs: Option<PathBuf>,
) -> anyhow::Result<ProxyOptions> {
    if options.namespace.is_none() {
        return Ok(options);
    }
    let reload = Reload::new(options.servers.clone());
    let again = args.clone();
    reload
        .clone()
        .on_hangup(move || {
            let mut servers = self::options(&again)?.servers;
            if let Some(logs) = &logs {
                log_to_files(&mut servers, logs)?;
            }
            Ok(servers)
        })
        .context("cannot listen for SIGHUP, which reloads the servers file")?;
    Ok(options.with_reload(&reload))
}

/// Says where each server's stderr goes, when it has a log of its own.
fn announce_logs(options: &ProxyOptions, format: LogFormat) {
    for server in &options.servers {
        if let Some(log) = &server.log {
            say(
                format,
                &format!("the server `{}` logs to {}", server.name, log.display()),
            );
        }
    }
}

/// A line for the person running the proxy, on stderr: as text, or as one more JSON object
/// among the logs (`--log-format json`), so that every line of stderr parses.
fn say(format: LogFormat, line: &str) {
    match format {
        LogFormat::Text => tell!("overspill mcp: {line}"),
        LogFormat::Json => tracing::info!(target: "overspill", "{line}"),
    }
}

/// A warning for the person running the proxy: [`say`]'s line at the warning level.
fn warn(format: LogFormat, line: &str) {
    match format {
        LogFormat::Text => tell!("overspill mcp: warning: {line}"),
        LogFormat::Json => tracing::warn!(target: "overspill", "{line}"),
    }
}

/// Whether `program` is overspill: named `overspill`, or named as this process's binary.
fn is_overspill(program: &str) -> bool {
    let stem = Path::new(program).file_stem();
    let own = std::env::current_exe().ok();
    stem.is_some_and(|stem| {
        stem == "overspill" || own.as_deref().and_then(Path::file_stem) == Some(stem)
    })
}

/// The variable a proxy sets for the server it starts: how many proxies deep that server is.
const DEPTH_VAR: &str = "OVERSPILL_MCP_DEPTH";

/// The most proxies in a chain, each started by the one before: the proxy that would be one
/// more refuses to start (docs/mcp-proxy.md#servers-from-a-file says so, and `cargo xtask
/// tidy` holds it to this number through `overspill doc-facts`).
pub(super) const MAX_DEPTH: u32 = 8;

/// The server of `--servers` (a client's JSON) or of the `--config` file's `[mcp.servers]`
/// that `--name` picks (docs/mcp-proxy.md#servers-from-a-file), or without `--name` all of
/// them behind one gateway (docs/mcp-proxy.md#several-servers).
fn configured(args: &McpArgs) -> Result<ProxyOptions, String> {
    let (file, listed) = match (&args.servers, &args.config) {
        (Some(file), _) => (file, Upstreams::from_mcp_json_file(file)),
        (None, Some(file)) => (file, Upstreams::from_toml_file(file)),
        (None, None) => return Err(ProxyError::NoCommand.to_string()),
    };
    let listed = listed.map_err(|error| error.to_string())?;
    let names = || {
        let broken = listed.broken().map(|broken| broken.name.as_str());
        listed.names().chain(broken).collect::<Vec<_>>().join(", ")
    };
    let Some(name) = &args.name else {
        return gateway(args, &listed);
    };
    // The one server asked for cannot start: there is nothing else to serve.
    if let Some(broken) = listed.broken().find(|broken| &broken.name == name) {
        return Err(broken.error.to_string());
    }
    let upstream = listed.get(name).ok_or_else(|| {
        format!(
            "{} has no server `{name}`{}",
            file.display(),
            if listed.is_empty() && listed.broken().next().is_none() {
                String::new()
            } else {
                format!("; it has: {}", names())
            }
        )
    })?;
    Ok(ProxyOptions::single(Server::configured(
        upstream,
        |http| remote(args, http),
    )?))
}

/// Every server of `listed` behind one gateway (each child's stderr then goes to a file of its
/// own: [`logs_dir`]). An entry that cannot be started from is a member that never starts and
/// says why (docs/mcp-proxy.md#when-a-server-fails); with no entry that can, there is nothing
/// to serve, and the first one's error is the answer. An empty object of servers is a gateway
/// of the exploration tools alone: what `overspill install` writes for a client with no server,
/// so that its hooks' outputs can be explored (docs/hooks.md).
fn gateway(args: &McpArgs, listed: &Upstreams) -> Result<ProxyOptions, String> {
    if listed.is_empty()
        && let Some(broken) = listed.broken().next()
    {
        return Err(broken.error.to_string());
    }
    let namespace =
        Namespace::new(&args.separator, args.max_name_len).map_err(|error| error.to_string())?;
    let mut servers: Vec<Server> = listed
        .iter()
        .map(|upstream| {
            Server::configured(upstream, |http| remote(args, http))
                .unwrap_or_else(|problem| Server::new(&upstream.name, Upstream::Invalid(problem)))
        })
        .collect();
    servers.extend(listed.broken().map(Server::from));
    Ok(ProxyOptions::gateway(servers, namespace))
}

/// The remote server `http` (a servers file's entry, or the `--url` flags); it uses the
/// sign-in of `overspill auth login` unless its headers carry credentials of their own, and
/// signs in itself when it asks to (`oauth`).
fn remote(args: &McpArgs, http: &HttpServer) -> Result<Remote, String> {
    let remote = Remote::try_from(http).map_err(|error| error.to_string())?;
    let authorization = http
        .headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("authorization"));
    if !authorization && let Ok(store) = TokenStore::user() {
        let login = if http.oauth {
            Some(super::auth::login_of(
                &http.url,
                Vec::new(),
                ClientIdentity::Register,
                !args.no_browser,
                args.callback_port,
            )?)
        } else {
            None
        };
        Ok(remote.with_oauth(store, login))
    } else if http.oauth {
        Err(
            "signing in with OAuth (--oauth, or `oauth = true` in the servers file) and an \
             Authorization header of your own cannot go together: leave out one"
                .to_owned(),
        )
    } else {
        Ok(remote)
    }
}

/// A flag's seconds as a duration.
fn seconds(flag: &str, value: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(value)
        .map_err(|_| format!("invalid {flag} {value}: give a number of seconds, e.g. 30"))
}

/// Where the stdio session stores its results when neither `--dir` nor the configuration's
/// `memory_dir` says: the server's directory in the user's state directory, never the working
/// directory a client started the proxy in (docs/mcp-proxy.md#where-results-are-stored).
/// `Err` is the usage error to print.
fn default_dir(
    args: &McpArgs,
    config: Option<&Config>,
    options: &ProxyOptions,
) -> Result<Option<PathBuf>, String> {
    if args.dir.is_some() || config.and_then(Config::memory_dir).is_some() {
        return Ok(None);
    }
    base(args, options).map(|base| Some(base.join("scratchpad")))
}

/// `--listen`'s base: each session's scratchpad is a dir of its own under --dir, else under the
/// configuration's memory_dir, else in the user's state dir. `Err` is the usage error to print.
fn sessions_base(
    args: &McpArgs,
    config: Option<&Config>,
    options: &ProxyOptions,
) -> Result<PathBuf, String> {
    match (&args.dir, config.and_then(Config::memory_dir)) {
        (Some(dir), _) => Ok(dir.clone()),
        (None, Some(memory)) => Ok(PathBuf::from(memory).join("sessions")),
        (None, None) => base(args, options).map(|base| base.join("sessions")),
    }
}

/// Where the command servers' own stderr goes, a file each, when not on the proxy's stderr
/// (docs/mcp-proxy.md#logs): a gateway's servers always (one client log cannot hold several
/// servers' noise), in the gateway's state dir, or beside the sessions under `--listen`, so
/// that a service writes only under its --dir; and under `--listen` with JSON logs, every
/// server's (a log pipeline takes JSON lines only, and a server's free text may hold what it
/// was asked). `None`: each server's stderr is the proxy's.
fn logs_dir(
    args: &McpArgs,
    options: &ProxyOptions,
    sessions: Option<&Path>,
) -> Result<Option<PathBuf>, String> {
    let gateway = options.namespace.is_some();
    match sessions {
        Some(sessions) if gateway || args.log_format == LogFormat::Json => {
            Ok(Some(sessions.join("logs")))
        }
        None if gateway => base(args, options).map(|base| Some(base.join("logs"))),
        _ => Ok(None),
    }
}

/// Each command server of `servers` writes its stderr to `<logs>/<name>.log`, `logs` made; one
/// that cannot be started from has why written there.
fn log_to_files(servers: &mut [Server], logs: &Path) -> Result<(), String> {
    let mut commands = servers
        .iter_mut()
        .filter(|server| matches!(server.upstream, Upstream::Command(_) | Upstream::Invalid(_)))
        .peekable();
    if commands.peek().is_some() {
        std::fs::create_dir_all(logs).map_err(|error| {
            format!(
                "cannot create {} for the servers' logs: {error}",
                logs.display()
            )
        })?;
    }
    for server in commands {
        server.log = Some(server_log(logs, &server.name));
    }
    Ok(())
}

/// The state directory's place for this proxy: the gateway's of its servers file, or the one
/// server's.
fn base(args: &McpArgs, options: &ProxyOptions) -> Result<PathBuf, String> {
    match (
        options.namespace.is_some(),
        args.servers.as_ref().or(args.config.as_ref()),
    ) {
        (true, Some(file)) => gateway_base(file),
        _ => state_base(options),
    }
}

/// Where the gateway of the servers file `file` writes server `name`'s stderr (without
/// `--listen` or `--dir`), for `overspill status`.
pub(crate) fn gateway_server_log(file: &Path, name: &str) -> Result<PathBuf, String> {
    Ok(server_log(&gateway_base(file)?.join("logs"), name))
}

/// Server `name`'s log in the directory of logs `logs`.
fn server_log(logs: &Path, name: &str) -> PathBuf {
    logs.join(format!("{}.log", file_name(name)))
}

/// Where the gateway of the servers file `file` stores its results when neither `--dir` nor
/// `memory_dir` says: also where `overspill run --servers FILE` and `overspill hook --servers
/// FILE` store theirs, so that the gateway's exploration tools read them
/// (docs/hooks.md#one-scratchpad-per-agent).
pub(crate) fn gateway_scratchpad(file: &Path) -> Result<PathBuf, String> {
    Ok(gateway_base(file)?.join("scratchpad"))
}

/// `<state dir>/mcp/gateway-<file>-<hash>`: a gateway's place, named after its servers file
/// and a hash of the file's absolute path, so that each file's servers keep their results (a
/// resumed conversation's pointers still resolve) and two files never share them.
fn gateway_base(file: &Path) -> Result<PathBuf, String> {
    let state = user_state()?;
    let absolute = std::path::absolute(file).unwrap_or_else(|_| file.to_owned());
    let stem = file
        .file_stem()
        .and_then(|stem| stem.to_str())
        .unwrap_or("servers");
    let hash = overspill::store::content_hash(absolute.to_string_lossy().as_bytes());
    Ok(state
        .join("mcp")
        .join(format!("gateway-{}-{}", file_name(stem), &hash[..8])))
}

fn user_state() -> Result<PathBuf, String> {
    overspill_mcp::state_dir().ok_or_else(|| {
        "cannot find your state directory to store results in (HOME is not set): give --dir DIR, \
         or memory_dir in the configuration"
            .to_owned()
    })
}

/// `name` as a plain file name: other characters than `A-Z a-z 0-9 - _` become `_`, at most 48.
fn file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .take(48)
        .collect()
}

/// `<state dir>/mcp/<server>-<hash>`: the server's name made a plain file name, and a hash of
/// the name and of what runs it (its command line, or its URL), so that two servers both named
/// after `npx` do not share their results.
fn state_base(options: &ProxyOptions) -> Result<PathBuf, String> {
    let state = user_state()?;
    let Some(server) = options.servers.first() else {
        return Err("no server to front".to_owned());
    };
    let name = file_name(&server.name);
    let runs = match &server.upstream {
        Upstream::Command(command) => std::iter::once(command.command.as_str())
            .chain(command.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("\0"),
        Upstream::Http(remote) => remote.url().to_owned(),
        _ => String::new(),
    };
    let hash = overspill::store::content_hash(format!("{}\0{runs}", server.name).as_bytes());
    Ok(state.join("mcp").join(format!("{name}-{}", &hash[..8])))
}

/// The scratchpad for the stdio session, from the flags over the configuration; `dir` when
/// neither gives one.
fn scratchpad(
    args: &McpArgs,
    config: Option<&Config>,
    dir: Option<&Path>,
) -> anyhow::Result<Scratchpad> {
    let dir = args.dir.as_deref().or(dir);
    build_scratchpad(PadArgs::of(args).builder(config, dir), dir)
}

/// The scratchpad `builder` makes, its errors worded for the proxy: one about the directory
/// (`dir`, when the flags gave it) names the flag or key that chooses another.
fn build_scratchpad(builder: ScratchpadBuilder, dir: Option<&Path>) -> anyhow::Result<Scratchpad> {
    let pad = builder.build().map_err(|error| {
        let directory = matches!(
            error,
            BuildError::Layout(_) | BuildError::Store(_) | BuildError::ReadRoot { .. }
        );
        let context = match dir {
            // The directory cannot be made or written: say which flag chooses another.
            Some(dir) if directory => format!(
                "cannot store results in {}: give --dir a directory you can write, or set \
                 memory_dir in the configuration",
                dir.display()
            ),
            _ => "cannot set up the scratchpad for the MCP proxy".to_owned(),
        };
        anyhow::Error::new(error).context(context)
    })?;
    Ok(pad)
}

/// Builds (or loads) the counter's tables on a thread of its own as soon as the proxy knows its
/// counter: neither the first answer nor, usually, the first large result waits for them
/// (docs/tokens.md#the-first-answer-does-not-wait).
fn prepare_in_background(counter: &'static dyn TokenCounter) {
    // Without the thread the first count prepares them instead.
    let _ = std::thread::Builder::new()
        .name("overspill-tables".to_owned())
        .spawn(move || counter.prepare());
}

/// `api.example.com` for `https://api.example.com/mcp/`.
fn url_name(url: &str) -> String {
    Remote::new(url)
        .map(|remote| remote.host().to_owned())
        .unwrap_or_else(|_| "mcp".to_owned())
}

/// `npx` for `npx -y …`, `server` for `/opt/bin/server.py`.
fn default_name(program: &str) -> String {
    Path::new(program)
        .file_stem()
        .and_then(|stem| stem.to_str())
        .filter(|stem| !stem.is_empty())
        .unwrap_or("mcp")
        .to_owned()
}

#[cfg(test)]
mod tests;
