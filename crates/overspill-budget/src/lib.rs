//! The per-agent context budget.
//!
//! `overspill-budget` owns the token account of one agent (docs/budget.md): the usable
//! window, the baseline, atomic check-and-charge of extractions, LLM-reported
//! usage as ground truth, the interception and extraction counters, and the
//! `aura.scratchpad_usage` event (docs/budget.md#the-usage-event).
//!
//! ```
//! use overspill_budget::{Budget, BudgetSettings, MAIN_AGENT_ID};
//!
//! // 128,000-token window, 20 % margin: 102,400 usable; 10,000 per call.
//! let budget = Budget::new(BudgetSettings::for_window(128_000), 4_000)?;
//!
//! budget.record_intercepted(250_000); // a pod list went to disk, not into the context
//! let charged = budget.try_charge(5_190).expect("fits"); // an extraction the model reads
//! assert_eq!(charged.remaining, 93_210);
//! assert_eq!(budget.window_hint().to_string(), "~93,210 of 102,400 budget tokens left");
//!
//! budget.observe_llm_usage(11_800, 300); // the provider's figure wins when higher
//! assert_eq!(budget.remaining(), 90_300);
//!
//! let event = budget.usage_event(MAIN_AGENT_ID).expect("something happened");
//! assert_eq!(
//!     event.to_sse(),
//!     "event: aura.scratchpad_usage\n\
//!      data: {\"agent_id\":\"main\",\"tokens_intercepted\":250000,\"tokens_extracted\":5190}\n\n"
//! );
//! # Ok::<(), overspill_budget::BudgetError>(())
//! ```
//!
//! The budget's rules and the reasons behind them are in `docs/budget.md`.
//!
//! # Architecture invariant
//!
//! This crate depends only on `overspill-tokens`. It does no I/O and holds no
//! lock across a caller's work; the sum of charged extractions never exceeds
//! `usable − baseline`.

mod baseline;
mod budget;
mod event;
mod hint;
mod ledger;
mod refusal;
mod settings;

pub use baseline::Baseline;
pub use budget::Budget;
pub use event::{EVENT_NAME, MAIN_AGENT_ID, ScratchpadUsage};
pub use hint::{WindowHint, thousands};
pub use ledger::{Added, Ledger, LedgerError};
pub use refusal::{Charged, Refusal, RefusalReason};
pub use settings::{
    BudgetError, BudgetSettings, DEFAULT_CONTEXT_SAFETY_MARGIN, DEFAULT_MAX_EXTRACTION_TOKENS,
    DEFAULT_TURN_DEPTH_BONUS, MAX_CONTEXT_SAFETY_MARGIN,
};
