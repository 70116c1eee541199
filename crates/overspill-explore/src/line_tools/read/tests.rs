use serde_json::json;

use super::Read;
use crate::test_support::{Fixture, counter, footer_summary, numbered_text, split};
use crate::tool::Tool;

#[test]
fn read_returns_the_whole_file_numbered() {
    let fixture = Fixture::new(&[("a.txt", numbered_text(3).as_bytes())]);
    let text = fixture.call("read", json!({"file": "a.txt"}));
    let (body, footer) = split(&text);
    assert_eq!(body, "1: line 1\n2: line 2\n3: line 3");
    assert_eq!(
        footer,
        "--- read: lines 1-3 of 3 (whole file) | ~51 tokens | ~102,349 of 102,400 budget tokens left ---"
    );
    assert_eq!(
        fixture.ctx.budget().tokens_extracted(),
        counter().count(&text) as u64
    );
}

#[test]
fn read_refuses_a_large_file_up_front_with_a_head_retry_that_fits() {
    let big = numbered_text(200_000);
    let fixture = Fixture::new(&[("big.txt", big.as_bytes())]);
    let error = fixture.error("read", json!({"file": "big.txt"}));
    assert_eq!(error["error"], "read_too_large");
    let estimated = error["estimated_tokens"].as_u64().unwrap();
    let exact = counter().count(&fixture_render(&big)) as u64;
    assert!(
        estimated.abs_diff(exact) * 10 < exact,
        "estimate {estimated} vs {exact}"
    );
    assert_eq!(error["retry"]["tool"], "head");
    let retried = fixture.call("head", error["retry"]["arguments"].clone());
    assert!(!retried.starts_with("{\"error\""), "{retried}");
    assert!(footer_summary(split(&retried).1).starts_with("--- head: lines 1-"));
}

#[test]
fn read_without_head_exposed_offers_no_retry_rather_than_itself() {
    let big = numbered_text(200_000);
    let fixture = Fixture::new(&[("big.txt", big.as_bytes())]);
    let registry = crate::registry::Registry::new().without(&["head"]);
    let text = registry.dispatch_value(&fixture.ctx, "read", &json!({"file": "big.txt"}));
    let error: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"], "read_too_large");
    // `read` has no smaller form of its own, and the refused call is no retry (issue 28).
    assert!(error.get("retry").is_none(), "{text}");
    assert!(
        error["suggestions"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .as_str()
            .unwrap()
            .starts_with("No smaller call of the tools you have"),
        "{text}"
    );
}

#[test]
fn read_refuses_a_file_whose_long_line_would_have_to_be_cut() {
    let fixture = Fixture::with_budget(
        &[(
            "wide.txt",
            format!("a\n{}\n", "wide ".repeat(4_000)).as_bytes(),
        )],
        128_000,
        2_000,
        0,
    );
    let error = fixture.error("read", json!({"file": "wide.txt"}));
    assert_eq!(error["error"], "read_too_large");
    assert_eq!(
        error["retry"],
        json!({"tool": "head", "arguments": {"file": "wide.txt", "lines": 1}})
    );
}

fn fixture_render(text: &str) -> String {
    let width = text.lines().count().to_string().len();
    text.lines()
        .enumerate()
        .map(|(i, l)| format!("{:>width$}: {l}\n", i + 1))
        .collect()
}

#[test]
fn read_refuses_a_large_file_from_samples_before_indexing_it() {
    // Issue 22, item 5: `read` of a 2 GB file indexed and rendered it (12.7 s, 3 GB)
    // before answering; now four samples decide.
    let fixture = Fixture::new(&[("big.txt", numbered_text(300_000).as_bytes())]);
    let got = Read::run(
        &fixture.ctx,
        super::Args {
            file: "big.txt".into(),
        },
    )
    .unwrap();
    let estimated = got.unrendered.expect("refused up front");
    assert!(estimated > 1_000_000, "{estimated}");
    let size = std::fs::metadata(fixture.path().join("big.txt"))
        .unwrap()
        .len();
    assert_eq!(fixture.ctx.cache().cost(), size, "no line index was built");
    // About the file's 300,000 lines.
    assert!(got.returned.abs_diff(300_000) < 30_000, "{}", got.returned);
}
