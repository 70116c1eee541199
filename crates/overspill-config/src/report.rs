//! What `overspill config check FILE [--tools server=a,b,c]` prints.
//!
//! The CLI parses its `--tools` arguments into a [`ToolInventory`], builds a
//! [`CheckReport`] from the loaded [`Config`] and prints it: the settings of
//! each agent, each server's patterns in the order they win, each given
//! tool's resolved threshold and winning pattern, and the warnings of
//! docs/configuration.md#threshold-resolution (cross-server name clashes, an `mcp_filter` that reaches no
//! intercepted tool).

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use crate::config::{Config, MemoryDirSource};
use crate::inventory::ToolInventory;
use crate::location::{KeyPath, quoted};
use crate::pattern::ToolFilter;
use crate::rules::ServerRules;
use crate::settings::AgentSettings;
use crate::threshold::{ThresholdClash, ThresholdTable};

/// Something `config check` should point out although the file is valid.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CheckWarning {
    /// The same tool name intercepted on several servers with different
    /// thresholds; all use the smallest.
    Clash(ThresholdClash),
    /// An agent with an enabled scratchpad whose `mcp_filter` reaches no
    /// intercepted tool: it has nothing to intercept.
    NothingReachable {
        /// The worker, or `None` for the main agent.
        worker: Option<String>,
        /// Its filter (`None`: absent, every tool allowed).
        filter: Option<ToolFilter>,
        /// How many tools are intercepted in all.
        intercepted: usize,
    },
    /// Tools were given for a server that has no scratchpad table.
    ServerWithoutRules {
        /// The server.
        server: String,
    },
    /// A scratchpad is enabled but no server has a single pattern.
    NoRules,
}

impl fmt::Display for CheckWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Clash(clash) => clash.fmt(f),
            Self::NothingReachable {
                worker,
                filter,
                intercepted,
            } => {
                f.write_str(&agent_name(worker.as_deref()))?;
                match filter {
                    Some(filter) => write!(
                        f,
                        ": its mcp_filter {filter} reaches none of the {intercepted} intercepted tools"
                    )?,
                    None => f.write_str(": none of the tools given is intercepted")?,
                }
                f.write_str(", so its scratchpad has nothing to intercept")
            }
            Self::ServerWithoutRules { server } => write!(
                f,
                "server {server} has no [{}] table: none of its tools is intercepted",
                scratchpad_table(server)
            ),
            Self::NoRules => f.write_str(
                "a scratchpad is enabled but no [mcp.servers.<name>.scratchpad] table has a pattern: \
                 no tool output will be intercepted",
            ),
        }
    }
}

/// The report of `overspill config check`: [`Display`](fmt::Display) it.
///
/// ```
/// use overspill_config::{CheckReport, Config, ToolInventory};
///
/// let config = Config::from_toml_str(r#"
///     [mcp.servers.k8s.scratchpad]
///     "*" = { min_tokens = 5120 }
///     "k8s_list_*" = { min_tokens = 2048 }
/// "#)?;
/// let mut tools = ToolInventory::new();
/// tools.add_arg("k8s=k8s_list_pods").unwrap();
/// let report = CheckReport::new(&config, &tools).to_string();
/// assert!(report.contains(r#"k8s_list_pods  2048  via "k8s_list_*""#));
/// # Ok::<(), overspill_config::ConfigError>(())
/// ```
#[derive(Debug)]
pub struct CheckReport<'a> {
    config: &'a Config,
    tools: &'a ToolInventory,
    table: ThresholdTable,
    warnings: Vec<CheckWarning>,
}

impl<'a> CheckReport<'a> {
    /// Resolves `tools` against `config` and collects the warnings.
    pub fn new(config: &'a Config, tools: &'a ToolInventory) -> Self {
        let table = ThresholdTable::resolve(config, tools);
        let mut warnings: Vec<CheckWarning> = table
            .clashes()
            .iter()
            .cloned()
            .map(CheckWarning::Clash)
            .collect();
        for (server, _) in tools.iter() {
            if config.rules(server).is_none() {
                warnings.push(CheckWarning::ServerWithoutRules {
                    server: server.to_owned(),
                });
            }
        }
        if !tools.is_empty() {
            let agents = std::iter::once((None, config.agent())).chain(
                config
                    .workers()
                    .map(|(name, settings)| (Some(name), settings)),
            );
            for (worker, settings) in agents {
                if settings.scratchpad.enabled
                    && table.reachable(settings.mcp_filter.as_ref()).is_empty()
                {
                    warnings.push(CheckWarning::NothingReachable {
                        worker: worker.map(str::to_owned),
                        filter: settings.mcp_filter.clone(),
                        intercepted: table.len(),
                    });
                }
            }
        }
        if config.any_enabled() && config.servers().all(|(_, rules)| rules.is_empty()) {
            warnings.push(CheckWarning::NoRules);
        }
        Self {
            config,
            tools,
            table,
            warnings,
        }
    }

    /// The warnings, in the order printed.
    pub fn warnings(&self) -> &[CheckWarning] {
        &self.warnings
    }

    /// The thresholds resolved for the given tools.
    pub fn table(&self) -> &ThresholdTable {
        &self.table
    }
}

