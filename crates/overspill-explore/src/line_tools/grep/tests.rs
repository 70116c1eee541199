use serde_json::json;

use super::Grep;
use crate::args;
use crate::test_support::{Fixture, counter, footer_summary, numbered_text, split};
use crate::tool::Tool;

const LOG: &str =
    "start\nGET /health 200\nGET /api 500 error\nok\nok\nok\nok\nok\nPOST /api 502 Error\nend\n";

#[test]
fn grep_regex_marks_matching_lines_with_context() {
    let fixture = Fixture::new(&[("app.log", LOG.as_bytes())]);
    let text = fixture.call(
        "grep",
        json!({"file": "app.log", "pattern": r"\s5\d\d\s", "context": 1}),
    );
    let (body, footer) = split(&text);
    assert_eq!(
        body,
        "  2: GET /health 200\n> 3: GET /api 500 error\n  4: ok\n--\n  8: ok\n> 9: POST /api 502 Error\n 10: end"
    );
    assert_eq!(
        footer_summary(footer),
        r#"--- grep: 2 matching lines for "\\s5\\d\\d\\s", in 2 regions, context 1"#
    );
}

#[test]
fn grep_footer_is_pinned() {
    let fixture = Fixture::new(&[("app.log", LOG.as_bytes())]);
    assert_eq!(
        fixture.footer(
            "grep",
            json!({"file": "app.log", "pattern": "POST", "context": 0})
        ),
        r#"--- grep: 1 matching line for "POST", in 1 region, context 0 | ~47 tokens | ~102,353 of 102,400 budget tokens left ---"#
    );
}

#[test]
fn grep_invalid_regex_falls_back_to_literal_and_says_so() {
    let json_text = "{\n  \"metric\": {\n    \"value\": 1\n  },\n  \"metrics\": []\n}\n";
    let fixture = Fixture::new(&[("m.json", json_text.as_bytes())]);
    let text = fixture.call(
        "grep",
        json!({"file": "m.json", "pattern": "\"metric\": {", "context": 0}),
    );
    let (body, footer) = split(&text);
    assert_eq!(body, ">2:   \"metric\": {");
    assert_eq!(
        footer_summary(footer),
        r#"--- grep: 1 matching line for "\"metric\": {", in 1 region, context 0; not a valid regex (unclosed counted repetition), so searched as literal text"#
    );
}

