use super::*;

fn rules(entries: &[(&str, u64)]) -> ServerRules {
    ServerRules::new(
        entries
            .iter()
            .map(|&(p, t)| Rule::new(ToolPattern::new(p).unwrap(), t))
            .collect(),
    )
    .unwrap()
}

fn threshold(rules: &ServerRules, tool: &str) -> Option<u64> {
    rules.resolve(tool).map(|rule| rule.min_tokens)
}

#[test]
fn fallback_is_star_at_5120() {
    let fallback = ServerRules::fallback();
    assert_eq!(fallback.rules().len(), 1);
    assert_eq!(fallback.rules()[0].pattern.as_str(), "*");
    assert_eq!(fallback.rules()[0].min_tokens, DEFAULT_MIN_TOKENS);
    assert_eq!(threshold(&fallback, ""), Some(5120));
}

#[test]
fn longest_matching_pattern_wins() {
    let r = rules(&[("*", 256), ("k8s_list_*", 512), ("k8s_list_pods", 384)]);
    assert_eq!(threshold(&r, "k8s_list_pods"), Some(384));
    assert_eq!(threshold(&r, "k8s_list_nodes"), Some(512));
    assert_eq!(threshold(&r, "k8s_get"), Some(256));
}

#[test]
fn equal_length_tie_goes_to_the_smallest_threshold() {
    let r = rules(&[("a?c", 300), ("ab*", 200)]);
    assert_eq!(threshold(&r, "abc"), Some(200));
    let r = rules(&[("ab*", 200), ("a?c", 300)]);
    assert_eq!(threshold(&r, "abc"), Some(200));
}

#[test]
fn full_tie_goes_to_the_pattern_written_first() {
    let r = rules(&[("a?c", 300), ("ab?", 300)]);
    assert_eq!(r.resolve("abc").unwrap().pattern.as_str(), "a?c");
    let order: Vec<&str> = r
        .by_precedence()
        .iter()
        .map(|r| r.pattern.as_str())
        .collect();
    assert_eq!(order, ["a?c", "ab?"]);
}

#[test]
fn no_matching_pattern_means_never_intercepted() {
    let r = rules(&[("k8s_*", 100)]);
    assert_eq!(threshold(&r, "web_search"), None);
    assert_eq!(threshold(&rules(&[]), "x"), None);
}

#[test]
fn length_is_counted_in_characters() {
    // Both are 3 characters, so the tie goes to the smaller threshold;
    // by bytes "éa*" (4 bytes) would have won.
    let r = rules(&[("éa*", 20), ("*ab", 10)]);
    assert_eq!(r.resolve("éab").map(|r| r.pattern.as_str()), Some("*ab"));
}

#[test]
fn precedence_order_lists_winners_first() {
    let r = rules(&[
        ("*", 256),
        ("k8s_list_*", 512),
        ("k8s_get?", 100),
        ("k8s_list_pods", 384),
    ]);
    let order: Vec<&str> = r
        .by_precedence()
        .iter()
        .map(|r| r.pattern.as_str())
        .collect();
    assert_eq!(order, ["k8s_list_pods", "k8s_list_*", "k8s_get?", "*"]);
}
