use serde_json::json;

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
