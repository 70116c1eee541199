//! The tool-result contract on responses as a relay holds them: what passes byte for byte,
//! what becomes a pointer, and what a replaced result keeps.

use serde_json::{Value, json};

use super::*;
use crate::Scratchpad;

/// A pad that intercepts every tool from 50 tokens, in a fresh directory.
fn pad() -> (Scratchpad, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .context_window(128_000)
        .intercept_all(50)
        .build()
        .unwrap();
    (pad, dir)
}

fn response_to(id: Value, result: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

fn long() -> String {
    "the quick brown fox jumps over the lazy dog\n".repeat(200)
}

#[test]
fn a_result_that_passes_is_the_response_as_sent() {
    let (pad, _dir) = pad();
    for result in [
        r#"{"content":[{"type":"text","text":"short"}],"x-vendor":1e400}"#.to_owned(),
        format!(
            r#"{{"isError":true,"content":[{{"type":"text","text":{}}}]}}"#,
            Value::from(long())
        ),
        format!(
            r#"{{"resultType":"input_required","content":[{{"type":"text","text":{}}}]}}"#,
            Value::from(long())
        ),
        r#"{"task":{"taskId":"t-1","status":"working"}}"#.to_owned(),
        format!(
            r#"{{"content":[{{"type":"image","data":{},"mimeType":"image/png"}}]}}"#,
            Value::from(long())
        ),
    ] {
        let response = response_to(json!(3), &result);
        assert_eq!(
            pad.intercept_mcp_response("s", "t", response.clone()),
            response
        );
    }
}

#[test]
fn a_replaced_result_keeps_its_other_fields_as_written() {
    let (pad, dir) = pad();
    let result = format!(
        r#"{{"content":[{{"type":"text","text":{}}}],"_meta":{{"m":1E2}},"x-vendor":[-0]}}"#,
        Value::from(long())
    );
    let sent = pad.intercept_mcp_response("s", "t", response_to(json!("a"), &result));
    assert!(
        sent.contains(r#""_meta":{"m":1E2},"x-vendor":[-0]"#),
        "{sent}"
    );
    let sent: Value = serde_json::from_str(&sent).unwrap();
    assert_eq!(sent["id"], "a");
    let pointer = sent["result"]["content"][0]["text"].as_str().unwrap();
    assert!(pointer.starts_with("[overspill]"), "{pointer}");
    assert!(sent["result"].get("structuredContent").is_none());
    assert!(std::fs::read_dir(dir.path()).unwrap().count() > 0);
}

#[test]
fn structured_content_is_stored_with_every_number_as_written() {
    let (pad, dir) = pad();
    let numbers = format!("[1e400,{},-0,1.0,1E2]", "9".repeat(5_000));
    let result = format!(
        r#"{{"content":[{{"type":"text","text":"n"}}],"structuredContent":{{"v":{numbers},"pad":{}}}}}"#,
        Value::from(long())
    );
    let sent = pad.intercept_mcp_response("s", "t", response_to(json!(1), &result));
    assert!(sent.contains("[overspill]"), "{sent}");
    let stored = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|entry| entry.path().extension().is_some_and(|e| e == "json"))
        .map(|entry| std::fs::read_to_string(entry.path()).unwrap())
        .collect::<String>();
    for number in ["1e400", "-0", "1.0", "1E2", &"9".repeat(5_000)] {
        assert!(
            stored.contains(number),
            "keeps {}",
            &number[..number.len().min(8)]
        );
    }
}

#[test]
fn a_result_held_as_text_follows_the_same_rules_as_a_value() {
    for result in [
        json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
        json!({"content": [{"type": "text", "text": "x"}], "structuredContent": {"result": "x"}}),
        json!({"content": [{"type": "text", "text": "x"}], "structuredContent": {"a": [1, 2]}}),
        json!({"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}),
        json!({"content": null}),
        json!({"other": 1}),
    ] {
        let text = result.to_string();
        let fields: Fields = serde_json::from_str(&text).unwrap();
        let by_text = normalise_text(
            fields.get("content").copied(),
            fields.get("structuredContent").copied(),
            None,
        );
        match (normalise(&result, None), by_text) {
            (Normalised::Store(a), Normalised::Store(b)) => assert_eq!(a, b, "{result}"),
            (Normalised::PassThrough(_), Normalised::PassThrough(_)) => {}
            (a, b) => panic!("{result}: {a:?} vs {b:?}"),
        }
    }
}

#[test]
fn a_complete_result_is_final_and_replaced() {
    let (pad, _dir) = pad();
    let result = format!(
        r#"{{"resultType":"complete","content":[{{"type":"text","text":{}}}]}}"#,
        Value::from(long())
    );
    let sent = pad.intercept_mcp_response("s", "t", response_to(json!(2), &result));
    assert!(sent.contains("[overspill]"), "{sent}");
    assert!(sent.contains(r#""resultType":"complete""#), "{sent}");
}

#[test]
fn a_created_task_is_named_by_its_id() {
    let response = response_to(json!(1), r#"{"task":{"taskId":"t-9","status":"working"}}"#);
    assert_eq!(created_task(&response).as_deref(), Some("t-9"));
    assert_eq!(
        created_task(&response_to(json!(1), r#"{"content":[]}"#)),
        None
    );
}
