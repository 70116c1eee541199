//! The acceptance tests with real outside parts: the official Python and TypeScript MCP
//! SDKs as clients, `@modelcontextprotocol/server-filesystem`,
//! `@modelcontextprotocol/server-everything` (npm) and a Python FastMCP/MCPServer 50 MB fixture as
//! upstream servers, with the built `overspill` binary in the middle; server-everything also in
//! its Streamable HTTP mode, with `overspill mcp --url` in the middle.
//!
//! They need `bash tests/fixtures/mcp/prepare.sh` (pinned installs under target/), a built
//! `overspill` (`cargo build -p overspill-cli`) and `OVERSPILL_EXTERNAL_TESTS=1`; otherwise they
//! are skipped with a loud message.

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

/// The Python SDK client runs one scenario against server-everything directly and through the
/// proxy and compares them check by check (everything_py.py prints the table).
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
