//! The token account of one agent: the estimate, check-and-charge, LLM-reported
//! usage and the usage counters (docs/budget.md).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use crate::event::ScratchpadUsage;
use crate::hint::WindowHint;
use crate::ledger::{Added, Ledger};
use crate::refusal::{Charged, Refusal, RefusalReason};
use crate::settings::{BudgetError, BudgetSettings};

/// The context budget of one agent.
///
/// Built once from the agent's settings and baseline, then shared (`&Budget`
/// or `Arc<Budget>`) by every tool call the agent makes; all updates are
/// lock-free atomic operations, so concurrent calls need no outside lock.
///
/// The *estimate* ([`used`](Self::used)) of the agent's context starts at the
/// baseline, grows by each successful charge, and is raised (never lowered)
/// to the LLM-reported total by [`observe_llm_usage`](Self::observe_llm_usage).
/// A charge succeeds only when it fits the per-call cap and the estimate plus
/// the charge stays within [`usable`](Self::usable), so the charged
/// extractions never add up to more than `usable − baseline`.
///
/// A baseline at or above `usable` is accepted: the agent runs, and every
/// extraction is refused with `remaining_budget_tokens: 0`.
///
/// The baseline may also be counted later, on first need
/// ([`with_baseline_later`](Self::with_baseline_later)), for a host whose
/// counter is not ready when the budget is made.
///
/// ```
/// use overspill_budget::{Budget, BudgetSettings, RefusalReason};
///
/// let settings = BudgetSettings::for_window(100_000); // usable 80,000, cap 10,000
/// let budget = Budget::new(settings, 5_000)?;
///
/// let charged = budget.try_charge(2_000).unwrap();
/// assert_eq!(charged.remaining, 73_000);
///
/// let refusal = budget.try_charge(12_000).unwrap_err();
/// assert_eq!(refusal.reason, RefusalReason::OverCallLimit);
/// assert_eq!(refusal.remaining_budget_tokens, 73_000);
///
/// budget.observe_llm_usage(9_000, 400); // ground truth from the provider
/// assert_eq!(budget.used(), 9_400);
/// assert_eq!(budget.window_hint().to_string(), "~70,600 of 80,000 budget tokens left");
/// # Ok::<(), overspill_budget::BudgetError>(())
/// ```
pub struct Budget {
    settings: BudgetSettings,
    usable: u64,
    /// Set once: at once by [`Budget::new`], at the first need by
    /// [`Budget::with_baseline_later`].
    baseline: OnceLock<u64>,
    /// What counts the baseline when it is not given.
    count_baseline: Option<Box<dyn Fn() -> u64 + Send + Sync>>,
    /// The estimate of the agent's context, baseline included (once the
    /// baseline is set). Every charge and every observation goes through this
    /// one atomic, so each check-and-charge sees the latest estimate.
    used: AtomicU64,
    extracted: AtomicU64,
    intercepted: AtomicU64,
    /// Where the extractions of every process serving the agent are kept, when several do.
    ledger: Option<Arc<dyn Ledger>>,
}

impl Budget {
    /// A fresh budget for one agent whose context already holds `baseline`
    /// tokens (see [`Baseline`](crate::Baseline)).
    ///
    /// Fails when the settings cannot make a budget: a margin outside
    /// `0.0..=0.95`, a zero window or a zero per-call cap.
    pub fn new(settings: BudgetSettings, baseline: u64) -> Result<Self, BudgetError> {
        let usable = settings.usable()?;
        Ok(Self {
            settings,
            usable,
            baseline: OnceLock::from(baseline),
            count_baseline: None,
            used: AtomicU64::new(baseline),
            extracted: AtomicU64::new(0),
            intercepted: AtomicU64::new(0),
            ledger: None,
        })
    }

