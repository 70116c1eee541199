//! `overspill tool NAME --dir DIR --args '<json>' [--context-window N] [--max-extraction-tokens N] [--model M]`

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use overspill::config::{DEFAULT_CONTEXT_SAFETY_MARGIN, DEFAULT_MAX_EXTRACTION_TOKENS};
use overspill::{BuildError, Scratchpad};

use super::{ModelArgs, usage_error};
use crate::progress::Progress;

pub const EXAMPLES: &str = "Prints exactly what the model would receive (and a newline): the result and its \
footer, or an error object. Structured tool errors exit 0, as the model gets them as results; \
bad command-line usage exits 2. The budget is a fresh agent's: the scratchpad's system-prompt \
section and the tool definitions already count.\n\n\
Examples:\n  \
overspill tool schema --dir ./pad --args '{\"file\": \"k8s_list_pods-1a2b3c4d5e6f7a8b.json\"}'\n  \
overspill tool iterate_over --dir ./pad --args '{\"file\": \"k8s_list_pods-1a2b3c4d5e6f7a8b.json\", \
\"path\": \"$.items\", \"fields\": \"metadata.name,status.phase\", \"limit\": 5}'\n  \
overspill tool grep --dir ./pad --args '{\"file\": \"app.log\", \"pattern\": \"ERROR\", \"context\": 1}'\n  \
overspill tool head --dir ./pad --args '{\"file\": \"app.log\"}' --max-extraction-tokens 500";

/// Arguments of `overspill tool`.
#[derive(Debug, Args)]
pub struct ToolArgs {
    /// The exploration tool, one of those `overspill tools` lists (schema, grep, head …).
    name: String,
    /// The scratchpad dir, which is the read root: a file name from a pointer resolves in it.
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// The tool's arguments as a JSON object.
    #[arg(long, value_name = "JSON", default_value = "{}")]
    args: String,
    /// The model's context window in tokens.
    #[arg(long, value_name = "N", default_value_t = 128_000, value_parser = clap::value_parser!(u64).range(1..))]
    context_window: u64,
    /// The most tokens one result may cost.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_EXTRACTION_TOKENS, value_parser = clap::value_parser!(u64).range(1..))]
    max_extraction_tokens: u64,
    /// The fraction of the window kept free for reasoning and output (0.0 to 0.95).
    #[arg(long, value_name = "F", default_value_t = DEFAULT_CONTEXT_SAFETY_MARGIN)]
    context_safety_margin: f64,
    #[command(flatten)]
    model: ModelArgs,
}

pub fn run(args: ToolArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    super::existing_dir(
        &args.dir,
        "pass the scratchpad dir that `overspill intercept --dir` wrote to",
    )?;
    let built = Scratchpad::builder()
        .scratchpad_dir(&args.dir)
        .provider(args.model.provider.as_str())
        .model(&args.model.model)
        .context_window(args.context_window)
        .max_extraction_tokens(args.max_extraction_tokens)
        .context_safety_margin(args.context_safety_margin)
        .build();
    let pad = match built {
        Ok(pad) => pad,
        Err(error @ BuildError::Budget(_)) => return Ok(usage_error(error)),
        Err(error) => return Err(error.into()),
    };
    if !pad.handles(&args.name) {
        return Ok(usage_error(format!(
            "there is no exploration tool `{}`; use one of {}",
            args.name,
            pad.tool_names().join(", ")
        )));
    }
    let text = {
        let _note = Progress::start(&format!("running {}", args.name), file_size(&args));
        pad.call(&args.name, &args.args)
    };
    writeln!(out, "{text}")?;
    Ok(ExitCode::SUCCESS)
}

/// The size of the file the arguments name, for the progress note (0 when unknown).
fn file_size(args: &ToolArgs) -> usize {
    serde_json::from_str::<serde_json::Value>(&args.args)
        .ok()
        .and_then(|value| value.get("file")?.as_str().map(|file| args.dir.join(file)))
        .and_then(|path| std::fs::metadata(path).ok())
        .map_or(0, |meta| usize::try_from(meta.len()).unwrap_or(usize::MAX))
}
