//! Tests of `query`'s smaller retry, kept beside the module in a file of their own.

use serde_json::{Map, Value, json};

use super::*;
use crate::test_support::{Fixture, footer_summary, split};

/// The per-call cap of these tests: small, so that small files overflow it.
const CAP: u64 = 1_500;

fn fixture(name: &str, content: &str) -> Fixture {
    Fixture::with_budget(&[(name, content.as_bytes())], 128_000, CAP, 0)
}

/// The retry of a refused `query` and what running it unchanged answers (which must not be
/// an error).
fn retried(fixture: &Fixture, arguments: Value) -> (Value, String) {
    let error = fixture.error("query", arguments.clone());
    assert_eq!(error["error"], "query_too_large", "{arguments}: {error}");
    assert_eq!(error["retry"]["tool"], "query", "{error}");
    let retry = error["retry"]["arguments"].clone();
    let answer = fixture.call("query", retry.clone());
    assert!(!answer.starts_with("{\"error\""), "{retry}: {answer}");
    (retry, answer)
}

fn many_keys(n: usize) -> String {
    let object: Map<String, Value> = (0..n).map(|i| (format!("k{i:07}"), json!(i))).collect();
    Value::Object(object).to_string()
}

fn long_text(lines: usize) -> String {
    (0..lines)
        .map(|i| format!("2026-11-12T10:{:02}:00Z GET /api/v1/pods/{i} 200", i % 60))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_document_that_is_one_array_retries_as_its_elements_paged() {
    let zeros = format!("[{}]", vec!["0"; 6_000].join(","));
    let fixture = fixture("zeros.json", &zeros);
    let (retry, answer) = retried(&fixture, json!({"file": "zeros.json", "filter": "."}));
    assert_eq!(retry["filter"], ".[]");
    assert_eq!(retry["offset"], 0);
    let limit = retry["limit"].as_u64().unwrap();
    assert!(limit > 100 && limit < 6_000, "{limit}");
    assert_eq!(
        footer_summary(split(&answer).1),
        format!("--- query: .[] (results [0..{limit}) of 6,000 total)")
    );
}

#[test]
fn keys_of_an_object_with_many_keys_retry_as_a_page_of_keys() {
    let fixture = fixture("keys.json", &many_keys(5_000));
    let (retry, answer) = retried(&fixture, json!({"file": "keys.json", "filter": "keys"}));
    assert_eq!(retry["filter"], "keys | .[]");
    assert!(split(&answer).0.starts_with("\"k0000000\"\n\"k0000001\"\n"));
}

#[test]
fn an_object_retries_as_one_key_and_its_value_per_result() {
    let fixture = fixture("keys.json", &many_keys(5_000));
    let (retry, answer) = retried(&fixture, json!({"file": "keys.json", "filter": "."}));
    assert_eq!(retry["filter"], ENTRIES);
    assert!(
        split(&answer)
            .0
            .starts_with("{\"k0000000\":0}\n{\"k0000001\":1}\n")
    );
}

#[test]
fn a_long_string_retries_as_the_characters_that_fit() {
    let document = json!({"log": long_text(2_000)}).to_string();
    let fixture = fixture("log.json", &document);
    let (retry, answer) = retried(&fixture, json!({"file": "log.json", "filter": ".log"}));
    let filter = retry["filter"].as_str().unwrap();
    let n: usize = filter
        .strip_prefix(".log | .[:")
        .and_then(|rest| rest.strip_suffix(']'))
        .unwrap()
        .parse()
        .unwrap();
    let shown: String = serde_json::from_str(split(&answer).0).unwrap();
    assert_eq!(shown.chars().count(), n);
    // As many characters as fit with room for the footer: not a tenth of them.
    let tokens = fixture.ctx.counter().count(split(&answer).0) as u64;
    assert!(tokens > (CAP - 256) * 9 / 10 && tokens <= CAP, "{tokens}");
}

#[test]
fn a_document_that_is_one_string_retries_cut() {
    let document = Value::String(long_text(2_000)).to_string();
    let fixture = fixture("text.json", &document);
    let (retry, _) = retried(&fixture, json!({"file": "text.json", "filter": "."}));
    assert!(
        retry["filter"].as_str().unwrap().starts_with(".[:"),
        "{retry}"
    );
}

#[test]
fn a_huge_number_retries_as_its_first_digits() {
    let document = format!("{{\"n\": 1{}}}", "7".repeat(20_000));
    let fixture = fixture("n.json", &document);
    let (retry, answer) = retried(&fixture, json!({"file": "n.json", "filter": ".n"}));
    assert!(
        retry["filter"]
            .as_str()
            .unwrap()
            .starts_with(".n | tojson | .[:"),
        "{retry}"
    );
    assert!(split(&answer).0.starts_with("\"17777"));
}

#[test]
fn an_object_of_one_key_retries_as_that_keys_value_then_cut() {
    let document = json!({"log": long_text(2_000)}).to_string();
    let fixture = fixture("log.json", &document);
    let (retry, _) = retried(&fixture, json!({"file": "log.json", "filter": "."}));
    assert!(
        retry["filter"].as_str().unwrap().starts_with(".log | .[:"),
        "{retry}"
    );
}

#[test]
fn an_item_of_an_iterated_array_too_large_retries_as_that_item() {
    let fat: Map<String, Value> = (0..300)
        .map(|i| (format!("field{i}"), json!(format!("value {i}"))))
        .collect();
    let document = json!({"items": [{"a": 1}, {"b": 2}, fat]}).to_string();
    let fixture = fixture("items.json", &document);
    let (retry, answer) = retried(
        &fixture,
        json!({"file": "items.json", "filter": ".items[]", "offset": 2, "limit": 1}),
    );
    assert_eq!(retry["filter"], format!(".items[2] | {ENTRIES}"));
    assert!(split(&answer).0.starts_with("{\"field0\":\"value 0\"}\n"));
}

#[test]
fn one_result_of_several_too_large_retries_through_first_or_nth() {
    let zeros = vec![0; 6_000];
    let document = json!({"a": zeros, "b": 1}).to_string();
    let fixture = fixture("a.json", &document);
    let (retry, _) = retried(
        &fixture,
        json!({"file": "a.json", "filter": "..", "offset": 1, "limit": 1}),
    );
    assert_eq!(retry["filter"], "nth(1; ..) | .[]");
    let (retry, _) = retried(&fixture, json!({"file": "a.json", "filter": ".[]"}));
    assert_eq!(retry["filter"], ".a | .[]");
    let (retry, _) = retried(&fixture, json!({"file": "a.json", "filter": "(.a, .b)"}));
    assert_eq!(retry["filter"], "first((.a, .b)) | .[]");
}

#[test]
fn a_filter_with_a_comment_is_closed_before_the_retry_pipes_on() {
    let zeros = format!("{{\"items\": [{}]}}", vec!["0"; 6_000].join(","));
    let fixture = fixture("zeros.json", &zeros);
    let (retry, _) = retried(
        &fixture,
        json!({"file": "zeros.json", "filter": ".items # the pods"}),
    );
    assert_eq!(retry["filter"], "(.items # the pods\n) | .[]");
}

#[test]
fn a_listed_entry_too_large_retries_as_that_keys_value() {
    let document = json!({"a": 1, "log": long_text(2_000)}).to_string();
    let fixture = fixture("log.json", &document);
    let (retry, _) = retried(
        &fixture,
        json!({"file": "log.json", "filter": format!(". | {ENTRIES}"), "offset": 1, "limit": 1}),
    );
    assert!(
        retry["filter"].as_str().unwrap().starts_with(".log | .[:"),
        "{retry}"
    );
}

#[test]
fn results_rendered_in_full_retry_with_the_count_that_fits_at_once() {
    let fixture = fixture("a.json", "[]");
    let args = Args {
        file: "a.json".to_owned(),
        filter: ".[]".to_owned(),
        page: Page::default(),
    };
    let body = vec!["\"a result of about ten tokens, in words\""; 1_000].join("\n");
    let got = Extraction::new(body.clone(), ".[] (1,000 results)", 1_000);
    let call = smaller(&fixture.ctx, &args, &got).unwrap();
    let limit = call.arguments["limit"].as_u64().unwrap();
    // Halving would ask for 500; what fits is counted instead.
    assert!(limit > 50 && limit < 250, "{limit}");
    let kept: Vec<&str> = body.lines().take(limit as usize).collect();
    assert!(fit::fits(&fixture.ctx, &kept.join("\n")));
    // A rendering stopped at the byte cap has no body to count: its estimate says what share
    // of the results it rendered the limit allows.
    let stopped = Extraction::unrendered(50_000, ".[] (results from 0)", 1_000);
    let call = smaller(&fixture.ctx, &args, &stopped).unwrap();
    let share = 1_000 * fit::listing_budget(&fixture.ctx) as u64 / 50_000;
    assert_eq!(call.arguments["limit"], share);
}

#[test]
fn a_retry_filter_too_long_to_send_is_left_out_rather_than_the_refused_call() {
    let zeros = format!("[{}]", vec!["0"; 6_000].join(","));
    let fixture = fixture("zeros.json", &zeros);
    // A comment makes the retry wrap the filter, and the wrapped filter is over 4,096 bytes.
    let filter = format!(". # {}", "x".repeat(crate::args::MAX_STRING_BYTES - 8));
    let error = fixture.error("query", json!({"file": "zeros.json", "filter": filter}));
    assert_eq!(error["error"], "query_too_large");
    assert!(error.get("retry").is_none(), "{error}");
    let last = error["suggestions"].as_array().unwrap().last().unwrap();
    assert!(
        last.as_str().unwrap().starts_with("No smaller call"),
        "{last}"
    );
}
