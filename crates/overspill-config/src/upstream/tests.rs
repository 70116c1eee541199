use std::path::Path;

use super::*;

fn no_env(_: &str) -> Option<String> {
    None
}

/// The servers of `read`, or its first error: the file's, else the first broken entry's.
fn whole(read: Result<Upstreams, ConfigError>) -> Result<Upstreams, Arc<ConfigError>> {
    let servers = read.map_err(Arc::new)?;
    let first = servers
        .broken()
        .next()
        .map(|broken| Arc::clone(&broken.error));
    match first {
        Some(error) => Err(error),
        None => Ok(servers),
    }
}

fn toml(text: &str) -> Result<Upstreams, Arc<ConfigError>> {
    whole(Upstreams::from_toml_str(
        text,
        Some(Path::new("overspill.toml")),
        &no_env,
    ))
}

fn json(text: &str) -> Result<Upstreams, Arc<ConfigError>> {
    whole(Upstreams::from_mcp_json_str(
        text,
        Some(Path::new(".mcp.json")),
        &no_env,
    ))
}

fn command(upstreams: &Upstreams, name: &str) -> CommandServer {
    match &upstreams.get(name).unwrap().transport {
        Transport::Command(server) => server.clone(),
        other => panic!("{name} is {other:?}"),
    }
}

fn http(upstreams: &Upstreams, name: &str) -> HttpServer {
    match &upstreams.get(name).unwrap().transport {
        Transport::Http(server) => server.clone(),
        other => panic!("{name} is {other:?}"),
    }
}

#[test]
fn toml_servers_are_read_in_file_order_with_every_key() {
    let servers = toml(
        r#"
        [mcp.servers.zeta]
        command = "npx"
        args = ["-y", "@modelcontextprotocol/server-everything"]
        env = { DEBUG = "1" }
        cwd = "/srv"
        [mcp.servers.alpha]
        url = "https://alpha.example/mcp"
        headers = { Authorization = "Bearer t", "X-Team" = "sre" }
        oauth = true
        [mcp.servers.rules_only.scratchpad]
        "*" = { min_tokens = 100 }
        "#,
    )
    .unwrap();
    assert_eq!(servers.names().collect::<Vec<_>>(), ["zeta", "alpha"]);
    let zeta = command(&servers, "zeta");
    assert_eq!(zeta.command, "npx");
    assert_eq!(zeta.args, ["-y", "@modelcontextprotocol/server-everything"]);
    assert_eq!(zeta.env.get("DEBUG").map(String::as_str), Some("1"));
    assert_eq!(zeta.cwd.as_deref(), Some(Path::new("/srv")));
    let alpha = http(&servers, "alpha");
    assert_eq!(alpha.url, "https://alpha.example/mcp");
    assert_eq!(
        alpha.headers,
        [
            ("Authorization".to_owned(), "Bearer t".to_owned()),
            ("X-Team".to_owned(), "sre".to_owned())
        ]
    );
    assert!(alpha.oauth);
    assert!(servers.get("rules_only").is_none());
}

