//! The `overspill` command line (SPEC §10).
//!
//! The binary only drives the `overspill` facade: argument parsing, printing
//! and exit codes live here, behaviour lives in the libraries.

mod cmd;
mod input;
mod progress;
mod style;

use std::process::ExitCode;

use clap::Parser;

/// Keep large tool outputs out of an LLM's context window.
#[derive(Debug, Parser)]
#[command(
    name = "overspill",
    version,
    about,
    propagate_version = true,
    after_help = "Start with `overspill tour`. In every command, --dir DIR is the scratchpad \
                  dir itself: outputs are written straight into it, and tools read under it.\n\n\
                  Examples:\n  \
                  overspill tour\n  \
                  kubectl get pods -A -o json | overspill intercept --dir ./pad --tool k8s_list_pods\n  \
                  overspill tool schema --dir ./pad --args '{\"file\": \"k8s_list_pods-1a2b3c4d5e6f7a8b.json\"}'\n  \
                  overspill ls --dir ./pad"
)]
struct Cli {
    #[command(subcommand)]
    command: cmd::Command,
}

fn main() -> ExitCode {
    // clap exits with status 2 on usage errors, as SPEC §10 asks.
    let cli = Cli::parse();
    match cli.command.run() {
        Ok(code) => code,
        // A reader that stopped early (`overspill tools | head`) is not a failure.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("overspill: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
