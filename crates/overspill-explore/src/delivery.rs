//! The budget rule (docs/tools.md#1-common-rules): a result is judged on its final text, body plus footer.
//!
//! 1. Over `max_extraction_tokens` → `<tool>_too_large`.
//! 2. Else over what remains of the budget → `<tool>_too_large` with the remaining figure.
//! 3. Else charged, exactly the tokens of the returned text, to the budget and to
//!    `tokens_extracted`. Errors are never charged.
//!
//! **The footer counts itself.** Its token figure is part of the text it measures, and its
//! budget figure (what is left after the charge) depends on that figure. [`measure`] iterates
//! to a fixed point: render the footer with a guess, count the whole text, re-render with the
//! count, until the count equals the figure shown (one or two rounds in practice: changing a
//! number rarely changes the token count). If the count oscillates (a figure crossing a digit
//! boundary can flip by one token), the larger figures are tried directly; should none be
//! self-consistent, the text is charged its exact count and the `~` figure may be off by one.
//! The charge is always the exact count of the returned text.
//!
//! Counting is bounded by the limit (`count_up_to`), so judging a huge result costs
//! O(limit), not O(result). The `estimated_tokens` of a refusal is an exact count for results
//! up to [`EXACT_ESTIMATE_BYTES`], and beyond that a count of the first mebibyte scaled by
//! length.

use overspill_budget::{RefusalReason, WindowHint};

use crate::context::ExploreContext;
use crate::footer::Footer;
use crate::tool::Extraction;

/// Results up to this size get an exact `estimated_tokens` when refused.
pub const EXACT_ESTIMATE_BYTES: usize = 4 << 20;

/// Bytes counted to extrapolate the estimate of a larger result.
const SAMPLE_BYTES: usize = 1 << 20;

/// Rounds of the footer fixed-point search before trying figures directly.
const FIXED_POINT_ROUNDS: usize = 6;

/// A result judged against the limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Measured {
    /// It fits: the final text and its exact token count.
    Fits {
        /// Body, newline, footer.
        text: String,
        /// Exact tokens of `text`.
        tokens: u64,
    },
    /// It does not fit.
    TooLarge {
        /// Tokens the result would cost (see the module docs).
        estimated_tokens: u64,
    },
}

/// Why a result was refused, with the figures the error reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// Tokens the result would cost.
    pub estimated_tokens: u64,
    /// The per-call cap.
    pub per_call_limit: u64,
    /// What remained of the budget.
    pub remaining_budget_tokens: u64,
    /// Whether the remaining budget, rather than the per-call cap, is what it exceeds.
    pub over_budget: bool,
}

/// Renders `extraction` with its footer and judges it against the current limit, without
/// charging anything.
pub fn measure(ctx: &ExploreContext, tool: &str, extraction: &Extraction) -> Measured {
    let budget = ctx.budget();
    let now = budget.window_hint();
    let limit = ctx.token_limit();
    if let Some(estimated_tokens) = extraction.unrendered {
        return Measured::TooLarge { estimated_tokens };
    }
    let limit_usize = usize::try_from(limit).unwrap_or(usize::MAX);
    let compose = |tokens: u64| {
        let footer = Footer {
            tool,
            summary: &extraction.summary,
            notes: &extraction.notes,
            tokens,
            budget: WindowHint {
                remaining: now.remaining.saturating_sub(tokens),
                used: now.used.saturating_add(tokens),
                ..now
            },
        };
        if extraction.body.is_empty() {
            footer.to_string()
        } else {
            format!("{}\n{footer}", extraction.body)
        }
    };
    let counter = ctx.counter();
    let mut figure = 0u64;
    let mut seen = Vec::with_capacity(FIXED_POINT_ROUNDS);
    for _ in 0..FIXED_POINT_ROUNDS {
        let text = compose(figure);
        let Some(count) = counter.count_up_to(&text, limit_usize) else {
            return Measured::TooLarge {
                estimated_tokens: estimate(ctx, &text),
            };
        };
        let count = count as u64;
        if count == figure {
            return Measured::Fits {
                text,
                tokens: count,
            };
        }
        seen.push(figure);
        if seen.contains(&count) {
            break;
        }
        figure = count;
    }
    // An oscillation: try the figures just above the largest seen.
    let top = seen.iter().copied().chain([figure]).max().unwrap_or(figure);
    for candidate in top..top + 4 {
        let text = compose(candidate);
        match counter.count_up_to(&text, limit_usize) {
            Some(count) if count as u64 == candidate => {
                return Measured::Fits {
                    text,
                    tokens: candidate,
                };
            }
            Some(_) => {}
            None => {
                return Measured::TooLarge {
                    estimated_tokens: estimate(ctx, &text),
                };
            }
        }
    }
    let text = compose(top);
    match counter.count_up_to(&text, limit_usize) {
        Some(count) => Measured::Fits {
            text,
            tokens: count as u64,
        },
        None => Measured::TooLarge {
            estimated_tokens: estimate(ctx, &text),
        },
    }
}