#[test]
fn the_clients_json_forms_are_read_alike() {
    // Claude Desktop / Cursor, Claude Code's .mcp.json (type), Gemini CLI (httpUrl), VS Code.
    let desktop = json(r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "fs"]}, "web": {"url": "https://w.example/mcp"}}}"#).unwrap();
    let claude_code = json(r#"{"mcpServers": {"fs": {"type": "stdio", "command": "npx", "args": ["-y", "fs"], "env": {}}, "web": {"type": "http", "url": "https://w.example/mcp"}}}"#).unwrap();
    let gemini = json(r#"{"theme": "dark", "mcpServers": {"fs": {"command": "npx", "args": ["-y", "fs"], "trust": true, "timeout": 5000}, "web": {"httpUrl": "https://w.example/mcp"}}}"#).unwrap();
    let vscode = json(r#"{"servers": {"fs": {"type": "stdio", "command": "npx", "args": ["-y", "fs"]}, "web": {"type": "http", "url": "https://w.example/mcp"}}}"#).unwrap();
    assert_eq!(desktop, claude_code);
    assert_eq!(desktop, gemini);
    assert_eq!(desktop, vscode);
    assert_eq!(desktop.len(), 2);
    assert_eq!(http(&desktop, "web").url, "https://w.example/mcp");
}

#[test]
fn the_same_servers_from_toml_and_from_json_are_equal() {
    let from_toml = toml(
        r#"
        [mcp.servers.everything]
        command = "npx"
        args = ["-y", "@modelcontextprotocol/server-everything"]
        [mcp.servers.remote]
        url = "http://127.0.0.1:3001/mcp"
        headers = { "X-Key" = "k" }
        "#,
    )
    .unwrap();
    let from_json = json(
        r#"{"mcpServers": {
            "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]},
            "remote": {"type": "http", "url": "http://127.0.0.1:3001/mcp", "headers": {"X-Key": "k"}}
        }}"#,
    )
    .unwrap();
    assert_eq!(from_toml, from_json);
}

