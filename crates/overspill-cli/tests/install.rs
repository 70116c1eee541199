//! `overspill install`, `uninstall` and `status`, driven as a subprocess with HOME in a
//! temporary directory: what moves, what comes back, what is kept of what the client wrote
//! meanwhile (docs/clients.md).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use serde_json::{Value, json};

mod support;

use support::{installer, numbers, path, stderr, stdout};

/// A realistic configuration of each client, with two servers overspill fronts (`files`,
/// `remote`), one it leaves (`old`), comments where the format has them, and other settings.
fn client_configs() -> Vec<(&'static str, &'static str, String)> {
    let json = |key: &str, extra: &str| {
        format!(
            "{{\n  \"theme\": \"dark\",\n  \"{key}\": {{\n    \"files\": {{\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"/data\"],\n      \"env\": {{\"TOKEN\": \"s3cret\"}}\n    }},\n    \"remote\": {{\"type\": \"http\", \"url\": \"https://mcp.example.com/mcp\", \"headers\": {{\"Authorization\": \"Bearer s3cret\"}}}},\n    \"old\": {{\"type\": \"sse\", \"url\": \"https://old.example.com/sse\"}}{extra}\n  }}\n}}\n"
        )
    };
    vec![
        ("claude-code", "claude.json", json("mcpServers", "")),
        ("claude-desktop", "claude_desktop_config.json", json("mcpServers", "")),
        ("cursor", "mcp.json", json("mcpServers", "")),
        (
            "vscode",
            "vscode-mcp.json",
            format!(
                "// VS Code\n{}",
                json("servers", ",\n    // kept: the client fills its own inputs\n    \"keyed\": {\"command\": \"npx\", \"env\": {\"KEY\": \"${input:key}\"}},")
            ),
        ),
        (
            "gemini-cli",
            "settings.json",
            json("mcpServers", ",\n    \"sse\": {\"url\": \"https://sse.example.com/sse\"}")
                .replace("\"type\": \"http\", \"url\"", "\"httpUrl\""),
        ),
        (
            "codex",
            "config.toml",
            "# Codex\nmodel = \"o3\"\n\n[mcp_servers.files]\ncommand = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"/data\"]\nenv = { TOKEN = \"s3cret\" }\n\n[mcp_servers.remote]\nurl = \"https://mcp.example.com/mcp\"\nbearer_token_env_var = \"HOME\"\n\n# tool filters stay with Codex\n[mcp_servers.old]\ncommand = \"x\"\nenabled_tools = [\"a\"]\n".to_owned(),
        ),
    ]
}

