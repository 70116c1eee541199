//! One module per subcommand; each has an `Args` struct and a `run`.

mod agent_pad;
mod auth;
mod config;
mod count;
mod doc_facts;
mod hook;
mod install;
mod intercept;
mod ls;
mod mcp;
mod run;
mod status;
mod tool;
mod tools;
mod tour;

pub use mcp::LogFormat;

use std::process::ExitCode;

use clap::{Args, Subcommand};
use overspill::tokens::{Provider, TokenCounter, counter_for_provider};

/// The subcommands of `overspill`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// See overspill work on a bundled 1.7 MB pod list: intercept it, explore it, count the savings.
    #[command(after_help = tour::EXAMPLES)]
    Tour(tour::TourArgs),
    /// Count the tokens of a text with a model's tokenizer.
    #[command(after_help = count::EXAMPLES)]
    Count(count::CountArgs),
    /// Intercept a tool output into a scratchpad dir and print what the model would receive.
    #[command(after_help = intercept::EXAMPLES)]
    Intercept(intercept::InterceptArgs),
    /// Run one exploration tool and print exactly what the model would receive.
    #[command(after_help = tool::EXAMPLES)]
    Tool(tool::ToolArgs),
    /// List the outputs stored in a scratchpad dir, or in a shared store, with their metadata.
    #[command(after_help = ls::EXAMPLES)]
    Ls(ls::LsArgs),
    /// Print the exploration tool definitions as JSON.
    #[command(after_help = tools::EXAMPLES)]
    Tools(tools::ToolsArgs),
    /// Work with configuration files.
    #[command(subcommand)]
    Config(config::ConfigCommand),
    /// Put the scratchpad in front of an MCP server: a transparent stdio proxy.
    #[command(after_help = mcp::EXAMPLES)]
    Mcp(Box<mcp::McpArgs>),
    /// Sign in to OAuth-protected remote MCP servers (for `overspill mcp --url`), or make a
    /// token for `overspill mcp --listen --auth-tokens`.
    #[command(subcommand)]
    Auth(auth::AuthCommand),
    /// Route an MCP client's servers through one overspill: edits the client's configuration.
    #[command(after_help = install::INSTALL_EXAMPLES)]
    Install(install::InstallArgs),
    /// Take overspill out of an MCP client: its servers go back into the client's configuration.
    #[command(after_help = install::UNINSTALL_EXAMPLES)]
    Uninstall(install::UninstallArgs),
    /// Show how each MCP server behind overspill is doing: ✔ with its tools, or ✘ and why.
    #[command(after_help = status::EXAMPLES)]
    Status(status::StatusArgs),
    /// Run a command; a large stdout or stderr is stored and its pointer printed instead.
    #[command(after_help = run::EXAMPLES)]
    Run(run::RunArgs),
    /// Answer a client's tool hook: a large tool output is stored and replaced by its pointer.
    #[command(after_help = hook::EXAMPLES)]
    Hook(hook::HookArgs),
    /// Print what the command line defines (flags, defaults, limits) as JSON, for `cargo xtask
    /// tidy` to hold the docs to.
    #[command(hide = true)]
    DocFacts(doc_facts::DocFactsArgs),
}

impl Command {
    /// How the process writes its diagnostics: `overspill mcp --log-format`, else text.
    pub fn log_format(&self) -> mcp::LogFormat {
        match self {
            Command::Mcp(args) => args.log_format,
            _ => mcp::LogFormat::Text,
        }
    }
}

impl Command {
    /// Runs the subcommand; `Ok` carries the exit code to use.
    pub fn run(self) -> anyhow::Result<ExitCode> {
        match self {
            Command::Tour(args) => tour::run(args),
            Command::Count(args) => count::run(args),
            Command::Intercept(args) => intercept::run(args),
            Command::Tool(args) => tool::run(args),
            Command::Ls(args) => ls::run(args),
            Command::Tools(args) => tools::run(args),
            Command::Config(command) => command.run(),
            Command::Mcp(args) => mcp::run(*args),
            Command::Auth(command) => command.run(),
            Command::Install(args) => install::install(args),
            Command::Uninstall(args) => install::uninstall(args),
            Command::Status(args) => status::run(args),
            Command::Run(args) => run::run(args),
            Command::Hook(args) => hook::run(args),
            Command::DocFacts(args) => doc_facts::run(args),
        }
    }
}

/// `--provider` and `--model`: which tokenizer counts.
#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// The LLM provider: openai, anthropic, bedrock, gemini, ollama, openrouter or other.
    #[arg(long, default_value = "openai")]
    pub provider: Provider,
    /// The model id; with the provider it picks the tokenizer (gpt-4o → o200k_base).
    #[arg(long, default_value = "gpt-4o")]
    pub model: String,
}

impl ModelArgs {
    /// The counter of this provider and model.
    pub fn counter(&self) -> &'static dyn TokenCounter {
        counter_for_provider(self.provider, &self.model)
    }
}

/// An error unless `dir` is a directory; `hint` says which one to pass instead.
pub fn existing_dir(dir: &std::path::Path, hint: &str) -> anyhow::Result<()> {
    if !dir.is_dir() {
        anyhow::bail!("{} is not a directory; {hint}", dir.display());
    }
    Ok(())
}

/// Exit status 2: bad command-line usage (what clap uses too).
pub fn usage_error(message: impl std::fmt::Display) -> ExitCode {
    tell!("overspill: {message}");
    ExitCode::from(2)
}
