//! One module per subcommand; each has an `Args` struct and a `run`.

mod config;

use std::process::ExitCode;

use clap::Subcommand;

/// The subcommands of `overspill`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Work with configuration files.
    #[command(subcommand)]
    Config(config::ConfigCommand),
}

impl Command {
    /// Runs the subcommand; `Ok` carries the exit code to use.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        match self {
            Command::Config(command) => command.run(),
        }
    }
}
