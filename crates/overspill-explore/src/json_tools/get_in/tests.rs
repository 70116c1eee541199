//! Tests of `get_in`, kept beside the module in a file of their own.

use serde_json::{Value, json};

use crate::json_tools::test_data::{deep_arrays, deep_objects, pods, unnumbered};
use crate::test_support::{Fixture, footer_summary, split};

const DOC: &str = "{\n  \"kind\": \"List\",\n  \"items\": [\n    {\n      \"name\": \"a\",\n      \"log\": \"l1\\nl2\\nl3\\nl4\\nl5\"\n    },\n    {\"name\": \"b\"}\n  ],\n  \"n\": 3\n}\n";

fn doc() -> Fixture {
    Fixture::new(&[("doc.json", DOC.as_bytes())])
}

#[test]
fn get_in_shows_pretty_json_numbered_with_the_file_lines() {
    let text = doc().call("get_in", json!({"file": "doc.json", "path": "$.items[0]"}));
    let (body, footer) = split(&text);
    assert_eq!(
        body,
        "4: {\n5:   \"name\": \"a\",\n6:   \"log\": \"l1\\nl2\\nl3\\nl4\\nl5\"\n7: }"
    );
    assert_eq!(
        footer_summary(footer),
        "--- get_in: $.items[0] (object(2 keys), lines 4-7)"
    );
    let scalar = doc().footer("get_in", json!({"file": "doc.json", "path": "n"}));
    assert_eq!(footer_summary(&scalar), "--- get_in: $.n (number, line 10)");
}

#[test]
fn get_in_numbers_match_slice_on_a_two_space_pretty_file() {
    let Some(pods) = pods(5) else { return };
    let value: Value = serde_json::from_str(&pods).unwrap();
    let stored = serde_json::to_string_pretty(&value).unwrap();
    let fixture = Fixture::new(&[("pods.json", stored.as_bytes())]);
    let body = fixture.body(
        "get_in",
        json!({"file": "pods.json", "path": "$.items[2].status"}),
    );
    let first: u64 = body
        .lines()
        .next()
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let last: u64 = body
        .lines()
        .last()
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let sliced = fixture.body(
        "slice",
        json!({"file": "pods.json", "start": first, "end": last}),
    );
    // The same lines, except that the value's first line in the file starts with its key.
    let ours: Vec<&str> = body.lines().skip(1).collect();
    let theirs: Vec<&str> = sliced.lines().skip(1).collect();
    let strip = |l: &&str| {
        l.trim_start()
            .split_once(": ")
            .map(|(_, t)| t.trim().trim_end_matches(',').to_owned())
    };
    assert_eq!(
        ours.iter().map(strip).collect::<Vec<_>>(),
        theirs.iter().map(strip).collect::<Vec<_>>()
    );
}

#[test]
fn get_in_pages_a_string_value_by_line_with_the_footer_form() {
    let fixture = doc();
    let text = fixture.call(
        "get_in",
        json!({"file": "doc.json", "path": "$.items[0].log", "offset": 1, "limit": 3}),
    );
    let (body, footer) = split(&text);
    assert_eq!(body, "2: l2\n3: l3\n4: l4");
    assert_eq!(
        footer_summary(footer),
        "--- get_in: $.items[0].log (string, lines 2-4 of 5)"
    );
    let whole = fixture.footer(
        "get_in",
        json!({"file": "doc.json", "path": "$.items[0].log"}),
    );
    assert_eq!(
        footer_summary(&whole),
        "--- get_in: $.items[0].log (string, lines 1-5 of 5)"
    );
}

#[test]
fn get_in_string_pages_default_to_100_lines() {
    let lines: Vec<String> = (1..=250).map(|i| format!("line {i}")).collect();
    let doc = json!({"log": lines.join("\n")}).to_string();
    let fixture = Fixture::new(&[("log.json", doc.as_bytes())]);
    let text = fixture.call("get_in", json!({"file": "log.json", "path": "log"}));
    let (body, footer) = split(&text);
    assert_eq!(body.lines().count(), 100);
    assert_eq!(
        footer_summary(footer),
        "--- get_in: $.log (string, lines 1-100 of 250)"
    );
    let last = fixture.footer(
        "get_in",
        json!({"file": "log.json", "path": "log", "offset": 200}),
    );
    assert_eq!(
        footer_summary(&last),
        "--- get_in: $.log (string, lines 201-250 of 250)"
    );
}

#[test]
fn get_in_offset_past_the_end_of_a_string_is_offset_out_of_range() {
    let error = doc().error(
        "get_in",
        json!({"file": "doc.json", "path": "$.items[0].log", "offset": 5}),
    );
    assert_eq!(error["error"], "offset_out_of_range");
    assert_eq!(error["argument"], "offset");
    assert_eq!(error["offset"], 5);
    assert_eq!(error["total"], 5);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("has 5 lines (offsets 0 to 4)")
    );
}

