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
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn usable(window: u64, margin: f64) -> Result<u64, BudgetError> {
        BudgetSettings {
            context_safety_margin: margin,
            ..BudgetSettings::for_window(window)
        }
        .usable()
    }

    #[test]
    fn usable_of_100_000_at_margin_0_20_is_exactly_80_000() {
        assert_eq!(usable(100_000, 0.20), Ok(80_000));
    }

    #[test]
    fn usable_of_128_000_at_margin_zero_is_the_whole_window() {
        assert_eq!(usable(128_000, 0.0), Ok(128_000));
    }

    #[test]
    fn margin_0_95_is_accepted_and_keeps_five_percent() {
        assert_eq!(usable(100_000, 0.95), Ok(5_000));
        assert_eq!(usable(128_000, 0.95), Ok(6_400));
    }

    #[test]
    fn usable_rounds_down_when_the_product_is_fractional() {
        // 999 × 0.8 = 799.2 → 799; 7 × 0.5 = 3.5 → 3.
        assert_eq!(usable(999, 0.20), Ok(799));
        assert_eq!(usable(7, 0.5), Ok(3));
        assert_eq!(usable(1, 0.95), Ok(0));
    }

    #[test]
    fn margins_that_float_arithmetic_gets_wrong_are_exact() {
        // In f64, 10 × (1 − 0.9) is 0.9999999999999998 and 50 × (1 − 0.9) is 4.999999999999999,
        // whose floors would be 0 and 4.
        assert_eq!(usable(10, 0.9), Ok(1));
        assert_eq!(usable(50, 0.9), Ok(5));
        assert_eq!(usable(1_000, 0.7), Ok(300));
    }

    #[test]
    fn margin_is_rounded_to_parts_per_million() {
        let settings = |m| BudgetSettings {
            context_safety_margin: m,
            ..BudgetSettings::for_window(1)
        };
        assert_eq!(settings(0.20).margin_ppm(), Ok(200_000));
        assert_eq!(settings(0.95).margin_ppm(), Ok(950_000));
        assert_eq!(settings(0.123_456_7).margin_ppm(), Ok(123_457));
        assert_eq!(settings(-0.0).margin_ppm(), Ok(0));
    }

    #[test]
    fn the_largest_window_does_not_overflow() {
        assert_eq!(usable(u64::MAX, 0.0), Ok(u64::MAX));
        assert_eq!(usable(u64::MAX, 0.5), Ok(u64::MAX / 2));
    }

    #[test]
    fn margin_outside_the_range_or_nan_is_an_error() {
        for margin in [
            -0.01,
            0.950_001,
            1.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert!(
                matches!(
                    usable(100_000, margin),
                    Err(BudgetError::MarginOutOfRange { .. })
                ),
                "{margin} was accepted"
            );
        }
    }

    #[test]
    fn zero_window_and_zero_cap_are_errors() {
        assert_eq!(usable(0, 0.2), Err(BudgetError::ZeroContextWindow));
        let no_cap = BudgetSettings {
            max_extraction_tokens: 0,
            ..BudgetSettings::for_window(10)
        };
        assert_eq!(no_cap.usable(), Err(BudgetError::ZeroExtractionCap));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn usable_is_the_exact_floor_for_every_six_decimal_margin(
            window in 1..=u64::MAX / 2,
            ppm in 0..=950_000u64,
        ) {
            // A margin written with six decimals comes back as exactly those parts per million …
            #[allow(clippy::cast_precision_loss)]
            let margin = ppm as f64 / 1_000_000.0;
            let settings = BudgetSettings { context_safety_margin: margin, ..BudgetSettings::for_window(window) };
            prop_assert_eq!(settings.margin_ppm(), Ok(ppm));
            // … and usable is the floor of window × kept / 10⁶: the largest u with u × 10⁶ ≤ window × kept.
            let usable = u128::from(settings.usable().unwrap());
            let product = u128::from(window) * u128::from(1_000_000 - ppm);
            prop_assert!(usable * 1_000_000 <= product);
            prop_assert!((usable + 1) * 1_000_000 > product);
        }
    }

    #[test]
    fn error_messages_say_how_to_fix_the_setting() {
        let message = usable(100, 1.5).unwrap_err().to_string();
        assert_eq!(
            message,
            "context_safety_margin 1.5 is outside 0.0..=0.95; set it to the fraction of the \
             context window to keep free for reasoning and output, e.g. 0.20"
        );
        assert!(
            BudgetError::ZeroContextWindow
                .to_string()
                .contains("e.g. 128000")
        );
        assert!(
            BudgetError::ZeroExtractionCap
                .to_string()
                .contains("at least 1")
        );
    }
}
