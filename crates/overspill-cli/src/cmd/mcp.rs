//! `overspill mcp [--config FILE] [--name SERVER] [--tool-prefix P] [--dir DIR]
//! [--context-window N] [--provider P] [--model M] [--init-timeout SECS] -- <command> [args…]`:
//! the MCP proxy.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use overspill::Scratchpad;
use overspill::config::{Config, DEFAULT_MIN_TOKENS};
use overspill_mcp::{ProxyError, ProxyOptions};

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
    /// The upstream MCP server's command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<String>,
}

pub fn run(args: McpArgs) -> anyhow::Result<ExitCode> {
    let Some((program, program_args)) = args.command.split_first() else {
        return Ok(super::usage_error(ProxyError::NoCommand));
    };
    let server = args.name.clone().unwrap_or_else(|| default_name(program));
    let config = match &args.config {
        Some(path) => Some(
            Config::from_path(path)
                .with_context(|| format!("cannot use the configuration {}", path.display()))?,
        ),
        None => None,
    };
    let Ok(init_timeout) = Duration::try_from_secs_f64(args.init_timeout) else {
        return Ok(super::usage_error(format!(
            "invalid --init-timeout {}: give a number of seconds, e.g. 30",
            args.init_timeout
        )));
    };
    let pad = scratchpad(&args, config.as_ref())?;
    let options = ProxyOptions::new(server, program.clone(), program_args.iter().cloned())
        .with_init_timeout(init_timeout);
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
}