#[test]
fn get_in_missing_path_reports_valid_prefix_failed_segment_and_keys() {
    let fixture = doc();
    let error = fixture.error(
        "get_in",
        json!({"file": "doc.json", "path": "$.items[1].nme"}),
    );
    assert_eq!(
        error,
        json!({
            "error": "path_not_found",
            "path": "$.items[1].nme",
            "valid_prefix": "$.items[1]",
            "failed_segment": "nme",
            "available_keys": ["name"],
            "message": "$.items[1].nme does not exist: $.items[1] has no key `nme`; its keys are in available_keys. Call schema to see the structure."
        })
    );
    let error = fixture.error("get_in", json!({"file": "doc.json", "path": "items.9"}));
    assert_eq!(
        (
            error["failed_segment"].clone(),
            error["array_length"].clone()
        ),
        (json!("[9]"), json!(2))
    );
    let error = fixture.error("get_in", json!({"file": "doc.json", "path": "$.n.x"}));
    assert_eq!(error["value_type"], "number");
    let error = fixture.error("get_in", json!({"file": "doc.json", "path": "$.items[x]"}));
    assert_eq!(error["error"], "invalid_argument");
    assert!(
        error["message"].as_str().unwrap().contains("at `[x]`"),
        "{error}"
    );
}

#[test]
fn available_keys_are_cut_at_50_with_a_count() {
    let object: serde_json::Map<String, Value> =
        (0..120).map(|i| (format!("k{i}"), json!(i))).collect();
    let fixture = Fixture::new(&[("wide.json", Value::Object(object).to_string().as_bytes())]);
    let error = fixture.error("get_in", json!({"file": "wide.json", "path": "$.nope"}));
    assert_eq!(error["available_keys"].as_array().unwrap().len(), 50);
    assert_eq!(error["key_count"], 120);
}

#[test]
fn get_in_on_a_one_line_file_says_why_numbers_repeat() {
    let fixture = Fixture::new(&[("c.json", br#"{"a": {"b": [1, 2]}}"#)]);
    let text = fixture.call("get_in", json!({"file": "c.json", "path": "$.a"}));
    let (body, footer) = split(&text);
    assert_eq!(
        body,
        "1: {\n1:   \"b\": [\n1:     1,\n1:     2\n1:   ]\n1: }"
    );
    assert!(
        footer.contains("the file holds this value on one line (L1)"),
        "{footer}"
    );
}

#[test]
fn get_in_offset_on_an_array_points_to_iterate_over() {
    let error = doc().error(
        "get_in",
        json!({"file": "doc.json", "path": "$.items", "limit": 1}),
    );
    assert_eq!(error["argument"], "limit");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("use iterate_over with path $.items")
    );
}

#[test]
fn get_in_too_large_array_retries_with_iterate_over() {
    let Some(pods) = pods(200) else { return };
    let fixture = Fixture::new(&[("pods.json", pods.as_bytes())]);
    let error = fixture.error("get_in", json!({"file": "pods.json", "path": "$.items"}));
    assert_eq!(error["error"], "get_in_too_large");
    assert_eq!(error["retry"]["tool"], "iterate_over");
    let retried = fixture.call("iterate_over", error["retry"]["arguments"].clone());
    assert!(!retried.starts_with("{\"error\""), "{retried}");
}

#[test]
fn get_in_on_100_000_deep_nesting_returns_with_truncation() {
    for (name, doc) in [
        ("arrays.json", deep_arrays(100_000)),
        ("objects.json", deep_objects(100_000)),
    ] {
        let fixture = Fixture::new(&[(name, doc.as_bytes())]);
        let text = fixture.call("get_in", json!({"file": name, "path": "$"}));
        let (body, footer) = split(&text);
        assert!(body.contains("…truncated: "), "{name}");
        assert!(
            footer.contains("nesting deeper than 64 levels is cut"),
            "{footer}"
        );
        assert!(
            serde_json::from_str::<Value>(&unnumbered(body)).is_ok(),
            "{name}: still JSON"
        );
    }
}

#[test]
fn get_in_on_a_text_file_is_not_json() {
    let fixture = Fixture::new(&[("notes.md", b"# Title\ntext\n")]);
    let error = fixture.error("get_in", json!({"file": "notes.md", "path": "$"}));
    assert_eq!(
        (error["error"].clone(), error["format"].clone()),
        (json!("not_json"), json!("markdown"))
    );
    let broken = Fixture::new(&[("b.json", b"{\"a\": 1,}")]);
    let error = broken.error("get_in", json!({"file": "b.json", "path": "$"}));
    assert_eq!(error["error"], "not_json");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("line 1, column 9"),
        "{error}"
    );
}

#[test]
fn get_in_of_a_number_with_100_000_digits_is_cut_to_fit_with_a_slice_to_read_on() {
    // Issue 22, item 7: the number was refused whole, and its retry was the same call.
    let doc = format!("{{\"n\": 1{}}}", "7".repeat(100_000));
    let fixture = Fixture::with_budget(&[("n.json", doc.as_bytes())], 128_000, 1_500, 0);
    let text = fixture.call("get_in", json!({"file": "n.json", "path": "$.n"}));
    let (body, footer) = split(&text);
    assert!(body.starts_with("1: 1777"), "{body}");
    assert!(body.contains("… [line 1 cut: chars 0.."), "{body}");
    assert!(footer.contains("line 1 was cut to fit"), "{footer}");
}
