//! `overspill status [<client>]`: how each server behind overspill is doing
//! (docs/clients.md#checking-each-server). Each server of the servers file is started the way the
//! gateway starts it (`overspill mcp --servers FILE --name <server>`, so the same reading of
//! the entry, the same variables, the same sign-ins), asked for `initialize` and its tools,
//! and shown ✔ with its tools or ✘ with the reason and where the gateway keeps its log.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::install::{self, Client, Scope, Target};

pub const EXAMPLES: &str = "Starts each MCP server behind overspill as the gateway would, and \
shows ✔ with its tools or ✘ with why, and where its log is. Exits 1 when a server fails.\n\n\
Examples:\n  \
overspill status claude-code               # the servers `overspill install claude-code` moved\n  \
overspill status                           # those of every client overspill is installed in\n  \
overspill status --servers servers.json    # the servers of any mcpServers file";

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The client whose servers to check: claude-code, claude-desktop, cursor, vscode, codex
    /// or gemini-cli (default: every client overspill is installed in).
    #[arg(value_enum)]
    client: Option<Client>,
    /// The user's configuration, or the project's in the working directory.
    #[arg(long, value_enum, default_value = "user", requires = "client")]
    scope: Scope,
    /// The client's file overspill was installed in, when not its usual one.
    #[arg(long, value_name = "FILE", requires = "client")]
    config_file: Option<PathBuf>,
    /// Check the servers of this `mcpServers` file instead.
    #[arg(long, value_name = "FILE", conflicts_with = "client")]
    servers: Option<PathBuf>,
    /// Seconds each server may take to answer.
    #[arg(long, value_name = "SECS", default_value_t = 25)]
    timeout: u64,
}

pub fn run(args: StatusArgs) -> anyhow::Result<ExitCode> {
    let target = args
        .client
        .map(|client| Target::new(client, args.scope, args.config_file.clone()));
    let files = match (&args.servers, &target) {
        (Some(file), _) => vec![file.clone()],
        (None, Some(target)) => match install::servers_file(target)? {
            Some(file) => vec![file],
            None => {
                println!(
                    "overspill status: overspill is not installed in {} (`overspill install {}` \
                     puts it there)",
                    target.config()?.display(),
                    target.client().name()
                );
                return Ok(ExitCode::from(1));
            }
        },
        (None, None) => install::every_servers_file()?,
    };
    if files.is_empty() {
        println!(
            "overspill status: overspill is installed in no client (`overspill install <client>` \
             puts it there; `--servers FILE` checks any servers file)"
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut all_well = true;
    for file in &files {
        all_well &= install::print_servers_file(file, args.timeout)?;
    }
    Ok(if all_well {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