#[test]
fn install_routes_each_clients_servers_through_one_gateway_and_uninstall_restores_the_file_byte_for_byte()
 {
    for (client, file, text) in client_configs() {
        let fixture = Client::with_text(client, file, &text);
        let (home, config) = (fixture.home.clone(), fixture.config.clone());
        let install = [
            "install",
            client,
            "--config-file",
            path(&config),
            "--no-status",
        ];
        let out = fixture.install();
        let said = stdout(&out);
        assert!(said.contains("files, remote"), "{client}: {said}");
        assert!(said.contains("`old` stays"), "{client}: {said}");
        let installed = std::fs::read_to_string(&config).unwrap();
        assert!(installed.contains("overspill"), "{client}: {installed}");
        assert!(
            !installed.contains("server-filesystem"),
            "{client}: {installed}"
        );
        assert!(
            !installed.contains("s3cret") || client == "vscode",
            "{client}: {installed}"
        );
        for kept in ["old", "dark", "o3"] {
            assert!(
                installed.contains(kept) || !text.contains(kept),
                "{client} lost {kept}: {installed}"
            );
        }
        for comment in ["// VS Code", "// kept", "# Codex", "# tool filters"] {
            assert!(
                installed.contains(comment) || !text.contains(comment),
                "{client} lost a comment: {installed}"
            );
        }
        // Clients that give a server less time to start than the gateway may need are told
        // to wait longer: Codex to start it, Gemini CLI to connect in `gemini mcp list`.
        match client {
            "codex" => assert!(
                installed.contains("startup_timeout_sec = 60"),
                "{installed}"
            ),
            "gemini-cli" => assert!(installed.contains("\"timeout\": 600000"), "{installed}"),
            _ => assert!(!installed.contains("timeout\""), "{client}: {installed}"),
        }
        // The gateway answers within the client's patience, and counts as its model does.
        let args = ours_args(client, &installed);
        let within = if client == "codex" { "50" } else { "25" };
        let after = |flag: &str| {
            let at = args.iter().position(|arg| arg == flag)?;
            args.get(at + 1).map(String::as_str)
        };
        assert_eq!(after("--answer-within"), Some(within), "{client}: {args:?}");
        let provider = match client {
            "claude-code" | "claude-desktop" => Some("anthropic"),
            "gemini-cli" => Some("gemini"),
            "codex" => Some("openai"),
            _ => None,
        };
        assert_eq!(after("--provider"), provider, "{client}: {args:?}");
        // The servers file holds the moved servers, and the gateway reads it.
        let servers_file = installed
            .split(['"', '\''])
            .find(|part| part.ends_with(".json") && part.contains("clients"))
            .unwrap_or_else(|| panic!("{client}: no servers file in {installed}"))
            .to_owned();
        let servers: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&servers_file).unwrap()).unwrap();
        let names: Vec<&String> = servers["mcpServers"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["files", "remote"], "{client}");
        // (Codex's bearer token variable is HOME here: set wherever the test runs.)
        let read = overspill::config::Upstreams::from_mcp_json_file(Path::new(&servers_file))
            .unwrap_or_else(|error| panic!("{client}: {error}"));
        let broken: Vec<_> = read.broken().collect();
        assert!(broken.is_empty(), "{client}: {broken:?}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&servers_file)
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "{client}: the servers file is private");
        }
        // Again: nothing to do, nothing changed.
        let again = installer(&home, &install);
        assert!(
            stdout(&again).contains("nothing to do"),
            "{client}: {}",
            stdout(&again)
        );
        assert_eq!(std::fs::read_to_string(&config).unwrap(), installed);
        let out = installer(
            &home,
            &["uninstall", client, "--config-file", path(&config)],
        );
        assert!(out.status.success(), "{client}: {}", stderr(&out));
        assert_eq!(std::fs::read(&config).unwrap(), text.as_bytes(), "{client}");
        assert!(!Path::new(&servers_file).exists(), "{client}");
    }
}

#[test]
fn install_dry_run_changes_nothing_and_a_file_it_cannot_read_is_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let (client, file, text) = client_configs().remove(2);
    let config = dir.path().join(file);
    std::fs::write(&config, &text).unwrap();
    let out = installer(
        &home,
        &[
            "install",
            client,
            "--config-file",
            path(&config),
            "--dry-run",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("would route through overspill: files, remote"));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), text);
    assert!(!home.exists(), "a dry run writes nothing");
    for (client, broken) in [
        ("cursor", "{\"mcpServers\": {"),
        ("codex", "[mcp_servers\n"),
    ] {
        std::fs::write(&config, broken).unwrap();
        let out = installer(&home, &["install", client, "--config-file", path(&config)]);
        assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
        assert!(stderr(&out).contains("left as it is"), "{}", stderr(&out));
        assert_eq!(std::fs::read_to_string(&config).unwrap(), broken);
    }
}

