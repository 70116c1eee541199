//! Where `overspill run` and `overspill hook` store an output: the agent's scratchpad, found
//! where the agent's gateway keeps its own (docs/hooks.md#one-scratchpad-per-agent), so that the
//! exploration tools of its MCP entry read what they store. It is built only once an output is
//! over its threshold: a small output costs neither a scratchpad nor the token tables.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, FromArgMatches};
use overspill::config::Config;
use overspill::store::Layout;
use overspill::tokens::TokenCounter;
use overspill::{Intercepted, Scratchpad, ToolOutput};

use super::mcp::{PadArgs, gateway_scratchpad};

/// The name `overspill install` gives the gateway's entry in a client's configuration. Its tools
/// reach the model as the client names them (`mcp__overspill__grep` in Claude Code), so the hook
/// knows the gateway's own results by it.
pub const GATEWAY_ENTRY: &str = "overspill";

/// The flags that say which agent's scratchpad to store in, and how it counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Args)]
pub struct PadFlags {
    /// The scratchpad dir itself: outputs are written straight into it.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// The servers file of the agent's gateway (`overspill mcp --servers FILE`, the entry
    /// `overspill install` writes): store where that gateway stores, so that its exploration
    /// tools read what is stored here.
    #[arg(long, value_name = "FILE")]
    servers: Option<PathBuf>,
    /// The overspill configuration: thresholds, memory_dir, [agent.llm]; with neither --dir
    /// nor memory_dir, store where the gateway of this file stores.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The LLM provider whose tokenizer counts (as the gateway's --provider).
    #[arg(long, value_name = "P")]
    provider: Option<String>,
    /// The model id (as the gateway's --model).
    #[arg(long, value_name = "M")]
    model: Option<String>,
    /// The prefix of the exploration tools' names, as the gateway was given it, so that the
    /// pointer names the tools the model has.
    #[arg(long, value_name = "P")]
    tool_prefix: Option<String>,
}

impl PadFlags {
    /// These flags as a gateway's command line has them: of `args`, the arguments after `mcp`
    /// of a client's entry (`--servers FILE --answer-within 25 --provider anthropic …`), the
    /// flags `overspill hook` and `run` share with `overspill mcp`, so that they store where that
    /// gateway stores and count as it counts (docs/hooks.md#one-scratchpad-per-agent). Its other
    /// flags are passed over, and nothing after `--` (the server's own command) is read.
    pub fn of_gateway<'a>(args: impl IntoIterator<Item = &'a str>) -> PadFlags {
        let command =
            PadFlags::augment_args(clap::Command::new("overspill")).args_override_self(true);
        let known: Vec<String> = command
            .get_arguments()
            .filter_map(clap::Arg::get_long)
            .map(|long| format!("--{long}"))
            .collect();
        let mut kept = vec!["overspill".to_owned()];
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            if arg == "--" {
                break;
            }
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) => (flag, Some(value)),
                None => (arg, None),
            };
            if !known.iter().any(|known| known == flag) {
                continue;
            }
            // `--flag=value`, so that a value starting with `-` stays a value.
            if let Some(value) = inline.or_else(|| args.next()) {
                kept.push(format!("{flag}={value}"));
            }
        }
        command
            .try_get_matches_from(kept)
            .ok()
            .and_then(|matches| PadFlags::from_arg_matches(&matches).ok())
            .unwrap_or_default()
    }

    /// The flags as command-line arguments (`--servers FILE --provider anthropic`), for the
    /// command of a hook that goes with a gateway.
    pub fn to_args(&self) -> Vec<String> {
        let path = |path: &Option<PathBuf>| {
            path.as_ref()
                .map(|path| path.to_string_lossy().into_owned())
        };
        [
            ("--dir", path(&self.dir)),
            ("--servers", path(&self.servers)),
            ("--config", path(&self.config)),
            ("--provider", self.provider.clone()),
            ("--model", self.model.clone()),
            ("--tool-prefix", self.tool_prefix.clone()),
        ]
        .into_iter()
        .filter_map(|(flag, value)| Some([flag.to_owned(), value?]))
        .flatten()
        .collect()
    }

    /// The configuration of `--config`, loaded and checked.
    ///
    /// # Errors
    /// The file cannot be read or is not a valid configuration.
    pub fn config(&self) -> anyhow::Result<Option<Config>> {
        self.config
            .as_deref()
            .map(|path| {
                Config::from_path(path)
                    .with_context(|| format!("cannot use the configuration {}", path.display()))
            })
            .transpose()
    }

    /// The scratchpad dir, by the rule `overspill mcp` follows for a gateway: `--dir`, else
    /// the configuration's `memory_dir`, else the gateway directory of `--servers` (or of
    /// `--config`), else `<state dir>/scratchpad`. Nothing is created.
    ///
    /// # Errors
    /// No state directory can be found (HOME is not set) and no flag names a directory.
    pub fn dir(&self, config: Option<&Config>) -> anyhow::Result<PathBuf> {
        if let Some(dir) = &self.dir {
            return Ok(dir.clone());
        }
        if let Some(memory) = config.and_then(Config::memory_dir) {
            let layout = Layout::single_agent(memory);
            if let Some(dir) = layout.scratchpad_dir() {
                return Ok(dir.to_owned());
            }
        }
        if let Some(file) = self.servers.as_ref().or(self.config.as_ref()) {
            return gateway_scratchpad(file).map_err(anyhow::Error::msg);
        }
        overspill_mcp::state_dir()
            .map(|state| state.join("scratchpad"))
            .context(
                "cannot find your state directory to store outputs in (HOME is not set): give \
                 --dir DIR",
            )
    }

    /// The flags a scratchpad is built from, as `overspill mcp` takes them.
    fn pad_args(&self) -> PadArgs {
        PadArgs {
            tool_prefix: self.tool_prefix.clone(),
            context_window: None,
            provider: self.provider.clone(),
            model: self.model.clone(),
        }
    }

    /// The scratchpad in `dir`, counting as the flags (over the configuration) say.
    ///
    /// # Errors
    /// `dir` cannot be made or written.
    pub fn scratchpad(&self, config: Option<&Config>, dir: &Path) -> anyhow::Result<Scratchpad> {
        self.pad_args()
            .builder(config, Some(dir))
            .build()
            .with_context(|| format!("cannot store outputs in {}", dir.display()))
    }
}

