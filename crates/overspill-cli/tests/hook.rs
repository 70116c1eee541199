//! `overspill hook claude-code`: Claude Code's PostToolUse input in, the pointer out in the
//! tool's own shape, or nothing (docs/hooks.md). What a hook or `overspill run` stores is where
//! the agent's gateway explores it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

mod support;

use support::{numbers, path, stderr, stdout};

/// A PostToolUse input of `tool` with its input and response, as Claude Code 2.1.332 sends it.
fn input(tool: &str, tool_input: Value, tool_response: Value) -> String {
    json!({
        "session_id": "0b7c2f4e-6a1d-4c55-9d0e-3f1c7a2b9e10",
        "transcript_path": "/home/me/.claude/projects/-srv-app/0b7c2f4e.jsonl",
        "cwd": "/srv/app",
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_response": tool_response,
        "tool_use_id": "toolu_01A2B3C4D5E6F7G8H9J0K1L2",
        "duration_ms": 812,
    })
    .to_string()
}

/// A Bash input whose command printed `stdout`.
fn bash(stdout: &str) -> String {
    input(
        "Bash",
        json!({"command": "kubectl get pods -A -o wide", "description": "List the pods"}),
        json!({"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false,
               "noOutputExpected": false}),
    )
}

/// A pod listing of `lines` lines (about 40 tokens each).
fn pods(lines: usize) -> String {
    (0..lines)
        .map(|i| {
            let phase = if i == 977 { "Failed" } else { "Running" };
            format!("payments   api-{i:05}-7f9c8d6b5-x2k4q   1/1   {phase}   0   3d4h   10.42.{}.{}   node-{}\n", i / 250, i % 250, i % 7)
        })
        .collect()
}

/// Runs `overspill hook claude-code` with `args` on `input`, with its token tables kept in
/// `cache` (so that a test can see whether they were built).
fn hook_in(cache: &Path, args: &[&str], input: &str) -> Output {
    let state = shared_state();
    let env = [
        ("OVERSPILL_CACHE_DIR", cache),
        ("XDG_STATE_HOME", state.as_path()),
    ];
    support::run_with_env(&[&["hook", "claude-code"], args].concat(), input, &env)
}

/// [`hook_in`] with the machine's usual table cache.
fn hook(args: &[&str], input: &str) -> Output {
    hook_with_state(args, input, &shared_state())
}

/// The state directory's parent the tests whose hook log nobody reads share.
fn shared_state() -> std::path::PathBuf {
    std::env::temp_dir().join("overspill-hook-tests-state")
}

/// [`hook`] with `state` as overspill's state directory's parent (`XDG_STATE_HOME`), where the
/// hook's log is: never the user's own.
fn hook_with_state(args: &[&str], input: &str, state: &Path) -> Output {
    let env = [("XDG_STATE_HOME", state)];
    support::run_with_env(&[&["hook", "claude-code"], args].concat(), input, &env)
}