/// Measures `extraction` and charges it: the returned text on success, what to report on
/// refusal. Check and charge are one atomic step of the budget, so concurrent calls cannot
/// overspend it.
///
/// # Errors
/// [`Refused`] when the result exceeds the per-call cap or the remaining budget.
pub fn deliver(
    ctx: &ExploreContext,
    tool: &str,
    extraction: &Extraction,
) -> Result<String, Refused> {
    let budget = ctx.budget();
    match measure(ctx, tool, extraction) {
        Measured::Fits { text, tokens } => match budget.try_charge(tokens) {
            Ok(_) => Ok(text),
            Err(refusal) => Err(Refused {
                estimated_tokens: refusal.estimated_tokens,
                per_call_limit: refusal.per_call_limit,
                remaining_budget_tokens: refusal.remaining_budget_tokens,
                over_budget: refusal.reason == RefusalReason::OverBudget,
            }),
        },
        Measured::TooLarge { estimated_tokens } => {
            let per_call_limit = budget.max_extraction_tokens();
            Err(Refused {
                estimated_tokens,
                per_call_limit,
                remaining_budget_tokens: budget.remaining(),
                over_budget: estimated_tokens <= per_call_limit,
            })
        }
    }
}

/// The token count of `text`: exact up to [`EXACT_ESTIMATE_BYTES`], else extrapolated from
/// the first [`SAMPLE_BYTES`].
fn estimate(ctx: &ExploreContext, text: &str) -> u64 {
    let counter = ctx.counter();
    if text.len() <= EXACT_ESTIMATE_BYTES {
        return counter.count(text) as u64;
    }
    let sample = &text[..text.floor_char_boundary(SAMPLE_BYTES)];
    let sampled = counter.count(sample) as u128;
    let scaled = sampled * text.len() as u128 / sample.len().max(1) as u128;
    u64::try_from(scaled).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use overspill_tokens::TokenCounter;
    use serde_json::json;

    use super::*;
    use crate::test_support::{Fixture, counter, numbered_text, split};

    /// The figure a footer states: `~412 tokens` → 412.
    fn stated_tokens(text: &str) -> u64 {
        let footer = split(text).1;
        let at = footer.find(" | ~").unwrap();
        let rest = &footer[at + 4..];
        rest[..rest.find(" tokens").unwrap()]
            .replace(',', "")
            .parse()
            .unwrap()
    }

    #[test]
    fn the_budget_is_charged_exactly_the_tokens_of_the_final_text() {
        let fixture = Fixture::new(&[("a.txt", numbered_text(400).as_bytes())]);
        let mut charged = 0;
        for arguments in [
            json!({"file": "a.txt", "lines": 7}),
            json!({"file": "a.txt", "lines": 300}),
            json!({"file": "a.txt"}),
        ] {
            let text = fixture.call("head", arguments);
            let tokens = counter().count(&text) as u64;
            assert_eq!(
                stated_tokens(&text),
                tokens,
                "the footer states its own text's count"
            );
            charged += tokens;
            assert_eq!(fixture.ctx.budget().tokens_extracted(), charged);
            assert_eq!(fixture.ctx.budget().remaining(), 102_400 - charged);
        }
    }

    #[test]
    fn the_footer_states_the_budget_left_after_the_charge() {
        let fixture = Fixture::new(&[("a.txt", b"one\ntwo\n")]);
        let text = fixture.call("read", json!({"file": "a.txt"}));
        let left = fixture.ctx.budget().remaining();
        assert!(
            text.ends_with(&format!(
                "| ~{} of 102,400 budget tokens left ---",
                overspill_budget::thousands(left)
            )),
            "{text}"
        );
    }

    #[test]
    fn nothing_is_charged_for_an_error() {
        let fixture = Fixture::with_budget(
            &[("a.txt", numbered_text(5_000).as_bytes())],
            128_000,
            500,
            0,
        );
        for (tool, arguments) in [
            ("head", json!({"file": "a.txt", "lines": 4_000})),
            ("head", json!({"file": "missing.txt"})),
            ("head", json!({"file": "a.txt", "lines": -4})),
            ("grep", json!({"file": "a.txt", "pattern": "line"})),
            ("read", json!({"file": "a.txt"})),
        ] {
            assert!(fixture.call(tool, arguments).starts_with("{\"error\""));
        }
        assert_eq!(fixture.ctx.budget().tokens_extracted(), 0);
        assert_eq!(fixture.ctx.budget().remaining(), 102_400);
    }

    #[test]
    fn over_the_remaining_budget_is_too_large_with_the_remaining_figure_and_a_fitting_retry() {
        // 10,000 usable, 9,400 of it baseline: 600 left, under the 10,000 cap.
        let fixture = Fixture::with_budget(
            &[("a.txt", numbered_text(2_000).as_bytes())],
            12_500,
            10_000,
            9_400,
        );
        assert_eq!(fixture.ctx.budget().remaining(), 600);
        let error = fixture.error("head", json!({"file": "a.txt", "lines": 400}));
        assert_eq!(error["error"], "head_too_large");
        assert_eq!(error["per_call_limit"], 10_000);
        assert_eq!(error["remaining_budget_tokens"], 600);
        assert!(error["estimated_tokens"].as_u64().unwrap() > 600);
        let suggestions = error["suggestions"].to_string();
        assert!(
            suggestions.contains("Only about 600 tokens of your budget are left"),
            "{suggestions}"
        );
        let retried = fixture.call("head", error["retry"]["arguments"].clone());
        assert!(retried.contains("--- head: lines 1-"), "{retried}");
    }

    #[test]
    fn a_spent_budget_refuses_everything_and_says_nothing_smaller_fits() {
        let fixture = Fixture::with_budget(
            &[("a.txt", numbered_text(50).as_bytes())],
            1_000,
            10_000,
            800,
        );
        assert_eq!(fixture.ctx.budget().remaining(), 0);
        let error = fixture.error("head", json!({"file": "a.txt", "lines": 8}));
        assert_eq!(error["error"], "head_too_large");
        assert_eq!(error["remaining_budget_tokens"], 0);
        assert_eq!(error["retry"]["arguments"]["lines"], 1);
        assert!(
            error["suggestions"]
                .to_string()
                .contains("Nothing smaller fits")
        );
    }

    /// A counter whose count flips between 10 and 11 depending on the figure the footer
    /// states, so no figure is self-consistent.
    struct Flipping;

    impl TokenCounter for Flipping {
        fn count(&self, text: &str) -> usize {
            if text.contains("~10 tokens") { 11 } else { 10 }
        }
        fn count_up_to(&self, text: &str, limit: usize) -> Option<usize> {
            Some(self.count(text)).filter(|&n| n <= limit)
        }
        fn name(&self) -> &'static str {
            "flipping"
        }
    }

    static FLIPPING: Flipping = Flipping;

    #[test]
    fn an_oscillating_count_is_still_charged_exactly() {
        let fixture = Fixture::with_counter(&[("a.txt", b"x\n")], 128_000, 10_000, 0, &FLIPPING);
        let text = fixture.call("head", json!({"file": "a.txt"}));
        let charged = fixture.ctx.budget().tokens_extracted();
        assert_eq!(charged, FLIPPING.count(&text) as u64);
        assert!(stated_tokens(&text).abs_diff(charged) <= 1);
    }

    #[test]
    fn large_refused_results_get_an_extrapolated_estimate() {
        let text = "word ".repeat(2_000_000);
        let fixture = Fixture::new(&[]);
        let estimate = estimate(&fixture.ctx, &text);
        let exact = counter().count(&text) as u64;
        assert!(
            estimate.abs_diff(exact) * 20 < exact,
            "{estimate} vs {exact}"
        );
    }

    #[test]
    fn concurrent_calls_never_overspend_the_budget_and_each_is_charged_its_text() {
        // 8,000 usable, no baseline: far less than 8 threads × 10 calls of ~900 tokens.
        let fixture = Fixture::with_budget(
            &[("a.txt", numbered_text(2_000).as_bytes())],
            10_000,
            10_000,
            0,
        );
        let charged: u64 = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|t| {
                    let fixture = &fixture;
                    scope.spawn(move || {
                        let mut mine = 0;
                        for i in 0..10 {
                            let start = 1 + (t * 10 + i) * 20;
                            let text = fixture.call(
                                "slice",
                                json!({"file": "a.txt", "start": start, "end": start + 79}),
                            );
                            if !text.starts_with("{\"error\"") {
                                mine += counter().count(&text) as u64;
                            }
                        }
                        mine
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        let budget = fixture.ctx.budget();
        assert_eq!(budget.tokens_extracted(), charged);
        assert!(charged <= budget.usable() - budget.baseline());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        #[test]
        fn every_delivered_text_states_and_is_charged_its_own_count(lines in proptest::collection::vec("[ -~]{0,80}", 1..40)) {
            let content = lines.join("\n");
            let fixture = Fixture::new(&[("p.txt", content.as_bytes())]);
            let text = fixture.call("read", json!({"file": "p.txt"}));
            let tokens = counter().count(&text) as u64;
            proptest::prop_assert_eq!(fixture.ctx.budget().tokens_extracted(), tokens);
            proptest::prop_assert_eq!(stated_tokens(&text), tokens);
        }
    }
}
