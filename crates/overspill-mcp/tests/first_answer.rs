//! The first answer never waits for the token tables (docs/tokens.md#the-first-answer-does-not-wait):
//! every proxy mode answers the client's `initialize` and `server/discover` while its counter's
//! tables are still being built, and the first thing that needs a count waits for them then.
//!
//! The counter is `o200k_base` behind a [`Gate`] the test opens: until then its tables are
//! "being built", so a count waits, as a count of a real counter waits for the tables a
//! background thread builds. Nothing is timed: a count that waits before the proxy's first
//! answer is announced by the gate, and fails the test at once.

// A test binary without libtest (`harness = false`): clippy.toml's test allowance does not reach it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::{fixture, harness};

use std::collections::BTreeMap;
use std::future::Future;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};

use futures_util::StreamExt;
use overspill::tokens::{TokenCounter, o200k};
use overspill::{Scratchpad, ScratchpadBuilder};
use overspill_mcp::{
    CommandServer, Listen, Namespace, ProxyOptions, Remote, ScratchFactory, Server, Upstream, serve,
};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};

use harness::*;

/// `o200k_base` whose tables are ready only once the test opens the gate: a count before then
/// waits, and says so ([`Gate::waited`]).
struct Gate {
    open: Mutex<bool>,
    opened: Condvar,
    waiting: Arc<tokio::sync::Notify>,
}

impl Gate {
    /// A closed gate, for the whole process (a counter is `'static`).
    fn closed() -> &'static Gate {
        Box::leak(Box::new(Gate {
            open: Mutex::new(false),
            opened: Condvar::new(),
            waiting: Arc::new(tokio::sync::Notify::new()),
        }))
    }

    /// The tables are ready: every count waiting goes on.
    fn open(&self) {
        *self.open.lock().unwrap() = true;
        self.opened.notify_all();
    }

    /// Resolves once a count has waited for the tables (one that waited before this was called
    /// counts too).
    async fn waited(&self) {
        self.waiting.notified().await;
    }

    /// What a count needs first: the tables, announced when it has to wait for them.
    fn tables(&self, announce: bool) {
        let mut open = self.open.lock().unwrap();
        if !*open && announce {
            // From a thread of its own: a count on a runtime worker (a `--listen` session's
            // scratchpad is built on one) blocks it, and a wake-up sent from it would wait in
            // its queue.
            let waiting = Arc::clone(&self.waiting);
            std::thread::spawn(move || waiting.notify_one());
        }
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
    }
}

impl TokenCounter for Gate {
    fn count(&self, text: &str) -> usize {
        self.tables(true);
        o200k().count(text)
    }

    fn count_up_to(&self, text: &str, limit: usize) -> Option<usize> {
        self.tables(true);
        o200k().count_up_to(text, limit)
    }

    fn name(&self) -> &'static str {
        o200k().name()
    }

    /// As the real counters: a text of at most `limit` bytes fits without the tables.
    fn fits_within(&self, text: &str, limit: usize) -> bool {
        text.len() <= limit || self.count_up_to(text, limit).is_some()
    }

    fn prepare(&self) {
        self.tables(false);
    }

    fn is_prepared(&self) -> bool {
        *self.open.lock().unwrap()
    }
}

/// The scratchpad every proxy here gets (the CLI's defaults), counting with `counter`.
fn builder(dir: &Path, counter: &'static dyn TokenCounter) -> ScratchpadBuilder {
    Scratchpad::builder()
        .scratchpad_dir(dir)
        .context_window(128_000)
        .intercept_all(5120)
        .counter(counter)
}

/// A proxy of `options` in process, spoken to in raw lines, whose scratchpad counts through
/// `gate`: built and then served on the proxy's own task, as `overspill mcp` builds its
/// scratchpad and then serves.
fn start(gate: &'static Gate, options: ProxyOptions) -> RawSession {
    let dir = tempfile::tempdir().unwrap();
    let pad_dir = dir.path().to_owned();
    let (client_side, proxy_side) = tokio::io::duplex(1 << 20);
    let (proxy_read, proxy_write) = tokio::io::split(proxy_side);
    let proxy = tokio::spawn(async move {
        let pad = tokio::task::spawn_blocking(move || builder(&pad_dir, gate).build())
            .await
            .unwrap()
            .unwrap();
        serve(options, Arc::new(pad), proxy_read, proxy_write).await
    });
    let (read, write) = tokio::io::split(client_side);
    RawSession {
        write,
        lines: tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(read)),
        proxy,
        dir,
        seen: Vec::new(),
    }
}

