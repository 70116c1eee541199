use serde_json::json;

use super::*;

fn stored(output: &ToolOutput) -> String {
    match output.normalise(None) {
        Normalised::Store(text) => text.into_owned(),
        Normalised::PassThrough(why) => panic!("passed through: {why}"),
    }
}

#[test]
fn structured_content_is_stored_as_that_json() {
    let output = ToolOutput::mcp(json!({
        "content": [{"type": "text", "text": "3 pods"}],
        "structuredContent": {"items": [1, 2, 3]},
    }));
    assert_eq!(stored(&output), r#"{"items":[1,2,3]}"#);
}

#[test]
fn text_blocks_are_joined_with_a_newline() {
    let output = ToolOutput::mcp(json!({"content": [
        {"type": "text", "text": "first"},
        {"type": "resource", "resource": {"uri": "file:///x", "text": "second"}},
        {"type": "text", "text": "third"},
    ]}));
    assert_eq!(stored(&output), "first\nsecond\nthird");
}

#[test]
fn a_single_json_text_block_is_that_json() {
    let output = ToolOutput::mcp(json!({"content": [{"type": "text", "text": "{\"a\": [1, 2]}"}]}));
    assert_eq!(stored(&output), "{\"a\": [1, 2]}");
}

#[test]
fn image_audio_blob_and_link_blocks_pass_through() {
    for block in [
        json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}),
        json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}),
        json!({"type": "resource", "resource": {"uri": "file:///a.bin", "blob": "AAEC"}}),
        json!({"type": "resource_link", "uri": "file:///a.txt", "name": "a"}),
    ] {
        let output = ToolOutput::mcp(json!({
            "content": [{"type": "text", "text": "caption"}, block],
            "structuredContent": {"x": 1},
        }));
        assert!(
            matches!(output.normalise(None), Normalised::PassThrough(_)),
            "{block}"
        );
    }
}

#[test]
fn shapes_that_are_not_a_call_tool_result_pass_through() {
    for value in [json!([1, 2]), json!({"content": "x"}), json!({"other": 1})] {
        let output = ToolOutput::mcp(value.clone());
        assert!(
            matches!(output.normalise(None), Normalised::PassThrough(_)),
            "{value}"
        );
    }
}

#[test]
fn the_persistence_footer_is_cut_from_the_end() {
    let marker = "\n\n[Tool output saved to artifact: ";
    let output = ToolOutput::text("payload\n\n[Tool output saved to artifact: `a.txt`]");
    assert_eq!(
        output.normalise(Some(marker)),
        Normalised::Store(Cow::Borrowed("payload"))
    );
    let blocks = ToolOutput::mcp(json!({"content": [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b\n\n[Tool output saved to artifact: `x`]"},
    ]}));
    assert_eq!(
        blocks.normalise(Some(marker)),
        Normalised::Store(Cow::Borrowed("a\nb"))
    );
    let without = ToolOutput::text("no footer here");
    assert_eq!(
        without.normalise(Some(marker)),
        Normalised::Store(Cow::Borrowed("no footer here"))
    );
}

#[test]
fn is_error_comes_from_the_result_or_the_host() {
    assert!(ToolOutput::mcp(json!({"content": [], "isError": true})).is_error());
    assert!(!ToolOutput::mcp(json!({"content": [], "isError": false})).is_error());
    assert!(!ToolOutput::text("x").is_error());
    assert!(ToolOutput::text("x").with_error(true).is_error());
}

#[test]
fn a_text_output_converts_to_a_call_tool_result() {
    assert_eq!(
        ToolOutput::text("boom").with_error(true).into_mcp(),
        json!({"content": [{"type": "text", "text": "boom"}], "isError": true})
    );
}

#[test]
fn an_mcp_result_that_is_not_final_must_pass_as_an_error_does() {
    let text = json!([{"type": "text", "text": "x".repeat(100)}]);
    for result in [
        json!({"content": text, "isError": true}),
        json!({"content": text, "task": {"taskId": "t-1"}}),
        json!({"content": text, "resultType": "input_required"}),
    ] {
        assert!(ToolOutput::mcp(result.clone()).must_pass(), "{result}");
    }
    let complete = json!({"content": text, "resultType": "complete"});
    assert!(!ToolOutput::mcp(complete.clone()).must_pass());
    // The host's word on whether it is an error comes first.
    let flagged = json!({"content": text, "isError": true});
    assert!(!ToolOutput::mcp(flagged).with_error(false).must_pass());
    assert!(ToolOutput::mcp(complete).with_error(true).must_pass());
    assert!(!ToolOutput::text("x").must_pass());
}
