//! `overspill doc-facts` (hidden): what the binary's command line defines, printed as JSON for
//! `cargo xtask tidy`, which holds the defaults and limits the docs state to it
//! (docs/architecture.md#what-cargo-xtask-tidy-checks).
//!
//! The facts are read from clap's own definition of the command line (`Cli::command()`), the
//! one the parser uses, so a default changed in the code (`Remote::DEFAULT_READ_TIMEOUT`) is
//! changed here with no second table to keep. What is printed:
//!
//! ```json
//! {"max_depth": 8,
//!  "command": {"name": "overspill", "flags": {"help": []},
//!              "subcommands": [{"name": "mcp", "flags": {"read-timeout": ["300"], …}, …}]}}
//! ```
//!
//! each command with every long flag it has and the default values of its definition (none
//! for a flag whose default the code chooses after parsing), and `max_depth` the most proxies
//! a chain holds (`MAX_DEPTH`).

use std::collections::BTreeMap;
use std::process::ExitCode;

use clap::{Args, CommandFactory};
use serde::Serialize;

use super::mcp::MAX_DEPTH;

/// `overspill doc-facts` takes no arguments.
#[derive(Debug, Args)]
pub struct DocFactsArgs {}

/// What the docs are held to.
#[derive(Debug, Serialize)]
pub struct Facts {
    /// The most proxies in a chain.
    pub max_depth: u32,
    /// The whole `overspill` command.
    pub command: CommandFacts,
}

/// One command: its long flags with their default values, and its subcommands.
#[derive(Debug, Serialize)]
pub struct CommandFacts {
    pub name: String,
    pub flags: BTreeMap<String, Vec<String>>,
    pub subcommands: Vec<CommandFacts>,
}

/// Prints the facts of this binary on stdout.
pub fn run(_: DocFactsArgs) -> anyhow::Result<ExitCode> {
    println!("{}", serde_json::to_string(&facts())?);
    Ok(ExitCode::SUCCESS)
}

/// The facts of this binary.
pub fn facts() -> Facts {
    Facts {
        max_depth: MAX_DEPTH,
        command: CommandFacts::of(&crate::Cli::command()),
    }
}

impl CommandFacts {
    fn of(command: &clap::Command) -> CommandFacts {
        CommandFacts {
            name: command.get_name().to_owned(),
            flags: command
                .get_arguments()
                .filter_map(|arg| {
                    let defaults = arg
                        .get_default_values()
                        .iter()
                        .map(|value| value.to_string_lossy().into_owned())
                        .collect();
                    Some((arg.get_long()?.to_owned(), defaults))
                })
                .collect(),
            subcommands: command.get_subcommands().map(CommandFacts::of).collect(),
        }
    }
}

#[cfg(test)]
mod tests;
