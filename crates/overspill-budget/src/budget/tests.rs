use super::*;

/// usable 80,000, cap 10,000, bonus 6.
fn budget(baseline: u64) -> Budget {
    Budget::new(BudgetSettings::for_window(100_000), baseline).unwrap()
}

#[test]
fn a_fresh_budget_starts_at_the_baseline() {
    let b = budget(3_000);
    assert_eq!(
        (b.usable(), b.baseline(), b.used(), b.remaining()),
        (80_000, 3_000, 3_000, 77_000)
    );
    assert_eq!((b.tokens_extracted(), b.tokens_intercepted()), (0, 0));
    assert_eq!(b.max_extraction_tokens(), 10_000);
}

#[test]
fn new_rejects_settings_that_cannot_make_a_budget() {
    let bad = BudgetSettings {
        context_safety_margin: 0.96,
        ..BudgetSettings::for_window(1_000)
    };
    assert!(matches!(
        Budget::new(bad, 0),
        Err(BudgetError::MarginOutOfRange { .. })
    ));
    assert_eq!(
        Budget::new(BudgetSettings::for_window(0), 0).unwrap_err(),
        BudgetError::ZeroContextWindow
    );
}

#[test]
fn a_charge_within_cap_and_budget_is_charged() {
    let b = budget(3_000);
    assert_eq!(
        b.try_charge(4_000),
        Ok(Charged {
            tokens: 4_000,
            remaining: 73_000
        })
    );
    assert_eq!(
        (b.used(), b.remaining(), b.tokens_extracted()),
        (7_000, 73_000, 4_000)
    );
}

#[test]
fn a_charge_of_exactly_the_cap_is_charged() {
    let b = budget(0);
    assert_eq!(b.try_charge(10_000).map(|c| c.tokens), Ok(10_000));
}

#[test]
fn a_charge_over_the_cap_is_refused_even_when_the_budget_has_room() {
    let b = budget(0);
    let refusal = b.try_charge(10_001).unwrap_err();
    assert_eq!(
        refusal,
        Refusal {
            reason: RefusalReason::OverCallLimit,
            estimated_tokens: 10_001,
            per_call_limit: 10_000,
            remaining_budget_tokens: 80_000,
        }
    );
}

#[test]
fn the_cap_is_checked_before_the_remaining_budget() {
    let b = budget(79_000); // 1,000 left, and 20,000 is over both limits
    assert_eq!(
        b.try_charge(20_000).unwrap_err().reason,
        RefusalReason::OverCallLimit
    );
}

#[test]
fn a_charge_within_the_cap_but_over_the_remainder_is_refused_with_the_remaining_figure() {
    let b = budget(72_000);
    b.try_charge(5_000).unwrap(); // 3,000 left
    let refusal = b.try_charge(3_001).unwrap_err();
    assert_eq!(
        refusal,
        Refusal {
            reason: RefusalReason::OverBudget,
            estimated_tokens: 3_001,
            per_call_limit: 10_000,
            remaining_budget_tokens: 3_000,
        }
    );
    assert_eq!(
        b.try_charge(3_000),
        Ok(Charged {
            tokens: 3_000,
            remaining: 0
        })
    );
}

#[test]
fn refused_charges_change_nothing() {
    let b = budget(70_000);
    b.try_charge(2_000).unwrap();
    b.record_intercepted(50_000);
    let before = (
        b.used(),
        b.remaining(),
        b.tokens_extracted(),
        b.tokens_intercepted(),
    );
    b.try_charge(10_001).unwrap_err(); // over the cap
    b.try_charge(9_000).unwrap_err(); // over the remainder
    assert_eq!(
        (
            b.used(),
            b.remaining(),
            b.tokens_extracted(),
            b.tokens_intercepted()
        ),
        before
    );
    assert_eq!(b.window_hint().remaining, 8_000);
}

#[test]
fn a_baseline_at_or_over_usable_refuses_every_extraction() {
    for baseline in [80_000, 95_000] {
        let b = budget(baseline);
        assert_eq!(b.remaining(), 0);
        let refusal = b.try_charge(1).unwrap_err();
        assert_eq!(refusal.reason, RefusalReason::OverBudget);
        assert_eq!(refusal.remaining_budget_tokens, 0);
        assert_eq!(b.tokens_extracted(), 0);
    }
}

#[test]
fn a_zero_charge_always_succeeds_and_changes_nothing() {
    let b = budget(80_000);
    assert_eq!(
        b.try_charge(0),
        Ok(Charged {
            tokens: 0,
            remaining: 0
        })
    );
    assert_eq!((b.used(), b.tokens_extracted()), (80_000, 0));
}

