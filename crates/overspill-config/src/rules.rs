//! One server's interception rules: `[mcp.servers.<name>.scratchpad]`, a
//! table of tool-name pattern → `{ min_tokens }` (docs/configuration.md, docs/configuration.md#threshold-resolution).

use std::cmp::Ordering;

use globset::{Candidate, GlobSet};
use serde::Serialize;

use crate::pattern::{PatternError, ToolPattern, glob_set};

/// The `min_tokens` of a pattern entry that does not set one, and of the
/// [fallback](ServerRules::fallback) rule.
pub const DEFAULT_MIN_TOKENS: u64 = 5120;

/// One pattern entry: outputs of matching tools with at least `min_tokens`
/// tokens are intercepted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// The tool-name pattern (the table key).
    pub pattern: ToolPattern,
    /// The interception threshold in tokens: an output of exactly this many
    /// tokens is intercepted.
    pub min_tokens: u64,
}

impl Rule {
    /// A rule intercepting outputs of `pattern`'s tools from `min_tokens` on.
    pub fn new(pattern: ToolPattern, min_tokens: u64) -> Self {
        Self {
            pattern,
            min_tokens,
        }
    }

    /// docs/configuration.md#threshold-resolution's precedence: the longer pattern (in characters) first, then
    /// the smaller threshold. `Less` means `self` wins.
    pub fn precedence(&self, other: &Self) -> Ordering {
        other
            .pattern
            .len_chars()
            .cmp(&self.pattern.len_chars())
            .then(self.min_tokens.cmp(&other.min_tokens))
    }
}

/// The rules of one MCP server, matched together.
///
/// Built once, then only read. Rules keep the order of the file; a tie that
/// [`Rule::precedence`] cannot break (same length, same threshold) goes to
/// the rule written first, so the winning pattern reported is stable.
#[derive(Clone, Debug)]
pub struct ServerRules {
    rules: Vec<Rule>,
    set: GlobSet,
}

impl ServerRules {
    /// Rules matched as one set.
    ///
    /// # Errors
    ///
    /// [`PatternError::Other`] in the rare case globset cannot combine the
    /// patterns (a size limit).
    pub fn new(rules: Vec<Rule>) -> Result<Self, PatternError> {
        let patterns: Vec<ToolPattern> = rules.iter().map(|rule| rule.pattern.clone()).collect();
        Ok(Self {
            set: glob_set(&patterns)?,
            rules,
        })
    }

    /// The rules used when there is no configuration at all:
    /// `"*" = { min_tokens = 5120 }`, every tool intercepted from 5120 tokens
    /// (what the MCP proxy applies without `--config`, docs/mcp-proxy.md).
    ///
    /// ```
    /// use overspill_config::ServerRules;
    ///
    /// let rules = ServerRules::fallback();
    /// assert_eq!(rules.resolve("anything").map(|r| r.min_tokens), Some(5120));
    /// ```
    #[allow(clippy::expect_used)] // a constant, not input; pinned by a test
    pub fn fallback() -> Self {
        ToolPattern::new("*")
            .and_then(|star| Self::new(vec![Rule::new(star, DEFAULT_MIN_TOKENS)]))
            .expect("\"*\" always compiles into a one-glob set")
    }

    /// The rules, in the order of the file.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The rules in precedence order: the order in which they would win.
    pub fn by_precedence(&self) -> Vec<&Rule> {
        let mut rules: Vec<&Rule> = self.rules.iter().collect();
        // Stable sort: equal precedence keeps file order, as `resolve` does.
        rules.sort_by(|a, b| a.precedence(b));
        rules
    }

    /// Whether the server has no rule (so none of its tools is intercepted).
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The rule that decides `tool`'s threshold (docs/configuration.md#threshold-resolution): among the
    /// matching patterns the longest wins, a length tie goes to the smallest
    /// threshold. `None`: no pattern matches and the tool is never
    /// intercepted.
    pub fn resolve(&self, tool: &str) -> Option<&Rule> {
        let mut matched = Vec::new();
        self.resolve_into(tool, &mut matched)
    }

    /// [`resolve`](Self::resolve) with a reusable buffer for the match list.
    pub(crate) fn resolve_into(&self, tool: &str, matched: &mut Vec<usize>) -> Option<&Rule> {
        self.set
            .matches_candidate_into(&Candidate::from_bytes(tool.as_bytes()), matched);
        // `min_by` keeps the first of equal elements: file order breaks ties.
        matched
            .iter()
            .filter_map(|&i| self.rules.get(i))
            .min_by(|a, b| a.precedence(b))
    }
}

impl PartialEq for ServerRules {
    fn eq(&self, other: &Self) -> bool {
        self.rules == other.rules
    }
}

impl Eq for ServerRules {}

impl Serialize for ServerRules {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.rules.serialize(serializer)
    }
}

#[cfg(test)]
mod tests;
