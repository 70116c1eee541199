use super::*;

fn read_definition() -> &'static Definition {
    crate::registry::Registry::new().definition("read").unwrap()
}

#[test]
fn every_schema_is_a_closed_object_whose_required_keys_exist() {
    for definition in crate::registry::tools() {
        let schema = definition.input_schema();
        assert_eq!(schema["type"], "object", "{}", definition.name);
        assert_eq!(schema["additionalProperties"], false, "{}", definition.name);
        let properties = schema["properties"].as_object().unwrap();
        assert!(properties.contains_key("file"), "{}", definition.name);
        for required in schema["required"].as_array().unwrap() {
            assert!(
                properties.contains_key(required.as_str().unwrap()),
                "{}",
                definition.name
            );
        }
    }
}

#[test]
fn names_are_unique_and_descriptions_are_one_paragraph() {
    let mut names: Vec<_> = crate::registry::tools().iter().map(|d| d.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 9);
    for definition in crate::registry::tools() {
        assert!(
            !definition.description.contains('\n'),
            "{}",
            definition.name
        );
        assert!(definition.description.len() > 120, "{}", definition.name);
    }
}

#[test]
fn export_formats_are_pinned() {
    let read = read_definition();
    assert_eq!(
        read.to_mcp(),
        json!({"name": "read", "description": read.description, "inputSchema": {
            "type": "object",
            "properties": {"file": {"type": "string", "description": crate::args::FILE}},
            "required": ["file"],
            "additionalProperties": false,
        }})
    );
    assert_eq!(read.to_openai()["type"], "function");
    assert_eq!(
        read.to_openai()["function"]["parameters"],
        read.input_schema()
    );
    assert_eq!(read.to_openai()["function"]["name"], "read");
    assert_eq!(read.to_anthropic()["input_schema"], read.input_schema());
    assert_eq!(read.to_anthropic()["name"], "read");
}