#[test]
fn grep_without_a_match_says_no_line_matches() {
    let fixture = Fixture::new(&[("app.log", LOG.as_bytes())]);
    let text = fixture.call("grep", json!({"file": "app.log", "pattern": "timeout"}));
    assert!(
        text.starts_with(r#"--- grep: no line matches "timeout" (10 lines searched) | ~"#),
        "{text}"
    );
}

#[test]
fn grep_merges_adjacent_and_overlapping_regions() {
    let fixture = Fixture::new(&[("a.txt", numbered_text(30).as_bytes())]);
    // Matches on 10 and 13 with context 1: 9-11 and 12-14 touch, so one region.
    let body = fixture.body(
        "grep",
        json!({"file": "a.txt", "pattern": "^line 1[03]$", "context": 1}),
    );
    assert_eq!(
        body,
        "  9: line 9\n>10: line 10\n 11: line 11\n 12: line 12\n>13: line 13\n 14: line 14"
    );
    // 10 and 14: 9-11 and 13-15 leave line 12 out, so two regions.
    let body = fixture.body(
        "grep",
        json!({"file": "a.txt", "pattern": "^line 1[04]$", "context": 1}),
    );
    assert_eq!(
        body,
        "  9: line 9\n>10: line 10\n 11: line 11\n--\n 13: line 13\n>14: line 14\n 15: line 15"
    );
}

#[test]
fn grep_ignore_case_matches_any_case() {
    let fixture = Fixture::new(&[("app.log", LOG.as_bytes())]);
    let sensitive = fixture.body(
        "grep",
        json!({"file": "app.log", "pattern": "error", "context": 0}),
    );
    assert_eq!(sensitive, ">3: GET /api 500 error");
    let text = fixture.call(
        "grep",
        json!({"file": "app.log", "pattern": "error", "context": 0, "ignore_case": true}),
    );
    let (body, footer) = split(&text);
    assert_eq!(body, ">3: GET /api 500 error\n--\n>9: POST /api 502 Error");
    assert!(
        footer.contains(r#"for "error" (ignoring case)"#),
        "{footer}"
    );
}

#[test]
fn grep_refuses_a_1025_byte_pattern() {
    let fixture = Fixture::new(&[("app.log", LOG.as_bytes())]);
    let error = fixture.error(
        "grep",
        json!({"file": "app.log", "pattern": "a".repeat(1025)}),
    );
    assert_eq!(
        error,
        json!({
            "error": "invalid_argument",
            "argument": "pattern",
            "message": "argument `pattern`: the pattern is 1025 bytes long; patterns are limited to 1024 bytes, search for a shorter distinctive part",
        })
    );
    assert!(
        fixture
            .call(
                "grep",
                json!({"file": "app.log", "pattern": "a".repeat(1024)})
            )
            .starts_with("--- grep: no line")
    );
}

#[test]
fn grep_reports_when_max_matches_cut_the_result() {
    let fixture = Fixture::new(&[("a.txt", numbered_text(50).as_bytes())]);
    let text = fixture.call(
        "grep",
        json!({"file": "a.txt", "pattern": "line", "context": 0, "max_matches": 5}),
    );
    let (body, footer) = split(&text);
    assert_eq!(body.lines().count(), 5);
    assert_eq!(
        footer_summary(footer),
        r#"--- grep: first 5 of 50 matching lines for "line", in 1 region, context 0 (stopped at max_matches 5; more follow line 5)"#
    );
}

#[test]
fn grep_too_large_retry_lowers_max_matches_and_fits() {
    let text: String = (1..=2_000)
        .map(|i| format!("{i} error {}\n", "detail ".repeat(20)))
        .collect();
    let fixture = Fixture::with_budget(&[("e.log", text.as_bytes())], 128_000, 4_000, 0);
    let error = fixture.error("grep", json!({"file": "e.log", "pattern": "error"}));
    assert_eq!(error["error"], "grep_too_large");
    assert_eq!(fixture.ctx.budget().tokens_extracted(), 0);
    let arguments = &error["retry"]["arguments"];
    assert_eq!(arguments["pattern"], "error");
    let max = arguments["max_matches"].as_u64().unwrap();
    // Counted on the refused rendering (with room for the footer), not halved to 100.
    assert!(max < 200 && max > 100, "{max}");
    let retried = fixture.call("grep", arguments.clone());
    assert!(!retried.starts_with("{\"error\""), "{retried}");
    assert_eq!(
        fixture.ctx.budget().tokens_extracted(),
        counter().count(&retried) as u64
    );
}

#[test]
fn grep_retry_with_context_counts_the_matches_that_fit_not_the_lines() {
    // Three lines in four match and `context` 3 shows the others: the retry of a grep that
    // stopped at the limit counts the `>` lines of what it rendered (the matches), not every
    // line, and offers about the most that fit.
    let text: String = (1..=20_000)
        .map(|i| {
            let level = if i % 4 == 0 { "INFO" } else { "ERROR" };
            format!("{i} {level} request served in {} ms\n", i % 97)
        })
        .collect();
    let fixture = Fixture::with_budget(&[("e.log", text.as_bytes())], 128_000, 4_000, 0);
    let refused = json!({"file": "e.log", "pattern": "ERROR", "context": 3, "max_matches": 5_000});
    let error = fixture.error("grep", refused);
    assert_eq!(error["error"], "grep_too_large");
    let retry = error["retry"]["arguments"].clone();
    let max = retry["max_matches"].as_u64().unwrap();
    let retried = fixture.call("grep", retry.clone());
    assert!(!retried.starts_with("{\"error\""), "{retried}");
    // Close to the most that fit (less the room kept for the footer): a quarter more matches
    // no longer fits.
    let mut more = retry;
    more["max_matches"] = json!(max + max / 4 + 1);
    assert_eq!(fixture.error("grep", more)["error"], "grep_too_large");
}

#[test]
fn grep_too_large_retry_lowers_context_when_one_match_is_too_much() {
    let long = "x ".repeat(600);
    let text: String = (1..=9)
        .map(|i| {
            if i == 5 {
                "needle\n".to_owned()
            } else {
                format!("{long}\n")
            }
        })
        .collect();
    let fixture = Fixture::with_budget(&[("n.txt", text.as_bytes())], 128_000, 1_000, 0);
    let error = fixture.error(
        "grep",
        json!({"file": "n.txt", "pattern": "needle", "context": 4}),
    );
    assert_eq!(error["error"], "grep_too_large");
    let arguments = &error["retry"]["arguments"];
    assert_eq!(arguments["max_matches"], 1);
    assert!(arguments["context"].as_u64().unwrap() < 4);
    let retried = fixture.call("grep", arguments.clone());
    assert!(retried.contains(">5: needle"), "{retried}");
}

#[test]
fn grep_refuses_a_99999_fold_repetition_before_searching_a_megabyte_of_its_letter() {
    // Issue 22, item 5: this 8-byte pattern searched 1 MB of `a`s for over two minutes.
    let aaa = format!("{}\n", "a".repeat(1_000_000));
    let fixture = Fixture::new(&[("a.txt", aaa.as_bytes())]);
    let error = fixture.error("grep", json!({"file": "a.txt", "pattern": "a{99999}"}));
    assert_eq!(error["error"], "invalid_argument");
    assert_eq!(error["argument"], "pattern");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("expand to 99,999 positions"), "{message}");
    assert!(
        fixture.ctx.cache().is_empty(),
        "refused before the file was read"
    );
}

#[test]
fn grep_refuses_a_printable_class_repeated_50000_times_on_a_long_line() {
    // Issue 22, item 5: 19 s on a 1.2 MB line.
    let line: String = (0..1_200_000u32)
        .map(|i| char::from(b' ' + (i.wrapping_mul(2_654_435_761) >> 25) as u8 % 95))
        .collect();
    let fixture = Fixture::new(&[("line.txt", format!("{line}\n").as_bytes())]);
    let error = fixture.error(
        "grep",
        json!({"file": "line.txt", "pattern": "[ -~]{50000}"}),
    );
    assert_eq!(error["error"], "invalid_argument");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("50,000 positions"),
        "{error}"
    );
}

