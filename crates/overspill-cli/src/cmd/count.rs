//! `overspill count [--provider P] [--model M] [FILE|-]`

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::ModelArgs;
use crate::input::Source;
use crate::progress::Progress;

pub const EXAMPLES: &str = "Prints `<count>\\t<counter name>`.\n\n\
Examples:\n  \
overspill count pods.json\n  \
kubectl get pods -A -o json | overspill count\n  \
overspill count --provider anthropic --model claude-sonnet-4 report.md\n  \
overspill count --provider gemini --model gemini-2.5-pro app.log";

/// Arguments of `overspill count`.
#[derive(Debug, Args)]
pub struct CountArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// The text to count; `-` or nothing reads standard input.
    file: Option<PathBuf>,
}

pub fn run(args: CountArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let text = Source::from_arg(args.file.as_deref()).read_text()?;
    let counter = args.model.counter();
    let tokens = {
        let _note = Progress::start("counting tokens", text.len());
        counter.count(&text)
    };
    writeln!(out, "{tokens}\t{}", counter.name())?;
    Ok(ExitCode::SUCCESS)
}