#[test]
fn llm_usage_above_the_estimate_raises_it_and_lower_usage_never_lowers_it() {
    let b = budget(3_000);
    assert_eq!(b.used(), 3_000);
    b.observe_llm_usage(5_000, 200);
    assert_eq!(b.used(), 5_200);
    b.observe_llm_usage(3_900, 100);
    assert_eq!(b.used(), 5_200);
    assert_eq!(b.remaining(), 74_800);
}

#[test]
fn llm_usage_of_zero_is_a_no_op() {
    let b = budget(3_000);
    b.observe_llm_usage(0, 0);
    assert_eq!(b.used(), 3_000);
    b.observe_llm_usage(5_000, 200);
    b.observe_llm_usage(0, 0);
    assert_eq!(b.used(), 5_200);
}

#[test]
fn llm_usage_replaces_the_own_estimate_rather_than_adding_to_it() {
    let b = budget(3_000);
    b.try_charge(1_000).unwrap(); // estimate 4,000
    b.observe_llm_usage(4_300, 200); // the report already holds baseline + extraction
    assert_eq!(b.used(), 4_500);
    b.try_charge(500).unwrap(); // sent after the report: adds on top
    assert_eq!(b.used(), 5_000);
    assert_eq!(b.tokens_extracted(), 1_500);
}

#[test]
fn reported_usage_shrinks_what_later_charges_may_take() {
    let b = budget(1_000);
    b.observe_llm_usage(75_000, 1_000); // 4,000 left
    let refusal = b.try_charge(4_001).unwrap_err();
    assert_eq!(
        (refusal.reason, refusal.remaining_budget_tokens),
        (RefusalReason::OverBudget, 4_000)
    );
    assert_eq!(b.try_charge(4_000).map(|c| c.remaining), Ok(0));
}

#[test]
fn reported_usage_past_usable_leaves_nothing_and_does_not_overflow() {
    let b = budget(0);
    b.observe_llm_usage(90_000, 5_000);
    assert_eq!((b.used(), b.remaining()), (95_000, 0));
    b.observe_llm_usage(u64::MAX, u64::MAX);
    assert_eq!((b.used(), b.remaining()), (u64::MAX, 0));
    assert_eq!(b.try_charge(1).unwrap_err().remaining_budget_tokens, 0);
}

#[test]
fn interception_counts_tokens_but_leaves_the_estimate_alone() {
    let b = budget(3_000);
    b.record_intercepted(250_000);
    b.record_intercepted(12_000);
    assert_eq!(b.tokens_intercepted(), 262_000);
    assert_eq!(b.used(), 3_000);
    b.record_intercepted(u64::MAX);
    assert_eq!(b.tokens_intercepted(), u64::MAX);
}

#[test]
fn window_hint_reports_remaining_used_baseline_and_usable() {
    let b = budget(4_000);
    b.try_charge(3_000).unwrap();
    let hint = b.window_hint();
    assert_eq!(
        hint,
        WindowHint {
            remaining: 73_000,
            used: 7_000,
            baseline: 4_000,
            usable: 80_000
        }
    );
    assert_eq!(hint.to_string(), "~73,000 of 80,000 budget tokens left");
}

#[test]
fn effective_turn_limit_adds_the_bonus() {
    let b = budget(0);
    assert_eq!(b.effective_turn_limit(10), 16);
    let big = BudgetSettings {
        turn_depth_bonus: u32::MAX,
        ..BudgetSettings::for_window(1_000)
    };
    assert_eq!(
        Budget::new(big, 0).unwrap().effective_turn_limit(5),
        u32::MAX
    );
}

#[test]
fn usage_event_is_absent_when_nothing_was_intercepted_or_extracted() {
    let b = budget(3_000);
    b.observe_llm_usage(9_000, 100);
    b.try_charge(0).unwrap();
    b.try_charge(50_000).unwrap_err();
    assert_eq!(b.usage_event("main"), None);
}

#[test]
fn usage_event_carries_both_counters() {
    let b = budget(0);
    b.record_intercepted(40_000);
    assert_eq!(
        b.usage_event("analyst"),
        Some(ScratchpadUsage::new("analyst", 40_000, 0))
    );
    let only_extracted = budget(0);
    only_extracted.try_charge(700).unwrap();
    assert_eq!(
        only_extracted
            .usage_event("main")
            .map(|e| (e.tokens_intercepted, e.tokens_extracted)),
        Some((0, 700))
    );
}

#[test]
fn budget_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Budget>();
    assert_send_sync::<std::sync::Arc<Budget>>();
}

