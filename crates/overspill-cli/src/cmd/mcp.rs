//! `overspill mcp [--config FILE] [--name SERVER] [--tool-prefix P] [--dir DIR]
//! [--context-window N] [--provider P] [--model M] [--init-timeout SECS]
//! (-- <command> [args…] | --url URL [--header 'Name: value']… [--connect-timeout SECS]
//! [--read-timeout SECS])`: the MCP proxy.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use overspill::Scratchpad;
use overspill::config::{Config, DEFAULT_MIN_TOKENS};
use overspill_mcp::{ProxyError, ProxyOptions, Remote, parse_header};

pub const EXAMPLES: &str = "Speaks MCP on stdin/stdout to the client and runs the real server as a \
child process. Large tool results are stored (under --dir, the configuration's memory_dir, or \
./.overspill/) and replaced by a pointer; the exploration tools are added to the server's tools.\n\n\
Examples:\n  \
overspill mcp -- npx -y @modelcontextprotocol/server-filesystem /data\n  \
overspill mcp --config overspill.toml --name k8s -- kubectl-mcp-server\n  \
overspill mcp --tool-prefix sp_ -- my-server   # exploration tools become sp_grep, sp_head …";

/// The window the budget is sized by when neither the flag nor `[agent.llm]` gives one.
const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;

#[derive(Debug, Args)]
pub struct McpArgs {
    /// The overspill configuration: interception rules, memory_dir, [agent.llm].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The server's name, which selects [mcp.servers.<name>.scratchpad] (default: the command's file name).
    #[arg(long, value_name = "SERVER")]
    name: Option<String>,
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
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    init_timeout: f64,
    /// A remote MCP server's Streamable HTTP endpoint, instead of a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    url: Option<String>,
    /// A header sent to the --url server on every request, `Name: value`; `${VAR}` in the
    /// value is replaced by that environment variable (repeatable).
    #[arg(long = "header", value_name = "'NAME: VALUE'", requires = "url")]
    headers: Vec<String>,
    /// Seconds to connect to the --url server.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, requires = "url")]
    connect_timeout: f64,
    /// Seconds an answer from the --url server may go silent before the request fails.
    #[arg(long, value_name = "SECS", default_value_t = 300.0, requires = "url")]
    read_timeout: f64,
    /// The upstream MCP server's command and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND", required_unless_present = "url")]
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
    let options = match options(&args) {
        Ok(options) => options,
        Err(message) => return Ok(super::usage_error(message)),
    };
    let pad = scratchpad(&args, config.as_ref())?;
    match overspill_mcp::run_blocking(options, Arc::new(pad)) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(error @ (ProxyError::NameClash { .. } | ProxyError::InvalidPrefix { .. })) => {
            Ok(super::usage_error(error))
        }
        Err(error) => {
            eprintln!("overspill mcp: {error}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// The upstream and its timeouts from the flags; `Err` is the usage error to print.
fn options(args: &McpArgs) -> Result<ProxyOptions, String> {
    let init_timeout = seconds("--init-timeout", args.init_timeout)?;
    let options = match (&args.url, args.command.split_first()) {
        (Some(url), _) => {
            let mut remote = Remote::new(url)
                .map_err(|error| error.to_string())?
                .with_connect_timeout(seconds("--connect-timeout", args.connect_timeout)?)
                .with_read_timeout(seconds("--read-timeout", args.read_timeout)?);
            for spec in &args.headers {
                let (name, value) = parse_header(spec).map_err(|error| error.to_string())?;
                remote = remote
                    .with_header(&name, &value)
                    .map_err(|error| error.to_string())?;
            }
            let server = args.name.clone().unwrap_or_else(|| url_name(url));
            ProxyOptions::remote(server, remote)
        }
        (None, Some((program, program_args))) => {
            let server = args.name.clone().unwrap_or_else(|| default_name(program));
            ProxyOptions::new(server, program.clone(), program_args.iter().cloned())
        }
        (None, None) => return Err(ProxyError::NoCommand.to_string()),
    };
    Ok(options.with_init_timeout(init_timeout))
}

/// A flag's seconds as a duration.
fn seconds(flag: &str, value: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(value)
        .map_err(|_| format!("invalid {flag} {value}: give a number of seconds, e.g. 30"))
}

/// The scratchpad for one client session, from the flags over the configuration.
fn scratchpad(args: &McpArgs, config: Option<&Config>) -> anyhow::Result<Scratchpad> {
    let mut builder = match config {
        Some(config) => Scratchpad::from_config(config),
        // No configuration: every tool is intercepted from the default threshold.
        None => Scratchpad::builder().intercept_all(DEFAULT_MIN_TOKENS),
    };
    let llm = config.map(|config| &config.agent().llm);
    match &args.dir {
        Some(dir) => builder = builder.scratchpad_dir(dir),
        None if config.and_then(Config::memory_dir).is_none() => {
            builder = builder.memory_dir(".overspill");
        }
        None => {}
    }
    let window = args
        .context_window
        .or(llm.and_then(|llm| llm.context_window))
        .unwrap_or(DEFAULT_CONTEXT_WINDOW);
    builder = builder.context_window(window);
    if let Some(prefix) = &args.tool_prefix {
        builder = builder.tool_prefix(prefix);
    }
    let configured = llm.is_some_and(|llm| llm.provider.is_some() || llm.model.is_some());
    match (&args.provider, &args.model) {
        (None, None) if configured => {}
        (provider, model) => {
            builder = builder
                .provider(provider.as_deref().unwrap_or("openai"))
                .model(model.as_deref().unwrap_or("gpt-4o"));
        }
    }
    builder
        .build()
        .context("cannot set up the scratchpad for the MCP proxy")
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
mod tests {
    use super::*;

    #[test]
    fn the_default_server_name_is_the_commands_file_stem() {
        assert_eq!(default_name("/opt/bin/k8s-server.py"), "k8s-server");
        assert_eq!(default_name("npx"), "npx");
    }

    #[test]
    fn the_default_name_of_a_remote_server_is_its_host() {
        assert_eq!(
            url_name("https://api.example.com:8443/mcp/"),
            "api.example.com"
        );
        assert_eq!(url_name("http://user@127.0.0.1/mcp"), "127.0.0.1");
    }
}
