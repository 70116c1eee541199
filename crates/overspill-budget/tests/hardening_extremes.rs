//! The budget at the edges `concurrency.rs` does not reach (docs/security.md): windows, caps,
//! baselines, charges and reported usage up to `u64::MAX`, margins that are not numbers,
//! sixteen threads racing. Nothing panics or overflows, invalid settings are refused with an
//! error, and the invariant holds: the charged extractions never add up to more than
//! `usable − baseline`.
//!
//! Defence guarded: the checked/saturating arithmetic in `BudgetSettings::usable` and the
//! single compare-and-swap in `Budget::try_charge`.

// Helpers outside #[test] fns panic on fixture failures like the tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Barrier;
use std::thread;

use overspill_budget::{Budget, BudgetSettings};
use proptest::prelude::*;

const THREADS: usize = 16;

/// Mostly extremes, some ordinary values.
fn big() -> impl Strategy<Value = u64> {
    prop_oneof![
        prop::sample::select(vec![
            0,
            1,
            2,
            u64::MAX,
            u64::MAX - 1,
            u64::MAX / 2,
            1 << 53,
            (1 << 53) + 1
        ]),
        any::<u64>(),
        0..200_000u64,
    ]
}

fn margin() -> impl Strategy<Value = f64> {
    prop_oneof![
        prop::sample::select(vec![
            0.0,
            -0.0,
            0.2,
            0.95,
            0.950_000_1,
            1.0,
            -0.1,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            f64::EPSILON,
        ]),
        0.0..=0.95f64,
        any::<f64>(),
    ]
}

#[derive(Clone, Debug)]
enum Op {
    Charge(u64),
    Observe(u64, u64),
    Intercept(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => big().prop_map(Op::Charge),
        1 => (big(), big()).prop_map(|(i, o)| Op::Observe(i, o)),
        1 => big().prop_map(Op::Intercept),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn extreme_settings_are_refused_or_give_a_budget_that_keeps_the_invariant(
        window in big(),
        margin in margin(),
        cap in big(),
        baseline in big(),
        plans in prop::collection::vec(prop::collection::vec(op(), 0..40), THREADS),
    ) {
        let settings = BudgetSettings {
            context_window: window,
            context_safety_margin: margin,
            max_extraction_tokens: cap,
            turn_depth_bonus: 6,
        };
        let Ok(budget) = Budget::new(settings, baseline) else {
            // Refused settings are the documented ones, not a panic.
            prop_assert!(window == 0 || cap == 0 || !(0.0..=0.95).contains(&margin));
            return Ok(());
        };
        prop_assert!(budget.usable() <= window);

        let barrier = Barrier::new(THREADS);
        let charged: Vec<(u64, u64)> = thread::scope(|scope| {
            let handles: Vec<_> = plans
                .iter()
                .map(|plan| {
                    let (budget, barrier) = (&budget, &barrier);
                    scope.spawn(move || {
                        barrier.wait();
                        let (mut charged, mut intercepted) = (0u64, 0u64);
                        for op in plan {
                            match *op {
                                Op::Charge(tokens) => {
                                    if let Ok(ok) = budget.try_charge(tokens) {
                                        assert!(tokens <= cap);
                                        assert_eq!(ok.tokens, tokens);
                                        charged += tokens;
                                    }
                                }
                                Op::Observe(input, output) => budget.observe_llm_usage(input, output),
                                Op::Intercept(tokens) => {
                                    budget.record_intercepted(tokens);
                                    intercepted = intercepted.saturating_add(tokens);
                                }
                            }
                            assert!(budget.tokens_extracted() <= budget.usable().saturating_sub(baseline));
                            // Reading the hint and the event never panics either.
                            let _ = budget.window_hint().to_string();
                        }
                        (charged, intercepted)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });

        let total: u64 = charged.iter().map(|c| c.0).sum();
        prop_assert!(total <= budget.usable().saturating_sub(baseline));
        prop_assert_eq!(total, budget.tokens_extracted());
        let intercepted = charged.iter().fold(0u64, |sum, c| sum.saturating_add(c.1));
        prop_assert_eq!(intercepted, budget.tokens_intercepted());
        prop_assert!(budget.remaining() <= budget.usable());
        prop_assert!(budget.usage_event("agent").is_none_or(|e| !e.to_json().is_empty()));
    }
}

#[test]
fn a_charge_of_u64_max_on_a_u64_max_window_neither_overflows_nor_passes_the_cap() {
    let budget = Budget::new(
        BudgetSettings {
            context_window: u64::MAX,
            context_safety_margin: 0.0,
            max_extraction_tokens: u64::MAX,
            turn_depth_bonus: 6,
        },
        1,
    )
    .unwrap();
    assert!(
        budget.try_charge(u64::MAX).is_err(),
        "more than usable − baseline"
    );
    let fits = budget.usable() - 1;
    assert_eq!(budget.try_charge(fits).unwrap().remaining, 0);
    assert!(budget.try_charge(1).is_err());
    budget.observe_llm_usage(u64::MAX, u64::MAX);
    budget.record_intercepted(u64::MAX);
    budget.record_intercepted(u64::MAX);
    assert_eq!(budget.tokens_intercepted(), u64::MAX);
    assert_eq!(budget.remaining(), 0);
    assert_eq!(budget.tokens_extracted(), fits);
}
