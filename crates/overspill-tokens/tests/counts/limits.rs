//! `count_up_to`, `fits_within` and `is_below` agree with `count` for every
//! counter, right at the boundary.

use overspill_tokens::{TokenCounter, cl100k, claude, gemma3, o200k};
use proptest::prelude::*;

use crate::samples::{hard_cases, shared_data_files};

fn counters() -> [&'static dyn TokenCounter; 4] {
    [o200k(), cl100k(), gemma3(), claude()]
}

/// Checks every limit-taking method at `n − 1`, `n` and `n + 1`.
fn assert_limits_agree(counter: &dyn TokenCounter, text: &str, what: &str) {
    let n = counter.count(text);
    let name = counter.name();
    if let Some(below) = n.checked_sub(1) {
        assert_eq!(
            counter.count_up_to(text, below),
            None,
            "{name} on {what}: limit n-1"
        );
        assert!(
            !counter.fits_within(text, below),
            "{name} on {what}: fits n-1"
        );
    }
    assert_eq!(
        counter.count_up_to(text, n),
        Some(n),
        "{name} on {what}: limit n"
    );
    assert_eq!(
        counter.count_up_to(text, n + 1),
        Some(n),
        "{name} on {what}: limit n+1"
    );
    assert!(counter.fits_within(text, n), "{name} on {what}: fits n");
    assert!(
        counter.fits_within(text, n + 1),
        "{name} on {what}: fits n+1"
    );
    assert!(!counter.is_below(text, n), "{name} on {what}: below n");
    assert!(counter.is_below(text, n + 1), "{name} on {what}: below n+1");
}

#[test]
fn count_up_to_agrees_with_count_around_the_true_count_on_hard_cases() {
    for counter in counters() {
        for (what, text) in hard_cases() {
            assert_limits_agree(counter, &text, what);
        }
    }
}

#[test]
fn count_up_to_agrees_with_count_around_the_true_count_on_the_sample_files() {
    let Some(files) = shared_data_files() else {
        return;
    };
    for counter in counters() {
        for (name, text) in &files {
            assert_limits_agree(counter, text, name);
        }
    }
}

#[test]
fn count_up_to_agrees_with_count_on_repetitive_large_text() {
    let text = "{\"name\": \"pod-7d9f\", \"ready\": true, \"restarts\": 3}\n".repeat(4_000);
    for counter in counters() {
        assert_limits_agree(counter, &text, "200 KB of JSON lines");
    }
}

#[test]
fn count_up_to_with_a_small_limit_gives_up_on_a_large_text() {
    let text =
        "2026-11-12T00:00:01.696Z INFO  [inventory] GET /api/v1/cart 204 2312ms\n".repeat(20_000);
    for counter in counters() {
        assert_eq!(
            counter.count_up_to(&text, 5_120),
            None,
            "{}",
            counter.name()
        );
        assert!(!counter.fits_within(&text, 5_120), "{}", counter.name());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn count_up_to_agrees_with_count_around_the_true_count_on_random_text(
        text in "([a-z]{1,6}|[ \n]{1,3}|[{}\":,]|\\PC{1,2}){0,24}"
    ) {
        for counter in counters() {
            let n = counter.count(&text);
            for limit in [n.saturating_sub(1), n, n + 1] {
                let expected = (n <= limit).then_some(n);
                prop_assert_eq!(counter.count_up_to(&text, limit), expected, "{}", counter.name());
                prop_assert_eq!(counter.fits_within(&text, limit), n <= limit, "{}", counter.name());
            }
        }
    }
}
