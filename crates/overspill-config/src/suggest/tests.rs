use super::*;

const KEYS: &[&str] = &[
    "enabled",
    "context_safety_margin",
    "max_extraction_tokens",
    "turn_depth_bonus",
];

#[test]
fn one_letter_typo_suggests_the_key() {
    assert_eq!(nearest("enabledd", KEYS), Some("enabled"));
    assert_eq!(nearest("enabeld", KEYS), Some("enabled"));
    assert_eq!(
        nearest("max_extraction_token", KEYS),
        Some("max_extraction_tokens")
    );
}

#[test]
fn case_differences_are_typos_too() {
    assert_eq!(nearest("Enabled", KEYS), Some("enabled"));
}

#[test]
fn a_truncated_key_suggests_the_full_one() {
    assert_eq!(nearest("turn_depth", KEYS), Some("turn_depth_bonus"));
}

#[test]
fn unrelated_keys_get_no_suggestion() {
    assert_eq!(nearest("threshold", KEYS), None);
    assert_eq!(nearest("x", &["min_tokens"]), None);
}
