use std::collections::HashSet;

use proptest::prelude::*;

use super::*;

fn valid(name: &str, max_len: usize) -> bool {
    (1..=max_len).contains(&name.len()) && name.bytes().all(allowed)
}

#[test]
fn plain_names_are_server_separator_name() {
    let table = Namespace::default().name_all(
        [("k8s", "list_pods"), ("docs", "search"), ("web", "search")],
        &HashSet::new(),
    );
    assert_eq!(table.offered("k8s", "list_pods"), Some("k8s__list_pods"));
    assert_eq!(table.offered("docs", "search"), Some("docs__search"));
    assert_eq!(table.offered("web", "search"), Some("web__search"));
    assert_eq!(table.len(), 3);
}

#[test]
fn a_configured_separator_joins_the_names() {
    let namespace = Namespace::new("-", 64).unwrap();
    let table = namespace.name_all([("k8s", "list_pods")], &HashSet::new());
    assert_eq!(table.offered("k8s", "list_pods"), Some("k8s-list_pods"));
}

#[test]
fn long_or_unusual_names_are_shortened_the_same_way_every_time() {
    let long = "describe_every_pod_of_every_namespace_with_its_events";
    let first =
        Namespace::default().name_all([("kubernetes", long), ("a.b", "c d")], &HashSet::new());
    let again =
        Namespace::default().name_all([("kubernetes", long), ("a.b", "c d")], &HashSet::new());
    let shortened = first.offered("kubernetes", long).unwrap();
    assert_eq!(shortened.len(), DEFAULT_MAX_LEN);
    assert!(
        shortened.starts_with("kubernetes__describe_every_pod_of_eve"),
        "{shortened}"
    );
    assert_eq!(again.offered("kubernetes", long), Some(shortened));
    let odd = first.offered("a.b", "c d").unwrap();
    assert!(odd.starts_with("a_b__c_d-"), "{odd}");
    assert!(valid(odd, DEFAULT_MAX_LEN));
}

#[test]
fn names_that_read_alike_stay_apart_and_reserved_names_are_never_offered() {
    let reserved: HashSet<String> = ["k8s__grep".to_owned()].into();
    let table = Namespace::default().name_all(
        [("a.b", "x"), ("a_b", "x"), ("a b", "x"), ("k8s", "grep")],
        &reserved,
    );
    let offered: HashSet<&str> = [("a.b", "x"), ("a_b", "x"), ("a b", "x"), ("k8s", "grep")]
        .iter()
        .map(|(server, name)| table.offered(server, name).unwrap())
        .collect();
    assert_eq!(offered.len(), 4);
    assert_eq!(table.offered("a_b", "x"), Some("a_b__x"));
    // Two pairs that would read alike get neither the plain name, whatever their order.
    for pairs in [
        [("a", "b__c"), ("a__b", "c")],
        [("a__b", "c"), ("a", "b__c")],
    ] {
        let table = Namespace::default().name_all(pairs, &HashSet::new());
        assert_ne!(table.offered("a", "b__c"), Some("a__b__c"));
        assert_ne!(table.offered("a__b", "c"), Some("a__b__c"));
    }
    assert_ne!(table.offered("k8s", "grep"), Some("k8s__grep"));
}

#[test]
fn a_bad_separator_or_length_is_refused() {
    for (separator, max_len) in [
        ("", 48),
        ("::", 48),
        ("_________", 48),
        ("__", 15),
        ("__", 65),
    ] {
        let error = Namespace::new(separator, max_len).unwrap_err();
        assert!(
            error.to_string().starts_with("invalid server namespace"),
            "{error}"
        );
    }
}

proptest! {
    /// Any server and tool names, with any separator and length the configuration allows:
    /// every offered name follows the model APIs' rule and the length, no two are equal, none
    /// is reserved, and each leads back to its server and original name.
    #[test]
    fn offered_names_are_valid_distinct_and_round_trip(
        entries in proptest::collection::vec((".{0,70}", ".{0,90}"), 0..40),
        separator in "[A-Za-z0-9_-]{1,8}",
        max_len in MIN_MAX_LEN..=MAX_NAME_LEN,
        reserved in proptest::collection::hash_set("[a-z_]{1,20}", 0..5),
    ) {
        let namespace = Namespace::new(&separator, max_len).unwrap();
        let table = namespace.name_all(
            entries.iter().map(|(server, name)| (server.as_str(), name.as_str())),
            &reserved,
        );
        let mut seen = HashSet::new();
        for (server, name) in &entries {
            let offered = table.offered(server, name).unwrap();
            prop_assert!(valid(offered, max_len), "{offered:?} (max {max_len})");
            prop_assert!(!reserved.contains(offered));
            let origin = table.origin(offered).unwrap();
            prop_assert_eq!((&origin.server, &origin.name), (server, name));
            seen.insert(offered.to_owned());
        }
        let distinct: HashSet<&(String, String)> = entries.iter().collect();
        prop_assert_eq!(seen.len(), distinct.len());
        prop_assert_eq!(table.len(), distinct.len());
    }

    /// The names do not depend on the order the servers and tools are listed in, so a call
    /// routed by name reaches the same tool after a restart or a new listing.
    #[test]
    fn offered_names_do_not_depend_on_the_order_of_the_list(
        entries in proptest::collection::vec(("[a-c_]{0,4}", "[a-c_]{0,4}"), 0..20),
    ) {
        let namespace = Namespace::new("_", 16).unwrap();
        let forward = namespace.name_all(
            entries.iter().map(|(server, name)| (server.as_str(), name.as_str())),
            &HashSet::new(),
        );
        let backward = namespace.name_all(
            entries.iter().rev().map(|(server, name)| (server.as_str(), name.as_str())),
            &HashSet::new(),
        );
        for (server, name) in &entries {
            prop_assert_eq!(forward.offered(server, name), backward.offered(server, name));
        }
    }
}
