//! The tool-result contract on results as a relay holds them (inside a JSON-RPC response):
//! what passes byte for byte, what becomes a pointer, what a replaced result keeps, and that
//! a result held as text is judged as the same result held as a value.

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

/// A JSON-RPC response to `id` around `result`, and where the result is in it.
fn response_to(id: Value, result: &str) -> (String, Range<usize>) {
    let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"#);
    let start = head.len();
    (format!("{head}{result}}}"), start..start + result.len())
}

/// What `pad` sends for `result`, a response to `id`.
fn sent(pad: &Scratchpad, id: Value, result: &str) -> String {
    let (response, range) = response_to(id, result);
    pad.intercept_mcp_text("s", "t", response, Some(range))
}

fn long() -> String {
    "the quick brown fox jumps over the lazy dog\n".repeat(200)
}

#[test]
fn a_result_that_passes_is_the_text_as_sent() {
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
        let (response, range) = response_to(json!(3), &result);
        assert_eq!(
            pad.intercept_mcp_text("s", "t", response.clone(), Some(range)),
            response
        );
    }
}

#[test]
fn text_without_a_result_where_it_is_said_to_be_passes_as_it_came() {
    let (pad, _dir) = pad();
    let error = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}"#;
    for range in [None, Some(0..error.len() + 1), Some(3..9)] {
        assert_eq!(
            pad.intercept_mcp_text("s", "t", error.to_owned(), range),
            error
        );
    }
}

#[test]
fn a_replaced_result_keeps_its_other_fields_and_what_is_around_it_as_written() {
    let (pad, dir) = pad();
    let result = format!(
        r#"{{"content":[{{"type":"text","text":{}}}],"_meta":{{"m":1E2}},"x-vendor":[-0]}}"#,
        Value::from(long())
    );
    let response = format!(r#"{{ "result" : {result} , "id":"a","jsonrpc":"2.0"}}"#);
    let start = response.find(&result).unwrap();
    let sent = pad.intercept_mcp_text(
        "s",
        "t",
        response.clone(),
        Some(start..start + result.len()),
    );
    assert!(sent.starts_with(r#"{ "result" : {"content":[{"type":"text","text":"[overspill]"#));
    assert!(
        sent.ends_with(r#","_meta":{"m":1E2},"x-vendor":[-0]} , "id":"a","jsonrpc":"2.0"}"#),
        "{sent}"
    );
    let sent: Value = serde_json::from_str(&sent).unwrap();
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
    let sent = sent(&pad, json!(1), &result);
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
fn a_result_held_as_text_is_judged_as_the_same_result_held_as_a_value() {
    for result in [
        json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
        json!({"content": [{"type": "text", "text": "x\n\"y\" \u{e9}"}]}),
        json!({"content": [{"type": "text", "text": "x"}], "structuredContent": {"result": "x"}}),
        json!({"content": [{"type": "text", "text": "x"}], "structuredContent": {"a": [1, 2]}}),
        json!({"content": [{"type": "resource", "resource": {"uri": "file:///a", "text": "r"}}]}),
        json!({"content": [{"type": "resource", "resource": {"uri": "file:///a", "blob": "AA=="}}]}),
        json!({"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}),
        json!({"content": [{"type": "text", "text": 5}]}),
        json!({"content": null}),
        json!({"content": "x"}),
        json!({"structuredContent": {"a": 1}}),
        json!({"other": 1}),
        json!({"content": [], "isError": true}),
        json!({"content": [], "isError": "true"}),
        json!({"content": [], "task": {"taskId": "t"}}),
        json!({"content": [], "resultType": "complete"}),
        json!({"content": [], "resultType": "input_required"}),
        json!({"content": [], "resultType": null}),
    ] {
        let text = result.to_string();
        let (by_text, _) = Reading::of_text(&text).unwrap();
        let by_value = Reading::of_value(&result).unwrap();
        assert_eq!(by_text.is_final(), by_value.is_final(), "{result}");
        match (by_value.normalise(None), by_text.normalise(None)) {
            (Normalised::Store(a), Normalised::Store(b)) => assert_eq!(a, b, "{result}"),
            (Normalised::PassThrough(a), Normalised::PassThrough(b)) => {
                assert_eq!(a, b, "{result}");
            }
            (a, b) => panic!("{result}: {a:?} vs {b:?}"),
        }
    }
}

#[test]
fn a_text_block_without_escapes_is_stored_from_the_text_it_came_in() {
    let text = r#"{"content":[{"type":"text","text":"plain words"}]}"#;
    let (reading, _) = Reading::of_text(text).unwrap();
    assert!(matches!(
        reading.normalise(None),
        Normalised::Store(Cow::Borrowed("plain words"))
    ));
}

#[test]
fn a_complete_result_is_final_and_replaced() {
    let (pad, _dir) = pad();
    let result = format!(
        r#"{{"resultType":"complete","content":[{{"type":"text","text":{}}}]}}"#,
        Value::from(long())
    );
    let sent = sent(&pad, json!(2), &result);
    assert!(sent.contains("[overspill]"), "{sent}");
    assert!(sent.contains(r#""resultType":"complete""#), "{sent}");
}

#[test]
fn a_created_task_is_named_by_its_id() {
    let handle = r#"{"task":{"taskId":"t-9","status":"working"}}"#;
    assert_eq!(created_task(handle).as_deref(), Some("t-9"));
    assert_eq!(created_task(r#"{"content":[]}"#), None);
}

#[test]
fn a_result_overspill_writes_says_complete_only_for_a_revision_that_asks() {
    let answer = ToolResult::text("3 matches");
    assert_eq!(
        answer.clone().into_value(),
        json!({"content": [{"type": "text", "text": "3 matches"}]})
    );
    assert_eq!(
        answer.written_for(ResultType::Stated).to_json().unwrap(),
        r#"{"content":[{"type":"text","text":"3 matches"}],"resultType":"complete"}"#
    );
    let asked = json!({"resultType": "input_required"});
    assert_eq!(ResultType::Stated.complete(asked.clone()), asked);
    assert_eq!(ResultType::Implicit.complete(json!([1])), json!([1]));
}

#[test]
fn a_replacement_keeps_members_in_order_and_never_writes_one_twice() {
    let members: Members = serde_json::from_str(
        r#"{"resultType":"complete","content":[],"isError":false,"_meta":{}}"#,
    )
    .unwrap();
    let written = ToolResult::text("p")
        .with_error(true)
        .written_for(ResultType::Stated)
        .keeping(kept(&members))
        .to_json()
        .unwrap();
    assert_eq!(
        written,
        r#"{"content":[{"type":"text","text":"p"}],"resultType":"complete","isError":false,"_meta":{}}"#
    );
}
