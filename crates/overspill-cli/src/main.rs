//! The `overspill` command line (SPEC §10).
//!
//! The binary only drives the `overspill` facade: argument parsing, printing
//! and exit codes live here, behaviour lives in the libraries.

mod cmd;

use std::process::ExitCode;

use clap::Parser;

/// Keep large tool outputs out of an LLM's context window.
#[derive(Debug, Parser)]
#[command(name = "overspill", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: cmd::Command,
}

fn main() -> ExitCode {
    // clap exits with status 2 on usage errors, as SPEC §10 asks.
    let cli = Cli::parse();
    match cli.command.run() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("overspill: {err:#}");
            ExitCode::FAILURE
        }
    }
}
