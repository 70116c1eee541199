//! Tests of `iterate_over`, kept beside the module in a file of their own.

use serde_json::{Value, json};

use super::split_fields;
use crate::json_tools::test_data::{pods, python, rows};
use crate::test_support::{Fixture, footer_summary, split};

const RESULTS: &str = r#"{"results": [
  {"id": 1, "title": "one", "body": "a\nb\nc\nd\ne\nf\ng"},
  {"id": 2, "title": "two", "tags": ["x"]},
  {"id": 3, "title": "three"},
  {"id": 4},
  {"id": 5, "title": "five"},
  {"id": 6, "title": "six"},
  {"id": 7, "title": "seven"}
]}"#;

fn results() -> Fixture {
    Fixture::new(&[("r.json", RESULTS.as_bytes())])
}

#[test]
fn iterate_over_windowed_footer_is_pinned() {
    let text = results().call(
        "iterate_over",
        json!({"file": "r.json", "path": "$.results", "fields": "id,title", "offset": 3, "limit": 4}),
    );
    let (body, footer) = split(&text);
    assert_eq!(
        body,
        "[\n  {\"_index\":3,\"id\":4,\"title\":null},\n  {\"_index\":4,\"id\":5,\"title\":\"five\"},\n  {\"_index\":5,\"id\":6,\"title\":\"six\"},\n  {\"_index\":6,\"id\":7,\"title\":\"seven\"}\n]"
    );
    assert_eq!(
        footer_summary(footer),
        "--- iterate_over: $.results (items [3..7) of 7 total, fields: [id,title])"
    );
}

#[test]
fn iterate_over_full_scan_footer_is_pinned() {
    let fixture = Fixture::new(&[(
        "two.json",
        br#"{"results": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]}"#,
    )]);
    let footer = fixture.footer(
        "iterate_over",
        json!({"file": "two.json", "path": "results", "fields": "id, title"}),
    );
    assert_eq!(
        footer_summary(&footer),
        "--- iterate_over: $.results (2 items, fields: [id,title])"
    );
}

#[test]
fn iterate_over_offset_past_end_returns_empty_array() {
    let text = results().call(
        "iterate_over",
        json!({"file": "r.json", "path": "$.results", "fields": "id", "offset": 50, "limit": 5}),
    );
    let (body, footer) = split(&text);
    assert_eq!(body, "[]");
    assert_eq!(
        footer_summary(footer),
        "--- iterate_over: $.results (items [50..50) of 7 total, fields: [id])"
    );
}

#[test]
fn iterate_over_rows_carry_sub_path_fields_and_null_for_missing() {
    let body = results().body(
        "iterate_over",
        json!({"file": "r.json", "path": "$.results", "fields": "tags[0],nope.deeper,[\"title\"]", "limit": 2}),
    );
    assert_eq!(
        rows(&body),
        [
            json!({"_index": 0, "tags[0]": null, "nope.deeper": null, "[\"title\"]": "one"}),
            json!({"_index": 1, "tags[0]": "x", "nope.deeper": null, "[\"title\"]": "two"}),
        ]
    );
}

#[test]
fn iterate_over_cuts_strings_over_5_lines_with_a_get_in_hint_naming_the_path() {
    let fixture = results();
    let text = fixture.call(
        "iterate_over",
        json!({"file": "r.json", "path": "$.results", "fields": "body", "limit": 1}),
    );
    let (body, footer) = split(&text);
    let cut = rows(body)[0]["body"].as_str().unwrap().to_owned();
    assert_eq!(
        cut,
        "a\nb\nc\nd\ne… [cut: 5 of 7 lines; get_in $.results[0].body reads it whole]"
    );
    assert!(footer.contains("; 1 long string was cut"), "{footer}");
    // The hint is a working call.
    let whole = fixture.body(
        "get_in",
        json!({"file": "r.json", "path": "$.results[0].body"}),
    );
    assert_eq!(whole, "1: a\n2: b\n3: c\n4: d\n5: e\n6: f\n7: g");
}

