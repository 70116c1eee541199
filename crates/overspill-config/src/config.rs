//! The validated configuration.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::rules::ServerRules;
use crate::settings::{AgentSettings, StoreSettings};

/// A configuration that loaded, and so is valid: every pattern compiled,
/// every scratchpad key known, every value in range, and every agent with an
/// enabled scratchpad has a `memory_dir` and a `context_window`.
///
/// It serializes (serde) to its effective view: `memory_dir`, the agent's
/// merged settings, each worker's, and each server's rules. There is
/// deliberately no `Deserialize`: a configuration is read through
/// [`from_toml_str`](Self::from_toml_str) or [`from_path`](Self::from_path),
/// which validate.
///
/// ```
/// use overspill_config::Config;
///
/// let config = Config::from_toml_str(r#"
///     memory_dir = "./.overspill"
///
///     [agent.llm]
///     provider = "openai"
///     model = "gpt-4o"
///     context_window = 128000
///     api_key = "sk-…"                  # the host's key: ignored
///
///     [agent.scratchpad]
///     enabled = true
///
///     [orchestration.worker.analyst.scratchpad]
///     max_extraction_tokens = 5000       # the rest is inherited
///
///     [mcp.servers.k8s.scratchpad]
///     "*" = { min_tokens = 5120 }
///     "k8s_list_*" = { min_tokens = 2048 }
/// "#)?;
///
/// let analyst = config.effective("analyst");
/// assert!(analyst.scratchpad.enabled);
/// assert_eq!(analyst.scratchpad.max_extraction_tokens, 5000);
/// assert_eq!(analyst.llm.context_window, Some(128_000));
///
/// let k8s = config.rules("k8s").expect("configured");
/// assert_eq!(k8s.resolve("k8s_list_pods").map(|rule| rule.min_tokens), Some(2048));
/// # Ok::<(), overspill_config::ConfigError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Config {
    pub(crate) memory_dir: Option<MemoryDir>,
    pub(crate) agent: AgentSettings,
    pub(crate) workers: BTreeMap<String, AgentSettings>,
    pub(crate) servers: BTreeMap<String, ServerRules>,
    /// `[hooks.<client>.scratchpad]`: the thresholds of `overspill hook <client>`, by client.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) hooks: BTreeMap<String, ServerRules>,
    /// `[store]`: the shared store and the budget store of `overspill mcp --listen`.
    pub(crate) store: StoreSettings,
    /// What a worker the file does not mention runs with: the agent's settings without its
    /// `mcp_filter` (a filter is never inherited). Derived from `agent` when loading.
    #[serde(skip)]
    pub(crate) unconfigured_worker: AgentSettings,
}

/// The persistence root and where the file set it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemoryDir {
    /// The directory as written (a relative path is relative to the host's
    /// working directory, as the host framework reads it).
    pub path: PathBuf,
    /// Which key set it.
    pub source: MemoryDirSource,
}

/// Which key set `memory_dir`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryDirSource {
    /// The top-level `memory_dir`.
    TopLevel,
    /// The legacy `[orchestration.artifacts].memory_dir`, used because the
    /// top-level key is absent.
    OrchestrationArtifacts,
}

impl Config {
    /// The persistence root, if configured.
    pub fn memory_dir(&self) -> Option<&Path> {
        self.memory_dir.as_ref().map(|dir| dir.path.as_path())
    }

    /// The persistence root with the key that set it.
    pub fn memory_dir_setting(&self) -> Option<&MemoryDir> {
        self.memory_dir.as_ref()
    }

    /// The main agent's settings (`[agent]`).
    pub fn agent(&self) -> &AgentSettings {
        &self.agent
    }

    /// A worker's settings: its `[orchestration.worker.<name>]` overrides
    /// merged field by field over the agent's. A worker the file does not
    /// mention runs with the agent's settings (and no `mcp_filter`).
    pub fn effective(&self, worker: &str) -> &AgentSettings {
        self.workers
            .get(worker)
            .unwrap_or(&self.unconfigured_worker)
    }

    /// The settings of a worker the file configures, `None` for any other.
    pub fn worker(&self, name: &str) -> Option<&AgentSettings> {
        self.workers.get(name)
    }

    /// The configured workers and their merged settings, by name.
    pub fn workers(&self) -> impl Iterator<Item = (&str, &AgentSettings)> {
        by_name(&self.workers)
    }

    /// The interception rules of `server`, if `[mcp.servers.<server>.scratchpad]`
    /// exists. A server without rules has none of its tools intercepted.
    pub fn rules(&self, server: &str) -> Option<&ServerRules> {
        self.servers.get(server)
    }

    /// Every server with a scratchpad table, by name.
    pub fn servers(&self) -> impl Iterator<Item = (&str, &ServerRules)> {
        by_name(&self.servers)
    }

    /// `[store]`: where `overspill mcp --listen` keeps stored results and budgets beyond this
    /// machine (all `None` without the table).
    pub fn store(&self) -> &StoreSettings {
        &self.store
    }

    /// The thresholds of the agent's own tools for `overspill hook <client>`, if
    /// `[hooks.<client>.scratchpad]` exists (docs/hooks.md#thresholds); `client` is one of
    /// [`HOOK_CLIENTS`](crate::HOOK_CLIENTS). Without the table the hook uses its own defaults.
    pub fn hook_rules(&self, client: &str) -> Option<&ServerRules> {
        self.hooks.get(client)
    }

    /// Whether any agent or worker has its scratchpad enabled.
    pub fn any_enabled(&self) -> bool {
        self.agent.scratchpad.enabled || self.workers.values().any(|w| w.scratchpad.enabled)
    }
}

/// The entries of `map` with their names as `&str`, in name order.
fn by_name<V>(map: &BTreeMap<String, V>) -> impl Iterator<Item = (&str, &V)> {
    map.iter().map(|(name, value)| (name.as_str(), value))
}

#[cfg(test)]
mod tests;
