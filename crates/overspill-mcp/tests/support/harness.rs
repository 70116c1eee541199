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
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use tokio::task::JoinHandle;

/// One named test case.
pub type Case = fn() -> Pin<Box<dyn Future<Output = ()> + Send>>;

/// `cases!(a, b, …)` is the test binary's `CASES` table: each async test function under its
/// own name.
macro_rules! cases {
    ($($case:ident),+ $(,)?) => {
        const CASES: &[(&str, Case)] = &[$((stringify!($case), || Box::pin($case()))),+];
    };
}
pub(crate) use cases;

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
    fixture_options_with(&[])
}

/// The same with more arguments for the fixture (`--raw`, `--clash` …).
pub fn fixture_options_with(extra: &[&str]) -> ProxyOptions {
    let exe = std::env::current_exe().unwrap();
    let args = std::iter::once(FIXTURE_FLAG).chain(extra.iter().copied());
    ProxyOptions::new("fixture", exe.to_string_lossy(), args)
}

/// A running proxy spoken to in raw JSON lines, as a client that keeps every field would.
pub struct RawSession {
    pub write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    pub lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    pub proxy: JoinHandle<Result<(), ProxyError>>,
    pub dir: tempfile::TempDir,
    /// Messages read while waiting for something else (notifications, server requests).
    pub seen: Vec<Value>,
}

impl RawSession {
    /// Starts the proxy in process over `scratch` (whose dir is `dir`), not yet initialized.
    pub fn start(scratch: Scratchpad, dir: tempfile::TempDir, options: ProxyOptions) -> RawSession {
        RawSession::start_shared(Arc::new(scratch), dir, options)
    }

    /// [`RawSession::start`] over a scratchpad the test keeps a handle of (to read its usage).
    pub fn start_shared(
        scratch: Arc<Scratchpad>,
        dir: tempfile::TempDir,
        options: ProxyOptions,
    ) -> RawSession {
        let (client_side, proxy_side) = tokio::io::duplex(1 << 20);
        let (proxy_read, proxy_write) = tokio::io::split(proxy_side);
        let proxy = tokio::spawn(serve(options, scratch, proxy_read, proxy_write));
        let (read, write) = tokio::io::split(client_side);
        let lines = tokio::io::BufReader::new(read).lines();
        RawSession {
            write,
            lines,
            proxy,
            dir,
            seen: Vec::new(),
        }
    }

    /// Writes one line as is.
    pub async fn send_text(&mut self, text: &str) {
        self.write
            .write_all(format!("{text}\n").as_bytes())
            .await
            .unwrap();
    }

    /// Writes one message.
    pub async fn send(&mut self, message: Value) {
        self.send_text(&message.to_string()).await;
    }

    /// The next message from the proxy (20 s at most).
    pub async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(20), self.lines.next_line())
            .await
            .expect("no message from the proxy within 20 s")
            .unwrap()
            .expect("the proxy closed the connection");
        serde_json::from_str(&line).unwrap()
    }

    /// Reads until the response with `id`; what came before it is kept in `seen`.
    pub async fn response(&mut self, id: &Value) -> Value {
        loop {
            let message = self.next().await;
            if message.get("method").is_none() && &message["id"] == id {
                return message;
            }
            self.seen.push(message);
        }
    }

    /// Sends a request and returns its response.
    pub async fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send(
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        )
        .await;
        self.response(&id).await
    }

    /// The MCP handshake with `params` as the client's `initialize`; returns its response.
    pub async fn initialize(&mut self, params: Value) -> Value {
        let response = self.request(Value::from(0), "initialize", params).await;
        self.send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        response
    }

    /// The handshake of a plain client at protocol 2025-06-18.
    pub async fn initialize_plain(&mut self) -> Value {
        self.initialize(
            serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw-client", "version": "0"}}),
        )
        .await
    }

    /// A `tools/call` of `name` with `arguments`; returns the response.
    pub async fn call(&mut self, id: i64, name: &str, arguments: Value) -> Value {
        self.request(
            Value::from(id),
            "tools/call",
            serde_json::json!({"name": name, "arguments": arguments}),
        )
        .await
    }
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
    overspill::explore::stored_file(pointer)
        .unwrap_or_else(|| panic!("no `file:` line in the pointer:\n{pointer}"))
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

/// A `--listen` endpoint being served: its URL, what stops it, and its task.
pub struct Served {
    pub url: String,
    pub stop: tokio::sync::oneshot::Sender<()>,
    pub served: JoinHandle<Result<(), ProxyError>>,
}

/// Serves `options` over Streamable HTTP on a free loopback port, each session's (or agent's)
/// scratchpad made by `factory`, until [`Served::stop`] is sent.
pub async fn serve_on_loopback(
    listen: overspill_mcp::Listen,
    options: ProxyOptions,
    factory: overspill_mcp::ScratchFactory,
) -> Served {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}{}", listener.local_addr().unwrap(), listen.path);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(overspill_mcp::serve_http(
        listener,
        listen,
        options,
        factory,
        async {
            let _ = stopped.await;
        },
    ));
    Served { url, stop, served }
}
