use super::*;

#[test]
fn the_default_thresholds_cover_the_shell_and_mcp_tools() {
    let rules = claude_code::rules_or(None, DEFAULT_THRESHOLDS).unwrap();
    let threshold = |tool: &str| rules.resolve(tool).map(|rule| rule.min_tokens);
    assert_eq!(threshold("Bash"), Some(5_120));
    assert_eq!(threshold("mcp__github__search_issues"), Some(5_120));
    assert_eq!(threshold("apply_patch"), None);
}