/// What the client does to its file once it has run: Claude Code writes its counters and a
/// project's trust, and `claude mcp add` a server; Codex and the others alike in their formats.
fn client_writes(client: &str, text: &str) -> String {
    if client == "codex" {
        return format!(
            "approval_policy = \"never\"\n{text}\n[mcp_servers.modern]\ncommand = \"modern-mcp\"\n"
        );
    }
    let options = jsonc_options();
    let mut value: Value = jsonc_parser::parse_to_serde_value(text, &options).unwrap();
    value["numStartups"] = json!(5);
    value["projects"] = json!({"/home/me/work": {"hasTrustDialogAccepted": true}});
    let key = if client == "vscode" {
        "servers"
    } else {
        "mcpServers"
    };
    value[key]["modern"] = json!({"command": "modern-mcp"});
    serde_json::to_string_pretty(&value).unwrap()
}

fn jsonc_options() -> jsonc_parser::ParseOptions {
    jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        ..Default::default()
    }
}

/// The arguments of overspill's entry in a client's file.
fn ours_args(client: &str, text: &str) -> Vec<String> {
    let args: Vec<Value> = if client == "codex" {
        let doc: toml_edit::DocumentMut = text.parse().unwrap();
        doc["mcp_servers"]["overspill"]["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|arg| json!(arg.as_str().unwrap()))
            .collect()
    } else {
        let value: Value = jsonc_parser::parse_to_serde_value(text, &jsonc_options()).unwrap();
        let key = if client == "vscode" {
            "servers"
        } else {
            "mcpServers"
        };
        value[key]["overspill"]["args"].as_array().unwrap().clone()
    };
    args.iter()
        .map(|arg| arg.as_str().unwrap().to_owned())
        .collect()
}

/// The servers of a client's file, by name, in the client's own form.
fn servers_of(client: &str, text: &str) -> Vec<String> {
    if client == "codex" {
        let doc: toml_edit::DocumentMut = text.parse().unwrap();
        return doc["mcp_servers"]
            .as_table_like()
            .unwrap()
            .iter()
            .map(|(name, _)| name.to_owned())
            .collect();
    }
    let value: Value = jsonc_parser::parse_to_serde_value(text, &jsonc_options()).unwrap();
    let key = if client == "vscode" {
        "servers"
    } else {
        "mcpServers"
    };
    let mut names: Vec<String> = value[key].as_object().unwrap().keys().cloned().collect();
    names.sort();
    names
}

#[test]
fn uninstall_after_the_client_rewrote_its_file_puts_every_server_back_and_keeps_what_the_client_wrote()
 {
    for (client, file, text) in client_configs() {
        let fixture = Client::with_text(client, file, &text);
        let (home, config) = (fixture.home.clone(), fixture.config.clone());
        fixture.install();
        // The client runs: it rewrites its file and a server is added to it.
        let written = client_writes(client, &std::fs::read_to_string(&config).unwrap());
        std::fs::write(&config, &written).unwrap();
        let out = installer(
            &home,
            &["uninstall", client, "--config-file", path(&config)],
        );
        assert!(out.status.success(), "{client}: {}", stderr(&out));
        let now = std::fs::read_to_string(&config).unwrap();
        let mut names = servers_of(client, &now);
        names.sort();
        let mut expected: Vec<&str> = vec!["files", "modern", "old", "remote"];
        if client == "vscode" {
            expected.push("keyed");
        }
        if client == "gemini-cli" {
            expected.push("sse");
        }
        expected.sort();
        assert_eq!(names, expected, "{client}: {now}");
        let kept = if client == "codex" {
            "approval_policy"
        } else {
            "hasTrustDialogAccepted"
        };
        assert!(now.contains(kept), "{client} lost what it wrote: {now}");
        // Each server is back as the client had it, secrets and all.
        assert!(
            now.contains("@modelcontextprotocol/server-filesystem"),
            "{client}: {now}"
        );
        assert!(
            now.contains("s3cret") || client == "codex",
            "{client}: {now}"
        );
        if client == "codex" {
            assert!(now.contains("bearer_token_env_var = \"HOME\""), "{now}");
            assert!(now.contains("# tool filters stay with Codex"), "{now}");
        }
        assert!(
            std::fs::read_dir(home.join(".config/overspill/clients"))
                .map(|dir| dir.count())
                .unwrap_or(0)
                == 0,
            "{client}: the servers file is removed"
        );
    }
}

/// A client's file with some `mcpServers` in a temporary directory, and HOME beside it.
struct Client {
    _dir: tempfile::TempDir,
    home: std::path::PathBuf,
    config: std::path::PathBuf,
    name: &'static str,
}

impl Client {
    /// `name`'s file `file` holding `servers`.
    fn new(name: &'static str, file: &str, servers: Value) -> Client {
        Client::with_text(name, file, &json!({ "mcpServers": servers }).to_string())
    }

    /// `name`'s file `file` holding `text`.
    fn with_text(name: &'static str, file: &str, text: &str) -> Client {
        let dir = tempfile::tempdir().unwrap();
        let client = Client {
            home: dir.path().join("home"),
            config: dir.path().join(file),
            _dir: dir,
            name,
        };
        std::fs::write(&client.config, text).unwrap();
        client
    }

    /// `overspill <command> <client> --config-file <file>` and `more`.
    fn run(&self, command: &str, more: &[&str]) -> std::process::Output {
        let target = [command, self.name, "--config-file", path(&self.config)];
        installer(&self.home, &[&target[..], more].concat())
    }

    fn install(&self) -> std::process::Output {
        let out = self.run("install", &["--no-status"]);
        assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
        out
    }

    fn uninstall(&self) -> std::process::Output {
        let out = self.run("uninstall", &[]);
        assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
        out
    }

    fn read(&self) -> Value {
        read_json(&self.config)
    }

    /// Adds `entry` to the client's file as server `name` (replacing one of that name), as
    /// the client does: the file as written.
    fn add_server(&self, name: &str, entry: Value) -> Value {
        let mut value = self.read();
        value["mcpServers"][name] = entry;
        self.write(&value);
        value
    }

    fn write(&self, value: &Value) {
        std::fs::write(&self.config, value.to_string()).unwrap();
    }
}

fn read_json(file: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

#[test]
fn a_server_the_second_install_moved_comes_back_at_uninstall() {
    let client = Client::new(
        "claude-code",
        ".claude.json",
        json!({"first": numbers("first")}),
    );
    client.install();
    // `claude mcp add --scope user modern …`, then the documented "Again".
    client.add_server("modern", numbers("modern"));
    let again = client.install();
    assert!(stdout(&again).contains("for modern"), "{}", stdout(&again));
    client.uninstall();
    let value = client.read();
    assert_eq!(value["mcpServers"]["first"], numbers("first"));
    assert_eq!(value["mcpServers"]["modern"], numbers("modern"));
    assert!(value["mcpServers"].get("overspill").is_none());
}

#[test]
fn a_servers_file_is_kept_while_it_holds_a_server_that_would_then_exist_nowhere() {
    let client = Client::new("cursor", "mcp.json", json!({"docs": numbers("mine")}));
    client.install();
    // Another `docs` is added to the client while the first is behind overspill.
    let value = client.add_server("docs", numbers("theirs"));
    let servers_file = value["mcpServers"]["overspill"]["args"][2]
        .as_str()
        .unwrap()
        .to_owned();
    let out = client.uninstall();
    assert!(
        stdout(&out).contains("`docs` stayed in"),
        "{}",
        stdout(&out)
    );
    assert_eq!(client.read()["mcpServers"]["docs"], numbers("theirs"));
    let kept = read_json(Path::new(&servers_file));
    assert_eq!(kept["mcpServers"]["docs"], numbers("mine"));
}

#[cfg(unix)]
#[test]
fn install_and_uninstall_edit_a_linked_client_file_where_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(dir.path().join("dotfiles")).unwrap();
    let real = dir.path().join("dotfiles/claude.json");
    std::fs::write(
        &real,
        json!({"mcpServers": {"docs": numbers("d")}}).to_string(),
    )
    .unwrap();
    let link = dir.path().join(".claude.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let target = ["claude-code", "--config-file", path(&link)];
    let install = [&["install"], &target[..], &["--no-status"]].concat();
    assert!(installer(&home, &install).status.success());
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&real)
            .unwrap()
            .contains("overspill")
    );
    let uninstall = [&["uninstall"], &target[..]].concat();
    assert!(installer(&home, &uninstall).status.success());
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        !std::fs::read_to_string(&real)
            .unwrap()
            .contains("overspill")
    );
}

