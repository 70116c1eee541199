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
