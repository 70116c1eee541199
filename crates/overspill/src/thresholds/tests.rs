use super::*;
use crate::config::Config;

fn thresholds() -> Thresholds {
    let config = Config::from_toml_str(
        r#"
[mcp.servers.k8s.scratchpad]
"*" = { min_tokens = 5120 }
"k8s_list_*" = { min_tokens = 2048 }
[mcp.servers.other.scratchpad]
"k8s_list_pods" = { min_tokens = 100 }
"#,
    )
    .unwrap();
    let rules = config
        .servers()
        .map(|(name, rules)| (name.to_owned(), rules.clone()))
        .collect();
    Thresholds::new(rules, None, None)
}

#[test]
fn unlisted_tools_resolve_against_their_servers_rules() {
    let t = thresholds();
    assert_eq!(t.threshold("k8s", "k8s_list_pods"), Some(2048));
    assert_eq!(t.threshold("k8s", "k8s_get"), Some(5120));
    assert_eq!(t.threshold("web", "k8s_get"), None);
    assert_eq!(t.threshold("other", "k8s_get"), None);
}

#[test]
fn listed_tools_use_the_resolved_table_with_clashes_settled() {
    let t = thresholds();
    t.set_server_tools("k8s", vec!["k8s_list_pods".into()]);
    let clashes = t.set_server_tools("other", vec!["k8s_list_pods".into()]);
    assert_eq!(clashes.len(), 1);
    assert_eq!(t.threshold("k8s", "k8s_list_pods"), Some(100));
    // A tool the server did not list is still resolved.
    assert_eq!(t.threshold("k8s", "k8s_list_nodes"), Some(2048));
}

#[test]
fn the_fallback_applies_to_servers_without_rules() {
    let t = Thresholds::new(HashMap::new(), Some(ServerRules::fallback()), None);
    assert_eq!(t.threshold("any", "tool"), Some(5120));
}
