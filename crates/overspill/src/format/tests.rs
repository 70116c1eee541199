use super::*;

#[test]
fn formats_parse_case_insensitively_and_reject_others() {
    for format in ToolFormat::ALL {
        assert_eq!(format.as_str().to_uppercase().parse(), Ok(format));
    }
    assert!("openapi".parse::<ToolFormat>().is_err());
}

#[test]
fn each_format_has_its_own_schema_key() {
    let key = |format| tool_definitions(format)[0].clone();
    assert!(key(ToolFormat::Mcp)["inputSchema"].is_object());
    assert!(key(ToolFormat::Anthropic)["input_schema"].is_object());
    assert!(key(ToolFormat::OpenAi)["function"]["parameters"].is_object());
}
