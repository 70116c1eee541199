use super::*;

#[test]
fn the_default_threshold_is_the_shell_tools() {
    let rules = claude_code::rules_or(None, DEFAULT_THRESHOLDS).unwrap();
    assert_eq!(
        rules.resolve(SHELL_TOOL).map(|rule| rule.min_tokens),
        Some(5_120)
    );
    assert!(rules.resolve("read_file").is_none());
}