#[test]
fn a_baseline_counted_later_is_counted_once_at_the_first_need() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let counted = Arc::new(AtomicUsize::new(0));
    let counting = Arc::clone(&counted);
    let b = Budget::with_baseline_later(BudgetSettings::for_window(100_000), move || {
        counting.fetch_add(1, Ordering::SeqCst);
        3_000
    })
    .unwrap();
    // What does not depend on the baseline is answered without it.
    b.record_intercepted(50_000);
    let _ = format!("{b:?}");
    assert_eq!(
        (
            b.usable(),
            b.max_extraction_tokens(),
            b.effective_turn_limit(10)
        ),
        (80_000, 10_000, 16)
    );
    assert_eq!((b.tokens_intercepted(), b.tokens_extracted()), (50_000, 0));
    assert_eq!(counted.load(Ordering::SeqCst), 0);
    assert_eq!(b.try_charge(4_000).unwrap().remaining, 73_000);
    assert_eq!((b.baseline(), b.used()), (3_000, 7_000));
    assert_eq!(counted.load(Ordering::SeqCst), 1);
}

#[test]
fn a_baseline_counted_later_gives_every_figure_a_given_one_gives() {
    let later = || Budget::with_baseline_later(BudgetSettings::for_window(100_000), || 3_000);
    // Whichever step needs the baseline first, every step after it sees what a budget made
    // with the baseline sees.
    let steps: [fn(&Budget) -> String; 5] = [
        |b| format!("{:?}", b.try_charge(12_000)),
        |b| format!("{:?}", b.try_charge(4_000)),
        |b| {
            b.observe_llm_usage(2_000, 100);
            b.used().to_string()
        },
        |b| b.window_hint().long(),
        |b| format!("{} {}", b.remaining(), b.baseline()),
    ];
    for first in steps {
        let (later, given) = (later().unwrap(), budget(3_000));
        for step in std::iter::once(first).chain(steps) {
            assert_eq!(step(&later), step(&given));
        }
    }
}

/// A ledger in memory, as two processes sharing a file would see it.
struct Shared(std::sync::Mutex<u64>);

impl crate::Ledger for Shared {
    fn update(
        &self,
        decide: &mut dyn FnMut(u64) -> Option<u64>,
    ) -> Result<u64, crate::LedgerError> {
        let mut total = self.0.lock().unwrap();
        if let Some(kept) = decide(*total) {
            *total = kept;
        }
        Ok(*total)
    }
}

/// A ledger that always fails.
struct Broken;

impl crate::Ledger for Broken {
    fn update(&self, _: &mut dyn FnMut(u64) -> Option<u64>) -> Result<u64, crate::LedgerError> {
        Err(crate::LedgerError("no disk".to_owned()))
    }
}

#[test]
fn two_budgets_of_one_agent_sharing_a_ledger_never_charge_more_than_one_could() {
    let ledger: std::sync::Arc<dyn crate::Ledger> =
        std::sync::Arc::new(Shared(std::sync::Mutex::new(0)));
    let settings = BudgetSettings::for_window(100_000); // usable 80,000
    let make = || {
        Budget::new(settings, 5_000)
            .unwrap()
            .with_ledger(std::sync::Arc::clone(&ledger))
    };
    let (first, second) = (make(), make());
    let charged: u64 = std::thread::scope(|scope| {
        let runs: Vec<_> = [&first, &second, &first, &second]
            .into_iter()
            .map(|budget| {
                scope.spawn(move || {
                    (0..200)
                        .filter_map(|_| budget.try_charge(700).ok())
                        .map(|charged| charged.tokens)
                        .sum::<u64>()
                })
            })
            .collect();
        runs.into_iter().map(|run| run.join().unwrap()).sum()
    });
    assert_eq!(
        charged,
        75_000 / 700 * 700,
        "every token that fit was charged, no more"
    );
    assert_eq!(
        first.tokens_extracted() + second.tokens_extracted(),
        charged
    );
    // Each sees what the other charged, once it reads the ledger again.
    first.refresh();
    second.refresh();
    assert_eq!(first.used(), 5_000 + charged);
    assert_eq!(second.remaining(), 80_000 - 5_000 - charged);
}

#[test]
fn a_budget_whose_ledger_fails_charges_on_its_own_account() {
    let budget = Budget::new(BudgetSettings::for_window(100_000), 5_000)
        .unwrap()
        .with_ledger(std::sync::Arc::new(Broken));
    assert_eq!(budget.try_charge(2_000).unwrap().remaining, 73_000);
    assert_eq!(budget.used(), 7_000);
}

#[test]
fn a_refund_gives_back_part_of_a_charge_here_and_in_the_ledger() {
    let shared = std::sync::Arc::new(Shared(std::sync::Mutex::new(0)));
    let budget = Budget::new(BudgetSettings::for_window(100_000), 5_000)
        .unwrap()
        .with_ledger(shared.clone());
    budget.try_charge(2_000).unwrap();
    budget.refund(300);
    assert_eq!(budget.tokens_extracted(), 1_700);
    assert_eq!(budget.used(), 6_700);
    assert_eq!(*shared.0.lock().unwrap(), 1_700);
    // Never below nothing.
    budget.refund(10_000);
    assert_eq!(budget.tokens_extracted(), 0);
    assert_eq!(*shared.0.lock().unwrap(), 0);
}
