use super::*;

#[test]
fn the_section_names_the_tools_behind_the_hosts_prefix() {
    let text = section(Kind::Single, &["grep"], "sp_");
    assert!(text.contains("- sp_grep: the lines matching"), "{text}");
}

#[test]
fn the_section_lists_exactly_the_exposed_tools_in_order() {
    let text = section(Kind::Single, &["grep", "head"], "");
    let listed: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("- ")).collect();
    assert_eq!(
        listed,
        [
            "grep: the lines matching a regex, with context.",
            "head: the first lines."
        ]
    );
    assert!(!text.contains("read_artifact"));
}

#[test]
fn a_worker_is_told_about_read_artifact_and_a_coordinator_about_write_artifact() {
    assert!(section(Kind::Worker, &["grep"], "").contains("`read_artifact`"));
    let coordinator = section(Kind::Coordinator, &[], "");
    assert!(coordinator.contains("`write_artifact`") && !coordinator.contains("grep"));
}

#[test]
fn the_section_tells_the_syntax_of_references() {
    let text = section(Kind::Single, &["grep"], "");
    assert!(text.contains("`overspill://<file>`") && text.contains("`#L10-L80`"));
    assert!(!section(Kind::Coordinator, &[], "").contains("overspill://"));
}

#[test]
fn the_section_stays_short() {
    let all = [
        "schema",
        "item_schema",
        "iterate_over",
        "get_in",
        "query",
        "grep",
        "head",
        "slice",
        "read",
    ];
    let tokens = crate::tokens::o200k().count(&section(Kind::Worker, &all, ""));
    assert!(tokens < 400, "{tokens} tokens");
}
