use super::*;

fn plain(server: &str, tool: &str) -> Option<String> {
    let name = format!("{server}__{tool}");
    (name.len() <= 48).then_some(name)
}

fn settings(dir: &Path, text: &str) -> PathBuf {
    let file = dir.join("settings.json");
    std::fs::write(&file, text).expect("settings");
    file
}

#[test]
fn a_rule_naming_one_tool_gets_its_twin_under_the_new_name_and_uninstall_takes_only_that_away() {
    let dir = tempfile::tempdir().expect("dir");
    let text = "{\n  \"permissions\": {\n    \"allow\": [\"Bash(git status)\", \"mcp__github__get_issue\"],\n    \"deny\": [\"mcp__github__delete_repo\"]\n  },\n  \"model\": \"opus\"\n}\n";
    let file = settings(dir.path(), text);
    let servers = ["github".to_owned(), "docs".to_owned()];
    let keyed = keyed(std::slice::from_ref(&file), &servers, &plain).expect("keyed");
    assert!(keyed.stays.is_empty(), "{:?}", keyed.stays);
    let rules: Vec<(&str, &str)> = keyed
        .added
        .iter()
        .map(|rule| (rule.list.as_str(), rule.rule.as_str()))
        .collect();
    assert_eq!(
        rules,
        [
            ("allow", "mcp__overspill__github__get_issue"),
            ("deny", "mcp__overspill__github__delete_repo")
        ]
    );
    let added = add(&keyed.added).expect("add");
    assert_eq!(added, keyed.added);
    let now = std::fs::read_to_string(&file).expect("read");
    let value: Value = serde_json::from_str(&now).expect("json");
    assert_eq!(
        value["permissions"]["deny"],
        serde_json::json!([
            "mcp__github__delete_repo",
            "mcp__overspill__github__delete_repo"
        ])
    );
    assert_eq!(value["model"], "opus");
    // Added again: not twice.
    assert!(add(&keyed.added).expect("again").is_empty());
    // The user adds a rule of their own meanwhile; uninstall removes only install's.
    let mut value = value;
    value["permissions"]["allow"]
        .as_array_mut()
        .expect("allow")
        .push("mcp__overspill__docs__search".into());
    std::fs::write(&file, serde_json::to_string_pretty(&value).expect("text")).expect("write");
    remove(&added).expect("remove");
    let value: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
    assert_eq!(
        value["permissions"]["allow"],
        serde_json::json!([
            "Bash(git status)",
            "mcp__github__get_issue",
            "mcp__overspill__docs__search"
        ])
    );
    assert_eq!(
        value["permissions"]["deny"],
        serde_json::json!(["mcp__github__delete_repo"])
    );
}

#[test]
fn a_server_that_a_rule_names_whole_or_a_hook_matches_by_name_stays_saying_why() {
    let dir = tempfile::tempdir().expect("dir");
    for (text, said) in [
        (
            r#"{"permissions": {"deny": ["mcp__github"]}}"#,
            "names the whole server",
        ),
        (
            r#"{"permissions": {"allow": ["mcp__github__*"]}}"#,
            "names the whole server",
        ),
        (
            r#"{"hooks": {"PreToolUse": [{"matcher": "mcp__github__.*", "hooks": []}]}}"#,
            "a hook",
        ),
        (
            &format!(
                r#"{{"permissions": {{"ask": ["mcp__github__{}"]}}}}"#,
                "x".repeat(60)
            ),
            "shortened",
        ),
    ] {
        let file = settings(dir.path(), text);
        let servers = ["github".to_owned(), "docs".to_owned()];
        let keyed = keyed(&[file], &servers, &plain).expect("keyed");
        assert_eq!(keyed.stays.len(), 1, "{text}");
        assert_eq!(keyed.stays[0].0, "github");
        assert!(keyed.stays[0].1.contains(said), "{}", keyed.stays[0].1);
        assert!(keyed.added.is_empty());
    }
    // A server whose name merely starts the same is not named.
    let file = settings(
        dir.path(),
        r#"{"permissions": {"deny": ["mcp__github-enterprise"]}}"#,
    );
    let keyed = keyed(&[file], &["github".to_owned()], &plain).expect("keyed");
    assert!(keyed.stays.is_empty());
}

#[test]
fn settings_files_that_do_not_exist_name_nothing_and_a_broken_one_is_an_error() {
    let dir = tempfile::tempdir().expect("dir");
    let missing = dir.path().join("nowhere.json");
    let keyed = keyed(&[missing], &["github".to_owned()], &plain).expect("keyed");
    assert!(keyed.stays.is_empty() && keyed.added.is_empty());
    let broken = settings(dir.path(), "{\"permissions\": ");
    assert!(super::keyed(&[broken], &["github".to_owned()], &plain).is_err());
}
