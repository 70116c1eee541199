//! `overspill config check FILE [--tools server=a,b,c]…`

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use overspill::config::{CheckReport, Config, ToolInventory};

/// `overspill config …`
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Validate a configuration file and print each server's resolved rules.
    ///
    /// Exit 0 when the file is valid (warnings included), 1 with the error when it is not.
    #[command(after_help = "Examples:\n  overspill config check overspill.toml\n  \
                            overspill config check overspill.toml --tools k8s=k8s_list_pods,k8s_get_pod")]
    Check(CheckArgs),
}

/// Arguments of `overspill config check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The TOML file to check.
    file: PathBuf,
    /// A server's tool names, to show each tool's threshold and winning pattern
    /// (`server=tool_a,tool_b`; repeatable).
    #[arg(long = "tools", value_name = "SERVER=TOOLS")]
    tools: Vec<String>,
}

impl ConfigCommand {
    /// Runs the command.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        match self {
            ConfigCommand::Check(args) => check(args),
        }
    }
}

fn check(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let mut tools = ToolInventory::new();
    for arg in &args.tools {
        if let Err(err) = tools.add_arg(arg) {
            tell!("overspill: {err}");
            return Ok(ExitCode::from(2));
        }
    }
    match Config::from_path(&args.file) {
        Ok(config) => {
            write!(
                std::io::stdout().lock(),
                "{}",
                CheckReport::new(&config, &tools)
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Err(err) => {
            tell!("{err}");
            Ok(ExitCode::FAILURE)
        }
    }
}