/// What `answer` resolves to, which must come before any count waits for the tables: a count
/// that waits first fails the test (the gate is opened, so that nothing stays blocked).
async fn before_the_tables<T>(gate: &Gate, what: &str, answer: impl Future<Output = T>) -> T {
    tokio::select! {
        answer = answer => answer,
        () = gate.waited() => {
            gate.open();
            panic!("the proxy counted tokens before it answered {what}, so that answer waited for the token tables");
        }
    }
}

/// `initialize` then `tools/list`, each answered before the token tables are ready (the
/// first by the proxy, with its line about the exploration tools): the tools listed.
async fn initialize_and_list_before_the_tables(
    gate: &Gate,
    session: &mut RawSession,
) -> Vec<Value> {
    let initialized =
        before_the_tables(gate, "initialize", session.initialize(initialize_params())).await;
    assert_answered_by_the_proxy(&initialized);
    let listed = before_the_tables(
        gate,
        "tools/list",
        session.request(json!("l"), "tools/list", json!({})),
    )
    .await;
    listed["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("no tools listed: {listed}"))
}

/// The 2026-07-28 revision's stateless start: no `initialize`, the envelope in `_meta`.
fn discover_params() -> Value {
    json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                     "io.modelcontextprotocol/clientInfo": {"name": "raw-client", "version": "0"}}})
}

fn initialize_params() -> Value {
    json!({"protocolVersion": "2025-06-18", "capabilities": {},
           "clientInfo": {"name": "raw-client", "version": "0"}})
}

/// A server's `initialize` or `server/discover` result as the proxy passes it: with its line
/// about the exploration tools.
fn assert_answered_by_the_proxy(response: &Value) {
    let instructions = response["result"]["instructions"]
        .as_str()
        .unwrap_or_default();
    assert!(
        instructions.contains("`schema`"),
        "not the server's answer with the proxy's line: {response}"
    );
}

fn text_of(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text result: {response}"))
}

async fn a_proxy_answers_discover_and_initialize_before_the_token_tables_are_ready_then_counts_with_them()
 {
    let gate = Gate::closed();
    let mut session = start(gate, fixture_options_with(&["--raw"]));
    let discovered = before_the_tables(
        gate,
        "server/discover",
        session.request(json!("d"), "server/discover", discover_params()),
    )
    .await;
    assert_answered_by_the_proxy(&discovered);
    let tools = initialize_and_list_before_the_tables(gate, &mut session).await;
    assert!(tools.len() > 9, "{tools:?}");

    // The first large result needs a count: it waits for the tables, and is then stored.
    session
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "big", "arguments": {}}}))
        .await;
    gate.waited().await;
    // So does a result small enough to be decided as it is read, but longer than the threshold
    // in bytes; its wait holds up nothing else the server sends.
    session
        .send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                     "params": {"name": "numbers", "arguments": {"pad": 20_000}}}))
        .await;
    gate.waited().await;
    let small = session.call(4, "vendor", json!({})).await;
    assert_eq!(small["result"], support::raw_server::vendor_result());
    gate.open();
    let numbers = session.response(&json!(3)).await;
    assert!(text_of(&numbers).contains("overspill://"), "{numbers}");
    let stored = session.response(&json!(1)).await;
    let pointer = text_of(&stored);
    let tokens = o200k().count(&support::raw_server::big_text());
    assert!(
        pointer.contains(&format!(
            "{} tokens (o200k_base)",
            overspill::budget::thousands(tokens as u64)
        )),
        "{pointer}"
    );

    // The budget's baseline was counted late, not left out: an exploration call leaves what it
    // leaves a scratchpad whose counter was ready from the start.
    let arguments = json!({"file": pointer_file(pointer), "lines": 3});
    let head = session.call(2, "head", arguments.clone()).await;
    let ready = builder(session.dir.path(), o200k()).build().unwrap();
    let expected = ready.call_value("head", &arguments);
    assert!(expected.contains("budget tokens left"), "{expected}");
    assert_eq!(text_of(&head), expected);
    session.proxy.abort();
}