/// A server that reads its requests and never answers.
fn hanging() -> Value {
    json!({"command": "sh", "args": ["-c", "while read -r line; do :; done"]})
}

#[test]
fn status_shows_each_server_ready_or_failing_with_why_and_install_warns_of_an_unset_variable() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let config = dir.path().join("mcp.json");
    let mut unset = numbers("unset");
    unset["env"]["TOKEN"] = json!("${OVERSPILL_TEST_NEVER_SET}");
    std::fs::write(
        &config,
        json!({"mcpServers": {"good": numbers("good"), "unset": unset, "hanging": hanging(),
                              "missing": {"command": "overspill-test-no-such-program"}}})
        .to_string(),
    )
    .unwrap();
    let out = installer(
        &home,
        &[
            "install",
            "cursor",
            "--config-file",
            path(&config),
            "--no-status",
        ],
    );
    let said = stdout(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("`unset` uses ${OVERSPILL_TEST_NEVER_SET}, which is not set now"),
        "{said}"
    );
    let target = ["cursor", "--config-file", path(&config)];
    let status = installer(
        &home,
        &[&["status"], &target[..], &["--timeout", "3"]].concat(),
    );
    let said = stdout(&status);
    assert_eq!(status.status.code(), Some(1), "{said}{}", stderr(&status));
    let line = |server: &str| {
        said.lines()
            .find(|line| line.contains(&format!(" {server}: ")))
            .unwrap_or_else(|| panic!("no line for {server}: {said}"))
            .to_owned()
    };
    assert!(
        line("good").contains("✔ good: 3 tools (numbers, where, slow)"),
        "{said}"
    );
    assert!(
        line("unset").contains("✘") && line("unset").contains("OVERSPILL_TEST_NEVER_SET"),
        "{said}"
    );
    assert!(
        line("hanging").contains("✘") && line("hanging").contains("3 s"),
        "{said}"
    );
    assert!(
        line("missing").contains("✘") && line("missing").contains("overspill-test-no-such-program"),
        "{said}"
    );
    // Without a client: every client overspill is installed in.
    let every = installer(&home, &["status", "--timeout", "3"]);
    assert!(stdout(&every).contains("✔ good"), "{}", stdout(&every));
}

