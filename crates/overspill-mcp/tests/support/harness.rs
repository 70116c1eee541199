//! What the proxy's test binaries share: the case runner (they run without libtest, whose
//! output would corrupt the fixture's MCP channel on stdout), a session of an rmcp client
//! talking to the proxy in process, and the call helpers.
//!
//! Each binary declares `mod fixture;` beside this module: the same binary, re-run with
//! [`FIXTURE_FLAG`], is the upstream fixture server.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use overspill::Scratchpad;
use overspill_mcp::{MAX_LINE_BYTES, ProxyError, ProxyOptions, serve};
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::RunningService;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use tokio::task::JoinHandle;

/// One named test case.
pub type Case = fn() -> Pin<Box<dyn Future<Output = ()> + Send>>;

/// The argument that makes a test binary the upstream fixture server.
pub const FIXTURE_FLAG: &str = "--overspill-mcp-fixture";

/// A running proxy with a connected client and its scratchpad dir.
pub struct Session {
    pub client: RunningService<RoleClient, ()>,
    pub proxy: JoinHandle<Result<(), ProxyError>>,
    pub dir: tempfile::TempDir,
}

/// The proxy options that run this binary as the upstream fixture server.
pub fn fixture_options() -> ProxyOptions {
    let exe = std::env::current_exe().unwrap();
    ProxyOptions::new("fixture", exe.to_string_lossy(), [FIXTURE_FLAG])
}

/// Starts the proxy in process over `scratch` (whose dir is `dir`) and connects a client.
pub async fn start_with(
    scratch: Scratchpad,
    dir: tempfile::TempDir,
    options: ProxyOptions,
) -> Session {
    let (client_side, proxy_side) = tokio::io::duplex(1 << 20);
    let (proxy_read, proxy_write) = tokio::io::split(proxy_side);
    let proxy = tokio::spawn(serve(options, Arc::new(scratch), proxy_read, proxy_write));
    let (read, write) = tokio::io::split(client_side);
    let transport =
        AsyncRwTransport::<RoleClient, _, _>::new(read, write).with_max_line_length(MAX_LINE_BYTES);
    let client = ().serve(transport).await.unwrap();
    Session { client, proxy, dir }
}

/// Calls `tool`; a call that takes over two minutes fails the test instead of hanging it.
pub async fn call(session: &Session, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
    tokio::time::timeout(Duration::from_secs(120), session.client.call_tool(request))
        .await
        .expect("the call hung")
        .unwrap()
}

/// The text of a result that must be one text block.
pub fn only_text(result: &CallToolResult) -> &str {
    assert_eq!(
        result.content.len(),
        1,
        "one content block expected: {result:?}"
    );
    match &result.content[0] {
        ContentBlock::Text(text) => &text.text,
        other => panic!("a text block expected, got {other:?}"),
    }
}

/// The stored file a pointer names.
pub fn pointer_file(pointer: &str) -> String {
    pointer
        .lines()
        .find_map(|line| line.strip_prefix("file: "))
        .unwrap_or_else(|| panic!("no `file:` line in the pointer:\n{pointer}"))
        .trim()
        .to_owned()
}

/// The binary's `main`: the fixture server when asked, else each case (filtered by the
/// command-line words) on one runtime, exiting non-zero when any failed.
pub fn main_with(kind: &str, cases: &[(&str, Case)], fixture: fn()) {
    if std::env::args().any(|arg| arg == FIXTURE_FLAG) {
        fixture();
        return;
    }
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, case) in cases {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        eprintln!("test {name} ...");
        let case = *case;
        let outcome = runtime.block_on(async { tokio::spawn(async move { case().await }).await });
        match outcome {
            Ok(()) => eprintln!("test {name} ... ok"),
            Err(error) => {
                eprintln!("test {name} ... FAILED: {error}");
                failed.push(*name);
            }
        }
    }
    eprintln!("{ran} {kind} tests, {} failed", failed.len());
    if !failed.is_empty() {
        eprintln!("failed: {failed:?}");
        std::process::exit(1);
    }
}
