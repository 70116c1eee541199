use super::*;
use crate::explore::Registry;

/// The definitions of the exploration tools named `names`, in the registry's order.
fn tools(names: &[&str]) -> Vec<&'static Definition> {
    Registry::new().only(names).exploration_definitions()
}

#[test]
fn the_section_names_the_tools_behind_the_hosts_prefix() {
    let text = section(Kind::Single, &tools(&["grep"]), "sp_");
    assert!(text.contains("- sp_grep: the lines matching"), "{text}");
}

#[test]
fn the_section_lists_exactly_the_exposed_tools_in_order() {
    let text = section(Kind::Single, &tools(&["grep", "head"]), "");
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

/// Every exploration tool of the registry has its line, worded by the tool itself: a tool added
/// to the registry is in the prompt with no edit here.
#[test]
fn every_exploration_tool_has_its_line_from_its_own_blurb() {
    let all = Registry::new().exploration_definitions();
    let text = section(Kind::Single, &all, "");
    let listed: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("- ")).collect();
    assert_eq!(listed.len(), all.len(), "{text}");
    for (line, tool) in listed.iter().zip(&all) {
        let blurb = tool.blurb.unwrap_or_default();
        assert!(!blurb.is_empty() && !blurb.ends_with('.'), "{}", tool.name);
        assert_eq!(*line, format!("{}: {blurb}.", tool.name));
    }
}

#[test]
fn a_worker_is_told_about_read_artifact_and_a_coordinator_about_write_artifact() {
    assert!(section(Kind::Worker, &tools(&["grep"]), "").contains("`read_artifact`"));
    let coordinator = section(Kind::Coordinator, &[], "");
    assert!(coordinator.contains("`write_artifact`") && !coordinator.contains("grep"));
}

#[test]
fn the_section_tells_the_syntax_of_references() {
    let text = section(Kind::Single, &tools(&["grep"]), "");
    assert!(text.contains("`overspill://<file>`") && text.contains("`#L10-L80`"));
    assert!(!section(Kind::Coordinator, &[], "").contains("overspill://"));
}

#[test]
fn the_section_stays_short() {
    let all = Registry::new().exploration_definitions();
    let tokens = crate::tokens::o200k().count(&section(Kind::Worker, &all, ""));
    assert!(tokens < 400, "{tokens} tokens");
}