    /// A fresh budget whose baseline `count` counts when it is first needed:
    /// by the first call that reads the baseline or the estimate, or charges
    /// or raises it. Every figure is then what [`Budget::new`] with that
    /// baseline gives. Making it counts nothing, so a host whose counter's
    /// tables are still being built does not wait for them
    /// (docs/budget.md#a-baseline-counted-later).
    ///
    /// `count` runs once (again only if it panicked); calls that need the
    /// baseline while it runs wait for it. Fails as [`Budget::new`] does.
    ///
    /// ```
    /// use overspill_budget::{Budget, BudgetSettings};
    ///
    /// let budget = Budget::with_baseline_later(BudgetSettings::for_window(100_000), || 5_000)?;
    /// assert_eq!(budget.usable(), 80_000); // nothing counted yet
    /// assert_eq!(budget.try_charge(2_000).unwrap().remaining, 73_000);
    /// assert_eq!(budget.baseline(), 5_000);
    /// # Ok::<(), overspill_budget::BudgetError>(())
    /// ```
    pub fn with_baseline_later(
        settings: BudgetSettings,
        count: impl Fn() -> u64 + Send + Sync + 'static,
    ) -> Result<Self, BudgetError> {
        let usable = settings.usable()?;
        Ok(Self {
            settings,
            usable,
            baseline: OnceLock::new(),
            count_baseline: Some(Box::new(count)),
            used: AtomicU64::new(0),
            extracted: AtomicU64::new(0),
            intercepted: AtomicU64::new(0),
            ledger: None,
        })
    }

    /// The same budget, its extractions checked and charged through `ledger`, which every
    /// process serving the agent shares (docs/budget.md#one-agent-served-by-several-processes):
    /// a charge fits when the baseline, every process's extractions and this one fit
    /// [`usable`](Self::usable), so two processes never charge more than one could. The
    /// counters of the usage event stay this process's own. When the ledger fails, the budget
    /// charges on its own account, as without one.
    #[must_use]
    pub fn with_ledger(mut self, ledger: Arc<dyn Ledger>) -> Self {
        self.ledger = Some(ledger);
        self
    }

    /// The settings the budget was built from.
    #[must_use]
    pub fn settings(&self) -> &BudgetSettings {
        &self.settings
    }

    /// The window less the safety margin, in tokens.
    #[must_use]
    pub fn usable(&self) -> u64 {
        self.usable
    }

    /// The tokens the agent's context held before any extraction (counted
    /// now when it is counted later and was not yet).
    #[must_use]
    pub fn baseline(&self) -> u64 {
        self.settle()
    }

    /// The current estimate of the agent's context, baseline included. With a shared ledger,
    /// what the other processes charged is in it as of the last [`refresh`](Self::refresh) or
    /// charge; it never asks the ledger itself.
    #[must_use]
    pub fn used(&self) -> u64 {
        self.settle();
        self.used.load(Ordering::Acquire)
    }

    /// Raises the estimate to what every process serving the agent charged, read from the
    /// shared ledger once (no-op without one, or when it cannot be read). The exploration
    /// tools do this before refusing a call for the budget, so the figures of the refusal count
    /// the others' charges; a charge itself is checked against the ledger whatever the
    /// estimate says, and raises the estimate by what the ledger answers.
    pub fn refresh(&self) {
        let baseline = self.settle();
        if let Some(ledger) = &self.ledger
            && let Ok(shared) = ledger.total()
        {
            self.used
                .fetch_max(baseline.saturating_add(shared), Ordering::AcqRel);
        }
    }

    /// The tokens still free for extractions: `usable − used`, or 0 once the
    /// estimate reaches `usable`.
    #[must_use]
    pub fn remaining(&self) -> u64 {
        self.usable.saturating_sub(self.used())
    }

    /// The cap on one extraction (`max_extraction_tokens`).
    #[must_use]
    pub fn max_extraction_tokens(&self) -> u64 {
        self.settings.max_extraction_tokens
    }

