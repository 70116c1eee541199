use super::*;

#[test]
fn vscode_comments_and_other_settings_survive_the_edit() {
    let text = "{\n  // my servers\n  \"inputs\": [],\n  \"servers\": {\n    \"git\": {\"type\": \"stdio\", \"command\": \"uvx\", \"args\": [\"mcp-server-git\"]}, // keep this note\n    \"keyed\": {\"command\": \"npx\", \"env\": {\"KEY\": \"${input:key}\"}},\n  },\n}\n";
    let mut parsed = Parsed::parse(Client::Vscode, text).unwrap();
    let entries = parsed.entries();
    assert_eq!(entries.len(), 2);
    assert!(entries[0].stays.is_none());
    assert!(entries[1].stays.as_deref().unwrap().contains("${input:"));
    let ours = serde_json::json!({"type": "stdio", "command": "overspill", "args": ["mcp"]});
    let rewritten = parsed.rewritten(&["git".to_owned()], &ours);
    assert!(rewritten.contains("// my servers"), "{rewritten}");
    assert!(rewritten.contains("\"inputs\": []"), "{rewritten}");
    assert!(rewritten.contains("\"keyed\""), "{rewritten}");
    assert!(!rewritten.contains("mcp-server-git"), "{rewritten}");
    let again = Parsed::parse(Client::Vscode, &rewritten).unwrap();
    let names: Vec<String> = again
        .entries()
        .into_iter()
        .map(|entry| entry.name)
        .collect();
    assert_eq!(names, ["keyed", "overspill"]);
}

#[test]
fn codex_tables_become_mcp_servers_entries_and_its_comments_stay() {
    let text = "# my codex\nmodel = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp\"]\nenv = { TOKEN = \"t\" }\n\n[mcp_servers.remote]\nurl = \"https://mcp.example.com/mcp\"\nbearer_token_env_var = \"REMOTE_TOKEN\"\n\n[mcp_servers.picky]\ncommand = \"x\"\nenabled_tools = [\"a\"]\n";
    let mut parsed = Parsed::parse(Client::Codex, text).unwrap();
    let entries = parsed.entries();
    assert_eq!(
        entries[0].entry,
        serde_json::json!({"command": "npx", "args": ["-y", "docs-mcp"], "env": {"TOKEN": "t"}})
    );
    assert_eq!(
        entries[1].entry,
        serde_json::json!({"url": "https://mcp.example.com/mcp", "type": "http",
                           "headers": {"Authorization": "Bearer ${REMOTE_TOKEN}"}})
    );
    assert!(
        entries[2]
            .stays
            .as_deref()
            .unwrap()
            .contains("enabled_tools")
    );
    let ours = serde_json::json!({"command": "overspill", "args": ["mcp", "--servers", "/x.json"]});
    let rewritten = parsed.rewritten(&["docs".to_owned(), "remote".to_owned()], &ours);
    assert!(
        rewritten.starts_with("# my codex\nmodel = \"o3\"\n"),
        "{rewritten}"
    );
    assert!(rewritten.contains("[mcp_servers.picky]"), "{rewritten}");
    assert!(rewritten.contains("[mcp_servers.overspill]"), "{rewritten}");
    assert!(!rewritten.contains("docs-mcp"), "{rewritten}");
}

#[test]
fn gemini_cli_url_servers_are_sse_and_stay() {
    let text =
        r#"{"mcpServers": {"sse": {"url": "http://x/sse"}, "http": {"httpUrl": "http://x/mcp"}}}"#;
    let parsed = Parsed::parse(Client::GeminiCli, text).unwrap();
    let entries = parsed.entries();
    assert!(entries[0].stays.as_deref().unwrap().contains("SSE"));
    assert!(entries[1].stays.is_none());
}

#[test]
fn text_that_is_not_the_clients_format_is_refused() {
    assert!(Parsed::parse(Client::Cursor, "{\"mcpServers\": {").is_err());
    assert!(Parsed::parse(Client::Cursor, "[1, 2]").is_err());
    assert!(Parsed::parse(Client::Codex, "[mcp_servers\n").is_err());
}
