//! Every subcommand, driven as a subprocess: output, exit status, stderr.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

mod support;

use support::{NUMBERS_SERVER, installer, numbers, path, run, stderr, stdout};

fn overspill(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_overspill"))
        .args(args)
        .output()
        .expect("the overspill binary runs")
}

/// A log of `lines` lines (about 14 tokens each).
fn log(lines: usize) -> String {
    (0..lines)
        .map(|i| {
            format!(
                "2026-11-12T10:00:{:02}Z ERROR request {i} failed: timeout\n",
                i % 60
            )
        })
        .collect()
}

/// Intercepts `text` into `dir` with a threshold of 100 tokens; returns the stored file name.
fn intercept_into(dir: &Path, text: &str) -> String {
    let out = support::run(
        &[
            "intercept",
            "--dir",
            path(dir),
            "--tool",
            "fetch_logs",
            "--min-tokens",
            "100",
        ],
        text,
    );
    assert!(out.status.success(), "{out:?}");
    stdout(&out)
        .lines()
        .find_map(|l| l.strip_prefix("file: "))
        .expect("a pointer")
        .to_owned()
}

#[test]
fn count_prints_the_count_a_tab_and_the_counter_name() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hello.txt");
    std::fs::write(&file, "Hello, world!").unwrap();
    let out = overspill(&["count", path(&file)]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stdout(&out), "4\to200k_base\n");

    let piped = support::run(&["count", "--provider", "anthropic", "-"], "Hello, world!");
    assert_eq!(stdout(&piped), "5\tclaude≈cl100k×1.1\n");
    let gpt4 = support::run(&["count", "--model", "gpt-4"], "Hello, world!");
    assert_eq!(stdout(&gpt4), "4\tcl100k_base\n");
}

