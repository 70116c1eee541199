use serde_json::json;

use super::Slice;
use crate::args;
use crate::test_support::{Fixture, footer_summary, numbered_text, split};
use crate::tool::Tool;

#[test]
fn slice_returns_the_inclusive_range_with_absolute_line_numbers() {
    let fixture = Fixture::new(&[("a.txt", numbered_text(1_500).as_bytes())]);
    let body = fixture.body(
        "slice",
        json!({"file": "a.txt", "start": 998, "end": 1_001}),
    );
    assert_eq!(
        body,
        " 998: line 998\n 999: line 999\n1000: line 1000\n1001: line 1001"
    );
}

#[test]
fn slice_footer_is_pinned() {
    let fixture = Fixture::new(&[("a.txt", numbered_text(1_500).as_bytes())]);
    assert_eq!(
        fixture.footer("slice", json!({"file": "a.txt", "start": 10, "end": 12})),
        "--- slice: lines 10-12 of 1,500 | ~49 tokens | ~102,351 of 102,400 budget tokens left ---"
    );
}

#[test]
fn slice_clamps_end_to_the_last_line_and_says_so() {
    let fixture = Fixture::new(&[("a.txt", numbered_text(5).as_bytes())]);
    let text = fixture.call("slice", json!({"file": "a.txt", "start": 4, "end": 99}));
    let (body, footer) = split(&text);
    assert_eq!(body, "4: line 4\n5: line 5");
    assert_eq!(
        footer_summary(footer),
        "--- slice: lines 4-5 of 5; end 99 clamped to the last line"
    );
}

#[test]
fn slice_start_past_the_end_returns_an_empty_body_and_the_line_count() {
    let fixture = Fixture::new(&[("a.txt", numbered_text(1_204).as_bytes())]);
    let text = fixture.call(
        "slice",
        json!({"file": "a.txt", "start": 2_000, "end": 2_050}),
    );
    assert!(
        text.starts_with(
            "--- slice: no lines: start 2,000 is past the end; the file has 1,204 lines | ~"
        ),
        "{text}"
    );
}

#[test]
fn slice_rejects_start_zero_and_end_before_start() {
    let fixture = Fixture::new(&[("a.txt", b"x\n")]);
    assert_eq!(
        fixture.call("slice", json!({"file": "a.txt", "start": 0, "end": 1})),
        r#"{"error":"invalid_argument","argument":"start","message":"argument `start`: lines are numbered from 1; use start 1 for the first line"}"#
    );
    assert_eq!(
        fixture.error("slice", json!({"file": "a.txt", "start": 5, "end": 3}))["message"],
        "argument `end`: 3 is before start 5; end is the last line to show, inclusive"
    );
    assert_eq!(
        fixture.error("slice", json!({"file": "a.txt", "start": 1}))["message"],
        "slice needs the argument `end`"
    );
}

#[test]
fn slice_chars_reads_a_huge_line_in_pieces() {
    let mut seed = 7u32;
    let line: String = (0..200_000)
        .map(|_| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            char::from(b"abcdefghijklmnopqrstuvwxyz0123456789 "[(seed >> 16) as usize % 37])
        })
        .collect();
    let fixture = Fixture::new(&[("one.txt", line.as_bytes())]);
    let text = fixture.call(
        "slice",
        json!({"file": "one.txt", "start": 1, "end": 1, "start_char": 26, "max_chars": 10}),
    );
    let (body, footer) = split(&text);
    assert_eq!(body, format!("1: {}", &line[26..36]));
    assert_eq!(
        footer_summary(footer),
        "--- slice: line 1 of 1, chars [26..36) of 200,000"
    );

    // Without a window the line is cut; the note's call continues exactly where it stopped.
    let head = fixture.body("head", json!({"file": "one.txt"}));
    let note_at = head.find(" … [line 1 cut").unwrap();
    let shown = &head["1: ".len()..note_at];
    let call: serde_json::Value =
        serde_json::from_str(&head[head.find("slice {").unwrap() + 6..head.len() - 1]).unwrap();
    assert_eq!(call["start_char"], shown.chars().count());
    let next = fixture.body("slice", call.clone());
    let next_text = next["1: ".len()..].split(" … [").next().unwrap();
    let offset = shown.chars().count();
    assert!(
        line[offset..].starts_with(next_text),
        "the next piece continues the line"
    );
}

#[test]
fn slice_chars_past_the_end_of_a_line_show_nothing_of_it() {
    let fixture = Fixture::new(&[("a.txt", b"short\n")]);
    let text = fixture.call(
        "slice",
        json!({"file": "a.txt", "start": 1, "end": 1, "start_char": 50}),
    );
    assert!(
        text.starts_with("1: \n--- slice: line 1 of 1, chars [50..50) of 5 |"),
        "{text}"
    );
}

#[test]
fn slice_too_large_retry_counts_the_lines_that_fit() {
    let text: String = (1..=1_000)
        .map(|i| format!("{i} {}\n", "word ".repeat(30)))
        .collect();
    let fixture = Fixture::with_budget(&[("log.txt", text.as_bytes())], 128_000, 3_000, 0);
    let error = fixture.error(
        "slice",
        json!({"file": "log.txt", "start": 101, "end": 900}),
    );
    assert_eq!(error["error"], "slice_too_large");
    let retry = &error["retry"];
    assert_eq!(retry["tool"], "slice");
    let end = retry["arguments"]["end"].as_u64().unwrap();
    assert_eq!(retry["arguments"]["start"], 101);
    // Counted on the lines rendered before the cap, not a halving of the 800-line window.
    let len = end - 100;
    assert!(
        len < 800 && !len.is_power_of_two() && 800 % len != 0,
        "window of {len} lines"
    );
    let retried = fixture.call("slice", retry["arguments"].clone());
    assert!(
        retried.contains(&format!("--- slice: lines 101-{end} of 1,000 |")),
        "{retried}"
    );
    let doubled = fixture.error(
        "slice",
        json!({"file": "log.txt", "start": 101, "end": 100 + 2 * len}),
    );
    assert_eq!(
        doubled["error"], "slice_too_large",
        "the retry is near the most that fits"
    );
}

#[test]
fn slice_of_a_huge_range_stops_rendering_at_the_limit() {
    let fixture = Fixture::new(&[("a.txt", numbered_text(300_000).as_bytes())]);
    let arguments = json!({"file": "a.txt", "start": 2, "end": u64::MAX});
    let got = Slice::run(&fixture.ctx, args::parse("slice", &arguments).unwrap()).unwrap();
    assert!(got.unrendered.is_some());
    assert!(got.returned < 5_000, "{}", got.returned);
    let error = fixture.error("slice", arguments);
    let retried = fixture.call("slice", error["retry"]["arguments"].clone());
    assert!(retried.contains("--- slice: lines 2-"), "{retried}");
}
