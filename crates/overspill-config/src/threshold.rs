//! Per-tool interception thresholds, resolved once (docs/configuration.md#threshold-resolution).
//!
//! A host knows which tools each server offers only at run time (after
//! `tools/list`). [`ThresholdTable::resolve`] takes those lists, applies the
//! rule to every tool once, and keeps an exact map; each tool call is then a
//! hash lookup.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use crate::config::Config;
use crate::location::quoted;
use crate::pattern::ToolFilter;
use crate::rules::ServerRules;

/// The resolved threshold of every intercepted tool, by server and tool.
///
/// ```
/// use std::collections::BTreeMap;
/// use overspill_config::{Config, ThresholdTable};
///
/// let config = Config::from_toml_str(r#"
///     [mcp.servers.k8s.scratchpad]
///     "*" = { min_tokens = 256 }
///     "k8s_list_*" = { min_tokens = 512 }
///     "k8s_list_pods" = { min_tokens = 384 }
/// "#)?;
/// let tools = BTreeMap::from([("k8s", vec!["k8s_list_pods", "k8s_list_nodes", "k8s_get"])]);
/// let table = ThresholdTable::resolve(&config, &tools);
/// assert_eq!(table.threshold("k8s", "k8s_list_pods"), Some(384));
/// assert_eq!(table.threshold("k8s", "k8s_list_nodes"), Some(512));
/// assert_eq!(table.threshold("k8s", "k8s_get"), Some(256));
/// assert_eq!(table.threshold("web", "k8s_get"), None); // other servers' patterns never apply
/// # Ok::<(), overspill_config::ConfigError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ThresholdTable {
    servers: HashMap<String, HashMap<String, Resolution>>,
    /// Tool name → threshold over every server, for flat-namespace hosts.
    by_name: HashMap<String, u64>,
    clashes: Vec<ThresholdClash>,
}

/// How one tool's threshold was decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolution {
    /// The threshold applied: outputs of at least this many tokens are
    /// intercepted.
    pub min_tokens: u64,
    /// The pattern of the tool's server that won.
    pub pattern: String,
    /// The winning pattern's own threshold. Differs from `min_tokens` only
    /// when another server has a tool of the same name with a smaller one
    /// (see [`ThresholdClash`]).
    pub pattern_min_tokens: u64,
}

/// The same tool name intercepted on several servers with different
/// thresholds. Every one of them gets the smallest (a host whose tool
/// namespace is flat cannot tell them apart); show this to the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThresholdClash {
    /// The tool name.
    pub tool: String,
    /// Each server offering it, with its own winning pattern and threshold,
    /// by server name.
    pub servers: Vec<(String, String, u64)>,
    /// The threshold all of them use: the smallest.
    pub applied: u64,
}

impl ThresholdTable {
    /// Resolves the thresholds of `tools` (server → its tool names) with the
    /// rules of `config`. Servers without a `[mcp.servers.<name>.scratchpad]`
    /// table intercept nothing.
    pub fn resolve<S, L, T>(config: &Config, tools: impl IntoIterator<Item = (S, L)>) -> Self
    where
        S: AsRef<str>,
        L: IntoIterator<Item = T>,
        T: AsRef<str>,
    {
        Self::resolve_with(|server| config.rules(server), tools)
    }