impl fmt::Display for CheckReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.config.memory_dir_setting() {
            Some(dir) => {
                write!(f, "memory_dir = {}", quoted(&dir.path.to_string_lossy()))?;
                if dir.source == MemoryDirSource::OrchestrationArtifacts {
                    f.write_str("  (from [orchestration.artifacts], the legacy location)")?;
                }
                writeln!(f)?;
            }
            None => writeln!(f, "memory_dir: not set")?,
        }
        writeln!(f)?;
        write_agent(f, "agent", self.config.agent())?;
        for (name, settings) in self.config.workers() {
            write_agent(f, &agent_name(Some(name)), settings)?;
        }

        let mut servers: BTreeMap<&str, Option<&ServerRules>> = self
            .config
            .servers()
            .map(|(name, rules)| (name, Some(rules)))
            .collect();
        for (server, _) in self.tools.iter() {
            servers.entry(server).or_insert(None);
        }
        if servers.is_empty() {
            writeln!(
                f,
                "\nno [mcp.servers.<name>.scratchpad] table: no tool output is intercepted"
            )?;
        }
        for (server, rules) in servers {
            writeln!(f)?;
            self.write_server(f, server, rules)?;
        }

        writeln!(f)?;
        if self.warnings.is_empty() {
            writeln!(f, "no warnings")
        } else {
            writeln!(f, "warnings:")?;
            for warning in &self.warnings {
                writeln!(f, "  - {warning}")?;
            }
            Ok(())
        }
    }
}

impl CheckReport<'_> {
    fn write_server(
        &self,
        f: &mut fmt::Formatter<'_>,
        server: &str,
        rules: Option<&ServerRules>,
    ) -> fmt::Result {
        match rules {
            None => writeln!(
                f,
                "server {server}: no [{}] table, nothing intercepted",
                scratchpad_table(server)
            )?,
            Some(rules) if rules.is_empty() => {
                writeln!(f, "server {server}: no patterns, nothing intercepted")?
            }
            Some(rules) => {
                let count = rules.rules().len();
                writeln!(
                    f,
                    "server {server}: {count} pattern{} (longest match wins; equal length → smaller min_tokens)",
                    if count == 1 { "" } else { "s" }
                )?;
                let ordered = rules.by_precedence();
                let shown: Vec<String> = ordered
                    .iter()
                    .map(|rule| quoted(rule.pattern.as_str()))
                    .collect();
                let width = shown.iter().map(|p| p.chars().count()).max().unwrap_or(0);
                for (pattern, rule) in shown.iter().zip(&ordered) {
                    writeln!(f, "  {pattern:<width$}  min_tokens = {}", rule.min_tokens)?;
                }
            }
        }
        let tools = self.tools.tools(server);
        if tools.is_empty() {
            return Ok(());
        }
        writeln!(f, "  tools:")?;
        let width = tools.iter().map(|t| t.chars().count()).max().unwrap_or(0);
        for tool in tools {
            match self.table.resolution(server, tool) {
                None => writeln!(f, "    {tool:<width$}  not intercepted")?,
                Some(r) => {
                    let mut line = format!(
                        "    {tool:<width$}  {}  via {}",
                        r.min_tokens,
                        quoted(&r.pattern)
                    );
                    if r.pattern_min_tokens != r.min_tokens {
                        let _ = write!(
                            line,
                            " (lowered from {}, see warnings)",
                            r.pattern_min_tokens
                        );
                    }
                    writeln!(f, "{line}")?;
                }
            }
        }
        Ok(())
    }
}

fn write_agent(f: &mut fmt::Formatter<'_>, name: &str, settings: &AgentSettings) -> fmt::Result {
    let sp = &settings.scratchpad;
    let llm = &settings.llm;
    writeln!(
        f,
        "{name}: scratchpad {}",
        if sp.enabled { "enabled" } else { "disabled" }
    )?;
    let unset = || "not set".to_owned();
    writeln!(
        f,
        "  llm: provider {}, model {}, context_window {}",
        llm.provider.clone().unwrap_or_else(unset),
        llm.model.clone().unwrap_or_else(unset),
        llm.context_window.map_or_else(unset, |w| w.to_string()),
    )?;
    writeln!(
        f,
        "  context_safety_margin {}, max_extraction_tokens {}, turn_depth_bonus {}",
        sp.context_safety_margin, sp.max_extraction_tokens, sp.turn_depth_bonus
    )?;
    match &settings.mcp_filter {
        None => writeln!(f, "  mcp_filter: not set (every tool)"),
        Some(filter) if filter.is_empty() => writeln!(f, "  mcp_filter = [] (no tool)"),
        Some(filter) => writeln!(f, "  mcp_filter = {filter}"),
    }
}

/// `mcp.servers.<server>.scratchpad`, quoted as TOML needs.
fn scratchpad_table(server: &str) -> KeyPath {
    KeyPath::root()
        .key("mcp")
        .key("servers")
        .key(server)
        .key("scratchpad")
}

fn agent_name(worker: Option<&str>) -> String {
    match worker {
        None => "agent".to_owned(),
        Some(name) => format!("worker {name}"),
    }
}

#[cfg(test)]
mod tests;