#[test]
fn grep_with_context_and_max_matches_of_1e18_answers_too_large_with_a_retry_that_fits() {
    // Issue 22, item 5: 31 s and 484 MB before; the retry offered did not fit either
    // (64 halvings of 10^18 context never got below the file's length).
    let text: String = (1..=20_000)
        .map(|i| format!("{i} GET /api 200\n"))
        .collect();
    let fixture = Fixture::new(&[("big.log", text.as_bytes())]);
    let huge = 1_000_000_000_000_000_000u64;
    let arguments =
        json!({"file": "big.log", "pattern": "GET", "context": huge, "max_matches": huge});
    let got = Grep::run(&fixture.ctx, args::parse("grep", &arguments).unwrap()).unwrap();
    assert!(got.unrendered.is_some(), "rendering stopped at the limit");
    assert!(got.returned < 2_000, "{}", got.returned);
    let error = fixture.error("grep", arguments);
    assert_eq!(error["error"], "grep_too_large");
    let retry = &error["retry"]["arguments"];
    assert!(retry["max_matches"].as_u64().unwrap() < 2_000, "{retry}");
    let retried = fixture.call("grep", retry.clone());
    assert!(!retried.starts_with("{\"error\""), "{retried}");
}

#[test]
fn grep_limit_error_shape_is_pinned() {
    let error = super::time_limit("\"(a|b)*c\"", 1_201, 50_000);
    assert_eq!(
        error.render(),
        r#"{"error":"grep_limit","limit":"time","message":"the search for \"(a|b)*c\" found no match in lines 1-1,200 of 50,000 before its 3 s time limit; simplify the pattern (fewer alternatives and repetitions, no `\\b` around non-ASCII text) or make it more specific"}"#
    );
}
