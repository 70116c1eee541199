//! The definitions of `write_artifact` and `read_artifact`, in the exploration tools' shape
//! ([`overspill_explore::Definition`]), so a host exports them as MCP, OpenAI or Anthropic tools
//! alongside the exploration tools (docs/tools.md#4-definitions-and-export, docs/artifacts.md).

use overspill_explore::Definition;
use serde_json::json;

use crate::name::MAX_FILE_NAME_BYTES;

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
    parameters: || {
        json!({
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "description": "The artifact's name with an extension, e.g. `runbook-draft.md`.",
                    "minLength": 1,
                    "maxLength": MAX_FILE_NAME_BYTES,
                },
                "content": {"type": "string", "description": "The text to store."},
            },
            "required": ["name", "content"],
            "additionalProperties": false,
        })
    },
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
    parameters: || {
        json!({
            "type": "object",
            "properties": {
                "filename": {
                    "type": "string",
                    "description": "The artifact's file name, e.g. `task-3-result.txt`.",
                    "minLength": 1,
                    "maxLength": 255,
                },
                "run_id": {
                    "type": "string",
                    "description": "Another run of this session to read from. Default: the current run.",
                    "minLength": 1,
                },
            },
            "required": ["filename"],
            "additionalProperties": false,
        })
    },
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
mod tests {
    use super::*;
    use crate::read::ReadArtifactArgs;
    use crate::write::WriteArtifactArgs;

    /// The schema property names of `definition`, in order.
    fn properties(definition: &Definition) -> Vec<String> {
        let schema = definition.input_schema();
        schema["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    }

    #[test]
    fn schemas_are_closed_and_match_the_argument_structs() {
        assert_eq!(
            properties(&WRITE_ARTIFACT),
            overspill_explore::args::accepted::<WriteArtifactArgs>()
        );
        assert_eq!(
            properties(&READ_ARTIFACT),
            overspill_explore::args::accepted::<ReadArtifactArgs>()
        );
        for definition in ARTIFACT_TOOLS {
            assert_eq!(
                definition.input_schema()["additionalProperties"],
                json!(false),
                "{}",
                definition.name
            );
        }
    }

    #[test]
    fn definitions_export_in_all_three_formats() {
        let mcp = READ_ARTIFACT.to_mcp();
        assert_eq!(mcp["name"], json!("read_artifact"));
        assert_eq!(mcp["inputSchema"]["required"], json!(["filename"]));
        assert_eq!(
            WRITE_ARTIFACT.to_openai()["function"]["name"],
            json!("write_artifact")
        );
        assert_eq!(
            WRITE_ARTIFACT.to_anthropic()["input_schema"]["required"],
            json!(["name", "content"])
        );
    }

    #[test]
    fn workers_get_only_read_artifact() {
        let names = |c| artifact_tools(c).iter().map(|d| d.name).collect::<Vec<_>>();
        assert_eq!(names(true), ["write_artifact", "read_artifact"]);
        assert_eq!(names(false), ["read_artifact"]);
    }
}