/// The agent's scratchpad, built at the first output over its threshold.
pub struct AgentPad<'a> {
    flags: &'a PadFlags,
    config: Option<&'a Config>,
    pad: Option<Scratchpad>,
}

impl<'a> AgentPad<'a> {
    /// Nothing is built or created yet.
    pub fn new(flags: &'a PadFlags, config: Option<&'a Config>) -> AgentPad<'a> {
        AgentPad {
            flags,
            config,
            pad: None,
        }
    }

    /// The token counter the scratchpad counts with, without building it (its tables are
    /// loaded at the first count).
    pub fn counter(&self) -> &'static dyn TokenCounter {
        self.flags
            .pad_args()
            .builder(self.config, None)
            .token_counter()
    }

    /// The scratchpad, built the first time.
    ///
    /// # Errors
    /// Its directory cannot be found, made or written.
    pub fn get(&mut self) -> anyhow::Result<&Scratchpad> {
        if self.pad.is_none() {
            let dir = self.flags.dir(self.config)?;
            self.pad = Some(self.flags.scratchpad(self.config, &dir)?);
        }
        self.pad
            .as_ref()
            .context("the scratchpad was built just above")
    }
}

/// The pointer that replaces `output` (docs/facade.md#2-intercepting), or `None` when it passes
/// unchanged: below its threshold, not text, or not storable (said on stderr: a command or a
/// tool call never loses its output to a scratchpad that cannot be written).
pub fn pointer(pad: &Scratchpad, server: &str, tool: &str, output: ToolOutput) -> Option<String> {
    match pad.intercept(server, tool, output) {
        Intercepted::Inline(_) => None,
        Intercepted::Pointer(pointer) => Some(pointer),
        Intercepted::Failed(_) => {
            let dir = pad.scratchpad_dir().unwrap_or(Path::new("?"));
            tracing::warn!(
                "the output of `{tool}` could not be stored in {}, so it passes unchanged; check \
                 that the directory is writable",
                dir.display()
            );
            None
        }
    }
}

#[cfg(test)]
mod tests;
