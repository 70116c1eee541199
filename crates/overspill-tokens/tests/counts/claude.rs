//! The Claude counter is `ceil(1.1 × cl100k_base)`, never below it.

use overspill_tokens::{cl100k, claude};
use proptest::prelude::*;

use crate::samples::{hard_cases, shared_data_files};

fn expected_claude(text: &str) -> usize {
    (cl100k().count(text) * 11).div_ceil(10)
}

#[test]
fn claude_count_is_ceil_of_1_1_times_cl100k_on_hard_cases_and_samples() {
    let mut texts: Vec<(String, String)> = hard_cases()
        .into_iter()
        .map(|(what, text)| (what.to_owned(), text))
        .collect();
    texts.extend(shared_data_files().unwrap_or_default());
    for (what, text) in texts {
        let (base, scaled) = (cl100k().count(&text), claude().count(&text));
        assert_eq!(scaled, expected_claude(&text), "{what}");
        assert!(scaled >= base, "{what}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    #[test]
    fn claude_count_is_at_least_cl100k_and_equals_ceil_of_1_1_times_it(text in "\\PC{0,60}") {
        let scaled = claude().count(&text);
        prop_assert!(scaled >= cl100k().count(&text));
        prop_assert_eq!(scaled, expected_claude(&text));
    }
}
