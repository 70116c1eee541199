//! [`AgentBuilderExt`]: the scratchpad on a rig agent builder in one call, and the host's tool
//! definitions for its baseline.

use overspill::Scratchpad;
use rig_agent::agent::{AgentBuilder, NoToolConfig, WithBuilderTools};
use rig_core::completion::ToolDefinition;
use serde_json::{Value, json};

use crate::exploration::exploration_tools;
use crate::usage::UsageFeedback;

/// Adds a scratchpad to a rig [`AgentBuilder`].
pub trait AgentBuilderExt {
    /// The agent with `pad`: its prompt section appended to the preamble (call this after
    /// `preamble`, which replaces the preamble), its tools registered
    /// ([`exploration_tools`]) and its budget fed with every turn's usage
    /// ([`UsageFeedback`]).
    ///
    /// The tools whose results it should intercept are wrapped in
    /// [`InterceptedTool`](crate::InterceptedTool) and registered as usual.
    fn scratchpad(self, pad: &Scratchpad) -> AgentBuilder<WithBuilderTools>;
}

impl AgentBuilderExt for AgentBuilder<NoToolConfig> {
    fn scratchpad(self, pad: &Scratchpad) -> AgentBuilder<WithBuilderTools> {
        with_prompt(self, pad)
            .add_hook(UsageFeedback::new(pad))
            .dynamic_tools(exploration_tools(pad))
    }
}

impl AgentBuilderExt for AgentBuilder<WithBuilderTools> {
    fn scratchpad(self, pad: &Scratchpad) -> AgentBuilder<WithBuilderTools> {
        with_prompt(self, pad)
            .add_hook(UsageFeedback::new(pad))
            .dynamic_tools(exploration_tools(pad))
    }
}

fn with_prompt<S>(builder: AgentBuilder<S>, pad: &Scratchpad) -> AgentBuilder<S> {
    match pad.system_prompt_section() {
        "" => builder,
        section => builder.append_preamble(section),
    }
}

/// The agent's own tool definitions as overspill counts them into the budget's baseline (MCP
/// shape), for [`ScratchpadBuilder::host_tools`](overspill::ScratchpadBuilder::host_tools).
/// Pass every tool the agent offers besides the scratchpad's, wrapped or not; a typed tool's
/// definition is `rig_core::tool::tool_definition(&tool)`, a dynamic one's
/// `tool.definition()`.
pub fn host_tools(definitions: impl IntoIterator<Item = ToolDefinition>) -> Vec<Value> {
    definitions
        .into_iter()
        .map(|definition| {
            json!({
                "name": definition.name.as_str(),
                "description": definition.description,
                "inputSchema": definition.parameters,
            })
        })
        .collect()
}
