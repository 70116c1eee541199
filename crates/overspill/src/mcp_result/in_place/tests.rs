use serde_json::{Value, json};

use super::*;

/// A response to id 7 with `result`, padded past [`IN_PLACE_BYTES`] with a long text.
fn large(result: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": 7, "result": result}).to_string()
}

fn long_text() -> String {
    "a\n\"b\" \u{e9} 😀 ".repeat(IN_PLACE_BYTES / 8)
}

#[test]
fn one_text_block_is_taken_and_written_anew_as_the_same_value() {
    let result = json!({"content": [{"type": "text", "text": long_text(), "annotations": {"p": 1}}],
                            "_meta": {"m": 1}, "x-vendor": [1]});
    let response = large(&result);
    let taken = take(response.clone()).ok().unwrap();
    assert_eq!(taken.text, long_text());
    let again: Value = serde_json::from_str(&taken.written_anew()).unwrap();
    assert_eq!(again, serde_json::from_str::<Value>(&response).unwrap());
}

#[test]
fn other_shapes_and_short_responses_are_given_back_unchanged() {
    let text = long_text();
    for result in [
        json!({"content": [{"type": "text", "text": text}, {"type": "text", "text": "b"}]}),
        json!({"content": [{"type": "image", "data": text, "mimeType": "image/png"}]}),
        json!({"content": [{"type": "text", "text": text}], "structuredContent": {"a": 1}}),
        json!({"content": [{"type": "text", "text": "short"}]}),
    ] {
        let response = large(&result);
        assert_eq!(take(response.clone()).err(), Some(response));
    }
    let lone_surrogate = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"\ud800x{}"}}]}}}}"#,
        "x".repeat(IN_PLACE_BYTES)
    );
    assert!(take(lone_surrogate).is_err());
}
