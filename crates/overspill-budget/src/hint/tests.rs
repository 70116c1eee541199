use super::*;
use proptest::prelude::*;

#[test]
fn thousands_groups_digits_from_the_right() {
    assert_eq!(thousands(1), "1");
    assert_eq!(thousands(12), "12");
    assert_eq!(thousands(1_000), "1,000");
    assert_eq!(thousands(10_000), "10,000");
    assert_eq!(thousands(100_000), "100,000");
    assert_eq!(thousands(102_400), "102,400");
    assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
}

#[test]
fn window_hint_short_form_is_what_footers_print() {
    let hint = WindowHint {
        remaining: 93_210,
        used: 9_190,
        baseline: 4_000,
        usable: 102_400,
    };
    assert_eq!(hint.to_string(), "~93,210 of 102,400 budget tokens left");
}

#[test]
fn window_hint_long_form_adds_used_and_baseline() {
    let hint = WindowHint {
        remaining: 0,
        used: 90_500,
        baseline: 950,
        usable: 80_000,
    };
    assert_eq!(
        format!("{hint:#}"),
        "~0 of 80,000 budget tokens left (~90,500 used, including a 950-token baseline)"
    );
    assert_eq!(hint.long(), format!("{hint:#}"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn thousands_reads_back_as_the_number(n: u64) {
        let text = thousands(n);
        prop_assert_eq!(text.replace(',', "").parse::<u64>().ok(), Some(n));
        let groups: Vec<&str> = text.split(',').collect();
        prop_assert!((1..=3).contains(&groups[0].len()));
        prop_assert!(groups[1..].iter().all(|g| g.len() == 3));
    }
}