/// The `updatedToolOutput` of a hook's answer, checked to be the whole of its one line.
fn updated(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    let text = stdout(out);
    assert!(text.ends_with('\n') && text.lines().count() == 1, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    assert_eq!(answer.as_object().unwrap().len(), 1, "{answer}");
    answer["hookSpecificOutput"]["updatedToolOutput"].clone()
}

/// The keys of a JSON object, sorted.
fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

fn file_of(pointer: &str) -> &str {
    pointer
        .lines()
        .find_map(|line| line.strip_prefix("file: "))
        .unwrap_or_else(|| panic!("not a pointer: {pointer}"))
}

/// Nothing printed, exit 0, and the reason on stderr containing `why`.
fn passed_because(out: &Output, why: &str) {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    assert!(out.stdout.is_empty(), "{}", stdout(out));
    assert!(
        stderr(out).contains(why),
        "expected {why:?} in: {}",
        stderr(out)
    );
}

#[test]
fn hook_replaces_a_large_bash_output_by_the_pointer_in_bashs_own_shape() {
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("pad");
    let listing = pods(2_000);
    let output = updated(&hook(&["--dir", path(&pad)], &bash(&listing)));
    assert_eq!(
        keys(&output),
        [
            "interrupted",
            "isImage",
            "noOutputExpected",
            "stderr",
            "stdout"
        ]
    );
    assert_eq!(output["stderr"], "");
    assert_eq!(output["interrupted"], false);
    let pointer = output["stdout"].as_str().unwrap();
    assert!(
        pointer.starts_with("[overspill] The result of `Bash` was too large"),
        "{pointer}"
    );
    let stored = std::fs::read_to_string(pad.join(file_of(pointer))).unwrap();
    assert_eq!(stored, listing);
}

#[test]
fn hook_reads_the_whole_bash_output_from_claude_codes_persisted_file() {
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("pad");
    let listing = pods(40_000);
    let persisted = dir.path().join("b7x1k2.txt");
    std::fs::write(&persisted, &listing).unwrap();
    // What Claude Code sends once it has cut the output: the start, and where the rest is.
    let response = json!({
        "stdout": &listing[..30_000], "stderr": "", "interrupted": false, "isImage": false,
        "persistedOutputPath": persisted, "persistedOutputSize": listing.len(),
    });
    let input = input("Bash", json!({"command": "kubectl get pods -A"}), response);
    let output = updated(&hook(&["--dir", path(&pad)], &input));
    assert!(output.get("persistedOutputPath").is_none(), "{output}");
    let pointer = output["stdout"].as_str().unwrap();
    let stored = std::fs::read_to_string(pad.join(file_of(pointer))).unwrap();
    assert_eq!(stored.len(), listing.len());
}

#[test]
fn hook_replaces_a_large_read_by_a_pointer_to_the_whole_file_in_reads_own_shape() {
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("pad");
    let source: String = (0..4_000)
        .map(|i| {
            format!(
                "def handler_{i}(request):\n    return respond(request, status={})\n",
                200 + i % 300
            )
        })
        .collect();
    let file = dir.path().join("handlers.py");
    std::fs::write(&file, &source).unwrap();
    // Claude Code sent the first 2,000 lines and cut the rest.
    let first: String = source
        .lines()
        .take(2_000)
        .map(|line| format!("{line}\n"))
        .collect();
    let response = json!({"type": "text", "file": {
        "filePath": file, "content": first, "numLines": 2_000, "startLine": 1, "totalLines": 8_000,
    }});
    let input = input("Read", json!({"file_path": file}), response);
    let output = updated(&hook(&["--dir", path(&pad)], &input));
    assert_eq!(keys(&output), ["file", "type"]);
    assert_eq!(output["type"], "text");
    assert_eq!(
        keys(&output["file"]),
        ["content", "filePath", "numLines", "startLine", "totalLines"]
    );
    assert_eq!(output["file"]["filePath"], path(&file));
    assert_eq!(output["file"]["startLine"], 1);
    assert_eq!(output["file"]["totalLines"], 8_000);
    let pointer = output["file"]["content"].as_str().unwrap();
    assert_eq!(output["file"]["numLines"], pointer.lines().count());
    assert!(
        pointer.starts_with("[overspill] The result of `Read`"),
        "{pointer}"
    );
    // The whole file, line for line: a line number from `slice` is the file's own.
    let stored = std::fs::read_to_string(pad.join(file_of(pointer))).unwrap();
    assert_eq!(stored, source);
}

/// A package lock of `packages` packages, 4-space indented as an editor may leave a JSON file,
/// each `engines` on one line: not the store's 2-space layout.
fn lock_file(packages: usize) -> String {
    let packages: Vec<String> = (0..packages)
        .map(|i| {
            format!(
                "        \"node_modules/pkg-{i:04}\": {{\n            \"version\": \"1.{}.{}\",\n            \"resolved\": \"https://registry.npmjs.org/pkg-{i:04}/-/pkg-{i:04}-1.{}.{}.tgz\",\n            \"integrity\": \"sha512-{i:04}Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8=\",\n            \"engines\": {{ \"node\": \">=18\" }}\n        }}",
                i % 20,
                i % 7,
                i % 20,
                i % 7
            )
        })
        .collect();
    format!(
        "{{\n    \"name\": \"payments-web\",\n    \"lockfileVersion\": 3,\n    \"packages\": {{\n{}\n    }}\n}}\n",
        packages.join(",\n")
    )
}

#[test]
fn hook_stores_a_read_json_file_as_written_so_its_lines_and_slices_are_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("pad");
    let lock = lock_file(600);
    let file = dir.path().join("package-lock.json");
    std::fs::write(&file, &lock).unwrap();
    let lines = lock.lines().count();
    let response = json!({"type": "text", "file": {
        "filePath": file, "content": lock, "numLines": lines, "startLine": 1, "totalLines": lines,
    }});
    let input = input("Read", json!({"file_path": file}), response);
    let output = updated(&hook(&["--dir", path(&pad)], &input));
    let pointer = output["file"]["content"].as_str().unwrap();
    let name = file_of(pointer);
    assert!(name.ends_with(".json"), "{pointer}");
    // Byte for byte the file: not re-indented to the store's 2 spaces.
    let stored = std::fs::read(pad.join(name)).unwrap();
    assert!(
        stored == lock.as_bytes(),
        "the stored file is not the file as written; it starts {:?}",
        String::from_utf8_lossy(&stored[..stored.len().min(120)])
    );

    // What slice shows of it is the file's lines at the file's numbers: an Edit's old text.
    let (start, end) = (1_201, 1_214);
    let args = json!({"file": name, "start": start, "end": end}).to_string();
    let out = support::run(&["tool", "slice", "--dir", path(&pad), "--args", &args], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let shown: Vec<(usize, String)> = stdout(&out)
        .lines()
        .take_while(|line| !line.starts_with("--- slice"))
        .map(|line| {
            let (number, text) = line.split_once(": ").unwrap();
            (number.trim().parse().unwrap(), text.to_owned())
        })
        .collect();
    let expected: Vec<(usize, String)> = lock
        .lines()
        .enumerate()
        .skip(start - 1)
        .take(end - start + 1)
        .map(|(i, line)| (i + 1, line.to_owned()))
        .collect();
    assert_eq!(shown, expected);
    assert!(
        shown
            .iter()
            .any(|(_, text)| text == "            \"engines\": { \"node\": \">=18\" }"),
        "{shown:?}"
    );
}

#[test]
fn hook_leaves_a_small_read_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("README.md");
    let text = "# app\n\nServes the payments API.\n".repeat(50);
    std::fs::write(&file, &text).unwrap();
    let response = json!({"type": "text", "file": {
        "filePath": file, "content": text, "numLines": 150, "startLine": 1, "totalLines": 150,
    }});
    let out = hook(
        &["--dir", path(&dir.path().join("pad"))],
        &input("Read", json!({"file_path": file}), response),
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
}

#[test]
fn hook_replaces_a_large_mcp_result_by_a_content_array_and_leaves_overspills_own_tools_alone() {
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("pad");
    let listing = pods(2_000);
    let response = json!([{"type": "text", "text": listing}]);
    let out = hook(
        &["--dir", path(&pad)],
        &input(
            "mcp__k8s__list_pods",
            json!({"namespace": "payments"}),
            response.clone(),
        ),
    );
    let output = updated(&out);
    let blocks = output.as_array().unwrap();
    assert_eq!(blocks.len(), 1, "{output}");
    assert_eq!(blocks[0]["type"], "text");
    let pointer = blocks[0]["text"].as_str().unwrap();
    assert!(
        pointer.starts_with("[overspill] The result of `mcp__k8s__list_pods`"),
        "{pointer}"
    );

    // The gateway's own tools: their results are its own answers already.
    let own = hook(
        &["--dir", path(&pad)],
        &input("mcp__overspill__head", json!({"file": "x.txt"}), response),
    );
    assert_eq!(own.status.code(), Some(0));
    assert!(own.stdout.is_empty() && own.stderr.is_empty(), "{own:?}");
}

#[test]
fn hook_replaces_a_large_webfetch_result_and_keeps_its_other_fields() {
    let dir = tempfile::tempdir().unwrap();
    let page = "The payments API returns 429 when a client sends more than 50 requests a second. "
        .repeat(2_000);
    let response = json!({"bytes": 412_337, "code": 200, "codeText": "OK", "result": page,
                          "durationMs": 1_930, "url": "https://docs.example.com/api/limits"});
    let input = input(
        "WebFetch",
        json!({"url": "https://docs.example.com/api/limits", "prompt": "Return the page."}),
        response,
    );
    let output = updated(&hook(&["--dir", path(&dir.path().join("pad"))], &input));
    assert_eq!(
        keys(&output),
        ["bytes", "code", "codeText", "durationMs", "result", "url"]
    );
    assert_eq!(output["code"], 200);
    assert!(
        output["result"]
            .as_str()
            .unwrap()
            .starts_with("[overspill] The result of `WebFetch`")
    );
}

#[test]
fn hook_with_a_small_output_builds_neither_the_token_tables_nor_a_scratchpad() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let pad = dir.path().join("pad");
    let small = hook_in(&cache, &["--dir", path(&pad)], &bash(&pods(20)));
    assert_eq!(small.status.code(), Some(0));
    assert!(
        small.stdout.is_empty() && small.stderr.is_empty(),
        "{small:?}"
    );
    assert!(!pad.exists(), "a scratchpad was made for a small output");
    assert!(
        !cache.exists(),
        "the token tables were built for a small output"
    );

    // The same hook on a large output builds both: the check above can see them.
    let large = hook_in(&cache, &["--dir", path(&pad)], &bash(&pods(2_000)));
    updated(&large);
    assert!(pad.exists());
    assert!(cache.join("tables").read_dir().unwrap().next().is_some());
}