    /// Charges an extraction of `tokens` to the budget if it fits: first the
    /// per-call cap, then what remains.
    ///
    /// Check and charge are one atomic step, so two calls that each fit
    /// alone cannot both be charged when together they do not fit. A refused
    /// charge changes nothing. A charge of 0 tokens always succeeds.
    pub fn try_charge(&self, tokens: u64) -> Result<Charged, Refusal> {
        if let Some(ledger) = &self.ledger
            && let Some(decided) = self.charge_shared(ledger.as_ref(), tokens)
        {
            return decided;
        }
        let mut used = self.used();
        loop {
            let remaining = self.usable.saturating_sub(used);
            if let Some(refusal) = self.refusal(tokens, remaining) {
                return Err(refusal);
            }
            // tokens ≤ remaining = usable − used, so `used + tokens` cannot overflow.
            match self.used.compare_exchange_weak(
                used,
                used + tokens,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    // The sum of charges never passes `usable`, so neither does this.
                    self.extracted.fetch_add(tokens, Ordering::AcqRel);
                    return Ok(Charged {
                        tokens,
                        remaining: remaining - tokens,
                    });
                }
                Err(now) => used = now,
            }
        }
    }

    /// Gives back `tokens` of a charge that came out larger than the text it paid for (a host
    /// that charged a text, then sent a shorter one in its place): the estimate, the
    /// extractions counted and, with a shared ledger, the ledger's total each fall by `tokens`,
    /// never below zero. Give back only what a [`try_charge`](Self::try_charge) charged.
    pub fn refund(&self, tokens: u64) {
        if tokens == 0 {
            return;
        }
        saturating_sub(&self.extracted, tokens);
        saturating_sub(&self.used, tokens);
        if let Some(ledger) = &self.ledger {
            // A ledger that fails keeps the tokens: the others see a little less left, never
            // more than there is.
            let _ = ledger.update(&mut |total| Some(total.saturating_sub(tokens)));
        }
    }

    /// Takes the LLM's reported usage for a turn as ground truth: raises the
    /// estimate to `input + output` when that is higher, never lowers it.
    /// `(0, 0)` (a provider that reports nothing) changes nothing.
    ///
    /// Call it as soon as a response arrives: the reported total already
    /// includes the baseline and every extraction sent so far, so it replaces
    /// the own estimate rather than adding to it. Extractions charged after
    /// the observation add to the raised estimate.
    pub fn observe_llm_usage(&self, input: u64, output: u64) {
        let reported = input.saturating_add(output);
        if reported > 0 {
            self.settle();
            self.used.fetch_max(reported, Ordering::AcqRel);
        }
    }

    /// Adds an intercepted output's tokens to `tokens_intercepted`.
    /// Interception does not touch the estimate: the model sees a pointer,
    /// not the output.
    pub fn record_intercepted(&self, tokens: u64) {
        saturating_add(&self.intercepted, tokens);
    }

    /// The tokens of every output intercepted for this agent so far.
    #[must_use]
    pub fn tokens_intercepted(&self) -> u64 {
        self.intercepted.load(Ordering::Acquire)
    }

    /// The tokens of every extraction charged so far: the sum of all
    /// successful [`try_charge`](Self::try_charge) calls.
    #[must_use]
    pub fn tokens_extracted(&self) -> u64 {
        self.extracted.load(Ordering::Acquire)
    }

    /// A consistent snapshot for footers and errors: remaining and used come
    /// from one reading of the estimate.
    #[must_use]
    pub fn window_hint(&self) -> WindowHint {
        let used = self.used();
        WindowHint {
            remaining: self.usable.saturating_sub(used),
            used,
            baseline: self.settle(),
            usable: self.usable,
        }
    }

    /// `base + turn_depth_bonus`, for the agent's turn limit.
    ///
    /// A budget exists only for an agent whose scratchpad is active, so
    /// holding one means the bonus applies; an agent without a budget keeps
    /// `base`. Saturates at `u32::MAX`.
    #[must_use]
    pub fn effective_turn_limit(&self, base: u32) -> u32 {
        base.saturating_add(self.settings.turn_depth_bonus)
    }

    /// The usage event for this agent (docs/budget.md#the-usage-event), or `None` when nothing was
    /// intercepted or extracted.
    ///
    /// `agent_id` is `"main"` ([`MAIN_AGENT_ID`](crate::MAIN_AGENT_ID)) for a
    /// single agent and the worker's name in orchestration.
    #[must_use]
    pub fn usage_event(&self, agent_id: &str) -> Option<ScratchpadUsage> {
        let intercepted = self.tokens_intercepted();
        let extracted = self.tokens_extracted();
        (intercepted > 0 || extracted > 0)
            .then(|| ScratchpadUsage::new(agent_id, intercepted, extracted))
    }
}

