use super::*;

#[test]
fn the_default_thresholds_are_those_docs_hooks_md_gives() {
    let rules = thresholds(DEFAULT_THRESHOLDS).unwrap();
    let threshold = |tool: &str| rules.resolve(tool).map(|rule| rule.min_tokens);
    assert_eq!(threshold("Bash"), Some(5_120));
    assert_eq!(threshold("Read"), Some(10_000));
    assert_eq!(threshold("WebFetch"), Some(5_120));
    assert_eq!(threshold("mcp__github__search_issues"), Some(5_120));
    assert_eq!(threshold("Grep"), None);
    assert_eq!(threshold("BashOutput"), None);
}
