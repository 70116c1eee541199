use super::*;

/// The hook of a project install for the gateway of `servers`, started as `program`.
fn hook(project: &Path, program: &str, servers: &Path) -> Hook {
    let entry = json!({"command": program, "args": [
        "mcp", "--servers", servers, "--answer-within", "25", "--provider", "anthropic",
        "--context-window", "200000",
    ]});
    Hook::of(
        Client::ClaudeCode,
        Scope::Project,
        &project.join(".mcp.json"),
        program,
        &entry,
    )
    .expect("hook")
    .expect("Claude Code has hooks")
}

fn read(file: &Path) -> String {
    std::fs::read_to_string(file).expect("read")
}

#[test]
fn the_hook_goes_in_beside_comments_and_other_settings_and_only_it_comes_out() {
    let dir = tempfile::tempdir().expect("dir");
    let servers = dir.path().join("claude-code-1a2b3c4d.json");
    let hook = hook(dir.path(), "/usr/local/bin/overspill", &servers);
    let text = "{\n  // mine\n  \"env\": {\"FOO\": \"1\"},\n  \"hooks\": {\n    \"PostToolUse\": [\n      {\"matcher\": \"Write\", \"hooks\": [{\"type\": \"command\", \"command\": \"fmt\"}]}\n    ]\n  }\n}\n";
    std::fs::create_dir_all(dir.path().join(".claude")).expect("dir");
    std::fs::write(hook.file(), text).expect("write");
    assert!(!hook.is_in_place(&servers).expect("read"));
    let record = hook.add(&servers, None).expect("add");
    assert_eq!(record.before.as_deref(), Some(text));
    assert!(hook.is_in_place(&servers).expect("read"));
    let added = read(hook.file());
    assert!(added.contains("// mine"), "{added}");
    assert!(
        added.contains("\"^(Bash|Read|WebFetch|mcp__.*)$\""),
        "{added}"
    );
    // Someone else wrote the file since: only overspill's hook comes out.
    std::fs::write(hook.file(), added.replace("\"1\"", "\"2\"")).expect("write");
    let record = record.checked().expect("checked");
    assert!(!record.exact);
    assert_eq!(remove(&record, &servers).expect("remove"), Taken::Edited);
    let now = read(hook.file());
    assert!(now.contains("// mine") && now.contains("\"2\""), "{now}");
    assert!(
        now.contains("\"fmt\"") && !now.contains("overspill"),
        "{now}"
    );
    assert_eq!(remove(&record, &servers).expect("again"), Taken::NotThere);
}

#[test]
fn the_hook_of_a_newer_program_replaces_the_old_command_and_keeps_what_the_user_added() {
    let dir = tempfile::tempdir().expect("dir");
    let servers = dir.path().join("claude-code-1a2b3c4d.json");
    let old = hook(dir.path(), "/old/overspill", &servers);
    let first = old.add(&servers, None).expect("add");
    assert_eq!(first.before, None);
    // The user gives the hook a time limit of their own.
    let text = read(old.file()).replace(
        "\"type\": \"command\",",
        "\"type\": \"command\", \"timeout\": 30,",
    );
    std::fs::write(old.file(), &text).expect("write");
    let new = hook(dir.path(), "/new/overspill", &servers);
    assert!(!new.is_in_place(&servers).expect("read"));
    let second = new.add(&servers, Some(&first)).expect("add");
    assert!(
        !second.exact,
        "the user wrote the file between the installs"
    );
    let value: Value = serde_json::from_str(&read(new.file())).expect("json");
    let groups = value["hooks"]["PostToolUse"].as_array().expect("groups");
    assert_eq!(groups.len(), 1, "{value}");
    let handler = &groups[0]["hooks"][0];
    assert_eq!(handler["command"], "/new/overspill");
    assert_eq!(handler["timeout"], 30);
}

#[test]
fn a_settings_file_claude_code_cannot_read_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().expect("dir");
    let servers = dir.path().join("claude-code-1a2b3c4d.json");
    let hook = hook(dir.path(), "overspill", &servers);
    std::fs::create_dir_all(dir.path().join(".claude")).expect("dir");
    for text in [
        "{\"hooks\": []}",
        "{\"hooks\": {\"PostToolUse\": {}}}",
        "[1]",
        "{",
    ] {
        std::fs::write(hook.file(), text).expect("write");
        assert!(hook.is_in_place(&servers).is_err(), "{text}");
        assert!(hook.add(&servers, None).is_err(), "{text}");
        assert_eq!(read(hook.file()), text);
    }
}

#[test]
fn two_of_overspills_handlers_in_one_group_come_out_with_their_group() {
    let dir = tempfile::tempdir().expect("dir");
    let servers = dir.path().join("claude-code-1a2b3c4d.json");
    let hook = hook(dir.path(), "overspill", &servers);
    let record = hook.add(&servers, None).expect("add");
    let mut value: Value = serde_json::from_str(&read(hook.file())).expect("json");
    let handlers = value["hooks"]["PostToolUse"][0]["hooks"]
        .as_array_mut()
        .expect("handlers");
    handlers.push(handlers[0].clone());
    value["theme"] = json!("dark");
    std::fs::write(hook.file(), value.to_string()).expect("write");
    let record = record.checked().expect("checked");
    assert_eq!(remove(&record, &servers).expect("remove"), Taken::Edited);
    let now: Value = serde_json::from_str(&read(hook.file())).expect("json");
    assert_eq!(now, json!({"theme": "dark"}));
}
