//! Issue 39's acceptance with the SDKs' 2026-07-28 clients: the Python SDK 2.x client
//! (tests/fixtures/mcp/modern_client.py) and the TypeScript SDK 2.x client
//! (`@modelcontextprotocol/client`, modern_client.mjs), each forced to 2026-07-28 and in auto
//! mode in one run, through every way overspill is put in front of a server: stdio, `--url`,
//! `--listen`, and a gateway of a 2026-07-28 server (modern_server.py, the Python SDK 2.x) and a
//! 2025-era one (`@modelcontextprotocol/server-everything`, on the TypeScript SDK 1.x) over stdio
//! and behind `--listen`. Each client checks the tools, a small call, a pointer, `grep`, `query`
//! and `head` on it, an `overspill://` reference, progress, an elicitation round trip and a tool
//! error as its own SDK accepts them (docs/mcp-proxy.md#revisions).

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use super::{Outside, Running, outside, start_announcing};

/// The tools of the two clients: the prepared Python and the fixtures directory.
struct Clients {
    outside: Outside,
    python: PathBuf,
    fixtures: PathBuf,
    /// Where the test's scratchpads and the gateway's state (server logs) go.
    work: tempfile::TempDir,
}

impl Clients {
    fn new(what: &str) -> Option<Self> {
        let outside = outside(what)?;
        Some(Self {
            python: outside.prepared.join("venv/bin/python"),
            fixtures: outside.root.join("tests/fixtures/mcp"),
            outside,
            work: tempfile::tempdir()
                .unwrap_or_else(|error| panic!("no temporary directory: {error}")),
        })
    }

    /// `python modern_server.py [--http]`, the 2026-07-28 server.
    fn modern_server(&self) -> Vec<OsString> {
        vec![
            self.python.clone().into(),
            self.fixtures.join("modern_server.py").into(),
        ]
    }

    /// `env XDG_STATE_HOME=… overspill mcp --dir DIR`, to which a test adds how the server is
    /// reached. The clients' SDKs start a stdio server with only a few variables of their own
    /// environment, hence `env` to keep the gateway's server logs in the test's directory.
    fn overspill(&self, dir: &str) -> Vec<OsString> {
        let mut state = OsString::from("XDG_STATE_HOME=");
        state.push(self.work.path().join("state"));
        vec![
            "env".into(),
            state,
            self.outside.overspill.clone().into(),
            "mcp".into(),
            "--dir".into(),
            self.work.path().join(dir).into(),
        ]
    }

    /// The servers file of the gateway: `modern` (modern_server.py with `modern_flags`) and
    /// `everything` (server-everything over stdio, a 2025-era server).
    fn servers_file(&self, modern_flags: &[&str]) -> PathBuf {
        let everything = self
            .outside
            .prepared
            .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        let servers = serde_json::json!({
            "mcpServers": {
                "modern": {
                    "command": self.python,
                    "args": std::iter::once(self.fixtures.join("modern_server.py").display().to_string())
                        .chain(modern_flags.iter().map(|flag| (*flag).to_owned()))
                        .collect::<Vec<String>>(),
                },
                "everything": { "command": "node", "args": [everything, "stdio"] },
            }
        });
        let file = self.work.path().join("servers.json");
        std::fs::write(&file, servers.to_string())
            .unwrap_or_else(|error| panic!("cannot write {}: {error}", file.display()));
        file
    }

    /// `overspill mcp --listen 127.0.0.1:0 …` with `rest` after `--dir`; the running proxy and
    /// its URL.
    fn listen(&self, dir: &str, rest: &[OsString]) -> (Running, String) {
        let mut proxy = Command::new(&self.outside.overspill);
        proxy
            .args(["mcp", "--listen", "127.0.0.1:0", "--dir"])
            .arg(self.work.path().join(dir))
            .args(rest)
            .env("XDG_STATE_HOME", self.work.path().join("state"));
        start_announcing(proxy, "serving MCP on ")
    }

    /// Runs modern_client.py, then modern_client.mjs, each with `flags` (`--url URL`, or `--`
    /// and the command of the server to start), shows what each printed and how long it took,
    /// and fails naming the clients whose checks failed.
    fn both(&self, transport: &str, flags: &[OsString]) {
        let mut failed = Vec::new();
        for (client, interpreter) in [
            ("modern_client.py", self.python.as_os_str()),
            ("modern_client.mjs", OsStr::new("node")),
        ] {
            let started = Instant::now();
            let output = Command::new(interpreter)
                .arg(self.fixtures.join(client))
                .arg(&self.outside.overspill)
                .arg(self.outside.prepared.join("node_modules"))
                .args(flags)
                .output()
                .unwrap_or_else(|error| panic!("cannot run {client}: {error}"));
            let shown = [
                format!(
                    "\n==== {client} through {transport} ({:.1} s, {})\n",
                    started.elapsed().as_secs_f64(),
                    output.status
                )
                .as_bytes(),
                &output.stderr,
                &output.stdout,
            ]
            .concat();
            let _ = std::io::stderr().write_all(&shown);
            if !output.status.success() {
                failed.push(client);
            }
        }
        assert!(
            failed.is_empty(),
            "the checks of {failed:?} through {transport} failed; see above"
        );
    }
}

