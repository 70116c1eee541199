//! `overspill intercept --dir DIR --tool NAME [--server S] [--min-tokens N] [--model M] [FILE|-]`

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use overspill::config::DEFAULT_MIN_TOKENS;
use overspill::{Intercepted, Scratchpad, ToolOutput};

use super::ModelArgs;
use crate::input::Source;
use crate::progress::Progress;

pub const EXAMPLES: &str = "Prints exactly what the model would receive: the pointer (and a newline) when the \
output is stored, the output itself, byte for byte, when it passes through.\n\n\
Examples:\n  \
kubectl get pods -A -o json | overspill intercept --dir ./pad --tool k8s_list_pods\n  \
overspill intercept --dir ./pad --tool fetch_logs --min-tokens 2048 app.log\n  \
overspill intercept --dir ./pad --tool search --mcp result.json   # an MCP CallToolResult";

/// Arguments of `overspill intercept`.
#[derive(Debug, Args)]
pub struct InterceptArgs {
    /// The scratchpad dir: the output is written straight into it (created if missing).
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// The tool that produced the output (names the stored file).
    #[arg(long, value_name = "NAME")]
    tool: String,
    /// The server the tool belongs to (recorded in the metadata).
    #[arg(long, value_name = "S")]
    server: Option<String>,
    /// Intercept from this many tokens on.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MIN_TOKENS)]
    min_tokens: u64,
    /// The input is an MCP `CallToolResult` as JSON (structuredContent, text and image blocks,
    /// isError), not plain text.
    #[arg(long)]
    mcp: bool,
    #[command(flatten)]
    model: ModelArgs,
    /// The tool output; `-` or nothing reads standard input.
    file: Option<PathBuf>,
}

pub fn run(args: InterceptArgs) -> anyhow::Result<ExitCode> {
    let source = Source::from_arg(args.file.as_deref());
    let text = source.read_text()?;
    let bytes = text.len();
    // Plain text moves into the output (no copy); MCP JSON keeps its text to echo byte for byte.
    let (output, raw) = if args.mcp {
        let value =
            serde_json::from_str(&text).with_context(|| format!("--mcp: {source} is not JSON"))?;
        (ToolOutput::mcp(value), Some(text))
    } else {
        (ToolOutput::text(text), None)
    };
    let pad = Scratchpad::builder()
        .scratchpad_dir(&args.dir)
        .provider(args.model.provider.as_str())
        .model(&args.model.model)
        .context_window(128_000)
        .build()?;
    let result = {
        let _note = Progress::start("intercepting", bytes);
        let server = args.server.as_deref().unwrap_or("");
        pad.intercept(server, &args.tool, output.with_min_tokens(args.min_tokens))
    };
    let mut stdout = std::io::stdout().lock();
    match result {
        Intercepted::Inline(output) => {
            let text = raw.as_deref().or(output.as_text()).unwrap_or_default();
            stdout.write_all(text.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Intercepted::Pointer(pointer) => {
            writeln!(stdout, "{pointer}")?;
            Ok(ExitCode::SUCCESS)
        }
        Intercepted::Failed(notice) => {
            writeln!(stdout, "{notice}")?;
            tell!(
                "overspill: could not store the output in {}; check that it is a writable directory",
                args.dir.display()
            );
            Ok(ExitCode::FAILURE)
        }
    }
}
