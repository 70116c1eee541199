//! `overspill install claude-code` adds the PostToolUse hook beside its entry, and `uninstall`
//! takes it out (docs/hooks.md#what-install-writes): every file byte for byte when nothing else
//! wrote them, otherwise only overspill's own hook; the user's own hooks stay in every case.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

mod support;

use support::{installer, numbers, path, stderr, stdout};

/// The matcher install writes: the tools whose output shape the hook knows.
const MATCHER: &str = "^(Bash|Read|WebFetch|mcp__.*)$";

/// A user's own PostToolUse hook, there before install.
fn users_hook() -> Value {
    json!({"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier --write \"$FILE\""}]})
}

/// Settings of the user's own: a model, a permission rule and a hook, as Claude Code writes
/// them.
fn users_settings() -> String {
    let settings = json!({
        "model": "opus",
        "permissions": {"allow": ["Bash(git status)"]},
        "hooks": {"PostToolUse": [users_hook()]},
    });
    format!("{}\n", serde_json::to_string_pretty(&settings).unwrap())
}

/// A home with Claude Code's `~/.claude.json` holding `servers`, and its settings file
/// holding `settings` (none when `None`).
struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    config: PathBuf,
    settings: PathBuf,
}

impl Home {
    fn new(servers: Value, settings: Option<&str>) -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        let config = home.join(".claude.json");
        let text = json!({"numStartups": 4, "mcpServers": servers});
        std::fs::write(&config, serde_json::to_string_pretty(&text).unwrap()).unwrap();
        let settings_file = home.join(".claude/settings.json");
        if let Some(settings) = settings {
            std::fs::write(&settings_file, settings).unwrap();
        }
        Home {
            _dir: dir,
            home,
            config,
            settings: settings_file,
        }
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        let out = installer(&self.home, args);
        assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
        out
    }

    fn install(&self, more: &[&str]) -> std::process::Output {
        self.run(&[&["install", "claude-code", "--no-status"], more].concat())
    }

    fn uninstall(&self) -> std::process::Output {
        self.run(&["uninstall", "claude-code"])
    }

    fn entry(&self) -> Value {
        read_json(&self.config)["mcpServers"]["overspill"].clone()
    }

    fn post_tool_use(&self) -> Vec<Value> {
        read_json(&self.settings)["hooks"]["PostToolUse"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

fn read_json(file: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item.as_str().unwrap())
        .collect()
}

/// The value after `flag` in `args`.
fn after<'a>(args: &[&'a str], flag: &str) -> Option<&'a str> {
    let at = args.iter().position(|arg| *arg == flag)?;
    args.get(at + 1).copied()
}

/// Overspill's handler in the PostToolUse groups, checked to be the hook of `entry`.
fn ours_of(groups: &[Value], entry: &Value) -> Value {
    let ours: Vec<&Value> = groups
        .iter()
        .filter(|group| group["matcher"] == MATCHER)
        .collect();
    assert_eq!(ours.len(), 1, "one group of overspill's: {groups:?}");
    let handler = ours[0]["hooks"][0].clone();
    assert_eq!(handler["type"], "command");
    let entry_args = strings(&entry["args"]);
    let args = strings(&handler["args"]);
    // The gateway's own flags: where it stores, how it counts.
    let mut expected = vec!["hook", "claude-code"];
    for flag in ["--servers", "--provider"] {
        expected.extend([flag, after(&entry_args, flag).unwrap()]);
    }
    assert_eq!(args, expected, "{handler}");
    handler
}

#[test]
fn install_adds_the_hook_with_the_entrys_flags_and_uninstall_restores_every_file_byte_for_byte() {
    for settings in [Some(users_settings()), None] {
        let home = Home::new(json!({"numbers": numbers("n")}), settings.as_deref());
        let config_before = std::fs::read(&home.config).unwrap();
        let said = stdout(&home.install(&[]));
        assert!(said.contains("added the PostToolUse hook"), "{said}");
        let entry = home.entry();
        let groups = home.post_tool_use();
        let handler = ours_of(&groups, &entry);
        // The native binary the entry starts, never a launcher.
        assert_eq!(handler["command"], entry["command"]);
        assert!(Path::new(handler["command"].as_str().unwrap()).is_file());
        if settings.is_some() {
            // The user's hook first, as it was; theirs and overspill's side by side.
            assert_eq!(groups[0], users_hook());
            assert_eq!(read_json(&home.settings)["model"], "opus");
        }
        let installed = std::fs::read(&home.settings).unwrap();
        let again = stdout(&home.install(&[]));
        assert!(again.contains("nothing to do"), "{again}");
        assert_eq!(std::fs::read(&home.settings).unwrap(), installed);

        let said = stdout(&home.uninstall());
        assert!(said.contains("as it was before"), "{said}");
        assert_eq!(std::fs::read(&home.config).unwrap(), config_before);
        match &settings {
            Some(text) => assert_eq!(std::fs::read_to_string(&home.settings).unwrap(), *text),
            None => assert!(
                !home.settings.exists(),
                "install made it, uninstall takes it"
            ),
        }
    }
}