    /// Resolves with the rules `rules_for` gives for each server, for hosts
    /// whose rules do not come from a [`Config`]: the MCP proxy without a
    /// config resolves with `|_| Some(&ServerRules::fallback())`.
    pub fn resolve_with<'r, S, L, T>(
        rules_for: impl Fn(&str) -> Option<&'r ServerRules>,
        tools: impl IntoIterator<Item = (S, L)>,
    ) -> Self
    where
        S: AsRef<str>,
        L: IntoIterator<Item = T>,
        T: AsRef<str>,
    {
        let mut servers: HashMap<String, HashMap<String, Resolution>> = HashMap::new();
        let mut matched = Vec::new();
        for (server, list) in tools {
            let server = server.as_ref();
            let rules = rules_for(server);
            let entry = servers.entry(server.to_owned()).or_default();
            let Some(rules) = rules else { continue };
            for tool in list {
                let tool = tool.as_ref();
                if let Some(rule) = rules.resolve_into(tool, &mut matched) {
                    entry.insert(
                        tool.to_owned(),
                        Resolution {
                            min_tokens: rule.min_tokens,
                            pattern: rule.pattern.as_str().to_owned(),
                            pattern_min_tokens: rule.min_tokens,
                        },
                    );
                }
            }
        }
        let clashes = settle_clashes(&mut servers);
        let mut by_name: HashMap<String, u64> = HashMap::new();
        for (tool, resolution) in servers.values().flatten() {
            let entry = by_name.entry(tool.clone()).or_insert(resolution.min_tokens);
            *entry = (*entry).min(resolution.min_tokens);
        }
        Self {
            servers,
            by_name,
            clashes,
        }
    }

    /// The threshold of `server`'s `tool`, or `None` when that tool is not
    /// intercepted (no pattern of its server matches, or it was not in the
    /// lists given to [`resolve`](Self::resolve)).
    pub fn threshold(&self, server: &str, tool: &str) -> Option<u64> {
        self.resolution(server, tool).map(|r| r.min_tokens)
    }

    /// The threshold of a tool known only by name, for hosts whose tool
    /// namespace is flat: the smallest over the servers that intercept a tool
    /// of that name, `None` when none does.
    pub fn threshold_by_name(&self, tool: &str) -> Option<u64> {
        self.by_name.get(tool).copied()
    }

    /// How `server`'s `tool` got its threshold.
    pub fn resolution(&self, server: &str, tool: &str) -> Option<&Resolution> {
        self.servers.get(server)?.get(tool)
    }

    /// Tool names intercepted on several servers with different thresholds,
    /// by tool name.
    pub fn clashes(&self) -> &[ThresholdClash] {
        &self.clashes
    }

    /// Every intercepted tool as `(server, tool, resolution)`, sorted by
    /// server then tool.
    pub fn intercepted(&self) -> Vec<(&str, &str, &Resolution)> {
        let mut all: Vec<_> = self
            .servers
            .iter()
            .flat_map(|(server, tools)| {
                tools
                    .iter()
                    .map(move |(tool, r)| (server.as_str(), tool.as_str(), r))
            })
            .collect();
        all.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        all
    }

    /// The intercepted tools an agent with `filter` can call (absent filter:
    /// all of them; empty filter: none), sorted by server then tool. Empty
    /// means the agent's scratchpad has nothing to intercept.
    pub fn reachable(&self, filter: Option<&ToolFilter>) -> Vec<(&str, &str)> {
        self.intercepted()
            .into_iter()
            .filter(|(_, tool, _)| filter.is_none_or(|f| f.allows(tool)))
            .map(|(server, tool, _)| (server, tool))
            .collect()
    }

    /// How many tools are intercepted.
    pub fn len(&self) -> usize {
        self.servers.values().map(HashMap::len).sum()
    }

    /// Whether no tool is intercepted.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Gives every tool name intercepted on several servers with different
/// thresholds the smallest of them, and reports each such name.
fn settle_clashes(
    servers: &mut HashMap<String, HashMap<String, Resolution>>,
) -> Vec<ThresholdClash> {
    let mut by_tool: BTreeMap<&str, Vec<(&str, &Resolution)>> = BTreeMap::new();
    for (server, tools) in servers.iter() {
        for (tool, resolution) in tools {
            by_tool.entry(tool).or_default().push((server, resolution));
        }
    }
    let mut clashes = Vec::new();
    for (tool, mut offers) in by_tool {
        let Some(applied) = offers.iter().map(|(_, r)| r.min_tokens).min() else {
            continue;
        };
        if offers.iter().all(|(_, r)| r.min_tokens == applied) {
            continue;
        }
        offers.sort_by_key(|(server, _)| *server);
        clashes.push(ThresholdClash {
            tool: tool.to_owned(),
            servers: offers
                .iter()
                .map(|(server, r)| ((*server).to_owned(), r.pattern.clone(), r.min_tokens))
                .collect(),
            applied,
        });
    }
    for clash in &clashes {
        for (server, _, _) in &clash.servers {
            if let Some(resolution) = servers.get_mut(server).and_then(|t| t.get_mut(&clash.tool)) {
                resolution.min_tokens = clash.applied;
            }
        }
    }
    clashes
}

impl fmt::Display for ThresholdClash {
    /// `tool "search" has different thresholds on servers a (1000 via "*") and
    /// b (2000 via "se*"); all of them use the smallest, 1000`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool {} has different thresholds on servers ",
            quoted(&self.tool)
        )?;
        let last = self.servers.len().saturating_sub(1);
        for (i, (server, pattern, min_tokens)) in self.servers.iter().enumerate() {
            match i {
                0 => {}
                _ if i == last => f.write_str(" and ")?,
                _ => f.write_str(", ")?,
            }
            write!(f, "{server} ({min_tokens} via {})", quoted(pattern))?;
        }
        write!(f, "; all of them use the smallest, {}", self.applied)
    }
}

#[cfg(test)]
mod tests;
