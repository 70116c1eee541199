//! The scratchpad's own tools as rig tools: definitions from overspill, answers from
//! [`Scratchpad::call`].

use overspill::{Scratchpad, ToolFormat};
use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolOutput};
use serde_json::Value;

use crate::offload;

/// The tools `pad` answers, as rig tools: the exploration tools (`schema`, `get_in`, `grep` …)
/// and, in orchestration, `read_artifact` (a worker) or `write_artifact` and `read_artifact`
/// (the coordinator). Register them with one call:
/// `agent_builder.dynamic_tools(overspill_rig::exploration_tools(&pad))`.
///
/// Each has the name (after the pad's [`tool_prefix`](Scratchpad::tool_prefix)), description
/// and input schema overspill defines, and answers with exactly what [`Scratchpad::call`]
/// returns: the extraction and its footer, or an error object (`*_too_large` with a retry
/// when the budget or the per-call limit is exceeded) the model can act on. The tools never
/// fail, so the model always reads overspill's own answer.
pub fn exploration_tools(pad: &Scratchpad) -> Vec<DynamicTool> {
    pad.tool_definitions(ToolFormat::Mcp)
        .into_iter()
        .filter_map(|definition| exploration_tool(pad, &definition))
        .collect()
}

/// One tool from its MCP definition (`name`, `description`, `inputSchema`).
fn exploration_tool(pad: &Scratchpad, definition: &Value) -> Option<DynamicTool> {
    let name = definition.get("name")?.as_str()?.to_owned();
    let description = definition
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let schema = definition.get("inputSchema")?.clone();
    let registered = ToolName::new(format!("{}{name}", pad.tool_prefix())).ok()?;
    let pad = pad.clone();
    Some(DynamicTool::new(
        registered,
        description,
        schema,
        move |args| {
            let (pad, name) = (pad.clone(), name.clone());
            Box::pin(async move { Ok(ToolOutput::text(offload::call(&pad, &name, &args).await)) })
        },
    ))
}
