use super::*;

fn mcp(facts: &Facts) -> &CommandFacts {
    facts
        .command
        .subcommands
        .iter()
        .find(|command| command.name == "mcp")
        .unwrap()
}

#[test]
fn a_flags_default_is_the_one_its_definition_takes_from_the_library() {
    let facts = facts();
    let seconds = overspill_mcp::Remote::DEFAULT_READ_TIMEOUT.as_secs_f64();
    assert_eq!(mcp(&facts).flags["read-timeout"], [seconds.to_string()]);
    assert_eq!(facts.max_depth, MAX_DEPTH);
}

#[test]
fn a_flag_whose_default_is_chosen_after_parsing_has_none() {
    let facts = facts();
    let servers = &mcp(&facts).flags["servers"];
    assert!(servers.is_empty(), "{servers:?}");
}

#[test]
fn the_facts_are_one_json_object_and_the_command_is_not_listed_in_help() {
    let printed = serde_json::to_value(facts()).unwrap();
    assert_eq!(printed["command"]["name"], "overspill");
    let help = crate::Cli::command().render_help().to_string();
    assert!(!help.contains("doc-facts"), "{help}");
}