#[test]
fn count_with_an_unknown_provider_is_a_usage_error() {
    let out = support::run(&["count", "--provider", "azure"], "x");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        stderr(&out).contains("unknown provider `azure`"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn count_of_a_missing_file_exits_1_with_the_cause_on_stderr() {
    let out = overspill(&["count", "/nonexistent/overspill-test.txt"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("overspill: cannot read /nonexistent/overspill-test.txt"));
}

#[test]
fn intercept_prints_the_pointer_and_stores_the_output_in_dir_itself() {
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("pad");
    let out = support::run(
        &[
            "intercept",
            "--dir",
            path(&pad),
            "--tool",
            "fetch_logs",
            "--server",
            "logs",
            "--min-tokens",
            "100",
        ],
        &log(200),
    );
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(
        text.starts_with("[overspill] The result of `fetch_logs` was too large for your context"),
        "{text}"
    );
    assert!(text.ends_with(". Start with head.\n") || text.ends_with(". Start with schema.\n"));
    let file = text.lines().find_map(|l| l.strip_prefix("file: ")).unwrap();
    assert_eq!(std::fs::read_to_string(pad.join(file)).unwrap(), log(200));
}

#[test]
fn intercept_below_the_threshold_prints_the_output_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let input = "short output\nwithout a final newline";
    let out = support::run(
        &["intercept", "--dir", path(dir.path()), "--tool", "t"],
        input,
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stdout(&out), input);
}

#[test]
fn intercept_of_an_mcp_result_stores_its_structured_content_and_passes_images_through() {
    let dir = tempfile::tempdir().unwrap();
    let items: Vec<String> = (0..50)
        .map(|i| format!(r#"{{"name": "api-{i}", "phase": "Running"}}"#))
        .collect();
    let structured = format!(
        r#"{{"content": [{{"type": "text", "text": "50 pods"}}], "structuredContent": {{"items": [{}]}}}}"#,
        items.join(",")
    );
    let out = support::run(
        &[
            "intercept",
            "--dir",
            path(dir.path()),
            "--tool",
            "list",
            "--mcp",
            "--min-tokens",
            "50",
        ],
        &structured,
    );
    assert!(
        stdout(&out).contains("shape: object{items: array[50] of object{name, phase}}"),
        "{out:?}"
    );

    let image =
        r#"{"content": [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]}"#;
    let out = support::run(
        &[
            "intercept",
            "--dir",
            path(dir.path()),
            "--tool",
            "shot",
            "--mcp",
            "--min-tokens",
            "1",
        ],
        image,
    );
    assert_eq!(stdout(&out), image);
}

#[test]
fn intercept_into_a_path_that_is_a_file_exits_1_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let out = support::run(
        &[
            "intercept",
            "--dir",
            path(&file),
            "--tool",
            "t",
            "--min-tokens",
            "1",
        ],
        &log(10),
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(stderr(&out).contains("not-a-dir"), "{}", stderr(&out));
    assert!(!stdout(&out).contains("request 3 failed"));
}

#[test]
fn tool_prints_exactly_what_the_model_would_see() {
    let dir = tempfile::tempdir().unwrap();
    let file = intercept_into(dir.path(), &log(200));
    let args = format!(r#"{{"file": "{file}", "lines": 2}}"#);
    let out = overspill(&["tool", "head", "--dir", path(dir.path()), "--args", &args]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(
        text.starts_with(
            "1: 2026-11-12T10:00:00Z ERROR request 0 failed: timeout\n\
             2: 2026-11-12T10:00:01Z ERROR request 1 failed: timeout\n\
             --- head: lines 1-2 of 200 | ~"
        ),
        "{text}"
    );
    assert!(
        text.ends_with(" of 102,400 budget tokens left ---\n"),
        "{text}"
    );
}

#[test]
fn tool_budget_options_shape_the_footer_and_the_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let file = intercept_into(dir.path(), &log(200));
    let args = format!(r#"{{"file": "{file}", "lines": 200}}"#);
    let out = overspill(&[
        "tool",
        "head",
        "--dir",
        path(dir.path()),
        "--args",
        &args,
        "--max-extraction-tokens",
        "300",
        "--context-window",
        "50000",
    ]);
    assert!(out.status.success(), "structured errors exit 0: {out:?}");
    let error: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(error["error"], "head_too_large");
    assert_eq!(error["per_call_limit"], 300);
    assert!(error["retry"]["arguments"]["lines"].as_u64().unwrap() < 200);
}

#[test]
fn tool_structured_errors_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        r#"{"file": "missing.json"}"#,
        r#"{"file": "x", "bogus": 1}"#,
        "not json",
    ] {
        let out = overspill(&["tool", "head", "--dir", path(dir.path()), "--args", args]);
        assert_eq!(out.status.code(), Some(0), "{args}: {out:?}");
        assert!(
            stdout(&out).starts_with(r#"{"error":""#),
            "{args}: {}",
            stdout(&out)
        );
    }
}

#[test]
fn tool_usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let unknown = overspill(&["tool", "frobnicate", "--dir", path(dir.path())]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("there is no exploration tool `frobnicate`"));
    let no_dir = overspill(&["tool", "head", "--args", "{}"]);
    assert_eq!(no_dir.status.code(), Some(2));
    let zero = overspill(&[
        "tool",
        "head",
        "--dir",
        path(dir.path()),
        "--max-extraction-tokens",
        "0",
    ]);
    assert_eq!(zero.status.code(), Some(2));
    let margin = overspill(&[
        "tool",
        "head",
        "--dir",
        path(dir.path()),
        "--context-safety-margin",
        "2",
    ]);
    assert_eq!(margin.status.code(), Some(2), "{margin:?}");
}

#[test]
fn tool_on_a_missing_dir_exits_1() {
    let out = overspill(&["tool", "head", "--dir", "/nonexistent/pad", "--args", "{}"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("is not a directory"));
}

#[test]
fn ls_lists_stored_outputs_with_their_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let file = intercept_into(dir.path(), &log(200));
    let out = overspill(&["ls", "--dir", path(dir.path())]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    assert!(
        header.starts_with("FILE") && header.ends_with("FORMAT"),
        "{header}"
    );
    let row = lines.next().unwrap();
    assert!(row.starts_with(&file), "{row}");
    assert!(
        row.contains("fetch_logs") && row.contains("o200k_base") && row.ends_with("text"),
        "{row}"
    );

    let json = overspill(&["ls", "--dir", path(dir.path()), "--json"]);
    let records: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(records[0]["file"], file.as_str());
    assert_eq!(records[0]["lines"], 200);
    assert_eq!(records[0]["format"], "text");
    assert!(records[0]["tokens"].as_u64().unwrap() > 100);
}

#[test]
fn ls_of_an_empty_dir_prints_nothing_and_says_so_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let out = overspill(&["ls", "--dir", path(dir.path())]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains("no stored outputs"));
}

#[test]
fn tools_prints_the_definitions_in_each_format() {
    for (format, schema_key) in [("mcp", "inputSchema"), ("anthropic", "input_schema")] {
        let out = overspill(&["tools", "--format", format]);
        assert!(out.status.success());
        let tools: Vec<serde_json::Value> = serde_json::from_str(&stdout(&out)).unwrap();
        assert!(tools.iter().any(|t| t["name"] == "grep"));
        assert!(
            tools
                .iter()
                .all(|t| t[schema_key]["additionalProperties"] == false)
        );
    }
    let openai = overspill(&["tools", "--format", "openai"]);
    let tools: Vec<serde_json::Value> = serde_json::from_str(&stdout(&openai)).unwrap();
    assert!(
        tools
            .iter()
            .all(|t| t["type"] == "function" && t["function"]["parameters"].is_object())
    );
    assert_eq!(
        overspill(&["tools", "--format", "yaml"]).status.code(),
        Some(2)
    );
}

#[test]
fn every_command_has_help_with_examples() {
    for command in ["tour", "count", "intercept", "tool", "ls", "tools"] {
        let out = overspill(&[command, "--help"]);
        assert!(out.status.success(), "{command}");
        let help = stdout(&out);
        let examples = help.split("Examples:\n").nth(1).unwrap_or_default();
        assert!(
            examples.contains(&format!("overspill {command}")),
            "{command}: {help}"
        );
    }
    let top = overspill(&["--help"]);
    assert!(stdout(&top).contains("overspill tour"));
}

#[test]
fn mcp_with_a_server_that_never_answers_initialize_answers_the_client_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    // `sleep` starts and reads nothing: a server that never answers.
    let mut child = Command::new(env!("CARGO_BIN_EXE_overspill"))
        .args(["mcp", "--dir", path(dir.path()), "--init-timeout", "1"])
        .args(["--", "sleep", "60"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(format!("{INITIALIZE}\n").as_bytes())
        .unwrap();
    // The client stays connected (stdin open) while the proxy gives up on the server.
    exit_within_30s(&mut child, "the proxy did not exit");
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let answer: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["error"]["code"], -32001);
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("`sleep 60`"), "{message}");
    assert!(
        stderr(&out).contains("did not answer `initialize` within 1 s"),
        "{}",
        stderr(&out)
    );
}

/// A server whose tool list has a `grep`, as a Python script of a few lines (python3 is on
/// every machine the tests run on; docs/cli.md).
const GREP_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "clash", "version": "0"}}
    elif message["method"] == "tools/list":
        result = {"tools": [{"name": "grep", "inputSchema": {"type": "object"}}]}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"#;

#[test]
fn mcp_renames_its_tools_after_a_name_clash_says_so_on_stderr_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_overspill"))
        .args(["mcp", "--dir", path(dir.path())])
        .args(["--", "python3", "-c", GREP_SERVER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for message in [
        INITIALIZE,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    // The ping's answer comes after the listing's: then the client goes.
    let stdout = child.stdout.take().unwrap();
    let mut answers = Vec::new();
    for line in std::io::BufReader::new(stdout).lines() {
        let answer: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let done = answer["id"] == 3;
        answers.push(answer);
        if done {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listing = answers.iter().find(|a| a["id"] == 2).unwrap();
    let names: Vec<&str> = listing["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(
        names[0], "grep",
        "the server's tool first, its name kept: {names:?}"
    );
    assert!(names.contains(&"overspill_grep"), "{names:?}");
    let said = stderr(&out);
    assert!(
        said.contains("overspill_grep") && said.contains("--tool-prefix"),
        "the rename is announced on stderr: {said}"
    );
}

/// The process ids of `pid`'s children (Linux: `/proc/<pid>/task/*/children`).
#[cfg(target_os = "linux")]
fn children_of(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|child| child.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

/// Sends SIGTERM to `child`.
#[cfg(target_os = "linux")]
fn terminate(child: &std::process::Child) {
    signal(child, "-TERM");
}

/// Sends `signal` (`-HUP`, `-TERM`) to `child`.
#[cfg(unix)]
fn signal(child: &std::process::Child, signal: &str) {
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// How `child` exited, which it must do within 30 seconds (`otherwise` says what failed).
fn exit_within_30s(child: &mut std::process::Child, otherwise: &str) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(std::time::Instant::now() < deadline, "{otherwise}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Whether `pid` still runs (not gone, not a zombie).
#[cfg(target_os = "linux")]
fn runs(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .is_ok_and(|status| !status.contains("State:\tZ"))
}

#[test]
#[cfg(target_os = "linux")]
fn mcp_listen_on_sigterm_stops_every_session_child_and_exits_0_even_with_its_stderr_closed() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    // `sleep` stands for a server: each session's child, started at the session's initialize,
    // which it never answers, so each client's stream stays open (as a GET stream does) until
    // the proxy ends it: the stop must not wait for the streams to end by themselves.
    // The unanswered initializes are calls in flight: the drain waits for them this long, then
    // warns on a stderr that `start_listening` has closed (a panic there once kept it running).
    let (mut proxy, address, endpoint) = start_listening(&[
        "--init-timeout",
        "3600",
        "--drain-timeout",
        "1",
        "--dir",
        path(dir.path()),
        "--",
        "sleep",
        "300",
    ]);
    let mut connections = Vec::new();
    for _ in 0..2 {
        let mut connection = std::net::TcpStream::connect(&address).unwrap();
        write!(
            connection,
            "POST {endpoint} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{INITIALIZE}",
            INITIALIZE.len()
        )
        .unwrap();
        connections.push(connection);
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    let children = loop {
        let children = children_of(proxy.id());
        if children.len() == 2 {
            break children;
        }
        assert!(
            Instant::now() < deadline,
            "no session children: {children:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    terminate(&proxy);
    let status = exit_within_30s(&mut proxy, "the proxy did not stop on SIGTERM");
    assert_eq!(status.code(), Some(0), "{status}");
    for child in children {
        assert!(!runs(child), "the session child {child} outlived the proxy");
    }
    drop(connections);
}

/// One HTTP/1.1 exchange with `Connection: close`: the status and the whole response.
fn http(address: &str, method: &str, path: &str, headers: &str, body: &str) -> (u16, String) {
    use std::io::Read;
    let mut connection = std::net::TcpStream::connect(address).unwrap();
    write!(
        connection,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         {headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    connection.read_to_string(&mut response).unwrap();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or_else(|| panic!("no status in {response}"));
    (status, response)
}

/// `overspill mcp --listen 127.0.0.1:0 ARGS…`, its stderr read up to the line that says where
/// it listens and closed after it: the process, the address and the endpoint's path.
#[cfg(target_os = "linux")]
fn start_listening(args: &[&str]) -> (std::process::Child, String, String) {
    listening(Command::new(env!("CARGO_BIN_EXE_overspill")), args)
}

/// [`start_listening`] with `command`: `overspill` with its environment.
#[cfg(target_os = "linux")]
fn listening(mut command: Command, args: &[&str]) -> (std::process::Child, String, String) {
    use std::io::BufReader;
    let mut proxy = command
        .args(["mcp", "--listen", "127.0.0.1:0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Where the servers log may be said first.
    let mut said = String::new();
    let url = BufReader::new(proxy.stderr.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .find_map(|line| {
            said.push_str(&line);
            let (_, url) = line.split_once("serving MCP on http://")?;
            Some(url.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no address announced: {said}"));
    let (address, endpoint) = url.split_once('/').unwrap();
    (proxy, address.to_owned(), format!("/{endpoint}"))
}

/// An `initialize` request, as a client sends it first.
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;

/// `initialize` and `notifications/initialized` over [`http`] at `address`'s `endpoint`, with
/// `headers` (a bearer, say) on both: the session's id.
fn open_http_session(address: &str, endpoint: &str, headers: &str) -> String {
    let (status, opened) = http(address, "POST", endpoint, headers, INITIALIZE);
    assert_eq!(status, 200, "{opened}");
    let session = opened
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no session id: {opened}"));
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let with_session = format!("{headers}Mcp-Session-Id: {session}\r\n");
    assert_eq!(
        http(address, "POST", endpoint, &with_session, initialized).0,
        202
    );
    session
}

#[test]
#[cfg(target_os = "linux")]
fn sigterm_during_a_long_call_fails_readyz_at_once_completes_the_call_and_exits_0() {
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let (mut proxy, address, endpoint) =
        start_listening(&["--dir", path(dir.path()), "--", "sh", "-c", NUMBERS_SERVER]);
    assert_eq!(http(&address, "GET", "/readyz", "", "").0, 200);
    assert_eq!(http(&address, "GET", "/healthz", "", "").0, 200);

    let session = open_http_session(&address, &endpoint, "");
    let header = format!("Mcp-Session-Id: {session}\r\n");

    // The long call, then SIGTERM while it is in flight.
    let call = {
        let (address, endpoint, header) = (address.clone(), endpoint.clone(), header.clone());
        std::thread::spawn(move || {
            let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#;
            http(&address, "POST", &endpoint, &header, call)
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    assert!(!call.is_finished(), "the call is in flight");
    terminate(&proxy);
    // At once: the next probe already sees the drain, while the call is still under way.
    let (ready, said) = http(&address, "GET", "/readyz", "", "");
    assert_eq!(ready, 503, "{said}");
    assert!(!call.is_finished(), "/readyz failed before the call ended");
    assert_eq!(
        http(&address, "GET", "/healthz", "", "").0,
        200,
        "still serving"
    );
    let (refused, said) = http(&address, "POST", &endpoint, "", INITIALIZE);
    assert_eq!(refused, 503, "no new session while draining: {said}");

    let (status, answered) = call.join().unwrap();
    assert_eq!(status, 200, "{answered}");
    assert!(
        answered.contains("slept well"),
        "the call completed: {answered}"
    );
    let exited = exit_within_30s(&mut proxy, "the proxy did not stop after the drain");
    assert_eq!(exited.code(), Some(0), "{exited}");
}

/// Writes `entries` as the `mcpServers` of the client configuration `file`.
fn write_servers(file: &Path, entries: serde_json::Value) {
    std::fs::write(
        file,
        serde_json::json!({ "mcpServers": entries }).to_string(),
    )
    .unwrap();
}

/// Whether this process runs as root (Linux: the real uid in `/proc/self/status`).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("Uid:"))
                .map(|ids| ids.split_whitespace().next() == Some("0"))
        })
        .unwrap_or(false)
}

#[cfg(target_os = "linux")]
#[test]
fn mcp_started_in_the_root_directory_by_a_user_stores_results_in_their_state_dir() {
    use std::os::unix::fs::PermissionsExt;
    // Claude Desktop starts servers in `/`, where a user cannot write: results go to the
    // user's state directory instead. As root, the proxy runs as `nobody` (setpriv), for whom
    // `/` is not writable either.
    let home = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let binary = bin.path().join("overspill");
    std::fs::copy(env!("CARGO_BIN_EXE_overspill"), &binary).unwrap();
    for dir in [home.path(), bin.path()] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut command = if is_root() {
        std::os::unix::fs::chown(home.path(), Some(65534), Some(65534)).unwrap();
        let mut command = Command::new("setpriv");
        command
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(&binary);
        command
    } else {
        Command::new(&binary)
    };
    command
        .args(["mcp", "--name", "numbers", "--", "sh", "-c", NUMBERS_SERVER])
        .current_dir("/")
        .env("HOME", home.path())
        .env_remove("XDG_STATE_HOME");
    let (answers, said) = call_tools(command, &["numbers"]);
    let call = &answers[0];
    let text = call["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.starts_with("[overspill] The result of `numbers`"),
        "{call} {said}"
    );
    // `<state>/mcp/<name>-<hash of the name and command>/scratchpad`.
    let servers = home.path().join(".local/state/overspill/mcp");
    let entries: Vec<_> = std::fs::read_dir(&servers).unwrap().flatten().collect();
    assert_eq!(entries.len(), 1, "{said}");
    let name = entries[0].file_name().into_string().unwrap();
    assert!(
        name.starts_with("numbers-") && name.len() == "numbers-".len() + 8,
        "{name}"
    );
    let stored = servers.join(name).join("scratchpad");
    let file = text.lines().find_map(|l| l.strip_prefix("file: ")).unwrap();
    assert!(
        stored.join(file).is_file(),
        "{file} in {}: {said}",
        stored.display()
    );
    assert!(
        said.contains(&format!("large results are stored in {}", stored.display())),
        "{said}"
    );
}

#[test]
fn mcp_with_a_directory_it_cannot_write_says_which_flag_to_set_and_stops() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    // A directory below a file can be created by no one.
    let below = file.join("scratchpad");
    let out = run(&["mcp", "--dir", path(&below), "--", "sh", "-c", "cat"], "");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains(&format!("cannot store results in {}", below.display()))
            && said.contains("give --dir a directory you can write"),
        "{said}"
    );
    assert_eq!(said.matches("cannot store results").count(), 1, "{said}");
}

/// Speaks to the proxy `command` starts as a client would: initializes, lists the tools, and
/// calls each of `tools` in turn; gives their answers, in order, and what the proxy said on
/// stderr.
fn call_tools(mut command: Command, tools: &[&str]) -> (Vec<serde_json::Value>, String) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for message in [
        INITIALIZE,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    // The calls are ids 3, 4, …
    let ids: Vec<u64> = (3..).take(tools.len()).collect();
    for (id, tool) in ids.iter().zip(tools) {
        let call = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": {}}});
        writeln!(stdin, "{call}").unwrap();
    }
    let mut answers = std::collections::HashMap::new();
    for line in std::io::BufReader::new(child.stdout.take().unwrap()).lines() {
        let answer: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let id = answer["id"].as_u64().unwrap_or_default();
        answers.insert(id, answer);
        if ids.iter().all(|id| answers.contains_key(id)) {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let answers = ids
        .iter()
        .map(|id| answers.remove(id).unwrap_or_default())
        .collect();
    (answers, stderr(&out))
}

/// [`call_tools`] of `where` then `numbers` on the proxy started with `args`.
fn call_where_and_numbers(args: &[&str]) -> (serde_json::Value, serde_json::Value, String) {
    call_named(args, "where", "numbers")
}

/// [`call_tools`] of `first` then `second` on the proxy started with `args`.
fn call_named(
    args: &[&str],
    first: &str,
    second: &str,
) -> (serde_json::Value, serde_json::Value, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_overspill"));
    command.args(args);
    let (mut answers, said) = call_tools(command, &[first, second]);
    let numbers = answers.pop().unwrap_or_default();
    let place = answers.pop().unwrap_or_default();
    (place, numbers, said)
}

fn text_of(answer: &serde_json::Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[test]
fn mcp_fronts_a_server_of_a_clients_mcp_servers_file_with_its_env_and_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("work");
    std::fs::create_dir(&cwd).unwrap();
    let servers = dir.path().join(".mcp.json");
    let entry = serde_json::json!({
        "type": "stdio", "command": "sh", "args": ["-c", NUMBERS_SERVER],
        "env": {"GREETING": "hello from ${OVERSPILL_TEST_PLACE:-the file}"},
        "cwd": cwd,
    });
    let other = serde_json::json!({"url": "https://other.example/mcp"});
    std::fs::write(
        &servers,
        serde_json::json!({"mcpServers": {"other": other, "numbers": entry}}).to_string(),
    )
    .unwrap();
    let pad = dir.path().join("pad");
    let (place, numbers, said) = call_where_and_numbers(&[
        "mcp",
        "--servers",
        path(&servers),
        "--name",
        "numbers",
        "--dir",
        path(&pad),
    ]);
    assert_eq!(
        text_of(&place),
        format!("hello from the file in {}", cwd.display()),
        "{said}"
    );
    assert!(
        text_of(&numbers).starts_with("[overspill] The result of `numbers`"),
        "{said}"
    );

    let out = run(&["mcp", "--servers", path(&servers), "--name", "nope"], "");
    assert!(
        stderr(&out).contains("has no server `nope`; it has: other, numbers"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn mcp_without_name_fronts_every_server_of_the_file_as_one_gateway() {
    let dir = tempfile::tempdir().unwrap();
    let servers = dir.path().join("mcp.json");
    // A server that refuses connections: withdrawn, the others still answer.
    let refused = serde_json::json!({"type": "http", "url": "http://127.0.0.1:9/mcp"});
    std::fs::write(
        &servers,
        serde_json::json!({"mcpServers": {
            "one": numbers("one"), "two": numbers("two"), "down": refused
        }})
        .to_string(),
    )
    .unwrap();
    let home = dir.path().join("home");
    let mut command = Command::new(env!("CARGO_BIN_EXE_overspill"));
    command
        .args(["mcp", "--servers", path(&servers), "--init-timeout", "5"])
        .env("HOME", &home)
        .env_remove("XDG_STATE_HOME");
    let (answers, said) = call_tools(command, &["one__where", "two__where", "one__numbers"]);
    assert!(text_of(&answers[0]).starts_with("one in "), "{said}");
    assert!(text_of(&answers[1]).starts_with("two in "), "{said}");
    assert!(
        text_of(&answers[2]).starts_with("[overspill] The result of `numbers`"),
        "{said}"
    );
    // One results directory for the file, and a log file per child server, both announced.
    assert!(said.contains("large results are stored in"), "{said}");
    for server in ["one", "two"] {
        let log = said
            .lines()
            .find_map(|line| {
                line.strip_prefix(&format!("overspill mcp: the server `{server}` logs to "))
            })
            .unwrap_or_else(|| panic!("no log announced for {server}: {said}"));
        assert!(Path::new(log).exists(), "{log}");
        assert!(log.contains("gateway-mcp-"), "{log}");
    }
}

#[test]
#[cfg(target_os = "linux")]
fn a_listening_gateway_writes_only_under_its_dir_its_servers_logs_too_after_a_reload() {
    let dir = tempfile::tempdir().unwrap();
    let servers = dir.path().join("mcp.json");
    let write = |entries: serde_json::Value| write_servers(&servers, entries);
    write(serde_json::json!({"one": numbers("one")}));
    let sessions = dir.path().join("sessions");
    // A service's home may not be writable (systemd's ProtectHome): nothing is made there.
    let home = dir.path().join("home");
    let mut command = Command::new(env!("CARGO_BIN_EXE_overspill"));
    command
        .env("HOME", &home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_CONFIG_HOME");
    let (mut proxy, address, endpoint) = listening(
        command,
        &["--servers", path(&servers), "--dir", path(&sessions)],
    );
    open_http_session(&address, &endpoint, "");
    assert!(sessions.join("logs/one.log").is_file());

    // A server added on SIGHUP logs there too, from the next session on.
    write(serde_json::json!({"one": numbers("one"), "two": numbers("two")}));
    signal(&proxy, "-HUP");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !sessions.join("logs/two.log").is_file() {
        assert!(
            std::time::Instant::now() < deadline,
            "no log of the added server in {}",
            sessions.join("logs").display()
        );
        open_http_session(&address, &endpoint, "");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    terminate(&proxy);
    assert!(exit_within_30s(&mut proxy, "the proxy did not stop").success());
    assert!(
        !home.exists(),
        "something was written in the home directory"
    );
}

/// A client of a proxy process that reads its stdout and stderr as they come.
struct Interactive {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<serde_json::Value>,
    said: std::sync::Arc<std::sync::Mutex<String>>,
    next_id: u64,
}

impl Interactive {
    fn start(mut command: Command) -> Interactive {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(message) = serde_json::from_str(&line) {
                    let _ = send.send(message);
                }
            }
        });
        let said = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let stderr = child.stderr.take().unwrap();
        let sink = std::sync::Arc::clone(&said);
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut said = sink.lock().unwrap();
                said.push_str(&line);
                said.push('\n');
            }
        });
        let stdin = child.stdin.take();
        Interactive {
            child,
            stdin,
            lines,
            said,
            next_id: 1,
        }
    }

    fn send(&mut self, message: serde_json::Value) {
        writeln!(self.stdin.as_mut().unwrap(), "{message}").unwrap();
    }

    /// Reads until a message `wanted` accepts (30 s at most).
    fn wait_for(
        &mut self,
        what: &str,
        wanted: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(message) if wanted(&message) => return message,
                Ok(_) => {}
                Err(_) => break,
            }
        }
        panic!(
            "no {what} within 30 s; stderr: {}",
            self.said.lock().unwrap()
        );
    }

    fn request(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        self.wait_for(method, |message| {
            message["id"] == id && message.get("method").is_none()
        })
    }

    fn tool_names(&mut self) -> Vec<String> {
        let listed = self.request("tools/list", serde_json::json!({}));
        listed["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{listed}"))
            .iter()
            .map(|tool| tool["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    #[cfg(unix)]
    fn hang_up(&self) {
        signal(&self.child, "-HUP");
    }

    fn stderr_says(&self, needle: &str) -> bool {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while std::time::Instant::now() < deadline {
            if self.said.lock().unwrap().contains(needle) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        false
    }

    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().unwrap()
    }
}

#[cfg(unix)]
#[test]
fn mcp_reloads_its_servers_file_on_sighup_and_keeps_the_running_set_when_it_is_broken() {
    let dir = tempfile::tempdir().unwrap();
    let servers = dir.path().join("mcp.json");
    let write = |entries: serde_json::Value| write_servers(&servers, entries);
    write(serde_json::json!({"one": numbers("one")}));
    let mut command = Command::new(env!("CARGO_BIN_EXE_overspill"));
    command
        .args([
            "mcp",
            "--servers",
            path(&servers),
            "--dir",
            path(&dir.path().join("pad")),
        ])
        .env("HOME", dir.path().join("home"))
        .env_remove("XDG_STATE_HOME");
    let mut client = Interactive::start(command);
    client.request(
        "initialize",
        serde_json::json!({"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "0"}}),
    );
    client.send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let names = client.tool_names();
    assert!(names.contains(&"one__where".to_owned()), "{names:?}");

    // A server added to the file joins on SIGHUP, and the client is told.
    write(serde_json::json!({"one": numbers("one"), "two": numbers("two")}));
    client.hang_up();
    client.wait_for("list_changed", |message| {
        message["method"] == "notifications/tools/list_changed"
    });
    let names = client.tool_names();
    assert!(names.contains(&"two__where".to_owned()), "{names:?}");
    let answer = client.request(
        "tools/call",
        serde_json::json!({"name": "two__where", "arguments": {}}),
    );
    assert!(text_of(&answer).starts_with("two in "), "{answer}");
    // Its stderr goes to a file of its own, beside the first server's.
    let gateways = dir.path().join("home/.local/state/overspill/mcp");
    let gateway = std::fs::read_dir(&gateways)
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    for server in ["one", "two"] {
        let log = gateway.path().join(format!("logs/{server}.log"));
        assert!(log.is_file(), "{}", log.display());
    }

    // A broken file is refused: the running servers stay.
    std::fs::write(&servers, "{ not json").unwrap();
    client.hang_up();
    assert!(
        client.stderr_says("the new server list is refused"),
        "{}",
        client.said.lock().unwrap()
    );
    let names = client.tool_names();
    assert!(
        names.contains(&"one__where".to_owned()) && names.contains(&"two__where".to_owned()),
        "{names:?}"
    );
    // A server dropped from the file leaves.
    write(serde_json::json!({"two": numbers("two")}));
    client.hang_up();
    client.wait_for("one's removal", |message| {
        message["params"]["data"]
            .as_str()
            .is_some_and(|data| data.contains("`one` was removed"))
    });
    let names = client.tool_names();
    assert!(
        !names.iter().any(|name| name.starts_with("one__")),
        "{names:?}"
    );
    assert!(client.finish().success());
}

/// [`NUMBERS_SERVER`] as the inside of a TOML basic string: backslashes, quotes and line ends
/// escaped.
fn numbers_in_toml() -> String {
    NUMBERS_SERVER
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[test]
fn mcp_fronts_the_server_of_its_configuration_with_that_servers_rules() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("overspill.toml");
    let memory = dir.path().join("memory").display().to_string();
    let script = numbers_in_toml();
    std::fs::write(
        &config,
        format!(
            "memory_dir = \"{memory}\"\n[agent.llm]\ncontext_window = 128000\n\
             [agent.scratchpad]\nenabled = true\n\
             [mcp.servers.numbers]\ncommand = \"sh\"\nargs = [\"-c\", \"{script}\"]\n\
             env = {{ GREETING = \"hi\" }}\n\
             [mcp.servers.numbers.scratchpad]\n\"numbers\" = {{ min_tokens = 100 }}\n"
        ),
    )
    .unwrap();
    // Without --name, the file's servers are fronted as a gateway: their tools are prefixed.
    let (place, numbers, said) = call_named(
        &["mcp", "--config", path(&config)],
        "numbers__where",
        "numbers__numbers",
    );
    assert!(text_of(&place).starts_with("hi in "), "{place} {said}");
    // `where` has no rule, so it passes; `numbers` is intercepted by the table's own rule.
    assert!(
        text_of(&numbers).starts_with("[overspill] The result of `numbers`"),
        "{said}"
    );

    let broken = dir.path().join("broken.toml");
    std::fs::write(
        &broken,
        "[mcp.servers.numbers]\ncommand = \"sh\"\nargs = \"-c\"\n",
    )
    .unwrap();
    let out = run(&["mcp", "--config", path(&broken)], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out)
            .contains("mcp.servers.numbers.args: expected an array of strings, found a string"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn mcp_with_a_configuration_of_servers_only_starts_the_gateway() {
    // Only [mcp.servers.<name>] tables, as docs/mcp-proxy.md shows: no [agent.scratchpad], no
    // memory_dir, no [agent.llm].
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("overspill.toml");
    let script = numbers_in_toml();
    std::fs::write(
        &config,
        format!(
            "[mcp.servers.numbers]\ncommand = \"sh\"\nargs = [\"-c\", \"{script}\"]\n\
             env = {{ GREETING = \"hi\" }}\n\
             [mcp.servers.numbers.scratchpad]\n\"numbers\" = {{ min_tokens = 100 }}\n"
        ),
    )
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_overspill"));
    command
        .args(["mcp", "--config", path(&config)])
        .env("HOME", dir.path().join("home"))
        .env_remove("XDG_STATE_HOME");
    let (answers, said) = call_tools(command, &["numbers__where", "numbers__numbers"]);
    assert!(text_of(&answers[0]).starts_with("hi in "), "{said}");
    assert!(
        text_of(&answers[1]).starts_with("[overspill] The result of `numbers`"),
        "{said}"
    );
    assert!(!said.contains("enabled"), "{said}");
}

#[cfg(unix)]
#[test]
fn mcp_with_a_broken_entry_fronts_the_others_and_reports_it_as_a_missing_program_is() {
    let dir = tempfile::tempdir().unwrap();
    let servers = dir.path().join("mcp.json");
    let unset = serde_json::json!({"command": "sh", "env": {"K": "${OVERSPILL_TEST_UNSET}"}});
    let missing = serde_json::json!({"command": "/nonexistent/overspill-test-server"});
    let nothing = serde_json::json!({"args": ["-y"]});
    write_servers(
        &servers,
        serde_json::json!({"one": numbers("one"), "unset": unset, "missing": missing,
                           "nothing": nothing}),
    );
    let home = dir.path().join("home");
    let mut command = Command::new(env!("CARGO_BIN_EXE_overspill"));
    command
        .args(["mcp", "--servers", path(&servers)])
        .env("HOME", &home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("OVERSPILL_TEST_UNSET");
    let mut client = Interactive::start(command);
    let init = client.request(
        "initialize",
        serde_json::json!({"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "0"}}),
    );
    assert!(init["result"].is_object(), "{init}");
    client.send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    // Each is reported in one shape, in whatever order: the server, why, what comes next, its
    // log.
    let expected = [
        (
            "unset",
            format!(
                "cannot be started from its entry: {}: mcpServers.unset.env: the variable \
                 OVERSPILL_TEST_UNSET is not set",
                servers.display()
            ),
        ),
        (
            "nothing",
            format!(
                "cannot be started from its entry: {}: mcpServers.nothing: neither `command`",
                servers.display()
            ),
        ),
        (
            "missing",
            "cannot start the upstream server `/nonexistent/overspill-test-server`".to_owned(),
        ),
    ];
    let mut told = std::collections::HashMap::new();
    while told.len() < expected.len() {
        let report = client.wait_for("the reports", |message| {
            message["method"] == "notifications/message" && message["params"]["level"] == "error"
        });
        let data = report["params"]["data"].as_str().unwrap_or_default();
        if let Some((server, why)) = expected
            .iter()
            .find(|(server, _)| data.starts_with(&format!("the MCP server `{server}` ")))
        {
            assert!(
                data.starts_with(&format!("the MCP server `{server}` {why}"))
                    && data.contains("; its diagnostics are in its log ")
                    && data.ends_with(&format!("logs/{server}.log")),
                "{data}"
            );
            told.insert(*server, data.to_owned());
        }
    }
    for (server, _) in &expected {
        assert!(
            client.stderr_says(&format!("the MCP server `{server}`")),
            "{}",
            client.said.lock().unwrap()
        );
    }
    assert!(
        client.stderr_says("the variable OVERSPILL_TEST_UNSET is not set"),
        "{}",
        client.said.lock().unwrap()
    );
    // The good server answers; a call to the broken one names it, why, and the status command.
    let names = client.tool_names();
    assert!(names.contains(&"one__where".to_owned()), "{names:?}");
    let answer = client.request(
        "tools/call",
        serde_json::json!({"name": "one__where", "arguments": {}}),
    );
    assert!(text_of(&answer).starts_with("one in "), "{answer}");
    let refused = client.request(
        "tools/call",
        serde_json::json!({"name": "unset__where", "arguments": {}}),
    );
    let said = text_of(&refused);
    assert!(
        said.contains("the variable OVERSPILL_TEST_UNSET is not set")
            && said.contains("run `overspill status` to see each server"),
        "{refused}"
    );

    // A reload follows the same rule: a newly broken entry withdraws only itself.
    write_servers(
        &servers,
        serde_json::json!({"one": numbers("one"), "two": numbers("two"),
                           "typo": {"comand": "x"}}),
    );
    client.hang_up();
    let (mut joined, mut reported) = (false, false);
    while !(joined && reported) {
        let told = client.wait_for("two joining and typo reported", |message| {
            message["method"] == "notifications/message"
        });
        let data = told["params"]["data"].as_str().unwrap_or_default();
        joined |= data.contains("`two` joined");
        reported |= data.starts_with("the MCP server `typo` cannot be started from its entry")
            && data.contains("did you mean `command`?");
    }
    let names = client.tool_names();
    assert!(
        names.contains(&"one__where".to_owned()) && names.contains(&"two__where".to_owned()),
        "{names:?}"
    );
    assert!(client.finish().success());

    // The one server asked for cannot start: nothing else to serve.
    let out = run(&["mcp", "--servers", path(&servers), "--name", "typo"], "");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("mcpServers.typo: neither `command`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn mcp_that_would_start_itself_without_end_stops_at_a_depth_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let servers = dir.path().join("servers.json");
    let pad = dir.path().join("pad");
    let entry = serde_json::json!({
        "command": env!("CARGO_BIN_EXE_overspill"),
        // Generous: eight processes start one after the other, on a machine that may be busy.
        "args": ["mcp", "--servers", servers, "--name", "self", "--dir", pad, "--init-timeout", "90"],
    });
    std::fs::write(
        &servers,
        serde_json::json!({"mcpServers": {"self": entry}}).to_string(),
    )
    .unwrap();
    let out = run(
        &[
            "mcp",
            "--servers",
            path(&servers),
            "--name",
            "self",
            "--dir",
            path(&pad),
            "--init-timeout",
            "120",
        ],
        &format!("{INITIALIZE}\n"),
    );
    let said = stderr(&out);
    // The ninth refuses, and with it the whole chain ends (docs/mcp-proxy.md: at most 8).
    assert!(
        said.contains("overspill mcp would be proxy 9 of a chain") && said.contains("at most 8"),
        "{said}"
    );
    assert_eq!(said.matches("would be proxy").count(), 1, "{said}");
}

#[test]
fn an_installed_clients_entry_starts_a_gateway_of_its_former_servers() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let config = dir.path().join("mcp.json");
    std::fs::write(
        &config,
        serde_json::json!({"mcpServers": {"numbers": numbers("installed")}}).to_string(),
    )
    .unwrap();
    let out = installer(
        &home,
        &["install", "cursor", "--config-file", path(&config)],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // Start what Cursor now starts, as Cursor would.
    let entry: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    let entry = &entry["mcpServers"]["overspill"];
    let mut command = Command::new(entry["command"].as_str().unwrap());
    command
        .args(
            entry["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|arg| arg.as_str().unwrap()),
        )
        .env("HOME", &home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME");
    let (answers, said) = call_tools(command, &["numbers__where"]);
    assert!(text_of(&answers[0]).starts_with("installed in "), "{said}");
}

/// What one scripted `--listen` session left behind: every line of the proxy's stderr, the
/// metrics scraped after it, and the tokens of the outputs it stored (from their metadata).
#[cfg(target_os = "linux")]
struct Scripted {
    stderr: Vec<String>,
    metrics: String,
    stored_tokens: u64,
    /// What the server wrote on its stderr, from the log file the proxy gave it.
    server_log: String,
}

/// The bearer token of [`scripted_listen_session`]'s proxy.
const TOKEN: &str = "tok-6d1f0c9a2b7e4f3a";

/// Text only an exploration call's arguments hold.
const ARGUMENT_TEXT: &str = "19999 argtext-5b1e";

/// Runs `overspill mcp --listen … --metrics … --log-format json --auth-token-env` over
/// [`NUMBERS_SERVER`]: a session initializes, calls `numbers` (~20,000 tokens, stored), greps
/// the stored output with [`ARGUMENT_TEXT`] in its arguments, and is deleted; then the metrics
/// are scraped and the proxy is stopped.
#[cfg(target_os = "linux")]
fn scripted_listen_session() -> Scripted {
    use std::io::BufReader;
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    // A server that says on its stderr what it was asked, as servers do.
    let noisy = format!("echo 'server: grep for {ARGUMENT_TEXT}' >&2\n{NUMBERS_SERVER}");
    let mut proxy = Command::new(env!("CARGO_BIN_EXE_overspill"))
        .args(["mcp", "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0"])
        .args(["--log-format", "json", "--auth-token-env", "TEAM_TOKEN"])
        .args(["--dir", path(dir.path()), "--", "sh", "-c", &noisy])
        .env("TEAM_TOKEN", TOKEN)
        .env_remove("OVERSPILL_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (sender, lines) = std::sync::mpsc::channel::<String>();
    let reader = BufReader::new(proxy.stderr.take().unwrap());
    let collector = std::thread::spawn(move || {
        for line in reader.lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    let mut stderr = Vec::new();
    let mut announced = |what: &str| loop {
        let line = lines
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no {what} announced in {stderr:?}"));
        stderr.push(line.clone());
        if let Some((_, rest)) = line.split_once(what) {
            break rest.split('"').next().unwrap().to_owned();
        }
    };
    let url = announced("serving MCP on http://");
    let metrics_url = announced("serving metrics on http://");
    let (address, endpoint) = url.split_once('/').unwrap();
    let (address, endpoint) = (address.to_owned(), format!("/{endpoint}"));
    let (metrics_address, metrics_path) = metrics_url.split_once('/').unwrap();
    let bearer = format!("Authorization: Bearer {TOKEN}\r\n");

    let session = open_http_session(&address, &endpoint, &bearer);
    let headers = format!("{bearer}Mcp-Session-Id: {session}\r\n");
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"numbers","arguments":{}}}"#;
    let (status, pointed) = http(&address, "POST", &endpoint, &headers, call);
    assert_eq!(status, 200, "{pointed}");
    let file = pointed
        .split("file: ")
        .nth(1)
        .and_then(|rest| rest.split(['\\', '\n', ' ']).next())
        .unwrap_or_else(|| panic!("no pointer: {pointed}"))
        .to_owned();
    let grep = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"grep","arguments":{{"file":"{file}","pattern":"{ARGUMENT_TEXT}"}}}}}}"#
    );
    let (status, grepped) = http(&address, "POST", &endpoint, &headers, &grep);
    assert_eq!(status, 200, "{grepped}");
    assert_eq!(http(&address, "DELETE", &endpoint, &headers, "").0, 200);
    // Refused at the door: the ended session (404) and no token (401).
    assert_eq!(http(&address, "POST", &endpoint, &headers, call).0, 404);
    assert_eq!(http(&address, "POST", &endpoint, "", INITIALIZE).0, 401);

    // The session's end is counted when its upstream has stopped: scrape until it is.
    let deadline = Instant::now() + Duration::from_secs(30);
    let metrics = loop {
        let (status, scraped) = http(metrics_address, "GET", &format!("/{metrics_path}"), "", "");
        assert_eq!(status, 200, "{scraped}");
        if scraped.contains("overspill_sessions_ended_total{reason=\"deleted\"} 1") {
            break scraped;
        }
        assert!(
            Instant::now() < deadline,
            "the session's end was never counted: {scraped}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let listed = run(
        &["ls", "--dir", path(&dir.path().join(&session)), "--json"],
        "",
    );
    let records: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let stored_tokens = records
        .as_array()
        .unwrap()
        .iter()
        .map(|record| {
            record["tokens"]
                .as_u64()
                .unwrap_or_else(|| panic!("{record}"))
        })
        .sum();

    terminate(&proxy);
    assert!(proxy.wait().unwrap().success());
    collector.join().unwrap();
    stderr.extend(lines.try_iter());
    let server_log = std::fs::read_to_string(dir.path().join("logs/sh.log")).unwrap_or_default();
    Scripted {
        stderr,
        metrics,
        stored_tokens,
        server_log,
    }
}

#[test]
#[cfg(target_os = "linux")]
fn json_logs_parse_line_by_line_and_hold_no_bearer_token_or_argument_text() {
    let scripted = scripted_listen_session();
    let lines: Vec<serde_json::Value> = scripted
        .stderr
        .iter()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|error| panic!("not JSON ({error}): {line}"))
        })
        .collect();
    for line in &scripted.stderr {
        assert!(!line.contains(TOKEN), "the bearer token was logged: {line}");
        assert!(
            !line.contains("argtext-5b1e"),
            "argument text was logged: {line}"
        );
    }
    // The server's own stderr went to its log file, announced among the JSON lines.
    assert!(
        scripted.server_log.contains("server: grep for"),
        "{:?}",
        scripted.server_log
    );
    assert!(
        lines.iter().any(|line| line["message"]
            .as_str()
            .is_some_and(|m| m.contains("logs/sh.log"))),
        "{lines:?}"
    );
    // One line per answered request, each with its session, server and method.
    let requests: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|line| line["target"] == "overspill::request")
        .collect();
    let methods: Vec<&str> = requests
        .iter()
        .map(|line| line["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        ["initialize", "tools/call", "tools/call"],
        "{requests:?}"
    );
    let session = requests[0]["session"].as_str().unwrap();
    assert_eq!(session.len(), 12, "{requests:?}");
    for line in &requests {
        assert_eq!(line["session"], session, "{line}");
        assert_eq!(line["level"], "INFO", "{line}");
        assert!(line["ms"].is_u64(), "{line}");
    }
    assert_eq!(requests[1]["server"], "sh", "{:?}", requests[1]);
    assert_eq!(requests[1]["tool"], "numbers", "{:?}", requests[1]);
    assert_eq!(
        requests[2]["server"], "overspill",
        "explorations are answered here"
    );
    assert_eq!(requests[2]["tool"], "grep");
    // The session's end (DELETE) logs its usage event: what it stored and explored.
    let usage = lines
        .iter()
        .find(|line| line["target"] == "overspill::usage")
        .unwrap_or_else(|| panic!("no usage event: {lines:?}"));
    assert_eq!(usage["session"], session, "{usage}");
    assert!(
        usage["tokens_intercepted"].as_u64().unwrap() > 10_000,
        "{usage}"
    );
    assert!(usage["tokens_extracted"].as_u64().unwrap() > 0, "{usage}");
}

#[test]
#[cfg(target_os = "linux")]
fn metrics_count_a_listen_session_and_its_tokens_intercepted_as_stored() {
    let scripted = scripted_listen_session();
    let metrics = &scripted.metrics;
    let value = |series: &str| -> u64 {
        metrics
            .lines()
            .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
            .unwrap_or_else(|| panic!("no {series} in:\n{metrics}"))
            .parse()
            .unwrap()
    };
    assert!(
        scripted.stored_tokens > 10_000,
        "{}",
        scripted.stored_tokens
    );
    assert_eq!(
        value("overspill_tokens_intercepted_total{server=\"sh\"}"),
        scripted.stored_tokens
    );
    assert_eq!(
        value("overspill_tool_results_total{server=\"sh\",outcome=\"stored\"}"),
        1
    );
    assert_eq!(
        value("overspill_exploration_calls_total{tool=\"grep\",outcome=\"delivered\"}"),
        1
    );
    assert!(value("overspill_tokens_extracted_total{tool=\"grep\"}") > 0);
    assert_eq!(
        value("overspill_requests_total{method=\"tools/call\",outcome=\"result\"}"),
        2
    );
    assert_eq!(
        value("overspill_requests_total{method=\"initialize\",outcome=\"result\"}"),
        1
    );
    assert_eq!(value("overspill_sessions_started_total"), 1);
    assert_eq!(value("overspill_sessions_open"), 0);
    assert_eq!(value("overspill_upstream_starts_total{server=\"sh\"}"), 1);
    assert_eq!(
        value(
            "overspill_upstream_request_duration_seconds_count{server=\"sh\",method=\"tools/call\"}"
        ),
        1
    );
    assert!(value("overspill_stored_bytes_total{server=\"sh\"}") > 100_000);
    assert_eq!(value("overspill_http_refusals_total{status=\"404\"}"), 1);
    assert_eq!(value("overspill_http_refusals_total{status=\"401\"}"), 1);
}

#[test]
#[cfg(target_os = "linux")]
fn readyz_fails_while_an_upstream_cannot_be_reached_or_started() {
    // A port nothing listens on: bound, then closed.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let unreachable = format!("http://{closed}/mcp");
    for (upstream, why) in [
        (vec!["--url", unreachable.as_str()], "`127.0.0.1`"),
        (vec!["--", "no-such-program-4f1c"], "`no-such-program-4f1c`"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let args = [&["--dir", path(dir.path())], upstream.as_slice()].concat();
        let (mut proxy, address, _) = start_listening(&args);
        let (status, said) = http(&address, "GET", "/readyz", "", "");
        assert_eq!(status, 503, "{upstream:?}: {said}");
        // The server by name; the address and the OS's reason stay in the debug log.
        assert!(
            said.contains(&format!("the server {why} cannot be reached or started")),
            "{upstream:?}: {said}"
        );
        assert_eq!(
            http(&address, "GET", "/healthz", "", "").0,
            200,
            "it still serves"
        );
        proxy.kill().unwrap();
        proxy.wait().unwrap();
    }
}

#[test]
#[cfg(target_os = "linux")]
fn a_batch_of_five_thousand_requests_to_a_server_that_answers_one_by_one_is_answered_whole() {
    let dir = tempfile::tempdir().unwrap();
    // The sh server reads a request only once it has written the answer to the one before:
    // answers the client is not yet reading fill the proxy's queues and the pipe, and then
    // the server stops reading the batch.
    let (mut proxy, address, endpoint) =
        start_listening(&["--dir", path(dir.path()), "--", "sh", "-c", NUMBERS_SERVER]);
    let session = open_http_session(&address, &endpoint, "");
    let batch = (2..5002)
        .map(|id| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#))
        .collect::<Vec<_>>()
        .join(",");
    let (answered, answer) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let header = format!("Mcp-Session-Id: {session}\r\n");
        let _ = answered.send(http(
            &address,
            "POST",
            &endpoint,
            &header,
            &format!("[{batch}]"),
        ));
    });
    let (status, said) = answer
        .recv_timeout(std::time::Duration::from_secs(300))
        .expect("the batch was never answered whole");
    assert_eq!(status, 200, "{said}");
    let answers = said.matches(r#""result":{}"#).count();
    assert_eq!(answers, 5000, "{answers} answers");
    proxy.kill().unwrap();
    proxy.wait().unwrap();
}

#[test]
#[cfg(target_os = "linux")]
fn with_a_drain_delay_new_sessions_are_taken_while_readyz_already_fails() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    // The delay is long enough for a loaded machine to open a session and start a call in it;
    // `slow` sleeps 9 s here: a call that outlasts the delay keeps the proxy draining.
    let delay = Duration::from_secs(5);
    let server = NUMBERS_SERVER.replace("sleep 2", "sleep 9");
    let (mut proxy, address, endpoint) = start_listening(&[
        "--drain-delay",
        "5",
        "--dir",
        path(dir.path()),
        "--",
        "sh",
        "-c",
        &server,
    ]);
    let signalled = Instant::now();
    terminate(&proxy);
    // The balancer's checks see the drain at once; a session it still sends is taken.
    while http(&address, "GET", "/readyz", "", "").0 != 503 {
        assert!(
            signalled.elapsed() < delay,
            "/readyz did not fail during the drain delay"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let session = open_http_session(&address, &endpoint, "");
    assert!(
        signalled.elapsed() < delay,
        "the session was opened after the delay; the machine is too slow to tell"
    );
    let call = {
        let (address, endpoint) = (address.clone(), endpoint.clone());
        let header = format!("Mcp-Session-Id: {session}\r\n");
        std::thread::spawn(move || {
            let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#;
            http(&address, "POST", &endpoint, &header, call)
        })
    };
    // After the delay, while that call runs: refused.
    std::thread::sleep((delay + Duration::from_millis(500)).saturating_sub(signalled.elapsed()));
    let (status, said) = http(&address, "POST", &endpoint, "", INITIALIZE);
    assert_eq!(status, 503, "refused after the delay: {said}");
    let (status, answered) = call.join().unwrap();
    assert_eq!(status, 200, "{answered}");
    assert!(answered.contains("slept well"), "{answered}");
    let exited = proxy.wait().unwrap();
    assert_eq!(exited.code(), Some(0), "{exited}");
}

/// `[store] url` in the configuration is the shared store of `overspill mcp --listen` when
/// `--store` is not given: the proxy says it shares its results there (docs/configuration.md#store).
#[test]
fn mcp_listen_takes_its_shared_store_from_the_configurations_store_table() {
    let dir = tempfile::tempdir().unwrap();
    let bucket = dir.path().join("bucket");
    std::fs::create_dir_all(&bucket).unwrap();
    let config = dir.path().join("overspill.toml");
    let url = format!("file://{}", bucket.display());
    std::fs::write(
        &config,
        format!("[store]\nurl = \"{url}\"\ncache_bytes = 1048576\n"),
    )
    .unwrap();
    let cache = dir.path().join("cache");
    let mut child = support::spawn(
        &[
            "mcp",
            "--listen",
            "127.0.0.1:0",
            "--config",
            config.to_str().unwrap(),
            "--dir",
            cache.to_str().unwrap(),
            "--",
            "cat",
        ],
        "",
    );
    let stderr = child.stderr.take().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stderr));
    let mut seen = Vec::new();
    let shared = loop {
        let Some(Ok(line)) = lines.next() else {
            break false;
        };
        if line.contains(&format!("results are shared in {url}")) {
            break true;
        }
        seen.push(line);
        if seen
            .last()
            .is_some_and(|line| line.contains("serving MCP on"))
        {
            break false;
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(shared, "the proxy did not take [store] url: {seen:#?}");
}
