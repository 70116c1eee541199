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

#[test]
fn the_comments_above_a_moved_codex_table_stay_in_the_file_and_its_own_go_and_come_back_with_it() {
    let text = "model = \"o3\"\n\n# MCP servers: each one is started by Codex over stdio\n[mcp_servers.docs]\ncommand = \"npx\" # the docs server\nargs = [\"-y\", \"docs-mcp\"]\nstartup_timeout_sec = 20\n\n[mcp_servers.picky]\ncommand = \"x\"\nenabled_tools = [\"a\"]\n";
    let mut parsed = Parsed::parse(Client::Codex, text).unwrap();
    let entries = parsed.entries();
    assert_eq!(entries[0].entry["startup_timeout_sec"], 20);
    let ours =
        serde_json::json!({"command": "overspill", "args": ["mcp"], "startup_timeout_sec": 60});
    let installed = parsed.rewritten(&["docs".to_owned()], &ours);
    assert!(
        installed.contains("# MCP servers: each one is started by Codex over stdio\n"),
        "{installed}"
    );
    assert!(!installed.contains("the docs server"), "{installed}");
    assert!(
        installed.contains("startup_timeout_sec = 60"),
        "{installed}"
    );
    let mut parsed = Parsed::parse(Client::Codex, &installed).unwrap();
    let back = parsed
        .restored(&[Restored {
            name: "docs".to_owned(),
            original: entries[0].original.clone(),
        }])
        .unwrap();
    assert_eq!(back.matches("# MCP servers").count(), 1, "{back}");
    assert!(
        back.contains("command = \"npx\" # the docs server"),
        "{back}"
    );
    assert!(back.contains("startup_timeout_sec = 20"), "{back}");
    assert!(!back.contains("overspill"), "{back}");
    let again = Parsed::parse(Client::Codex, &back).unwrap();
    let names: Vec<String> = again
        .entries()
        .into_iter()
        .map(|entry| entry.name)
        .collect();
    assert_eq!(names, ["picky", "docs"]);
}

#[test]
fn an_mcp_servers_entry_becomes_a_codex_table_that_reads_back_as_the_same_entry() {
    let entry = serde_json::json!({
        "type": "http",
        "url": "https://mcp.example.com/mcp",
        "headers": {"Authorization": "Bearer ${DOCS_TOKEN}", "X-Team": "${TEAM}", "X-Plain": "p"},
        "tool_timeout_sec": 120
    });
    let text = codex_toml("docs", &entry).unwrap();
    assert!(
        text.contains("bearer_token_env_var = \"DOCS_TOKEN\""),
        "{text}"
    );
    assert!(text.contains("X-Team = \"TEAM\""), "{text}");
    let parsed = Parsed::parse(Client::Codex, &text).unwrap();
    assert_eq!(parsed.entries()[0].entry, entry);
    assert!(parsed.entries()[0].stays.is_none());
    let command = serde_json::json!({"command": "npx", "args": ["-y", "x"], "env": {"A": "b"}, "cwd": "/srv"});
    let parsed = Parsed::parse(Client::Codex, &codex_toml("x", &command).unwrap()).unwrap();
    assert_eq!(parsed.entries()[0].entry, command);
    assert!(codex_toml("none", &serde_json::json!({"args": []})).is_err());
}

#[test]
fn json_servers_come_back_as_they_were_and_a_server_the_client_has_again_is_left_alone() {
    let text = "{\n  // mine\n  \"mcpServers\": {\n    \"overspill\": {\"command\": \"overspill\"},\n    \"kept\": {\"command\": \"k\"}\n  }\n}\n";
    let mut parsed = Parsed::parse(Client::GeminiCli, text).unwrap();
    let back = parsed
        .restored(&[
            Restored {
                name: "docs".to_owned(),
                original: Original::Json(serde_json::json!({"command": "d", "trust": true})),
            },
            Restored {
                name: "kept".to_owned(),
                original: Original::Json(serde_json::json!({"command": "other"})),
            },
        ])
        .unwrap();
    assert!(back.contains("// mine"), "{back}");
    let value: serde_json::Value =
        jsonc_parser::parse_to_serde_value(&back, &json_options()).unwrap();
    assert_eq!(
        value["mcpServers"],
        serde_json::json!({"kept": {"command": "k"}, "docs": {"command": "d", "trust": true}})
    );
}

#[test]
fn a_codex_server_with_sub_tables_moves_with_them() {
    let text = "[mcp_servers.github]\ncommand = \"npx\"\nargs = [\"-y\", \"server-github\"]\n\n[mcp_servers.github.env]\nGITHUB_TOKEN = \"t\"\n";
    let parsed = Parsed::parse(Client::Codex, text).unwrap();
    let entries = parsed.entries();
    assert!(entries[0].stays.is_none(), "{:?}", entries[0].stays);
    assert_eq!(
        entries[0].entry["env"],
        serde_json::json!({"GITHUB_TOKEN": "t"})
    );
}

#[test]
fn a_setting_or_variable_the_gateway_cannot_carry_keeps_the_server_in_the_client() {
    for (entry, said) in [
        (r#"{"command": "x", "envFile": ".env"}"#, "`envFile`"),
        (
            r#"{"type": "http", "url": "https://x/mcp", "headersHelper": "h.sh"}"#,
            "`headersHelper`",
        ),
        (
            r#"{"command": "x", "args": ["${workspaceFolder}${/}data"]}"#,
            "${workspaceFolder}",
        ),
        (
            r#"{"command": "x", "args": ["a${pathSeparator}b"]}"#,
            "${pathSeparator}",
        ),
    ] {
        let text = format!(r#"{{"servers": {{"s": {entry}}}}}"#);
        let parsed = Parsed::parse(Client::Vscode, &text).unwrap();
        let stays = parsed.entries()[0].stays.clone();
        assert!(
            stays.as_deref().is_some_and(|why| why.contains(said)),
            "{entry}: {stays:?}"
        );
    }
    let text = r#"{"mcpServers": {"s": {"command": "x", "env": {"T": "${TOKEN:-none}"}, "trust": true, "timeout": 5000}}}"#;
    assert!(
        Parsed::parse(Client::GeminiCli, text).unwrap().entries()[0]
            .stays
            .is_none()
    );
    assert!(Parsed::parse(Client::Cursor, r#"{"mcpServers": ["keep-me"]}"#).is_err());
}
