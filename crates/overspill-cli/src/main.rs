//! The `overspill` command line (SPEC §10).
//!
//! The binary only drives the `overspill` facade: argument parsing, printing
//! and exit codes live here, behaviour lives in the libraries.

use clap::Parser;

/// Keep large tool outputs out of an LLM's context window.
#[derive(Debug, Parser)]
#[command(name = "overspill", version, about)]
struct Cli {}

fn main() -> anyhow::Result<()> {
    let _cli = Cli::parse();
    Ok(())
}