#[test]
fn the_users_own_hooks_before_install_and_after_it_survive_uninstall() {
    let home = Home::new(json!({"numbers": numbers("n")}), Some(&users_settings()));
    home.install(&[]);
    // After install, the user adds hooks of their own (with `/hooks`, or by hand): one of
    // another event, one beside overspill's in its own group; Claude Code writes the file in
    // its own layout.
    let mut settings = read_json(&home.settings);
    let later = json!({"type": "command", "command": "notify-send done"});
    settings["hooks"]["Stop"] = json!([{"hooks": [later]}]);
    let groups = settings["hooks"]["PostToolUse"].as_array_mut().unwrap();
    let ours = groups
        .iter_mut()
        .find(|group| group["matcher"] == MATCHER)
        .unwrap();
    let beside = json!({"type": "command", "command": "log-tool-use"});
    ours["hooks"].as_array_mut().unwrap().push(beside.clone());
    std::fs::write(&home.settings, settings.to_string()).unwrap();

    let said = stdout(&home.uninstall());
    assert!(said.contains("took overspill's hook out of"), "{said}");
    let now = read_json(&home.settings);
    assert_eq!(now["model"], "opus");
    assert_eq!(now["permissions"]["allow"], json!(["Bash(git status)"]));
    assert_eq!(now["hooks"]["Stop"], json!([{"hooks": [later]}]));
    // The user's group from before install, and the user's handler in overspill's group.
    assert_eq!(
        now["hooks"]["PostToolUse"],
        json!([users_hook(), {"matcher": MATCHER, "hooks": [beside]}])
    );
    assert!(
        !std::fs::read_to_string(&home.settings)
            .unwrap()
            .contains("claude-code"),
        "overspill's hook is gone"
    );
    assert!(home.entry().is_null());
}

#[test]
fn no_hooks_installs_the_entry_alone_and_a_hook_never_starts_a_launcher() {
    let home = Home::new(json!({"numbers": numbers("n")}), None);
    let config_before = std::fs::read(&home.config).unwrap();
    let dry = stdout(&home.install(&["--no-hooks", "--dry-run"]));
    assert!(!dry.contains("hook"), "{dry}");
    let said = stdout(&home.install(&["--no-hooks"]));
    assert!(!said.contains("hook"), "{said}");
    assert!(!home.entry().is_null());
    assert!(!home.settings.exists(), "no settings file is written");
    home.uninstall();
    assert_eq!(std::fs::read(&home.config).unwrap(), config_before);

    // With no server, --no-hooks leaves nothing to do.
    let bare = Home::new(json!({}), None);
    let before = std::fs::read(&bare.config).unwrap();
    let said = stdout(&bare.install(&["--no-hooks"]));
    assert!(said.contains("nothing to do"), "{said}");
    assert_eq!(std::fs::read(&bare.config).unwrap(), before);

    // A launcher for the gateway (`--program`): the hook, which runs after every tool call, is
    // still the binary itself.
    let launched = Home::new(json!({"numbers": numbers("n")}), None);
    launched.install(&["--program", "/opt/launchers/overspill"]);
    let entry = launched.entry();
    assert_eq!(entry["command"], "/opt/launchers/overspill");
    let handler = ours_of(&launched.post_tool_use(), &entry);
    let command = handler["command"].as_str().unwrap();
    assert_ne!(command, "/opt/launchers/overspill");
    assert!(Path::new(command).is_file(), "{command}");
}

#[test]
fn a_user_with_no_server_gets_a_gateway_of_the_exploration_tools_and_the_hook() {
    let home = Home::new(json!({}), None);
    let before = std::fs::read(&home.config).unwrap();
    let said = stdout(&home.install(&[]));
    assert!(said.contains("no server behind it"), "{said}");
    let entry = home.entry();
    ours_of(&home.post_tool_use(), &entry);
    let args = strings(&entry["args"]);
    let servers = after(&args, "--servers").unwrap();
    assert_eq!(read_json(Path::new(servers)), json!({"mcpServers": {}}));

    // The entry starts: a gateway that offers the exploration tools.
    let mut gateway = Command::new(entry["command"].as_str().unwrap())
        .args(&args)
        .env("HOME", &home.home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = gateway.stdin.take().unwrap();
    let lines = BufReader::new(gateway.stdout.take().unwrap())
        .lines()
        .map(Result::unwrap);
    for request in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "claude-code", "version": "2.1.332"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ] {
        writeln!(stdin, "{request}").unwrap();
    }
    let listed: Value = lines
        .map(|line| serde_json::from_str::<Value>(&line).unwrap())
        .find(|answer| answer["id"] == 2)
        .expect("the gateway answered tools/list");
    let tools: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"grep") && tools.contains(&"query"),
        "{tools:?}"
    );
    drop(stdin);
    let out = gateway.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    home.uninstall();
    assert_eq!(std::fs::read(&home.config).unwrap(), before);
    assert!(!Path::new(servers).exists());
    assert!(!home.settings.exists());
}

