//! Which tools are intercepted, from what size (docs/configuration.md#threshold-resolution, docs/facade.md#2-intercepting step 2).
//!
//! The rules come from `[mcp.servers.<name>.scratchpad]` (or the builder). Once the host says
//! which tools a server offers, they are resolved into an exact [`ThresholdTable`]; a tool the
//! host never listed is resolved against its server's rules on the spot, so nothing depends
//! on the host having listed tools first.

use std::collections::{BTreeMap, HashMap};
use std::sync::{PoisonError, RwLock};

use crate::config::{ServerRules, ThresholdClash, ThresholdTable, ToolFilter};

/// The rules of every server and the table resolved from the tools listed so far.
#[derive(Debug)]
pub(crate) struct Thresholds {
    rules: HashMap<String, ServerRules>,
    /// Rules for servers that have none of their own (`intercept_all`).
    fallback: Option<ServerRules>,
    /// The agent's `mcp_filter`, to warn when it reaches no intercepted tool.
    filter: Option<ToolFilter>,
    listed: RwLock<Listed>,
}

#[derive(Debug, Default)]
struct Listed {
    tools: BTreeMap<String, Vec<String>>,
    table: ThresholdTable,
}

impl Thresholds {
    pub(crate) fn new(
        rules: HashMap<String, ServerRules>,
        fallback: Option<ServerRules>,
        filter: Option<ToolFilter>,
    ) -> Thresholds {
        Thresholds {
            rules,
            fallback,
            filter,
            listed: RwLock::default(),
        }
    }

    fn rules_for(&self, server: &str) -> Option<&ServerRules> {
        self.rules.get(server).or(self.fallback.as_ref())
    }

    /// The threshold of `server`'s `tool`; `None`: never intercepted.
    pub(crate) fn threshold(&self, server: &str, tool: &str) -> Option<u64> {
        {
            let listed = self.listed.read().unwrap_or_else(PoisonError::into_inner);
            if listed
                .tools
                .get(server)
                .is_some_and(|tools| tools.iter().any(|t| t == tool))
            {
                return listed.table.threshold(server, tool);
            }
        }
        self.rules_for(server)?
            .resolve(tool)
            .map(|rule| rule.min_tokens)
    }

    /// Records the tools `server` offers (replacing an earlier list) and resolves every listed
    /// tool once. Returns the tool names that now clash across servers.
    pub(crate) fn set_server_tools(&self, server: &str, tools: Vec<String>) -> Vec<ThresholdClash> {
        let mut listed = self.listed.write().unwrap_or_else(PoisonError::into_inner);
        listed.tools.insert(server.to_owned(), tools);
        listed.table = ThresholdTable::resolve_with(|s| self.rules_for(s), &listed.tools);
        for clash in listed.table.clashes() {
            tracing::warn!(%clash, "one tool name, several thresholds");
        }
        if listed.table.reachable(self.filter.as_ref()).is_empty() {
            tracing::warn!(
                "none of the listed tools that this agent's mcp_filter allows is intercepted; \
                 its scratchpad has nothing to intercept"
            );
        }
        listed.table.clashes().to_vec()
    }
}

#[cfg(test)]
mod tests;
