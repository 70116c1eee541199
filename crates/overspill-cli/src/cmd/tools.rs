//! `overspill tools --format mcp|openai|anthropic`

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use overspill::ToolFormat;

pub const EXAMPLES: &str = "Examples:\n  \
overspill tools                      # MCP tools/list entries\n  \
overspill tools --format openai      # OpenAI function tools\n  \
overspill tools --format anthropic > tools.json";

/// Arguments of `overspill tools`.
#[derive(Debug, Args)]
pub struct ToolsArgs {
    /// The export shape: mcp, openai or anthropic.
    #[arg(long, default_value = "mcp")]
    format: ToolFormat,
}

pub fn run(args: ToolsArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let tools = overspill::tool_definitions(args.format);
    writeln!(out, "{}", serde_json::to_string_pretty(&tools)?)?;
    Ok(ExitCode::SUCCESS)
}