/// This binary as the raw fixture, a server of a gateway named `name`.
fn raw_member(name: &str) -> Server {
    let exe = std::env::current_exe().unwrap();
    let command = CommandServer {
        command: exe.to_string_lossy().into_owned(),
        args: vec![FIXTURE_FLAG.to_owned(), "--raw".to_owned()],
        env: BTreeMap::new(),
        cwd: None,
    };
    Server::new(name, Upstream::Command(command))
}

async fn a_gateway_answers_discover_and_initialize_before_the_token_tables_are_ready() {
    let gate = Gate::closed();
    let servers = vec![raw_member("one"), raw_member("two")];
    let mut session = start(gate, ProxyOptions::gateway(servers, Namespace::default()));
    // The gateway answers the probe itself, from the servers it joined for it
    // (docs/mcp-proxy.md#revisions); a client that initializes after all is answered too.
    let discovered = before_the_tables(
        gate,
        "server/discover",
        session.request(json!("d"), "server/discover", discover_params()),
    )
    .await;
    let versions = &discovered["result"]["supportedVersions"];
    assert!(
        versions
            .as_array()
            .is_some_and(|v| v.contains(&json!("2026-07-28"))),
        "{discovered}"
    );
    let tools = initialize_and_list_before_the_tables(gate, &mut session).await;
    assert!(
        tools.iter().any(|tool| tool["name"] == "two__big"),
        "{tools:?}"
    );
    gate.open();
    session.proxy.abort();
}

/// Serves the fixture over Streamable HTTP on a loopback port; returns its URL.
async fn serve_fixture() -> String {
    let service = StreamableHttpService::new(
        || Ok(fixture::Fixture::default()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}/mcp")
}

async fn a_url_proxy_answers_initialize_before_the_token_tables_are_ready() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let url = serve_fixture().await;
    let gate = Gate::closed();
    let options = ProxyOptions::remote("fixture", Remote::new(&url).unwrap());
    let mut session = start(gate, options);
    let tools = initialize_and_list_before_the_tables(gate, &mut session).await;
    assert!(tools.len() > 9, "{tools:?}");
    gate.open();
    session.proxy.abort();
}

/// The first message of the answer stream to a POST of `initialize`.
async fn post_initialize(http: &reqwest::Client, url: &str) -> Value {
    let body =
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize_params()});
    let response = http
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut events = sse_stream::SseByteStream::new(response.bytes_stream());
    while let Some(event) = events.next().await {
        if let Some(data) = event.unwrap().data.filter(|data| !data.is_empty()) {
            return serde_json::from_str(&data).unwrap();
        }
    }
    panic!("the answer stream ended without an answer");
}

async fn listen_sessions_answer_initialize_before_the_token_tables_are_ready() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let gate = Gate::closed();
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().to_owned();
    // Each session's scratchpad is built when its `initialize` arrives.
    let factory: ScratchFactory = Arc::new(move |scratch_for: &overspill_mcp::ScratchFor| {
        let pad = builder(&base.join(&scratch_for.storage), gate)
            .build()
            .map_err(|error| error.to_string())?;
        Ok(Arc::new(pad) as Arc<dyn overspill_mcp::Scratch>)
    });
    let Served { url, stop, served } =
        serve_on_loopback(Listen::default(), fixture_options(), factory).await;
    let http = reqwest::Client::new();
    for session in ["the first session", "the second session"] {
        let answer = before_the_tables(gate, session, post_initialize(&http, &url)).await;
        assert_answered_by_the_proxy(&answer);
    }
    gate.open();
    let _ = stop.send(());
    served.await.unwrap().unwrap();
}

cases!(
    a_proxy_answers_discover_and_initialize_before_the_token_tables_are_ready_then_counts_with_them,
    a_gateway_answers_discover_and_initialize_before_the_token_tables_are_ready,
    a_url_proxy_answers_initialize_before_the_token_tables_are_ready,
    listen_sessions_answer_initialize_before_the_token_tables_are_ready,
);

fn main() {
    main_with("first answer", CASES, fixture::run);
}