#[test]
fn iterate_over_without_fields_returns_whole_items() {
    let body = results().body(
        "iterate_over",
        json!({"file": "r.json", "path": "$.results", "offset": 1, "limit": 1}),
    );
    assert_eq!(
        rows(&body),
        [json!({"_index": 1, "id": 2, "title": "two", "tags": ["x"]})]
    );
    let scalars = Fixture::new(&[("s.json", b"[10, \"x\", null]")]);
    let body = scalars.body("iterate_over", json!({"file": "s.json", "path": "$"}));
    assert_eq!(
        rows(&body),
        [
            json!({"_index": 0, "value": 10}),
            json!({"_index": 1, "value": "x"}),
            json!({"_index": 2, "value": null})
        ]
    );
}

#[test]
fn iterate_over_errors_name_what_is_there() {
    let fixture = results();
    let error = fixture.error(
        "iterate_over",
        json!({"file": "r.json", "path": "$.results[0]"}),
    );
    assert_eq!(error["error"], "not_an_array");
    assert_eq!(error["value_type"], "object");
    let error = fixture.error(
        "iterate_over",
        json!({"file": "r.json", "path": "$.reslts"}),
    );
    assert_eq!(error["error"], "path_not_found");
    assert_eq!(error["available_keys"], json!(["results"]));
    let error = fixture.error(
        "iterate_over",
        json!({"file": "r.json", "path": "$.results", "limit": 0}),
    );
    assert_eq!(error["argument"], "limit");
    let error = fixture.error(
        "iterate_over",
        json!({"file": "r.json", "path": "$.results", "fields": "a[", "limit": 1}),
    );
    assert_eq!(error["argument"], "fields");
}

