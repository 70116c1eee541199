use super::*;

fn config(text: &str) -> Config {
    Config::from_toml_str(text).unwrap()
}

const K8S: &str = r#"
        [mcp.servers.k8s.scratchpad]
        "*" = { min_tokens = 256 }
        "k8s_list_*" = { min_tokens = 512 }
        "k8s_list_pods" = { min_tokens = 384 }
    "#;

#[test]
fn longest_pattern_wins_on_one_server() {
    let table = ThresholdTable::resolve(
        &config(K8S),
        [("k8s", ["k8s_list_pods", "k8s_list_nodes", "k8s_get"])],
    );
    assert_eq!(table.threshold("k8s", "k8s_list_pods"), Some(384));
    assert_eq!(table.threshold("k8s", "k8s_list_nodes"), Some(512));
    assert_eq!(table.threshold("k8s", "k8s_get"), Some(256));
    let won = table.resolution("k8s", "k8s_list_nodes").unwrap();
    assert_eq!(won.pattern, "k8s_list_*");
}

#[test]
fn patterns_of_server_a_never_apply_to_server_b() {
    let text = format!("{K8S}\n[mcp.servers.web.scratchpad]\n\"search\" = {{ min_tokens = 10 }}\n");
    let table = ThresholdTable::resolve(
        &config(&text),
        [
            ("k8s", vec!["search", "k8s_get"]),
            ("web", vec!["k8s_get", "fetch"]),
        ],
    );
    // k8s's "*" does not reach web's tools, and web's "search" is not k8s's.
    assert_eq!(table.threshold("web", "k8s_get"), None);
    assert_eq!(table.threshold("web", "fetch"), None);
    assert_eq!(table.threshold("k8s", "k8s_get"), Some(256));
    assert_eq!(table.threshold("k8s", "search"), Some(256));
}

#[test]
fn a_server_without_rules_intercepts_nothing() {
    let table = ThresholdTable::resolve(&config(K8S), [("other", ["k8s_get"])]);
    assert_eq!(table.threshold("other", "k8s_get"), None);
    assert!(table.is_empty());
}

#[test]
fn equal_length_patterns_tie_to_the_smallest_threshold() {
    let c = config(
        r#"
            [mcp.servers.s.scratchpad]
            "a?c" = { min_tokens = 300 }
            "ab*" = { min_tokens = 200 }
        "#,
    );
    let table = ThresholdTable::resolve(&c, [("s", ["abc"])]);
    assert_eq!(table.threshold("s", "abc"), Some(200));
}

#[test]
fn cross_server_name_clash_takes_the_smaller_with_a_warning() {
    let c = config(
        r#"
            [mcp.servers.a.scratchpad]
            "*" = { min_tokens = 1000 }
            [mcp.servers.b.scratchpad]
            "se*" = { min_tokens = 2000 }
        "#,
    );
    let table = ThresholdTable::resolve(&c, [("a", vec!["search", "x"]), ("b", vec!["search"])]);
    assert_eq!(table.threshold("a", "search"), Some(1000));
    assert_eq!(table.threshold("b", "search"), Some(1000));
    assert_eq!(table.threshold_by_name("search"), Some(1000));
    assert_eq!(table.threshold_by_name("nothing"), None);
    let b = table.resolution("b", "search").unwrap();
    assert_eq!((b.pattern.as_str(), b.pattern_min_tokens), ("se*", 2000));
    assert_eq!(
        table.clashes(),
        [ThresholdClash {
            tool: "search".into(),
            servers: vec![
                ("a".into(), "*".into(), 1000),
                ("b".into(), "se*".into(), 2000)
            ],
            applied: 1000,
        }]
    );
    assert_eq!(
        table.clashes()[0].to_string(),
        r#"tool "search" has different thresholds on servers a (1000 via "*") and b (2000 via "se*"); all of them use the smallest, 1000"#
    );
}

#[test]
fn same_name_with_the_same_threshold_is_no_clash() {
    let c = config(
        r#"
            [mcp.servers.a.scratchpad]
            "*" = { min_tokens = 1000 }
            [mcp.servers.b.scratchpad]
            "search" = { min_tokens = 1000 }
        "#,
    );
    let table = ThresholdTable::resolve(&c, [("a", ["search"]), ("b", ["search"])]);
    assert!(table.clashes().is_empty());
}

#[test]
fn a_name_intercepted_on_one_server_only_stays_unintercepted_on_the_other() {
    let c = config(
        r#"
            [mcp.servers.a.scratchpad]
            "*" = { min_tokens = 1000 }
        "#,
    );
    let table = ThresholdTable::resolve(&c, [("a", ["search"]), ("b", ["search"])]);
    assert_eq!(table.threshold("b", "search"), None);
    assert!(table.clashes().is_empty());
    // A host that only knows the name intercepts it (at a's threshold).
    assert_eq!(table.threshold_by_name("search"), Some(1000));
}

#[test]
fn fallback_rules_intercept_every_tool_at_5120() {
    let fallback = ServerRules::fallback();
    let table = ThresholdTable::resolve_with(|_| Some(&fallback), [("any", ["x", "y"])]);
    assert_eq!(table.threshold("any", "x"), Some(5120));
    assert_eq!(table.len(), 2);
}

#[test]
fn reachable_follows_the_filter_over_intercepted_tools() {
    let c = config(
        r#"
            [mcp.servers.k8s.scratchpad]
            "k8s_list_*" = { min_tokens = 1 }
        "#,
    );
    let table = ThresholdTable::resolve(&c, [("k8s", ["k8s_list_pods", "k8s_get"])]);
    assert_eq!(table.reachable(None), [("k8s", "k8s_list_pods")]);
    let none = ToolFilter::new(Vec::new()).unwrap();
    assert!(table.reachable(Some(&none)).is_empty());
    let only_get = ToolFilter::new(vec![crate::ToolPattern::new("k8s_get").unwrap()]).unwrap();
    assert!(table.reachable(Some(&only_get)).is_empty());
}