impl Budget {
    /// [`try_charge`](Self::try_charge) through the shared ledger: `None` when the ledger
    /// failed (the caller charges on its own account).
    fn charge_shared(&self, ledger: &dyn Ledger, tokens: u64) -> Option<Result<Charged, Refusal>> {
        let baseline = self.settle();
        if tokens == 0 {
            // Always succeeds, and changes nothing anywhere.
            let remaining = self
                .usable
                .saturating_sub(self.used.load(Ordering::Acquire));
            return Some(Ok(Charged { tokens, remaining }));
        }
        // This process's own estimate (the model's reported usage may be above what the
        // ledger knows) and the per-call cap are checked here; the ledger adds the tokens only
        // while every process's charges together stay within what the baseline leaves.
        let own = self.used.load(Ordering::Acquire);
        if let Some(refusal) = self.refusal(tokens, self.usable.saturating_sub(own)) {
            return Some(Err(refusal));
        }
        let limit = self.usable.saturating_sub(baseline);
        let Added { added, total } = ledger.add_within(tokens, limit).ok()?;
        let before = if added { total - tokens } else { total };
        let used = own.max(baseline.saturating_add(before));
        let remaining = self.usable.saturating_sub(used);
        if !added {
            self.used.fetch_max(used, Ordering::AcqRel);
            return Some(Err(self.refusal(tokens, remaining).unwrap_or(Refusal {
                reason: RefusalReason::OverBudget,
                estimated_tokens: tokens,
                per_call_limit: self.settings.max_extraction_tokens,
                remaining_budget_tokens: remaining,
            })));
        }
        saturating_add(&self.extracted, tokens);
        // The estimate follows what every process charged, and this charge.
        self.used
            .fetch_max(used.saturating_add(tokens), Ordering::AcqRel);
        Some(Ok(Charged {
            tokens,
            remaining: remaining.saturating_sub(tokens),
        }))
    }

    fn refusal(&self, tokens: u64, remaining: u64) -> Option<Refusal> {
        let per_call_limit = self.settings.max_extraction_tokens;
        let reason = if tokens > per_call_limit {
            RefusalReason::OverCallLimit
        } else if tokens > remaining {
            RefusalReason::OverBudget
        } else {
            return None;
        };
        Some(Refusal {
            reason,
            estimated_tokens: tokens,
            per_call_limit,
            remaining_budget_tokens: remaining,
        })
    }

    /// The baseline, counted first if it is counted later and was not yet.
    fn settle(&self) -> u64 {
        *self.baseline.get_or_init(|| {
            let baseline = self.count_baseline.as_ref().map_or(0, |count| count());
            // Nothing reaches the estimate before the baseline is set (every
            // path to it comes through here), so it starts at the baseline.
            self.used.fetch_add(baseline, Ordering::AcqRel);
            baseline
        })
    }
}

impl fmt::Debug for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The baseline as far as it is known: formatting counts nothing.
        f.debug_struct("Budget")
            .field("settings", &self.settings)
            .field("usable", &self.usable)
            .field("baseline", &self.baseline.get())
            .field("used", &self.used)
            .field("extracted", &self.extracted)
            .field("intercepted", &self.intercepted)
            .finish_non_exhaustive()
    }
}

/// Takes from a counter, stopping at 0 instead of wrapping.
fn saturating_sub(counter: &AtomicU64, tokens: u64) {
    // The closure always returns `Some`, so the update cannot fail.
    let _ = counter.fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
        Some(now.saturating_sub(tokens))
    });
}

/// Adds to a counter, stopping at `u64::MAX` instead of wrapping.
fn saturating_add(counter: &AtomicU64, tokens: u64) {
    if tokens > 0 {
        // The closure always returns `Some`, so the update cannot fail.
        let _ = counter.fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
            Some(now.saturating_add(tokens))
        });
    }
}

#[cfg(test)]
mod tests;