/// `--` and a command, as the clients take it.
fn command(parts: Vec<OsString>) -> Vec<OsString> {
    std::iter::once("--".into()).chain(parts).collect()
}

/// `overspill mcp -- python modern_server.py`, started by each client over stdio.
#[test]
fn sdk_2x_clients_at_2026_07_28_pass_every_check_through_stdio() {
    let Some(clients) = Clients::new("2026-07-28 clients through stdio") else {
        return;
    };
    let mut proxy = clients.overspill("stdio");
    proxy.push("--".into());
    proxy.extend(clients.modern_server());
    clients.both("stdio", &command(proxy));
}

/// modern_server.py over Streamable HTTP (one process for the test), with `overspill mcp --url`
/// started by each client over stdio.
#[test]
fn sdk_2x_clients_at_2026_07_28_pass_every_check_through_url() {
    let Some(clients) = Clients::new("2026-07-28 clients through --url") else {
        return;
    };
    let mut server = Command::new(&clients.python);
    server
        .arg(clients.fixtures.join("modern_server.py"))
        .arg("--http");
    let (_server, url) = start_announcing(server, "listening on ");
    let mut proxy = clients.overspill("url");
    proxy.extend(["--url".into(), url.into()]);
    clients.both("--url", &command(proxy));
}

/// `overspill mcp --listen 127.0.0.1:0 -- python modern_server.py` (one process for the test);
/// the clients connect to it over Streamable HTTP, without a session.
#[test]
fn sdk_2x_clients_at_2026_07_28_pass_every_check_through_listen() {
    let Some(clients) = Clients::new("2026-07-28 clients through --listen") else {
        return;
    };
    let rest: Vec<OsString> = command(clients.modern_server());
    let (_proxy, url) = clients.listen("listen", &rest);
    clients.both("--listen", &["--url".into(), url.into()]);
}

/// `overspill mcp --servers FILE` of modern_server.py and server-everything, started by each
/// client over stdio; the tools carry their server's name (`modern__small`, `everything__echo`).
#[test]
fn sdk_2x_clients_at_2026_07_28_pass_every_check_through_a_gateway_of_a_2026_and_a_2025_server() {
    let Some(clients) = Clients::new("2026-07-28 clients through a gateway") else {
        return;
    };
    let mut proxy = clients.overspill("gateway");
    proxy.extend(["--servers".into(), clients.servers_file(&[]).into()]);
    let mut flags = vec!["--gateway".into()];
    flags.extend(command(proxy));
    clients.both("a gateway", &flags);
}

/// The gateway with a server that speaks only 2026-07-28 (modern_server.py
/// `--stateless-only`, which refuses `initialize`) beside a 2025-era one: each is spoken to in
/// its own revision (docs/mcp-proxy.md#revisions), for clients of 2026-07-28 and of a session.
#[test]
fn sdk_2x_clients_at_2026_07_28_pass_every_check_through_a_gateway_of_a_2026_only_and_a_2025_server()
 {
    let Some(clients) = Clients::new("2026-07-28 clients through a gateway of a 2026-only server")
    else {
        return;
    };
    let mut proxy = clients.overspill("gateway-2026-only");
    proxy.extend([
        "--servers".into(),
        clients.servers_file(&["--stateless-only"]).into(),
    ]);
    // And a client of a session (each SDK's `legacy` mode) in front of it: the server's
    // `input_required` reaches it as an `elicitation/create` request.
    let mut flags = vec!["--gateway".into(), "--legacy".into()];
    flags.extend(command(proxy));
    clients.both("a gateway of a 2026-only server", &flags);
}

/// The same gateway behind `overspill mcp --listen --servers FILE` (one process for the test).
#[test]
fn sdk_2x_clients_at_2026_07_28_pass_every_check_through_a_gateway_behind_listen() {
    let Some(clients) = Clients::new("2026-07-28 clients through a gateway behind --listen") else {
        return;
    };
    let rest = ["--servers".into(), clients.servers_file(&[]).into()];
    let (_proxy, url) = clients.listen("listen-gateway", &rest);
    clients.both(
        "a gateway behind --listen",
        &["--gateway".into(), "--url".into(), url.into()],
    );
}
