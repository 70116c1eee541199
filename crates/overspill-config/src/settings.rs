//! The settings of one agent: its LLM and its scratchpad (docs/configuration.md).
//!
//! `[agent.llm]` and `[agent.scratchpad]` give the main agent's values; a
//! worker's `[orchestration.worker.<name>.llm]` and `.scratchpad` tables
//! override them field by field. [`AgentSettings`] is the merged result.

use serde::Serialize;

use crate::pattern::ToolFilter;

/// Default `context_safety_margin`: the fraction of the context window kept
/// free for reasoning and output.
pub const DEFAULT_CONTEXT_SAFETY_MARGIN: f64 = 0.20;
/// Default `max_extraction_tokens`: the cap on one exploration tool result.
pub const DEFAULT_MAX_EXTRACTION_TOKENS: u64 = 10_000;
/// Default `turn_depth_bonus`: extra agent turns while the scratchpad is on.
pub const DEFAULT_TURN_DEPTH_BONUS: u32 = 6;
/// The largest accepted `context_safety_margin`.
pub const MAX_CONTEXT_SAFETY_MARGIN: f64 = 0.95;

/// The LLM an agent talks to, as far as overspill needs it.
///
/// Every field is optional in the file; host keys of `[agent.llm]` (api keys,
/// base URLs, temperatures…) are not kept. `provider` stays a string: the
/// token-counter dispatch, not the configuration, decides what it means.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LlmSettings {
    /// `provider`: `openai`, `anthropic`, `bedrock`, `gemini`, `ollama`, …
    pub provider: Option<String>,
    /// `model`: the model id, e.g. `gpt-4o`.
    pub model: Option<String>,
    /// `context_window`: the model's context size in tokens (at least 1).
    pub context_window: Option<u64>,
}

impl LlmSettings {
    /// `self` with each unset field taken from `base` (a worker's override
    /// over the agent's settings).
    #[must_use]
    pub fn merged_over(&self, base: &Self) -> Self {
        Self {
            provider: self.provider.clone().or_else(|| base.provider.clone()),
            model: self.model.clone().or_else(|| base.model.clone()),
            context_window: self.context_window.or(base.context_window),
        }
    }
}

/// The scratchpad settings of one agent, defaults filled in.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScratchpadSettings {
    /// `enabled`: whether tool outputs are intercepted (default `false`).
    pub enabled: bool,
    /// `context_safety_margin`: fraction of the window reserved for reasoning
    /// and output, `0.0..=0.95` (default `0.20`).
    pub context_safety_margin: f64,
    /// `max_extraction_tokens`: cap on one exploration result (default 10000).
    pub max_extraction_tokens: u64,
    /// `turn_depth_bonus`: extra turns while the scratchpad is on (default 6).
    pub turn_depth_bonus: u32,
}

impl Default for ScratchpadSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            context_safety_margin: DEFAULT_CONTEXT_SAFETY_MARGIN,
            max_extraction_tokens: DEFAULT_MAX_EXTRACTION_TOKENS,
            turn_depth_bonus: DEFAULT_TURN_DEPTH_BONUS,
        }
    }
}

/// The fields one scratchpad table sets; the rest come from elsewhere
/// (the defaults for `[agent.scratchpad]`, the agent's values for a worker).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ScratchpadOverride {
    /// `enabled`, if set.
    pub enabled: Option<bool>,
    /// `context_safety_margin`, if set.
    pub context_safety_margin: Option<f64>,
    /// `max_extraction_tokens`, if set.
    pub max_extraction_tokens: Option<u64>,
    /// `turn_depth_bonus`, if set.
    pub turn_depth_bonus: Option<u32>,
}

impl ScratchpadOverride {
    /// `base` with each field this override sets replaced.
    pub fn apply_to(&self, base: &ScratchpadSettings) -> ScratchpadSettings {
        ScratchpadSettings {
            enabled: self.enabled.unwrap_or(base.enabled),
            context_safety_margin: self
                .context_safety_margin
                .unwrap_or(base.context_safety_margin),
            max_extraction_tokens: self
                .max_extraction_tokens
                .unwrap_or(base.max_extraction_tokens),
            turn_depth_bonus: self.turn_depth_bonus.unwrap_or(base.turn_depth_bonus),
        }
    }
}

/// What one agent (the main agent or a worker) runs with: merged LLM and
/// scratchpad settings, and its own `mcp_filter`.
///
/// In a loaded [`Config`](crate::Config), an agent whose scratchpad is
/// enabled always has a `context_window`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AgentSettings {
    /// The LLM settings.
    pub llm: LlmSettings,
    /// The scratchpad settings.
    pub scratchpad: ScratchpadSettings,
    /// The agent's `mcp_filter`; `None` (absent) allows every tool. A
    /// worker's filter is its own: it does not inherit the agent's.
    pub mcp_filter: Option<ToolFilter>,
}

impl AgentSettings {
    /// The context window when the scratchpad is enabled: what a budget is
    /// built from. `None` when the scratchpad is off.
    pub fn enabled_window(&self) -> Option<u64> {
        if self.scratchpad.enabled {
            self.llm.context_window
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests;

/// `[store]`: where `overspill mcp --listen` keeps stored results and budgets beyond this
/// machine (docs/configuration.md#store). Every key is optional; the proxy's flags win.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StoreSettings {
    /// `url`: the shared store (`s3://bucket/prefix`, `file:///dir`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `cache_bytes`: the most bytes of stored results cached locally.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_bytes: Option<u64>,
    /// `budgets`: the Redis server that keeps each agent's budget (`redis://host:6379/0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budgets: Option<String>,
}