#[test]
fn hook_thresholds_come_from_the_configurations_hooks_table() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("overspill.toml");
    std::fs::write(
        &config,
        "[hooks.claude-code.scratchpad]\n\"Bash\" = { min_tokens = 1000000 }\n\"Read\" = { min_tokens = 50 }\n",
    )
    .unwrap();
    let pad = dir.path().join("pad");
    let args = ["--config", path(&config), "--dir", path(&pad)];
    let bash_out = hook(&args, &bash(&pods(2_000)));
    assert_eq!(bash_out.status.code(), Some(0));
    assert!(
        bash_out.stdout.is_empty(),
        "Bash's threshold is 1,000,000 tokens"
    );

    let file = dir.path().join("config.yaml");
    let text = "replicas: 3\nimage: registry.example.com/payments/api:4.2.1\n".repeat(20);
    std::fs::write(&file, &text).unwrap();
    let response = json!({"type": "text", "file": {
        "filePath": file, "content": text, "numLines": 40, "startLine": 1, "totalLines": 40,
    }});
    let output = updated(&hook(
        &args,
        &input("Read", json!({"file_path": file}), response),
    ));
    assert!(
        output["file"]["content"]
            .as_str()
            .unwrap()
            .starts_with("[overspill]")
    );
    // WebFetch has no pattern in the table: the table is taken at its word.
    let page = json!({"bytes": 1, "code": 200, "codeText": "OK", "result": pods(2_000),
                      "durationMs": 1, "url": "https://example.com"});
    let fetched = hook(&args, &input("WebFetch", json!({}), page));
    assert!(fetched.stdout.is_empty(), "{}", stdout(&fetched));
}

