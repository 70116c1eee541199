//! Tests of `query`, kept beside the module in a file of their own.

use serde_json::json;

use crate::json_tools::test_data::{deep_arrays, pods, python};
use crate::test_support::{Fixture, footer_summary, split};

#[test]
fn query_select_failed_names_matches_python() {
    let Some(pods) = pods(200) else { return };
    let fixture = Fixture::new(&[("pods.json", pods.as_bytes())]);
    let Some(expected) = python(
        &fixture.path().join("pods.json"),
        "print('\\n'.join(json.dumps(p['metadata']['name']) for p in data['items'] \
         if p['status']['phase'] == 'Failed'))",
    ) else {
        return;
    };
    let text = fixture.call(
        "query",
        json!({"file": "pods.json", "filter": ".items[] | select(.status.phase==\"Failed\") | .metadata.name"}),
    );
    let (body, footer) = split(&text);
    assert!(!expected.is_empty(), "the sample has failed pods");
    assert_eq!(body, expected);
    let n = expected.lines().count();
    assert_eq!(
        footer_summary(footer),
        format!(
            "--- query: .items[] | select(.status.phase==\"Failed\") | .metadata.name ({n} results)"
        )
    );
}

#[test]
fn count_of_failed_pods_matches_python() {
    let Some(pods) = pods(200) else { return };
    let fixture = Fixture::new(&[("pods.json", pods.as_bytes())]);
    let Some(expected) = python(
        &fixture.path().join("pods.json"),
        "print(sum(1 for p in data['items'] if p['status']['phase'] == 'Failed'))",
    ) else {
        return;
    };
    let body = fixture.body(
        "query",
        json!({"file": "pods.json", "filter": "[.items[] | select(.status.phase == \"Failed\")] | length"}),
    );
    assert_eq!(body, expected);
    // The same count from iterate_over rows.
    let rows = fixture.body(
        "iterate_over",
        json!({"file": "pods.json", "path": "$.items", "fields": "status.phase"}),
    );
    let failed = crate::json_tools::test_data::rows(&rows)
        .iter()
        .filter(|r| r["status.phase"] == "Failed")
        .count();
    assert_eq!(failed.to_string(), expected);
}

#[test]
fn query_windowed_footer_is_pinned() {
    let fixture = Fixture::new(&[("n.json", b"[1, 2, 3, 4, 5, 6, 7]")]);
    let text = fixture.call(
        "query",
        json!({"file": "n.json", "filter": ".[] | . * 10", "offset": 2, "limit": 3}),
    );
    let (body, footer) = split(&text);
    assert_eq!(body, "30\n40\n50");
    assert_eq!(
        footer_summary(footer),
        "--- query: .[] | . * 10 (results [2..5) of 7 total)"
    );
    let endless = fixture.footer(
        "query",
        json!({"file": "n.json", "filter": "range(1e12)", "limit": 2}),
    );
    assert!(
        footer_summary(&endless)
            .starts_with("--- query: range(1e12) (results [0..2) of more than "),
        "{endless}"
    );
}

#[test]
fn query_repeat_and_range_1e12_terminate_with_the_limit_error() {
    let fixture = Fixture::new(&[("n.json", b"{\"a\": [1, 2]}")]);
    for filter in [
        "repeat(.)",
        "range(1e12)",
        "[range(1e12)] | length",
        "last(repeat(1))",
    ] {
        let error = fixture.error("query", json!({"file": "n.json", "filter": filter}));
        let code = error["error"].as_str().unwrap();
        assert!(
            code == "query_limit" || code == "query_too_large",
            "{filter}: {error}"
        );
        if code == "query_limit" {
            assert!(error["limit"].is_string(), "{error}");
            assert!(
                error["message"].as_str().unwrap().contains("limit"),
                "{error}"
            );
        } else {
            assert_eq!(error["retry"]["tool"], "query");
        }
    }
}

