//! The acceptance tests with real outside parts: the official Python MCP SDK as the
//! client, `@modelcontextprotocol/server-filesystem` (npm) and a Python FastMCP/MCPServer 50 MB
//! fixture as upstream servers, with the built `overspill` binary in the middle.
//!
//! They need `bash tests/fixtures/mcp/prepare.sh` (pinned installs under target/), a built
//! `overspill` (`cargo build -p overspill-cli`) and `OVERSPILL_EXTERNAL_TESTS=1`; otherwise they
//! are skipped with a loud message.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn python_sdk_client_through_the_proxy_to_filesystem_and_fastmcp_servers() {
    let root = workspace();
    let prepared = std::env::var_os("OVERSPILL_EXTERNAL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/mcp-external"));
    if std::env::var("OVERSPILL_EXTERNAL_TESTS").as_deref() != Ok("1") {
        // Straight to stderr, past libtest's capture, so the skip is seen without --nocapture.
        let _ = writeln!(
            std::io::stderr(),
            "\n*** SKIPPED the external MCP proxy tests (Python SDK client, server-filesystem, \
             FastMCP 50 MB): set OVERSPILL_EXTERNAL_TESTS=1 after `bash tests/fixtures/mcp/prepare.sh` \
             and `cargo build -p overspill-cli` ***\n"
        );
        return;
    }
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
    let status = Command::new(prepared.join("venv/bin/python"))
        .arg(root.join("tests/fixtures/mcp/client_test.py"))
        .arg(&overspill)
        .arg(prepared.join("node_modules"))
        .status()
        .expect("cannot run the prepared Python");
    assert!(
        status.success(),
        "the external MCP proxy checks failed ({status}); see above"
    );
}