#[test]
fn hook_bad_input_passes_the_output_unchanged_and_says_why_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("pad");
    let args = ["--dir", path(&pad)];
    passed_because(
        &hook(&args, "{\"hook_event_name\": \"PostToolUse\", "),
        "the hook input is not Claude Code's PostToolUse JSON",
    );
    passed_because(
        &hook(
            &args,
            &input(
                "Glob",
                json!({"pattern": "**/*.rs"}),
                json!({"filenames": []}),
            ),
        ),
        "overspill knows no output shape of `Glob`",
    );
    let gone = dir.path().join("gone.txt");
    let response = json!({"stdout": "x", "stderr": "", "interrupted": false,
                          "persistedOutputPath": gone});
    passed_because(
        &hook(&args, &input("Bash", json!({"command": "x"}), response)),
        &format!("cannot open {}", gone.display()),
    );
    // A scratchpad dir that is a file cannot be made.
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    passed_because(
        &hook(&["--dir", path(&file)], &bash(&pods(2_000))),
        &format!("cannot store outputs in {}", file.display()),
    );
    let config = dir.path().join("broken.toml");
    std::fs::write(&config, "[hooks.claude_code.scratchpad]\n").unwrap();
    passed_because(
        &hook(&["--config", path(&config)], &bash(&pods(2_000))),
        "did you mean `claude-code`?",
    );
}

#[cfg(unix)]
#[test]
fn hook_never_waits_on_a_fifo_a_hook_input_names() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let response = json!({"stdout": "x", "stderr": "", "interrupted": false,
                          "persistedOutputPath": fifo});
    let out = hook(
        &["--dir", path(&dir.path().join("pad"))],
        &input("Bash", json!({"command": "x"}), response),
    );
    passed_because(&out, "is not a regular file");
}

