use serde_json::json;

use super::*;

fn names() -> ToolNames {
    ToolNames::new(Some("sp_"), ["schema".to_owned()]).unwrap()
}

#[test]
fn server_info_adds_the_tools_capability_and_one_instructions_line_only() {
    let mut result = json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {"logging": {}, "x-vendor": {"a": 1}},
        "serverInfo": {"name": "s", "version": "1"},
        "instructions": "Use carefully.",
        "x-extra": [1, 2],
    });
    server_info(&mut result, &names());
    assert_eq!(result["capabilities"]["tools"], json!({}));
    assert_eq!(result["capabilities"]["x-vendor"], json!({"a": 1}));
    assert_eq!(result["x-extra"], json!([1, 2]));
    let instructions = result["instructions"].as_str().unwrap();
    assert!(
        instructions.starts_with("Use carefully.\n\n"),
        "{instructions}"
    );
    assert!(instructions.contains("`sp_schema`"), "{instructions}");
}

#[test]
fn server_info_keeps_an_existing_tools_capability() {
    let mut result = json!({"capabilities": {"tools": {"listChanged": true}}});
    server_info(&mut result, &names());
    assert_eq!(
        result["capabilities"]["tools"],
        json!({"listChanged": true})
    );
}