#[test]
fn a_project_install_puts_the_hook_in_the_projects_local_settings() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let config = project.join(".mcp.json");
    let text = json!({"mcpServers": {"numbers": numbers("n")}}).to_string();
    std::fs::write(&config, &text).unwrap();
    let target = ["--scope", "project", "--config-file", path(&config)];
    let out = installer(
        &home,
        &[&["install", "claude-code", "--no-status"], &target[..]].concat(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let local = project.join(".claude/settings.local.json");
    let entry = read_json(&config)["mcpServers"]["overspill"].clone();
    let groups = read_json(&local)["hooks"]["PostToolUse"]
        .as_array()
        .cloned()
        .unwrap();
    ours_of(&groups, &entry);
    assert!(!home.join(".claude/settings.json").exists());
    let out = installer(
        &home,
        &[&["uninstall", "claude-code"], &target[..]].concat(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), text);
    assert!(!local.exists());
}

/// The words of a hook's command line (install quotes only what needs it).
fn command_words(handler: &Value) -> Vec<String> {
    let line = handler["command"].as_str().unwrap();
    line.split(' ')
        .map(|w| w.trim_matches('\'').to_owned())
        .collect()
}

#[test]
fn install_codex_adds_a_pre_and_a_post_tool_use_hook_to_hooks_json_and_uninstall_keeps_the_users() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let codex = home.join(".codex");
    std::fs::create_dir_all(&codex).unwrap();
    let config = codex.join("config.toml");
    let config_text = "model = \"gpt-5\"\n";
    std::fs::write(&config, config_text).unwrap();
    let hooks = codex.join("hooks.json");
    let users = json!({"hooks": {"PostToolUse": [
        {"matcher": "^apply_patch$", "hooks": [{"type": "command", "command": "cargo fmt"}]}
    ]}});
    let users_text = format!("{}\n", serde_json::to_string_pretty(&users).unwrap());
    std::fs::write(&hooks, &users_text).unwrap();
    let run = |args: &[&str]| {
        let out = installer(&home, args);
        assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
        out
    };
    run(&["install", "codex", "--no-status"]);
    let now = read_json(&hooks);
    let pre = now["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 1);
    assert_eq!(pre[0]["matcher"], "^Bash$");
    let words = command_words(&pre[0]["hooks"][0]);
    assert_eq!(&words[1..3], ["hook", "codex"]);
    let servers = after(
        &words.iter().map(String::as_str).collect::<Vec<_>>(),
        "--servers",
    )
    .unwrap()
    .to_owned();
    assert!(Path::new(&servers).exists(), "{servers}");
    let post = now["hooks"]["PostToolUse"].as_array().unwrap();
    assert_eq!(post.len(), 2);
    assert_eq!(post[0], users["hooks"]["PostToolUse"][0]);
    assert_eq!(post[1]["matcher"], "^mcp__.*$");
    assert_eq!(post[1]["hooks"][0], pre[0]["hooks"][0]);

    // Nothing else wrote it: as it was, byte for byte.
    run(&["uninstall", "codex"]);
    assert_eq!(std::fs::read_to_string(&hooks).unwrap(), users_text);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), config_text);

    // A hook the user added after install stays, with theirs from before.
    run(&["install", "codex", "--no-status"]);
    let mut edited = read_json(&hooks);
    let added = json!({"hooks": [{"type": "command", "command": "notify-send done"}]});
    edited["hooks"]["Stop"] = json!([added]);
    std::fs::write(&hooks, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
    run(&["uninstall", "codex"]);
    let left = read_json(&hooks);
    assert_eq!(
        left,
        json!({"hooks": {"PostToolUse": users["hooks"]["PostToolUse"], "Stop": [added]}})
    );
}

#[test]
fn install_gemini_cli_adds_a_before_tool_hook_to_its_settings_and_uninstall_restores_them() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    let settings = home.join(".gemini/settings.json");
    let before = format!(
        "{}\n",
        serde_json::to_string_pretty(&json!({
            "mcpServers": {"numbers": numbers("hi")},
            "ui": {"theme": "GitHub"},
        }))
        .unwrap()
    );
    std::fs::write(&settings, &before).unwrap();
    let run = |args: &[&str]| {
        let out = installer(&home, args);
        assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
        out
    };
    run(&["install", "gemini-cli", "--no-status"]);
    let now = read_json(&settings);
    let groups = now["hooks"]["BeforeTool"].as_array().unwrap();
    assert_eq!(groups.len(), 1);
    assert_eq!(groups[0]["matcher"], "^run_shell_command$");
    let words = command_words(&groups[0]["hooks"][0]);
    assert_eq!(&words[1..3], ["hook", "gemini-cli"]);
    assert!(now["mcpServers"]["overspill"].is_object());
    run(&["uninstall", "gemini-cli"]);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), before);

    // --no-hooks: the entry alone.
    run(&["install", "gemini-cli", "--no-status", "--no-hooks"]);
    assert!(read_json(&settings).get("hooks").is_none());
}
