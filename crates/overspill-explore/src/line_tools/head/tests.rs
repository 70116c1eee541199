use serde_json::json;

use super::Head;
use crate::args;
use crate::test_support::{Fixture, counter, footer_summary, numbered_text, split};
use crate::tool::Tool;

#[test]
fn head_shows_the_first_50_lines_numbered_by_default() {
    let fixture = Fixture::new(&[("a.txt", numbered_text(120).as_bytes())]);
    let body = fixture.body("head", json!({"file": "a.txt"}));
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines.len(), 50);
    assert_eq!(lines[0], " 1: line 1");
    assert_eq!(lines[49], "50: line 50");
}

#[test]
fn head_footer_is_pinned() {
    let fixture = Fixture::new(&[("a.txt", numbered_text(120).as_bytes())]);
    assert_eq!(
        fixture.footer("head", json!({"file": "a.txt", "lines": 3})),
        "--- head: lines 1-3 of 120 | ~47 tokens | ~102,353 of 102,400 budget tokens left ---"
    );
    assert_eq!(
        footer_summary(&fixture.footer("head", json!({"file": "a.txt", "lines": 500}))),
        "--- head: lines 1-120 of 120 (whole file)"
    );
}

#[test]
fn head_accepts_lines_as_a_numeric_string() {
    let fixture = Fixture::new(&[("a.txt", numbered_text(120).as_bytes())]);
    let body = fixture.body("head", json!({"file": "a.txt", "lines": "20"}));
    assert_eq!(body.lines().count(), 20);
}

#[test]
fn head_unknown_argument_lines_count_lists_file_and_lines() {
    let fixture = Fixture::new(&[("a.txt", b"x\n")]);
    assert_eq!(
        fixture.call("head", json!({"file": "a.txt", "lines_count": 20})),
        r#"{"error":"invalid_argument","argument":"lines_count","message":"unknown argument `lines_count`; head accepts: file, lines","accepted":["file","lines"]}"#
    );
}

#[test]
fn head_negative_lines_is_an_error_naming_lines() {
    let fixture = Fixture::new(&[("a.txt", b"x\n")]);
    let error = fixture.error("head", json!({"file": "a.txt", "lines": -1}));
    assert_eq!(error["argument"], "lines");
    assert_eq!(
        error["message"],
        "argument `lines`: must not be negative, got -1"
    );
}

#[test]
fn head_on_an_empty_file_says_so() {
    let fixture = Fixture::new(&[("empty.txt", b"")]);
    let text = fixture.call("head", json!({"file": "empty.txt"}));
    assert!(
        text.starts_with("--- head: empty file (0 lines) | ~"),
        "{text}"
    );
}

#[test]
fn head_on_a_1_line_20_mb_file_returns_a_cut_line_and_a_note_within_the_cap() {
    let line: String = "0123456789abcdef".repeat(20 << 16);
    assert_eq!(line.len(), 20 << 20);
    let fixture = Fixture::new(&[("big.json", line.as_bytes())]);
    let text = fixture.call("head", json!({"file": "big.json"}));
    let tokens = counter().count(&text) as u64;
    assert!(tokens <= 10_000, "{tokens} tokens");
    let (body, footer) = split(&text);
    assert!(body.starts_with("1: 0123456789abcdef"));
    assert!(
        body.contains(" … [line 1 cut: chars 0.."),
        "{}",
        &body[body.len() - 300..]
    );
    assert!(body.contains(" of 20,971,520 shown; read on with slice {\"file\":\"big.json\",\"start\":1,\"end\":1,\"start_char\":"));
    assert!(
        footer.contains("; line 1 was cut to fit (see the note at its end) |"),
        "{footer}"
    );
    assert_eq!(fixture.ctx.budget().tokens_extracted(), tokens);
}

#[test]
fn head_too_large_retry_counts_the_lines_that_fit() {
    let long_lines: String = (1..=400)
        .map(|i| format!("{i} {}\n", "word ".repeat(40)))
        .collect();
    let fixture = Fixture::with_budget(&[("log.txt", long_lines.as_bytes())], 128_000, 2_000, 0);
    let error = fixture.error("head", json!({"file": "log.txt", "lines": 200}));
    assert_eq!(error["error"], "head_too_large");
    assert_eq!(error["per_call_limit"], 2_000);
    assert_eq!(
        fixture.ctx.budget().tokens_extracted(),
        0,
        "an error is never charged"
    );
    // Rendering 200 lines stops after 58 (they already cost more than the cap); the retry
    // counts on those how many fit with the footer, where halving would offer 29.
    assert_eq!(error["retry"]["tool"], "head");
    let lines = error["retry"]["arguments"]["lines"].as_u64().unwrap();
    assert!((30..58).contains(&lines), "{lines}");
    let twice = fixture.error("head", json!({"file": "log.txt", "lines": 58}));
    assert_eq!(twice["error"], "head_too_large");
    let retried = fixture.call("head", error["retry"]["arguments"].clone());
    assert!(
        retried.contains(&format!("--- head: lines 1-{lines} of 400 |")),
        "{retried}"
    );
    assert_eq!(
        fixture.ctx.budget().tokens_extracted(),
        counter().count(&retried) as u64
    );
}

#[test]
fn head_shows_invalid_utf8_lossily_with_a_note() {
    let fixture = Fixture::new(&[(
        "bin.txt",
        b"ok
bad \xff\xfe bytes
",
    )]);
    let text = fixture.call("head", json!({"file": "bin.txt"}));
    let (body, footer) = split(&text);
    assert_eq!(body, "1: ok\n2: bad \u{FFFD}\u{FFFD} bytes");
    assert_eq!(
        footer_summary(footer),
        "--- head: lines 1-2 of 2 (whole file); invalid UTF-8 shown as \u{FFFD}"
    );
}

#[test]
fn head_strips_crlf_line_endings() {
    let fixture = Fixture::new(&[("win.txt", b"one\r\ntwo\r\n")]);
    assert_eq!(
        fixture.body("head", json!({"file": "win.txt"})),
        "1: one\n2: two"
    );
}

#[test]
fn head_of_10_18_lines_stops_rendering_at_the_limit_without_indexing_the_file() {
    // Issue 22, item 5: a window far larger than the limit used to be rendered whole
    // (`read` of 2 GB: 12.7 s and 3 GB through its `head` retries).
    let fixture = Fixture::new(&[("a.txt", numbered_text(300_000).as_bytes())]);
    let arguments = json!({"file": "a.txt", "lines": 1_000_000_000_000_000_000u64});
    let got = Head::run(&fixture.ctx, args::parse("head", &arguments).unwrap()).unwrap();
    let estimated = got.unrendered.expect("refused before rendering it all");
    assert!(got.returned < 5_000, "{}", got.returned);
    assert!(
        estimated > 2_000_000,
        "the whole file is estimated: {estimated}"
    );
    let size = std::fs::metadata(fixture.path().join("a.txt"))
        .unwrap()
        .len();
    assert_eq!(fixture.ctx.cache().cost(), size, "no line index was built");
    let error = fixture.error("head", arguments);
    let retried = fixture.call("head", error["retry"]["arguments"].clone());
    assert!(retried.contains("--- head: lines 1-"), "{retried}");
}