#[test]
fn claude_code_permission_rules_follow_the_moved_tools_and_a_server_a_rule_names_whole_stays() {
    let client = Client::new(
        "claude-code",
        ".claude.json",
        json!({"numbers": numbers("n"), "guarded": numbers("g")}),
    );
    std::fs::create_dir_all(client.home.join(".claude")).unwrap();
    let settings = client.home.join(".claude/settings.json");
    let rules = json!({"permissions": {"deny": ["mcp__numbers__slow"], "allow": ["mcp__guarded"]}});
    std::fs::write(&settings, serde_json::to_string_pretty(&rules).unwrap()).unwrap();
    let said = stdout(&client.install());
    assert!(said.contains("`guarded` stays"), "{said}");
    assert!(said.contains("names the whole server"), "{said}");
    let value = client.read();
    assert!(value["mcpServers"].get("guarded").is_some());
    assert!(value["mcpServers"].get("numbers").is_none());
    assert_eq!(
        read_json(&settings)["permissions"]["deny"],
        json!(["mcp__numbers__slow", "mcp__overspill__numbers__slow"])
    );
    client.uninstall();
    assert_eq!(read_json(&settings), rules);
}

#[test]
fn an_installed_entry_survives_the_binary_that_installed_it_going_away() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    // The binary as npx runs it, from its cache.
    let cache = dir
        .path()
        .join(".npm/_npx/1/node_modules/@overspill/linux-x64-gnu/bin");
    std::fs::create_dir_all(&cache).unwrap();
    let cached = cache.join("overspill");
    std::fs::copy(env!("CARGO_BIN_EXE_overspill"), &cached).unwrap();
    let config = dir.path().join("mcp.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {"numbers": numbers("n")}}).to_string(),
    )
    .unwrap();
    let out = std::process::Command::new(&cached)
        .args([
            "install",
            "cursor",
            "--config-file",
            path(&config),
            "--no-status",
        ])
        .env("HOME", &home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_DATA_HOME")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // The npx cache is cleaned.
    std::fs::remove_dir_all(dir.path().join(".npm")).unwrap();
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    let command = value["mcpServers"]["overspill"]["command"]
        .as_str()
        .unwrap();
    assert!(command.starts_with(path(&home)), "{command}");
    let version = std::process::Command::new(command)
        .arg("--version")
        .output()
        .unwrap();
    assert!(version.status.success());
}

