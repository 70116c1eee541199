use overspill_explore::{Definition, args};
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

fn coordinator() -> Registry {
    with_artifact_tools(Registry::none(), None, true)
}

#[test]
fn schemas_are_closed_and_match_the_argument_structs() {
    let definitions = coordinator().definitions();
    assert_eq!(
        properties(definitions[0]),
        args::accepted::<WriteArtifactArgs>()
    );
    assert_eq!(
        properties(definitions[1]),
        args::accepted::<ReadArtifactArgs>()
    );
    for definition in definitions {
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
    let registry = coordinator();
    let mcp = &registry.mcp_tools()[1];
    assert_eq!(mcp["name"], json!("read_artifact"));
    assert_eq!(mcp["inputSchema"]["required"], json!(["filename"]));
    assert_eq!(
        registry.openai_tools()[0]["function"]["name"],
        json!("write_artifact")
    );
    assert_eq!(
        registry.anthropic_tools()[0]["input_schema"]["required"],
        json!(["name", "content"])
    );
}

#[test]
fn workers_get_only_read_artifact() {
    let worker = with_artifact_tools(Registry::new(), None, false);
    let names = worker.names();
    assert_eq!(names.last(), Some(&"read_artifact"));
    assert!(!names.contains(&"write_artifact"), "{names:?}");
    assert_eq!(worker.exploration_names(), Registry::new().names());
    assert_eq!(coordinator().names(), ["write_artifact", "read_artifact"]);
    assert!(coordinator().exploration_names().is_empty());
}

#[test]
fn the_artifact_tools_answer_through_the_registry_with_persistence_off() {
    let registry = coordinator();
    let read = registry.answer(None, "read_artifact", &json!({"filename": "a.txt"}));
    assert!(read.contains(r#""found":false"#), "{read}");
    let written = registry.answer(
        None,
        "write_artifact",
        &json!({"name": "a", "content": "b"}),
    );
    assert!(written.contains(r#""written":false"#), "{written}");
    let unknown = registry.answer(None, "grep", &json!({}));
    assert!(
        unknown
            .contains("there is no tool `grep` here; the tools are: write_artifact, read_artifact"),
        "{unknown}"
    );
}

/// A host tool is one unit: what the registry lists and how it reads a call come from the
/// tool's own impl and `Args` type, with no other place to edit.
fn assert_one_unit<T: overspill_explore::HostTool>(registry: &Registry) {
    let definition = registry.definition(T::NAME).unwrap();
    assert_eq!(definition.description, T::DESCRIPTION);
    assert_eq!(definition.input_schema(), *args::schema::<T::Args>());
    let refused = registry.answer(None, T::NAME, &json!({"no_such_argument": 1}));
    let accepted = args::accepted::<T::Args>().join(", ");
    assert!(refused.contains(&accepted), "{refused}");
}

#[test]
fn read_artifact_is_one_unit() {
    assert_one_unit::<crate::read::ReadArtifact>(&coordinator());
}

#[test]
fn write_artifact_is_one_unit() {
    assert_one_unit::<crate::write::WriteArtifact>(&coordinator());
}
