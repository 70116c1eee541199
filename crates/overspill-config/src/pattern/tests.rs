use super::*;

fn pattern(text: &str) -> ToolPattern {
    ToolPattern::new(text).unwrap()
}

#[test]
fn star_matches_any_run_including_empty_and_separators() {
    let p = pattern("k8s_*");
    assert!(p.matches("k8s_"));
    assert!(p.matches("k8s_list/pods.v2"));
    assert!(!p.matches("k8s"));
}

#[test]
fn question_mark_matches_exactly_one_character() {
    let p = pattern("a?c");
    assert!(p.matches("abc"));
    assert!(!p.matches("ac"));
    assert!(!p.matches("abbc"));
}

#[test]
fn classes_ranges_and_negation_match_one_character() {
    assert!(pattern("get_[pn]ods").matches("get_pods"));
    assert!(pattern("v[0-9]").matches("v7"));
    assert!(!pattern("v[!0-9]").matches("v7"));
    assert!(pattern("v[!0-9]").matches("vx"));
}

#[test]
fn alternation_matches_each_branch_and_an_empty_one() {
    let p = pattern("k8s_{list,get}_pods");
    assert!(p.matches("k8s_list_pods") && p.matches("k8s_get_pods"));
    assert!(!p.matches("k8s_watch_pods"));
    let p = pattern("fetch{,_all}");
    assert!(p.matches("fetch") && p.matches("fetch_all"));
}

#[test]
fn patterns_are_anchored_and_case_sensitive() {
    let p = pattern("list");
    assert!(p.matches("list"));
    assert!(!p.matches("list_pods"));
    assert!(!p.matches("k8s_list"));
    assert!(!p.matches("LIST"));
}

#[test]
fn escapes_and_bracketed_specials_match_literally() {
    assert!(pattern("a[[]b").matches("a[b"));
    assert!(pattern(r"a\*").matches("a*"));
    assert!(!pattern(r"a\*").matches("ab"));
    assert!(pattern(r"a\\").matches(r"a\"));
    assert!(pattern("x[{]").matches("x{"));
}

#[test]
fn length_counts_characters_not_bytes() {
    assert_eq!(pattern("é*").len_chars(), 2);
}

#[test]
fn empty_pattern_is_rejected() {
    assert_eq!(ToolPattern::new("").unwrap_err(), PatternError::Empty);
}

#[test]
fn unclosed_class_is_rejected_with_an_escape_hint() {
    let err = ToolPattern::new("k8s_[list").unwrap_err();
    assert_eq!(err, PatternError::UnclosedClass);
    let message = err.to_string();
    assert!(message.starts_with("unclosed character class"), "{message}");
    assert!(message.contains("`[[]`"), "{message}");
}

#[test]
fn each_glob_error_kind_has_its_own_fix() {
    assert_eq!(
        ToolPattern::new("[z-a]").unwrap_err(),
        PatternError::InvalidRange {
            start: 'z',
            end: 'a'
        }
    );
    assert_eq!(
        ToolPattern::new("a}").unwrap_err(),
        PatternError::UnopenedAlternates
    );
    assert_eq!(
        ToolPattern::new("a{b").unwrap_err(),
        PatternError::UnclosedAlternates
    );
    assert_eq!(
        ToolPattern::new(r"a\").unwrap_err(),
        PatternError::DanglingEscape
    );
    assert!(
        PatternError::UnclosedAlternates
            .to_string()
            .contains("`[{]`")
    );
    assert!(PatternError::DanglingEscape.to_string().contains(r"`\\`"));
}

#[test]
fn patterns_compare_by_text() {
    assert_eq!(pattern("a*"), pattern("a*"));
    assert_ne!(pattern("a*"), pattern("a?"));
}

#[test]
fn filter_allows_tools_any_pattern_matches() {
    let filter = ToolFilter::new(vec![pattern("k8s_*"), pattern("grep")]).unwrap();
    assert!(filter.allows("k8s_get"));
    assert!(filter.allows("grep"));
    assert!(!filter.allows("grep2"));
    assert_eq!(filter.to_string(), r#"["k8s_*", "grep"]"#);
}

#[test]
fn reachable_with_absent_filter_is_every_tool() {
    assert_eq!(reachable(None, ["a", "b"]), ["a", "b"]);
}

#[test]
fn reachable_with_empty_filter_is_no_tool() {
    let filter = ToolFilter::new(Vec::new()).unwrap();
    assert!(filter.is_empty());
    assert!(reachable(Some(&filter), ["a", "b"]).is_empty());
}

#[test]
fn reachable_keeps_only_allowed_tools_in_order() {
    let filter = ToolFilter::new(vec![pattern("b*"), pattern("a")]).unwrap();
    assert_eq!(reachable(Some(&filter), ["a", "c", "bb"]), ["a", "bb"]);
}