#[test]
fn an_overspill_entry_install_did_not_write_is_refused_and_left_alone() {
    let theirs =
        json!({"command": "overspill", "args": ["mcp", "--", "npx", "-y", "server-github"]});
    let client = Client::new(
        "cursor",
        "mcp.json",
        json!({"overspill": theirs, "docs": numbers("d")}),
    );
    let before = std::fs::read(&client.config).unwrap();
    let out = client.run("install", &["--no-status"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stderr(&out).contains("did not write"), "{}", stderr(&out));
    assert_eq!(std::fs::read(&client.config).unwrap(), before);
}

#[test]
fn uninstall_without_the_servers_file_puts_back_the_servers_install_moved() {
    let client = Client::new("cursor", "mcp.json", json!({"docs": numbers("d")}));
    client.install();
    let mut value = client.read();
    let servers_file = value["mcpServers"]["overspill"]["args"][2]
        .as_str()
        .unwrap()
        .to_owned();
    std::fs::remove_file(&servers_file).unwrap();
    value["theme"] = json!("dark");
    client.write(&value);
    client.uninstall();
    let value = client.read();
    assert_eq!(value["mcpServers"]["docs"], numbers("d"));
    assert_eq!(value["theme"], "dark");
}

#[test]
fn an_install_that_cannot_finish_its_edit_changes_nothing() {
    let client = Client::new("cursor", "mcp.json", json!({"docs": numbers("d")}));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // A client that never stops writing its file.
    let writer = {
        let (stop, config) = (stop.clone(), client.config.clone());
        std::thread::spawn(move || {
            let mut count = 0u64;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                count += 1;
                let text = json!({"mcpServers": {"docs": numbers("d")}, "count": count});
                let next = config.with_extension("next");
                std::fs::write(&next, text.to_string()).unwrap();
                std::fs::rename(&next, &config).unwrap();
            }
        })
    };
    let out = client.run("install", &["--no-status"]);
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    writer.join().unwrap();
    let servers_dir = client.home.join(".config/overspill/clients");
    let state = client.home.join(".local/state/overspill/install");
    let count = |dir: &Path| std::fs::read_dir(dir).map_or(0, |dir| dir.count());
    if out.status.success() {
        // The writer paused long enough: then everything was done (what the writer wrote
        // after, without reading the file, is the writer's).
        assert_eq!(count(&servers_dir), 1);
        assert_eq!(count(&state), 2, "a record and a backup");
    } else {
        assert!(
            stderr(&out).contains("nothing was changed"),
            "{}",
            stderr(&out)
        );
        assert_eq!(count(&servers_dir), 0, "no servers file is left");
        assert_eq!(count(&state), 0, "no record or backup is left");
        assert!(client.read()["mcpServers"].get("overspill").is_none());
    }
}