#[test]
fn query_cannot_read_a_secret_from_the_process_environment() {
    const NAME: &str = "OVERSPILL_QUERY_TOOL_SECRET";
    const SECRET: &str = "tool-secret-93be17";
    if crate::test_support::ran_in_child_with_env(
        module_path!(),
        "query_cannot_read_a_secret_from_the_process_environment",
        NAME,
        SECRET,
    ) {
        return;
    }
    let fixture = Fixture::new(&[("a.json", b"{\"a\": 1}")]);
    for filter in [
        "env",
        "env[\"OVERSPILL_QUERY_TOOL_SECRET\"]",
        "$ENV.OVERSPILL_QUERY_TOOL_SECRET",
        "try env catch .",
        "[env, $ENV]",
    ] {
        let text = fixture.call("query", json!({"file": "a.json", "filter": filter}));
        assert!(!text.contains(SECRET), "{filter}: {text}");
        assert!(
            text.starts_with("{\"error\":\"invalid_argument\"") || !text.contains("HOME"),
            "{filter}: {text}"
        );
    }
}

#[test]
fn query_filter_errors_are_plain_words() {
    let fixture = Fixture::new(&[("a.json", b"{\"a\": 1}")]);
    let error = fixture.error(
        "query",
        json!({"file": "a.json", "filter": ".a | frobnicate"}),
    );
    assert_eq!(error["argument"], "filter");
    assert_eq!(
        error["message"],
        "argument `filter`: the filter calls `frobnicate`, which jq does not define with 0 argument(s)"
    );
    let error = fixture.error("query", json!({"file": "a.json", "filter": "[.a"}));
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("argument `filter`: the filter does not parse: expected"),
        "{message}"
    );
    let error = fixture.error("query", json!({"file": "a.json", "filter": ".a.b"}));
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("failed after 0 results: cannot"),
        "{error}"
    );
}

#[test]
fn query_on_100_000_deep_json_is_refused_without_crashing() {
    let fixture = Fixture::new(&[("deep.json", deep_arrays(100_000).as_bytes())]);
    let error = fixture.error("query", json!({"file": "deep.json", "filter": "."}));
    assert_eq!(error["argument"], "file");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("nests 100,000 levels deep"),
        "{error}"
    );
}

#[test]
fn query_on_markdown_is_not_json() {
    let fixture = Fixture::new(&[("a.md", b"# x\n")]);
    assert_eq!(
        fixture.error("query", json!({"file": "a.md", "filter": "."}))["error"],
        "not_json"
    );
}

#[test]
fn query_parses_a_file_once_and_again_when_it_changes() {
    let content: &[u8] = br#"{"items": [1, 2, 3]}"#;
    let fixture = Fixture::new(&[("d.json", content)]);
    let cache = fixture.ctx.cache();
    fixture.body("schema", json!({"file": "d.json"}));
    let parsed_for_tools = cache.cost();
    let length = json!({"file": "d.json", "filter": ".items | length"});
    assert_eq!(fixture.body("query", length.clone()), "3");
    let with_document = cache.cost();
    // One object with one key, and an array of three numbers (held inline).
    use crate::jq::guard::{ARRAY_BYTES, ENTRY_BYTES, OBJECT_BYTES, SLOT_BYTES, STRING_BYTES};
    assert_eq!(
        with_document - parsed_for_tools,
        OBJECT_BYTES + ENTRY_BYTES + STRING_BYTES + ARRAY_BYTES + 3 * SLOT_BYTES,
        "the first query keeps jq's document in the cache, at what it holds"
    );
    let first = json!({"file": "d.json", "filter": ".items[0]"});
    assert_eq!(fixture.body("query", first), "1");
    assert_eq!(
        cache.cost(),
        with_document,
        "the second query parsed nothing"
    );

    std::fs::write(
        fixture.path().join("d.json"),
        br#"{"items": [1, 2, 3, 4, 5]}"#,
    )
    .unwrap();
    assert_eq!(fixture.body("query", length), "5");
}

#[test]
fn query_calling_a_builtin_it_does_not_offer_is_an_invalid_filter_not_a_runtime_failure() {
    let fixture = Fixture::new(&[("a.json", b"[1, 2]")]);
    for filter in ["now", ".[] | now", "localtime"] {
        let error = fixture.error("query", json!({"file": "a.json", "filter": filter}));
        assert_eq!(error["error"], "invalid_argument", "{filter}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.starts_with("argument `filter`: `") && !message.contains("failed after"),
            "{filter}: {message}"
        );
    }
    // A filter that fails for another reason is still a runtime failure.
    let error = fixture.error("query", json!({"file": "a.json", "filter": ".[] | .x"}));
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("failed after 0 results"),
        "{error}"
    );
}