#[test]
fn a_disabled_json_server_is_left_out() {
    let servers = json(r#"{"mcpServers": {"a": {"command": "x", "disabled": true}, "b": {"command": "y", "disabled": false}}}"#).unwrap();
    assert_eq!(servers.names().collect::<Vec<_>>(), ["b"]);
}

#[test]
fn a_malformed_entry_names_the_file_the_server_and_the_key() {
    let error =
        json(r#"{"mcpServers": {"k8s": {"command": "kubectl-mcp", "args": "--read-only"}}}"#)
            .unwrap_err();
    assert_eq!(
        error.to_string(),
        ".mcp.json: mcpServers.k8s.args: expected an array of strings, found a string"
    );
    let error = toml("[mcp.servers.k8s]\ncommand = \"kubectl-mcp\"\nargs = [\"--read-only\", 3]\n")
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "overspill.toml:3:8: mcp.servers.k8s.args: expected an array of strings, found a number"
    );
    assert_eq!(error.key().unwrap().to_string(), "mcp.servers.k8s.args");
}

#[test]
fn an_entry_needs_a_command_or_a_url_and_not_both() {
    let neither = toml("[mcp.servers.k8s]\ncomand = \"kubectl-mcp\"\n").unwrap_err();
    assert_eq!(
        neither.to_string(),
        "overspill.toml: mcp.servers.k8s: neither `command` (a child process) nor `url` (a \
         remote server) is given (did you mean `command`?)"
    );
    let both =
        json(r#"{"mcpServers": {"k8s": {"command": "x", "url": "https://h/mcp"}}}"#).unwrap_err();
    assert!(both.to_string().contains("not both"), "{both}");
    let empty = json(r#"{"mcpServers": {"k8s": {}}}"#).unwrap_err();
    assert!(
        empty
            .to_string()
            .starts_with(".mcp.json: mcpServers.k8s: neither"),
        "{empty}"
    );
}

#[test]
fn transports_overspill_does_not_speak_are_refused_with_what_to_write() {
    let sse =
        json(r#"{"mcpServers": {"old": {"type": "sse", "url": "https://h/sse"}}}"#).unwrap_err();
    assert!(
        sse.to_string()
            .starts_with(".mcp.json: mcpServers.old.type: the HTTP+SSE transport"),
        "{sse}"
    );
    let odd =
        json(r#"{"mcpServers": {"a": {"type": "websocket", "url": "wss://h"}}}"#).unwrap_err();
    assert!(
        odd.to_string().contains("unknown transport \"websocket\""),
        "{odd}"
    );
    let scheme = json(r#"{"mcpServers": {"a": {"url": "ftp://h/mcp"}}}"#).unwrap_err();
    assert!(
        scheme
            .to_string()
            .contains("is not an http:// or https:// endpoint"),
        "{scheme}"
    );
    let mismatch = json(r#"{"mcpServers": {"a": {"type": "http", "command": "x"}}}"#).unwrap_err();
    assert!(
        mismatch.to_string().contains("a stdio server"),
        "{mismatch}"
    );
}

#[test]
fn variables_are_filled_in_and_an_unset_one_is_named() {
    let env = |name: &str| (name == "TOKEN").then(|| "s3cret".to_owned());
    let servers = Upstreams::from_mcp_json_str(
        r#"{"mcpServers": {"web": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${TOKEN}", "X-Region": "${REGION:-eu}", "X-Env": "${env:TOKEN}"}}}}"#,
        None,
        &env,
    )
    .unwrap();
    assert_eq!(
        http(&servers, "web").headers,
        [
            ("Authorization".to_owned(), "Bearer s3cret".to_owned()),
            ("X-Region".to_owned(), "eu".to_owned()),
            ("X-Env".to_owned(), "s3cret".to_owned()),
        ]
    );
    let unset =
        json(r#"{"mcpServers": {"a": {"command": "x", "env": {"K": "${MISSING}"}}}}"#).unwrap_err();
    assert_eq!(
        unset.to_string(),
        ".mcp.json: mcpServers.a.env: the variable MISSING is not set; set it, or write \
         `${MISSING:-default}`"
    );
    let input = json(r#"{"servers": {"a": {"command": "${input:tool}"}}}"#).unwrap_err();
    assert!(
        input
            .to_string()
            .contains("is not a variable overspill can fill in"),
        "{input}"
    );
}

#[test]
fn a_file_that_is_not_a_client_configuration_says_so() {
    let not_json = json("{\"mcpServers\": ").unwrap_err();
    assert!(matches!(*not_json, ConfigError::Json { .. }), "{not_json}");
    assert!(
        not_json.to_string().starts_with(".mcp.json: "),
        "{not_json}"
    );
    let other = json(r#"{"theme": "dark"}"#).unwrap_err();
    assert!(other.to_string().contains("no \"mcpServers\""), "{other}");
    let list = json(r#"{"mcpServers": []}"#).unwrap_err();
    assert!(
        list.to_string()
            .contains("expected an object of servers, found an array"),
        "{list}"
    );
}

#[test]
fn a_toml_without_servers_has_none() {
    assert!(toml("memory_dir = \"x\"\n").unwrap().is_empty());
    assert!(toml("[mcp]\n").unwrap().is_empty());
}

#[test]
fn variables_follow_the_shell_s_rules_for_defaults_and_refuse_nesting() {
    let env = |name: &str| (name == "EMPTY").then(String::new);
    let read = |text: &str| whole(Upstreams::from_mcp_json_str(text, None, &env));
    let servers = read(
        r#"{"mcpServers": {"a": {"command": "x", "args": ["${EMPTY:-fallback}", "${EMPTY}"]}}}"#,
    )
    .unwrap();
    assert_eq!(command(&servers, "a").args, ["fallback", ""]);
    let nested =
        read(r#"{"mcpServers": {"a": {"command": "x", "args": ["${A:-${B}}"]}}}"#).unwrap_err();
    assert!(
        nested.to_string().contains("a default is plain text"),
        "{nested}"
    );
}

#[test]
fn messages_name_an_empty_value_and_the_whole_file_plainly() {
    let empty = json(r#"{"mcpServers": {"a": {"command": ""}}}"#).unwrap_err();
    assert_eq!(
        empty.to_string(),
        ".mcp.json: mcpServers.a.command: expected a non-empty string, found \"\""
    );
    let other = json(r#"{"theme": "dark"}"#).unwrap_err();
    assert!(
        other
            .to_string()
            .starts_with(".mcp.json: no \"mcpServers\""),
        "{other}"
    );
}

#[test]
fn relative_paths_are_the_files_not_the_proxys() {
    let servers = Upstreams::from_mcp_json_str(
        r#"{"mcpServers": {
            "a": {"command": "./bin/server", "cwd": "work"},
            "b": {"command": "./server.py"},
            "c": {"command": "npx", "cwd": "/abs"}
        }}"#,
        Some(Path::new("/home/me/project/.mcp.json")),
        &no_env,
    )
    .unwrap();
    let a = command(&servers, "a");
    assert_eq!(a.cwd.as_deref(), Some(Path::new("/home/me/project/work")));
    assert_eq!(a.command, "/home/me/project/work/./bin/server");
    assert_eq!(
        command(&servers, "b").command,
        "/home/me/project/./server.py"
    );
    let c = command(&servers, "c");
    assert_eq!(
        (c.command.as_str(), c.cwd.as_deref()),
        ("npx", Some(Path::new("/abs")))
    );
}

#[test]
fn a_toml_server_table_refuses_a_misspelt_key_and_honours_disabled() {
    let typo = toml("[mcp.servers.k8s]\ncommand = \"kubectl-mcp\"\narg = [\"--read-only\"]\n")
        .unwrap_err();
    assert!(
        typo.to_string()
            .contains("mcp.servers.k8s.arg: unknown key in [mcp.servers.k8s]")
            && typo.to_string().contains("did you mean `args`?"),
        "{typo}"
    );
    let off = toml("[mcp.servers.k8s]\ncommand = \"x\"\ndisabled = true\n[mcp.servers.web]\nurl = \"https://h/mcp\"\n").unwrap();
    assert_eq!(off.names().collect::<Vec<_>>(), ["web"]);
}

#[test]
fn a_broken_entry_is_kept_aside_with_its_error_and_the_others_are_read() {
    let text = r#"{"mcpServers": {
        "fs": {"command": "npx"},
        "github": {"command": "github-mcp", "env": {"TOKEN": "${GITHUB_TOKEN}"}},
        "typo": {"comand": "x"},
        "web": {"url": "https://w.example/mcp"},
        "odd": 3
    }}"#;
    let servers =
        Upstreams::from_mcp_json_str(text, Some(Path::new(".mcp.json")), &no_env).unwrap();
    assert_eq!(servers.names().collect::<Vec<_>>(), ["fs", "web"]);
    let broken: Vec<(&str, String)> = servers
        .broken()
        .map(|broken| (broken.name.as_str(), broken.error.to_string()))
        .collect();
    assert_eq!(broken.len(), 3, "{broken:?}");
    assert_eq!(
        broken[0],
        (
            "github",
            ".mcp.json: mcpServers.github.env: the variable GITHUB_TOKEN is not set; set it, or \
             write `${GITHUB_TOKEN:-default}`"
                .to_owned()
        )
    );
    assert_eq!(broken[1].0, "typo");
    assert!(
        broken[1].1.contains("did you mean `command`?"),
        "{broken:?}"
    );
    assert_eq!(broken[2].0, "odd");
    assert!(broken[2].1.contains("expected an object, found a number"));
    assert!(matches!(
        *servers.broken().next().unwrap().error,
        ConfigError::Server { .. }
    ));

    // TOML alike, a misspelt key of a server table included; the file as a whole still reads.
    let servers = Upstreams::from_toml_str(
        "[mcp.servers.k8s]\ncommand = \"kubectl-mcp\"\narg = [\"-r\"]\n\
         [mcp.servers.fs]\ncommand = \"npx\"\n\
         [mcp.servers.env]\ncommand = \"${MISSING}\"\n",
        Some(Path::new("overspill.toml")),
        &no_env,
    )
    .unwrap();
    assert_eq!(servers.names().collect::<Vec<_>>(), ["fs"]);
    let broken: Vec<&BrokenServer> = servers.broken().collect();
    assert_eq!(broken[0].name, "k8s");
    assert!(matches!(*broken[0].error, ConfigError::UnknownKey { .. }));
    assert_eq!(broken[1].name, "env");
    assert_eq!(
        broken[1].error.key().unwrap().to_string(),
        "mcp.servers.env.command"
    );
    // A file that is not TOML is refused whole.
    let syntax = Upstreams::from_toml_str("[mcp.servers.k8s\n", None, &no_env).unwrap_err();
    assert!(matches!(syntax, ConfigError::Syntax { .. }), "{syntax}");
}
