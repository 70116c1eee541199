//! The budget invariant under concurrent charges (docs/budget.md, docs/security.md): however
//! threads interleave, the charged extractions never add up to more than
//! `usable − baseline`, and `tokens_extracted` is exactly their sum.

use std::sync::Barrier;
use std::thread;

use overspill_budget::{Budget, BudgetSettings, RefusalReason};
use proptest::prelude::*;

const THREADS: usize = 8;

/// One step of a thread's work.
#[derive(Clone, Debug)]
enum Step {
    Charge(u64),
    Observe(u64, u64),
    Intercept(u64),
}

/// What one thread saw.
#[derive(Default)]
struct Seen {
    charged: u64,
    intercepted: u64,
    charges: Vec<u64>,
}

fn run(budget: &Budget, plans: &[Vec<Step>]) -> Vec<Seen> {
    let barrier = Barrier::new(plans.len());
    thread::scope(|scope| {
        let handles: Vec<_> = plans
            .iter()
            .map(|plan| {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    let mut seen = Seen::default();
                    for step in plan {
                        match *step {
                            Step::Charge(tokens) => match budget.try_charge(tokens) {
                                Ok(charged) => {
                                    assert_eq!(charged.tokens, tokens);
                                    assert!(tokens <= budget.max_extraction_tokens());
                                    seen.charged += tokens;
                                    seen.charges.push(tokens);
                                }
                                Err(refusal) => {
                                    assert_eq!(refusal.estimated_tokens, tokens);
                                    match refusal.reason {
                                        RefusalReason::OverCallLimit => {
                                            assert!(tokens > refusal.per_call_limit);
                                        }
                                        RefusalReason::OverBudget => {
                                            assert!(tokens <= refusal.per_call_limit);
                                            assert!(tokens > refusal.remaining_budget_tokens);
                                        }
                                    }
                                }
                            },
                            Step::Observe(input, output) => budget.observe_llm_usage(input, output),
                            Step::Intercept(tokens) => {
                                budget.record_intercepted(tokens);
                                seen.intercepted += tokens;
                            }
                        }
                        // Readers racing the writers always see the invariant.
                        assert!(
                            budget.tokens_extracted()
                                <= budget.usable().saturating_sub(budget.baseline())
                        );
                    }
                    seen
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

fn step(cap: u64) -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => (0..=cap.saturating_mul(2)).prop_map(Step::Charge),
        1 => (0..=120_000u64, 0..=4_000u64).prop_map(|(i, o)| Step::Observe(i, o)),
        1 => (0..=1_000_000u64).prop_map(Step::Intercept),
    ]
}

fn case() -> impl Strategy<Value = (BudgetSettings, u64, Vec<Vec<Step>>)> {
    (1..=150_000u64, 0..=950_000u32, 1..=20_000u64).prop_flat_map(|(window, margin_ppm, cap)| {
        let settings = BudgetSettings {
            context_window: window,
            context_safety_margin: f64::from(margin_ppm) / 1_000_000.0,
            max_extraction_tokens: cap,
            turn_depth_bonus: 6,
        };
        let plans =
            proptest::collection::vec(proptest::collection::vec(step(cap), 0..200), THREADS);
        (Just(settings), 0..=window, plans)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn eight_threads_never_charge_more_than_usable_minus_baseline(
        (settings, baseline, plans) in case()
    ) {
        let budget = Budget::new(settings, baseline).unwrap();
        let seen = run(&budget, &plans);

        let charged: u64 = seen.iter().map(|s| s.charged).sum();
        prop_assert!(charged <= budget.usable().saturating_sub(baseline));
        prop_assert_eq!(charged, budget.tokens_extracted());
        prop_assert_eq!(seen.iter().map(|s| s.intercepted).sum::<u64>(), budget.tokens_intercepted());
        prop_assert!(budget.used() >= baseline + charged);
        prop_assert!(seen.iter().flat_map(|s| &s.charges).all(|&t| t <= settings.max_extraction_tokens));
    }

    #[test]
    fn without_llm_reports_the_estimate_is_baseline_plus_charges(
        (settings, baseline, plans) in case()
    ) {
        let plans: Vec<Vec<Step>> = plans
            .into_iter()
            .map(|plan| plan.into_iter().filter(|s| !matches!(s, Step::Observe(..))).collect())
            .collect();
        let budget = Budget::new(settings, baseline).unwrap();
        let seen = run(&budget, &plans);
        let charged: u64 = seen.iter().map(|s| s.charged).sum();
        prop_assert_eq!(budget.used(), baseline + charged);
        prop_assert_eq!(budget.remaining(), budget.usable().saturating_sub(baseline + charged));
    }
}

#[test]
fn concurrent_unit_charges_fill_the_budget_exactly_and_no_further() {
    // usable 1,000, baseline 200: exactly 800 one-token charges can succeed.
    let budget = Budget::new(
        BudgetSettings {
            context_safety_margin: 0.0,
            ..BudgetSettings::for_window(1_000)
        },
        200,
    )
    .unwrap();
    let plans = vec![vec![Step::Charge(1); 500]; THREADS];
    let seen = run(&budget, &plans);
    let successes: usize = seen.iter().map(|s| s.charges.len()).sum();
    assert_eq!(successes, 800);
    assert_eq!(budget.tokens_extracted(), 800);
    assert_eq!((budget.used(), budget.remaining()), (1_000, 0));
}
