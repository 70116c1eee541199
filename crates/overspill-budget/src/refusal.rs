//! What a charge returns: the charge, or the refusal that a `<tool>_too_large`
//! error is built from (docs/tools.md#1-common-rules).

use std::fmt;

use crate::hint::thousands;

/// A successful charge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Charged {
    /// The tokens charged.
    pub tokens: u64,
    /// What remained of the budget right after this charge.
    pub remaining: u64,
}

/// A refused charge: what the `<tool>_too_large` error needs (docs/tools.md#1-common-rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// Which limit the charge broke.
    pub reason: RefusalReason,
    /// The tokens the extraction would have cost.
    pub estimated_tokens: u64,
    /// The cap on one extraction.
    pub per_call_limit: u64,
    /// What remained of the budget when the charge was refused.
    pub remaining_budget_tokens: u64,
}

impl Refusal {
    /// The most a retry may cost to be charged, as things stand:
    /// the smaller of the per-call cap and the remaining budget.
    #[must_use]
    pub fn fits_at_most(&self) -> u64 {
        self.per_call_limit.min(self.remaining_budget_tokens)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let estimated = thousands(self.estimated_tokens);
        match self.reason {
            RefusalReason::OverCallLimit => write!(
                f,
                "~{estimated} tokens is over the per-call limit of {} tokens",
                thousands(self.per_call_limit)
            )?,
            RefusalReason::OverBudget => write!(
                f,
                "~{estimated} tokens is more than the ~{} budget tokens left",
                thousands(self.remaining_budget_tokens)
            )?,
        }
        match self.fits_at_most() {
            0 => f.write_str("; the context budget is used up, so answer with what you have"),
            most => write!(
                f,
                "; ask for a smaller part (at most {} tokens)",
                thousands(most)
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// Which limit a refused charge broke. The per-call cap is checked first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefusalReason {
    /// More than `max_extraction_tokens`, whatever the budget holds.
    OverCallLimit,
    /// Within the cap, but more than what remains of the budget.
    OverBudget,
}

impl RefusalReason {
    /// `over_call_limit` or `over_budget`, for logs and machine-readable output.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OverCallLimit => "over_call_limit",
            Self::OverBudget => "over_budget",
        }
    }
}

impl fmt::Display for RefusalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests;
