use serde_json::{Value, json};

use super::*;
use crate::Scratchpad;
use crate::mcp_result::Reading;

/// A pad that intercepts every tool from `min_tokens`, in a fresh directory.
fn pad(min_tokens: u64) -> (Scratchpad, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .context_window(128_000)
        .intercept_all(min_tokens)
        .build()
        .unwrap();
    (pad, dir)
}

/// A response to id 7 with `result` (after `"id"`, so the envelope's end is after it too), and
/// where the result is in it.
fn large(result: &Value) -> (String, Range<usize>) {
    let head = r#"{"jsonrpc": "2.0", "result": "#;
    let result = result.to_string();
    let response = format!(r#"{head}{result}, "id": 7}}"#);
    (response, head.len()..head.len() + result.len())
}

/// Past [`IN_PLACE_BYTES`], with escapes (a newline, quotes) and non-ASCII text.
fn long_text() -> String {
    "a\n\"b\" \u{e9} 😀 ".repeat(IN_PLACE_BYTES / 8)
}

fn plan_of(response: &str, range: Range<usize>) -> Option<Plan> {
    let (reading, members) = Reading::of_text(&response[range])?;
    match reading.to_store() {
        Ok(super::super::Stored::Texts(pieces)) => Plan::of(response, &pieces, &members),
        _ => None,
    }
}

#[test]
fn one_large_escaped_text_block_is_stored_and_its_result_replaced_in_the_same_envelope() {
    let (pad, _dir) = pad(50);
    let result = json!({"content": [{"type": "text", "text": long_text()}], "_meta": {"m": 1}});
    let (response, range) = large(&result);
    assert!(plan_of(&response, range.clone()).is_some());
    let sent = pad.intercept_mcp_text("s", "t", response, Some(range));
    assert!(
        sent.starts_with(
            r#"{"jsonrpc": "2.0", "result": {"content":[{"type":"text","text":"[overspill]"#
        ),
        "{}",
        &sent[..200]
    );
    assert!(sent.ends_with(r#","_meta":{"m":1}}, "id": 7}"#), "{sent}");
}

#[test]
fn a_decoded_block_that_passes_is_written_anew_as_the_same_value_in_the_same_envelope() {
    let (pad, _dir) = pad(u64::MAX / 2);
    let result = json!({"content": [{"type": "text", "text": long_text(), "annotations": {"p": 1}}],
                            "_meta": {"m": 1}, "x-vendor": [1]});
    let (response, range) = large(&result);
    let sent = pad.intercept_mcp_text("s", "t", response.clone(), Some(range.clone()));
    assert_eq!(&sent[..range.start], &response[..range.start]);
    assert!(sent.ends_with(r#", "id": 7}"#));
    let again: Value = serde_json::from_str(&sent).unwrap();
    assert_eq!(again, serde_json::from_str::<Value>(&response).unwrap());
}

#[test]
fn a_large_result_that_passes_before_it_is_decoded_goes_out_as_it_came() {
    let (pad, _dir) = pad(50);
    let dir = tempfile::tempdir().unwrap();
    let unwatched = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .context_window(128_000)
        .build()
        .unwrap();
    let error = json!({"content": [{"type": "text", "text": long_text()}], "isError": true});
    let escaped = json!({"content": [{"type": "text", "text": long_text()}]});
    for (pad, result) in [(&pad, &error), (&unwatched, &escaped)] {
        let (response, range) = large(result);
        let sent = pad.intercept_mcp_text("s", "t", response.clone(), Some(range));
        assert!(sent == response, "passes byte for byte");
    }
}

#[test]
fn other_shapes_short_texts_and_texts_without_escapes_are_not_decoded_in_place() {
    let text = long_text();
    for result in [
        json!({"content": [{"type": "text", "text": text}, {"type": "text", "text": "b"}]}),
        json!({"content": [{"type": "image", "data": text, "mimeType": "image/png"}]}),
        json!({"content": [{"type": "text", "text": text}], "structuredContent": {"a": 1}}),
        json!({"content": [{"type": "text", "text": "short\n"}]}),
        json!({"content": [{"type": "text", "text": "x".repeat(IN_PLACE_BYTES)}]}),
    ] {
        let (response, range) = large(&result);
        assert!(plan_of(&response, range).is_none());
    }
    let lone_surrogate = format!(
        r#"{{"content":[{{"type":"text","text":"\ud800x{}"}}]}}"#,
        "x".repeat(IN_PLACE_BYTES)
    );
    assert!(plan_of(&lone_surrogate, 0..lone_surrogate.len()).is_none());
}

#[test]
fn a_text_block_whose_escapes_do_not_decode_passes_as_it_came() {
    let (pad, _dir) = pad(50);
    let response = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"\ud800x{}"}}]}}}}"#,
        "x".repeat(IN_PLACE_BYTES)
    );
    let start = response.find(r#"{"content""#).unwrap();
    let range = start..response.len() - 1;
    assert_eq!(
        pad.intercept_mcp_text("s", "t", response.clone(), Some(range)),
        response
    );
}