/// One JSON-RPC exchange with the gateway on `stdin`/`lines`: sends `request` and gives the
/// answer with its id.
fn ask(stdin: &mut impl Write, lines: &mut impl Iterator<Item = String>, request: &Value) -> Value {
    writeln!(stdin, "{request}").unwrap();
    let id = &request["id"];
    lines
        .map(|line| serde_json::from_str::<Value>(&line).unwrap())
        .find(|answer| &answer["id"] == id)
        .expect("the gateway answered")
}

#[test]
fn what_hook_and_run_store_is_explored_by_the_gateway_of_their_servers_file() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let servers = dir.path().join("claude-code-1a2b3c4d.json");
    std::fs::write(
        &servers,
        json!({"mcpServers": {"numbers": numbers("hello")}}).to_string(),
    )
    .unwrap();
    let in_home = |command: &mut Command| {
        command
            .env("HOME", &home)
            .env_remove("XDG_STATE_HOME")
            .env_remove("XDG_CONFIG_HOME");
    };

    // The hook, as install writes it: the gateway's servers file names the place.
    let mut hook = Command::new(env!("CARGO_BIN_EXE_overspill"));
    hook.args(["hook", "claude-code", "--servers", path(&servers)]);
    in_home(&mut hook);
    let mut child = hook
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let listing = pods(2_000);
    child
        .stdin
        .take()
        .unwrap()
        .write_all(bash(&listing).as_bytes())
        .unwrap();
    let hooked = updated(&child.wait_with_output().unwrap());
    let hooked_file = file_of(hooked["stdout"].as_str().unwrap()).to_owned();

    // `overspill run` with the same file.
    let mut run = Command::new(env!("CARGO_BIN_EXE_overspill"));
    run.args(["run", "--servers", path(&servers), "--", "seq", "1", "5000"]);
    in_home(&mut run);
    let ran = run.output().unwrap();
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    let ran_file = file_of(&stdout(&ran)).to_owned();

    // The gateway of that file explores both, with its own tools and budget.
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_overspill"));
    gateway.args(["mcp", "--servers", path(&servers)]);
    in_home(&mut gateway);
    let mut gateway = gateway
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = gateway.stdin.take().unwrap();
    let mut lines = BufReader::new(gateway.stdout.take().unwrap())
        .lines()
        .map(Result::unwrap);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "claude-code", "version": "2.1.332"}}});
    ask(&mut stdin, &mut lines, &init);
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    let grep = |id: u64, file: &str, pattern: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "grep",
               "arguments": {"file": file, "pattern": pattern, "context": 0}}})
    };
    let failed = ask(&mut stdin, &mut lines, &grep(2, &hooked_file, "Failed"));
    let text = failed["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("api-00977-7f9c8d6b5-x2k4q"), "{failed}");
    let found = ask(&mut stdin, &mut lines, &grep(3, &ran_file, "^4321$"));
    let text = found["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with(">4321: 4321\n"), "{found}");
    drop(stdin);
    let out = gateway.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn hook_counts_a_reads_content_before_it_makes_the_scratchpad() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("overspill.toml");
    std::fs::write(
        &config,
        "[hooks.claude-code.scratchpad]\n\"Read\" = { min_tokens = 1000 }\n",
    )
    .unwrap();
    // 3,600 bytes, 900 tokens: over the threshold in bytes, under it in tokens.
    let text = " the".repeat(900);
    let file = dir.path().join("words.txt");
    std::fs::write(&file, &text).unwrap();
    let response = json!({"type": "text", "file": {
        "filePath": file, "content": text, "numLines": 1, "startLine": 1, "totalLines": 1,
    }});
    let pad = dir.path().join("pad");
    let out = hook(
        &["--config", path(&config), "--dir", path(&pad)],
        &input("Read", json!({"file_path": file}), response),
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    assert!(
        !pad.exists(),
        "a scratchpad was made for a Read below its threshold"
    );
}

#[test]
fn hook_says_why_an_output_passed_in_its_log_too_which_the_client_does_not_hide() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let pad = dir.path().join("pad");
    let out = hook_with_state(
        &["--dir", path(&pad)],
        "{\"hook_event_name\": \"PostToolUse\", ",
        &state,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    let log = std::fs::read_to_string(state.join("overspill").join("hooks.log")).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(
        log.contains(
            "overspill hook claude-code: the hook input is not Claude Code's PostToolUse JSON"
        ),
        "{log}"
    );
}
