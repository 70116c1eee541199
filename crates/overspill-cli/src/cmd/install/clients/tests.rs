use super::*;

#[test]
fn each_clients_row_has_the_name_the_command_line_gives_it() {
    for client in Client::value_variants() {
        let value = client.to_possible_value().unwrap();
        assert_eq!(value.get_name(), client.name());
    }
}

#[test]
fn a_projects_file_is_below_the_project_and_a_client_without_one_says_so() {
    let project = Path::new("/work/app");
    let found: Vec<(&str, Result<PathBuf, String>)> = Client::value_variants()
        .iter()
        .map(|client| (client.name(), client.config_path(Scope::Project, project)))
        .collect();
    let at = |path: &str| Ok(PathBuf::from(path));
    let user_only = |name: &str| {
        Err(format!(
            "{name} keeps its MCP servers in your user configuration only: leave out --scope \
             project"
        ))
    };
    assert_eq!(
        found,
        [
            ("claude-code", at("/work/app/.mcp.json")),
            ("claude-desktop", user_only("claude-desktop")),
            ("cursor", at("/work/app/.cursor/mcp.json")),
            ("vscode", at("/work/app/.vscode/mcp.json")),
            ("codex", user_only("codex")),
            ("gemini-cli", at("/work/app/.gemini/settings.json")),
        ]
    );
}

#[test]
fn only_a_client_that_keeps_permission_rules_has_rule_files() {
    let with_rules: Vec<&str> = Client::value_variants()
        .iter()
        .filter(|client| client.profile().rule_files.is_some())
        .map(|client| client.name())
        .collect();
    assert_eq!(with_rules, ["claude-code"]);
}

#[test]
fn the_note_after_adding_codexs_hook_reads_as_one_sentence() {
    assert_eq!(
        Client::Codex.profile().hook_note,
        Some("Codex runs it once you trust it: open /hooks in Codex and trust overspill's hooks")
    );
}
