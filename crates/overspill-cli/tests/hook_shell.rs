//! `overspill hook codex` and `overspill hook gemini-cli` (docs/hooks.md#codex,
//! docs/hooks.md#gemini-cli): a shell command rewritten to run under `overspill run`, whose
//! large output then reaches the model as the pointer; Codex's MCP results replaced by the
//! pointer as a block's reason; bad input passes with its reason on stderr.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

mod support;

use support::{path, stderr, stdout};

/// Runs `overspill hook <client> --dir <dir>` on `input`.
fn hook(client: &str, dir: &Path, input: &str) -> Output {
    let cache = dir.join("cache");
    let state = dir.join("state");
    let env = [
        ("OVERSPILL_CACHE_DIR", cache.as_path()),
        ("XDG_STATE_HOME", &state),
    ];
    let out = support::run_with_env(&["hook", client, "--dir", path(dir)], input, &env);
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

/// A Codex hook input of `event` (Codex 0.171's `*.command.input` schemas).
fn codex(event: &str, tool: &str, tool_input: Value, tool_response: Option<Value>) -> String {
    let mut input = json!({
        "session_id": "019a7c1e-5b2d-7f40-9c3e-1d2f3a4b5c6d",
        "turn_id": "019a7c1e-5b2d-7f40-9c3e-000000000001",
        "transcript_path": null,
        "cwd": "/srv/app",
        "hook_event_name": event,
        "model": "gpt-5",
        "permission_mode": "default",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "call_7Qm2",
    });
    if let Some(response) = tool_response {
        input["tool_response"] = response;
    }
    input.to_string()
}

/// Runs `command` in `sh -c`, as the client's shell would.
fn shell(command: &str) -> Output {
    Command::new("sh").args(["-c", command]).output().unwrap()
}

#[test]
fn codex_pre_tool_use_runs_the_shell_command_under_overspill_run_and_its_large_output_is_a_pointer()
{
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("pad");
    let command = "python3 -c \"print('pod-x Running\\n' * 20000)\"; echo it\\'s done >&2";
    let input = codex(
        "PreToolUse",
        "Bash",
        json!({"command": command, "workdir": "/srv/app"}),
        None,
    );
    let out = hook("codex", &pad, &input);
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["hookEventName"], "PreToolUse");
    assert_eq!(specific["permissionDecision"], "allow");
    assert_eq!(specific["updatedInput"]["workdir"], "/srv/app");
    let wrapped = specific["updatedInput"]["command"].as_str().unwrap();
    assert!(
        wrapped.contains(" run --min-tokens 5120 --tool Bash --dir "),
        "{wrapped}"
    );
    let ran = shell(wrapped);
    assert!(ran.status.success());
    let printed = stdout(&ran);
    assert!(
        printed.len() < 2_000 && printed.contains("Bash"),
        "{printed}"
    );
    assert_eq!(stderr(&ran), "it's done\n");
    assert!(std::fs::read_dir(&pad).unwrap().count() > 0);

    // A small output and the exit status pass unchanged; a command wrapped once is not again.
    let small = codex(
        "PreToolUse",
        "Bash",
        json!({"command": "echo hi; exit 3"}),
        None,
    );
    let answer: Value = serde_json::from_str(&stdout(&hook("codex", &pad, &small))).unwrap();
    let wrapped = answer["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .unwrap();
    let ran = shell(wrapped);
    assert_eq!(
        (ran.status.code(), stdout(&ran).as_str()),
        (Some(3), "hi\n")
    );
    let again = codex("PreToolUse", "Bash", json!({"command": wrapped}), None);
    assert_eq!(stdout(&hook("codex", &pad, &again)), "");
}

#[test]
fn codex_post_tool_use_gives_a_large_mcp_result_as_the_pointer_and_leaves_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("pad");
    let issues: Vec<Value> = (0..2_000)
        .map(|i| json!({"number": i, "title": format!("Crash when syncing shard {i}"), "state": "open"}))
        .collect();
    let large = json!({"content": [{"type": "text", "text": json!(issues).to_string()}]});
    let input = codex(
        "PostToolUse",
        "mcp__github__search_issues",
        json!({"q": "crash"}),
        Some(large.clone()),
    );
    let answer: Value = serde_json::from_str(&stdout(&hook("codex", &pad, &input))).unwrap();
    assert_eq!(answer["decision"], "block");
    let pointer = answer["reason"].as_str().unwrap();
    assert!(
        pointer.starts_with("[overspill]") && pointer.contains("search_issues"),
        "{pointer}"
    );
    assert!(!pointer.contains("Crash when syncing shard 1999"));

    // overspill's own tools, a small result, a shell's output: nothing.
    for (tool, response) in [
        ("mcp__overspill__grep", large.clone()),
        (
            "mcp__github__search_issues",
            json!({"content": [{"type": "text", "text": "ok"}]}),
        ),
        ("Bash", json!("x".repeat(100_000))),
    ] {
        let input = codex("PostToolUse", tool, json!({}), Some(response));
        let out = hook("codex", &pad, &input);
        assert_eq!(stdout(&out), "", "{tool}");
    }
}

#[test]
fn gemini_cli_before_tool_runs_the_shell_command_under_overspill_run() {
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("pad");
    let input = json!({
        "session_id": "5c1d7e2a-93f4-4b6e-8a0d-2f7c9e1b3a54",
        "transcript_path": "/home/me/.gemini/tmp/app/chats/session.json",
        "cwd": "/srv/app",
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-06T11:40:00.000Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "seq 1 200000", "description": "numbers"},
    })
    .to_string();
    let answer: Value = serde_json::from_str(&stdout(&hook("gemini-cli", &pad, &input))).unwrap();
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(specific["hookEventName"], "BeforeTool");
    let wrapped = specific["tool_input"]["command"].as_str().unwrap();
    assert!(
        wrapped.contains(" run --min-tokens 5120 --tool run_shell_command "),
        "{wrapped}"
    );
    let printed = stdout(&shell(wrapped));
    assert!(
        printed.len() < 2_000 && printed.contains("run_shell_command"),
        "{printed}"
    );

    let read = input.replace("run_shell_command", "read_file");
    assert_eq!(stdout(&hook("gemini-cli", &pad, &read)), "");
}

#[test]
fn bad_input_passes_the_tool_call_unchanged_and_says_why_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("pad");
    for (client, input) in [
        ("codex", "not json".to_owned()),
        (
            "codex",
            codex("PreToolUse", "Bash", json!({"cmd": ["ls"]}), None),
        ),
        ("codex", codex("Stop", "Bash", json!({}), None)),
        (
            "gemini-cli",
            json!({"hook_event_name": "AfterTool", "tool_name": "run_shell_command"}).to_string(),
        ),
        ("gemini-cli", "{".to_owned()),
    ] {
        let out = hook(client, &pad, &input);
        assert_eq!(stdout(&out), "", "{client} {input}");
        assert!(
            stderr(&out).contains("passes unchanged"),
            "{}",
            stderr(&out)
        );
    }
}
