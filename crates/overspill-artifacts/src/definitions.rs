//! The definitions of `write_artifact` and `read_artifact`, in the exploration tools' shape
//! ([`overspill_explore::Definition`]), so a host exports them as MCP, OpenAI or Anthropic tools
//! alongside the exploration tools (docs/tools.md#4-definitions-and-export, docs/artifacts.md).
//! Their schemas are derived from their argument types, as the exploration tools' are.

use overspill_explore::{Definition, args};

use crate::read::ReadArtifactArgs;
use crate::write::WriteArtifactArgs;

/// `write_artifact`: for the coordinator.
pub const WRITE_ARTIFACT: Definition = Definition {
    name: "write_artifact",
    description: "Store text as an artifact of this run so workers can load it with \
        `read_artifact` instead of receiving it in their task description: a runbook draft, a \
        list of findings, data a task needs. The file is stored as `coordinator-{name}`; `name` \
        should be short and carry an extension (`.md`, `.json`, `.txt`; `.txt` is added when it \
        has none); directories and unusual characters are removed. Writing the same name again \
        replaces the artifact. Returns JSON: {\"written\": true, \"filename\": \
        \"coordinator-runbook-draft.md\", \"replaced\": false}; list that `filename` in the \
        artifacts of the tasks that need it.",
    parameters: args::owned_schema::<WriteArtifactArgs>,
};

/// `read_artifact`: for workers (and the coordinator).
pub const READ_ARTIFACT: Definition = Definition {
    name: "read_artifact",
    description: "Load an artifact of this run: a file listed under INPUT ARTIFACTS in your \
        task, a result another task produced (`task-…-result.txt`), or a `coordinator-…` file. \
        Pass `filename` exactly as listed, without directories. A small artifact comes back as \
        its content. One too large for your remaining budget comes back as a pointer instead: \
        explore it in place with the read tools (schema, grep, slice, …), passing the `file` the \
        pointer gives. If the file does not exist, the answer lists the available artifacts, \
        newest first. `run_id` reads from an earlier run of the same session.",
    parameters: args::owned_schema::<ReadArtifactArgs>,
};

/// Both definitions, the coordinator's first.
pub const ARTIFACT_TOOLS: [&Definition; 2] = [&WRITE_ARTIFACT, &READ_ARTIFACT];

/// The definitions a role needs: the coordinator gets both tools, a worker only
/// `read_artifact` (workers' results are written by the host, not by the worker).
pub fn artifact_tools(coordinator: bool) -> Vec<&'static Definition> {
    if coordinator {
        ARTIFACT_TOOLS.to_vec()
    } else {
        vec![&READ_ARTIFACT]
    }
}

#[cfg(test)]
mod tests;