#[test]
fn a_second_install_keeps_what_the_user_added_to_overspills_entry() {
    let client = Client::new("cursor", "mcp.json", json!({"docs": numbers("d")}));
    client.install();
    let mut value = client.read();
    let entry = &mut value["mcpServers"]["overspill"];
    let args = entry["args"].as_array_mut().unwrap();
    args.extend([json!("--provider"), json!("anthropic")]);
    entry["env"] = json!({"OVERSPILL_LOG": "debug"});
    value["mcpServers"]["more"] = numbers("m");
    client.write(&value);
    client.install();
    let entry = &client.read()["mcpServers"]["overspill"];
    let args: Vec<&str> = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|arg| arg.as_str().unwrap())
        .collect();
    assert!(
        args.windows(2)
            .any(|pair| pair == ["--provider", "anthropic"]),
        "{args:?}"
    );
    assert_eq!(
        args.iter().filter(|arg| **arg == "--servers").count(),
        1,
        "{args:?}"
    );
    assert_eq!(entry["env"]["OVERSPILL_LOG"], "debug");
}

#[test]
fn installing_again_with_nothing_to_move_brings_the_command_up_to_date() {
    let client = Client::new("cursor", "mcp.json", json!({"docs": numbers("d")}));
    let out = client.run(
        "install",
        &["--no-status", "--program", "/old/node/bin/overspill"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let out = client.install();
    assert!(
        stdout(&out).contains("starts overspill as"),
        "{}",
        stdout(&out)
    );
    let command = client.read()["mcpServers"]["overspill"]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(command, "/old/node/bin/overspill");
    let again = client.install();
    assert!(
        stdout(&again).contains("nothing to do"),
        "{}",
        stdout(&again)
    );
}

#[test]
fn a_server_whose_name_the_servers_file_has_for_another_stays_in_the_client() {
    let client = Client::new("cursor", "mcp.json", json!({"docs": numbers("first")}));
    client.install();
    client.add_server("docs", numbers("second"));
    let out = client.install();
    assert!(
        stdout(&out).contains("`docs` stays")
            && stdout(&out).contains("another server of that name"),
        "{}",
        stdout(&out)
    );
    assert_eq!(client.read()["mcpServers"]["docs"], numbers("second"));
}

#[test]
fn a_relative_command_is_made_absolute_in_its_own_working_directory() {
    let client = Client::new(
        "cursor",
        "mcp.json",
        json!({"app": {"command": "./run.sh", "cwd": "/srv/app"}, "here": {"command": "./serve.sh"}}),
    );
    client.install();
    let entry = client.read()["mcpServers"]["overspill"].clone();
    let servers = read_json(Path::new(entry["args"][2].as_str().unwrap()));
    assert_eq!(servers["mcpServers"]["app"]["command"], "/srv/app/./run.sh");
    let here = client.config.parent().unwrap().join("./serve.sh");
    assert_eq!(servers["mcpServers"]["here"]["command"], path(&here));
}

/// A server that answers `initialize`, then nothing, and stays when its input closes.
const STUCK_SERVER: &str = r#"
read -r line
id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"stuck","version":"0"}}}\n' "$id"
exec sleep 600
"#;

#[test]
fn status_ends_and_stops_a_server_that_answers_initialize_then_nothing() {
    let client = Client::new(
        "cursor",
        "mcp.json",
        json!({"stuck": {"command": "sh", "args": ["-c", STUCK_SERVER]}}),
    );
    client.install();
    let (done, finished) = std::sync::mpsc::channel();
    let (home, config) = (client.home.clone(), client.config.clone());
    std::thread::spawn(move || {
        let out = installer(
            &home,
            &[
                "status",
                "cursor",
                "--config-file",
                path(&config),
                "--timeout",
                "2",
            ],
        );
        let _ = done.send(out);
    });
    let out = finished
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("overspill status did not end within 60 s");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("✘ stuck: it did not answer within 2 s"),
        "{}",
        stdout(&out)
    );
}