#[test]
fn fields_split_at_commas_outside_brackets() {
    assert_eq!(
        split_fields(r#"a, b["x,y"],c[0]"#),
        ["a", " b[\"x,y\"]", "c[0]"]
    );
    assert_eq!(split_fields("a"), ["a"]);
}

#[test]
fn index_rows_from_window_40_60_fed_to_get_in_return_the_same_items() {
    let Some(pods) = pods(80) else { return };
    let fixture = Fixture::new(&[("pods.json", pods.as_bytes())]);
    let body = fixture.body(
        "iterate_over",
        json!({"file": "pods.json", "path": "$.items", "fields": "metadata.name,metadata.uid", "offset": 40, "limit": 20}),
    );
    let rows = rows(&body);
    assert_eq!(rows.len(), 20);
    let all: Value = serde_json::from_str(&pods).unwrap();
    for row in rows {
        let index = row["_index"].as_u64().unwrap();
        assert!((40..60).contains(&index));
        let text = fixture.body(
            "get_in",
            json!({"file": "pods.json", "path": format!("$.items[{index}]")}),
        );
        let item: Value =
            serde_json::from_str(&crate::json_tools::test_data::unnumbered(&text)).unwrap();
        assert_eq!(item["metadata"]["name"], row["metadata.name"]);
        assert_eq!(item["metadata"]["uid"], row["metadata.uid"]);
        assert_eq!(item, all["items"][index as usize], "item {index}");
    }
}

#[test]
fn names_of_pods_with_restart_count_over_10_match_python() {
    let Some(pods) = pods(200) else { return };
    let fixture = Fixture::new(&[("pods.json", pods.as_bytes())]);
    let Some(expected) = python(
        &fixture.path().join("pods.json"),
        "print('\\n'.join(p['metadata']['name'] for p in data['items'] \
         if any(c['restartCount'] > 10 for c in p['status'].get('containerStatuses', []))))",
    ) else {
        return;
    };
    let body = fixture.body(
        "iterate_over",
        json!({"file": "pods.json", "path": "$.items", "fields": "metadata.name,status.containerStatuses[0].restartCount"}),
    );
    let ours: Vec<String> = rows(&body)
        .iter()
        .filter(|r| {
            r["status.containerStatuses[0].restartCount"]
                .as_u64()
                .is_some_and(|n| n > 10)
        })
        .map(|r| r["metadata.name"].as_str().unwrap().to_owned())
        .collect();
    assert!(!ours.is_empty(), "the sample has restarting pods");
    assert_eq!(ours.join("\n"), expected);
}

#[test]
fn iterate_over_too_large_leads_with_the_retry_over_half_the_window() {
    let Some(pods) = pods(200) else { return };
    let fixture = Fixture::new(&[("pods.json", pods.as_bytes())]);
    let error = fixture.error(
        "iterate_over",
        json!({"file": "pods.json", "path": "$.items", "offset": 10, "limit": 100}),
    );
    assert_eq!(error["error"], "iterate_over_too_large");
    assert_eq!(fixture.ctx.budget().tokens_extracted(), 0);
    let retry = &error["retry"];
    assert_eq!(retry["tool"], "iterate_over");
    assert_eq!(retry["arguments"]["offset"], 10);
    let limit = retry["arguments"]["limit"].as_u64().unwrap();
    assert!(
        limit < 100 && 100 % limit < limit,
        "a halving of 100: {limit}"
    );
    let suggestions: Vec<&str> = error["suggestions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(
        suggestions[0].starts_with("Run the `retry` call (the same walk over half the window)")
    );
    assert!(suggestions[1].starts_with("Ask for fewer fields"));
    assert!(suggestions[2].contains("get_in $.items[i]"));
    assert!(suggestions[3].starts_with("Use grep"));
    let retried = fixture.call("iterate_over", retry["arguments"].clone());
    assert!(
        retried.contains(&format!(
            "(items [10..{}) of 200 total, fields: whole items)",
            10 + limit
        )),
        "{retried}"
    );
}

#[test]
fn a_file_too_large_to_cache_is_windowed_in_one_streaming_pass() {
    let fixture = Fixture::new(&[("r.json", RESULTS.as_bytes())]);
    let small = std::sync::Arc::new(crate::cache::FileCache::new(64));
    let ctx = fixture.ctx.clone().with_cache(small);
    let text = crate::registry::Registry::new().dispatch_value(
        &ctx,
        "iterate_over",
        &json!({"file": "r.json", "path": "$.results", "fields": "id", "offset": 5, "limit": 5}),
    );
    let (body, footer) = split(&text);
    assert_eq!(
        rows(body),
        [json!({"_index": 5, "id": 6}), json!({"_index": 6, "id": 7})]
    );
    assert!(
        footer.contains("(items [5..7) of 7 total, fields: [id]); read in one streaming pass"),
        "{footer}"
    );
}

#[test]
fn a_100_kb_fields_argument_answers_within_the_cap_and_says_the_input_was_cut() {
    // Issue 22, item 6: the whole argument came back inside `iterate_over_too_large` (12,677
    // tokens, over the 10,000-token cap). Now it is refused up front, quoted cut.
    let fixture = results();
    let fields: String = (0..20_000).map(|i| format!("f{i},")).collect();
    assert!(fields.len() > 100_000);
    let text = fixture.call(
        "iterate_over",
        json!({"file": "r.json", "path": "$.results", "fields": fields}),
    );
    assert!(crate::test_support::counter().count(&text) <= 10_000);
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"], "invalid_argument");
    assert_eq!(error["argument"], "fields");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("argument `fields` is 128,890 bytes long, over the 4,096-byte limit (it starts `f0,f1,f2,"),
        "{message}"
    );
    assert!(message.contains("…(128826 more chars)`)"), "{message}");
    assert!(text.len() < 1_000, "{text}");
}

#[test]
fn one_row_too_large_for_the_cap_retries_as_the_schema_of_that_item() {
    // Issue 22, item 7: halving stopped at one row, and the retry offered was that row again.
    let item: serde_json::Map<String, Value> = (0..400)
        .map(|i| (format!("field{i}"), json!("x".repeat(300))))
        .collect();
    let doc = json!({"items": [item.clone(), item]}).to_string();
    let fixture = Fixture::with_budget(&[("fat.json", doc.as_bytes())], 128_000, 2_000, 0);
    let error = fixture.error(
        "iterate_over",
        json!({"file": "fat.json", "path": "$.items"}),
    );
    assert_eq!(error["error"], "iterate_over_too_large");
    assert_eq!(
        error["retry"],
        json!({"tool": "schema", "arguments": {"file": "fat.json", "max_depth": 2, "path": "$.items[0]"}})
    );
    let retried = fixture.call("schema", error["retry"]["arguments"].clone());
    assert!(retried.contains("--- schema: $.items[0]"), "{retried}");
}
