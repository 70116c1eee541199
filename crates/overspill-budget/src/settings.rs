//! The numbers a budget is built from, and the exact usable window (docs/budget.md).

use thiserror::Error;

/// Default `context_safety_margin`: the fraction of the window kept free for
/// reasoning and output.
pub const DEFAULT_CONTEXT_SAFETY_MARGIN: f64 = 0.20;
/// Default `max_extraction_tokens`: the cap on one exploration result.
pub const DEFAULT_MAX_EXTRACTION_TOKENS: u64 = 10_000;
/// Default `turn_depth_bonus`: extra agent turns while the scratchpad is active.
pub const DEFAULT_TURN_DEPTH_BONUS: u32 = 6;
/// The largest accepted `context_safety_margin`.
pub const MAX_CONTEXT_SAFETY_MARGIN: f64 = 0.95;

/// Parts per million in a whole: a margin is kept to six decimal places.
const PPM: u64 = 1_000_000;

/// The scratchpad settings of one agent, as far as its budget needs them.
///
/// The field names are those of `[agent.scratchpad]` and `[agent.llm]`
/// (docs/configuration.md). [`BudgetSettings::for_window`] fills in the defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BudgetSettings {
    /// The model's context size in tokens (at least 1).
    pub context_window: u64,
    /// The fraction of the window reserved for reasoning and output,
    /// `0.0..=0.95`. Kept to six decimal places (parts per million).
    pub context_safety_margin: f64,
    /// The cap on one extraction, in tokens (at least 1).
    pub max_extraction_tokens: u64,
    /// Extra agent turns while the scratchpad is active.
    pub turn_depth_bonus: u32,
}

impl BudgetSettings {
    /// The settings for a window of `context_window` tokens with every other
    /// field at its default (margin 0.20, cap 10,000, bonus 6).
    ///
    /// ```
    /// use overspill_budget::BudgetSettings;
    ///
    /// let settings = BudgetSettings::for_window(128_000);
    /// assert_eq!(settings.max_extraction_tokens, 10_000);
    /// assert_eq!(settings.usable(), Ok(102_400));
    /// ```
    #[must_use]
    pub fn for_window(context_window: u64) -> Self {
        Self {
            context_window,
            context_safety_margin: DEFAULT_CONTEXT_SAFETY_MARGIN,
            max_extraction_tokens: DEFAULT_MAX_EXTRACTION_TOKENS,
            turn_depth_bonus: DEFAULT_TURN_DEPTH_BONUS,
        }
    }

    /// The margin in parts per million, rounded to the nearest (0.20 →
    /// 200,000), or why the settings cannot make a budget.
    pub fn margin_ppm(&self) -> Result<u64, BudgetError> {
        let margin = self.context_safety_margin;
        // `contains` is false for NaN, so NaN is refused here too.
        if !(0.0..=MAX_CONTEXT_SAFETY_MARGIN).contains(&margin) {
            return Err(BudgetError::MarginOutOfRange { margin });
        }
        // In range, so the product lies in 0.0..=950_000.0 and the cast is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let ppm = (margin * PPM as f64).round() as u64;
        Ok(ppm)
    }

    /// `floor(context_window × (1 − context_safety_margin))`, in exact integer
    /// arithmetic: 100,000 × 0.80 is 80,000, not 79,999.
    ///
    /// Fails when the window or the per-call cap is 0, or the margin is
    /// outside `0.0..=0.95` (or NaN).
    pub fn usable(&self) -> Result<u64, BudgetError> {
        if self.context_window == 0 {
            return Err(BudgetError::ZeroContextWindow);
        }
        if self.max_extraction_tokens == 0 {
            return Err(BudgetError::ZeroExtractionCap);
        }
        let kept = u128::from(PPM - self.margin_ppm()?);
        let usable = u128::from(self.context_window) * kept / u128::from(PPM);
        // usable ≤ context_window, so it fits back into a u64.
        Ok(u64::try_from(usable).unwrap_or(self.context_window))
    }
}

/// Why settings cannot make a budget.
#[derive(Clone, Copy, Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum BudgetError {
    /// The margin is below 0, above 0.95, or not a number.
    #[error(
        "context_safety_margin {margin} is outside 0.0..=0.95; set it to the fraction of the \
         context window to keep free for reasoning and output, e.g. 0.20"
    )]
    MarginOutOfRange {
        /// The margin given.
        margin: f64,
    },
    /// The context window is 0 tokens.
    #[error("context_window is 0; set it to the model's context size in tokens, e.g. 128000")]
    ZeroContextWindow,
    /// The per-call cap is 0 tokens, which would refuse every extraction.
    #[error(
        "max_extraction_tokens is 0, which would refuse every extraction; set it to at least 1 \
         (the default is 10000)"
    )]
    ZeroExtractionCap,
}

#[cfg(test)]
mod tests;
