//! `--listen`: MCP clients over Streamable HTTP, each session with its own scratchpad and its
//! own upstream child (this test binary re-run as the fixture server). The clients here are
//! plain HTTP requests, so every status and header can be checked.

// A test binary without libtest (`harness = false`): clippy.toml's test allowance does not reach it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::{fixture, harness};

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use overspill::Scratchpad;
use overspill_mcp::{Listen, Metrics, ScratchFactory};
use serde_json::{Value, json};

use harness::*;

/// A proxy listening on a loopback port; its sessions' scratchpads live under `dir`.
struct Proxy {
    url: String,
    dir: tempfile::TempDir,
    http: reqwest::Client,
    /// Every session's scratchpad, held weakly: whether an ended session let go of it.
    made: Arc<std::sync::Mutex<Vec<std::sync::Weak<Scratchpad>>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    served: tokio::task::JoinHandle<Result<(), overspill_mcp::ProxyError>>,
}

async fn start(listen: Listen) -> Proxy {
    start_counting(listen, None).await
}

/// [`start`], the sessions counting into `metrics` when given.
async fn start_counting(listen: Listen, metrics: Option<Metrics>) -> Proxy {
    let options = match &metrics {
        Some(metrics) => fixture_options().with_metrics(metrics),
        None => fixture_options(),
    };
    start_serving(listen, metrics, options).await
}

/// [`start`] in front of the raw JSON-lines server, which answers any request whatever came
/// before (a 2026-07-28 server).
async fn start_raw(listen: Listen) -> Proxy {
    start_serving(listen, None, fixture_options_with(&["--raw"])).await
}

async fn start_serving(
    listen: Listen,
    metrics: Option<Metrics>,
    options: overspill_mcp::ProxyOptions,
) -> Proxy {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().to_owned();
    serve_on(listen, metrics, options, dir, base, 128_000).await
}

/// A proxy whose scratchpads live under `base` (which other proxies may share), with a
/// context window of `window` tokens; `dir` is kept with it.
async fn serve_on(
    listen: Listen,
    metrics: Option<Metrics>,
    options: overspill_mcp::ProxyOptions,
    dir: tempfile::TempDir,
    base: PathBuf,
    window: u64,
) -> Proxy {
    let observer = metrics.clone();
    let made = Arc::new(std::sync::Mutex::new(Vec::new()));
    let making = Arc::clone(&made);
    let factory: ScratchFactory = Arc::new(move |scratch_for: &overspill_mcp::ScratchFor| {
        let dir = base.join(&scratch_for.storage);
        let mut builder = Scratchpad::builder()
            .scratchpad_dir(&dir)
            .context_window(window)
            .intercept_all(5120);
        if let Some(metrics) = &observer {
            builder = builder.observer(Arc::new(metrics.clone()));
        }
        if let Some(file) = &scratch_for.shared_budget {
            builder = builder.shared_budget(dir.join(file));
        }
        let pad = Arc::new(builder.build().map_err(|error| error.to_string())?);
        making.lock().unwrap().push(Arc::downgrade(&pad));
        Ok(pad as Arc<dyn overspill_mcp::Scratch>)
    });
    let Served { url, stop, served } = serve_on_loopback(listen, options, factory).await;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder().build().unwrap();
    Proxy {
        url,
        dir,
        http,
        made,
        stop: Some(stop),
        served,
    }
}

/// What one POST got back: status, session id, and the messages (JSON body or SSE events).
struct Answer {
    status: u16,
    session: Option<String>,
    messages: Vec<Value>,
}

impl Proxy {
    async fn post(&self, session: Option<&str>, body: Value, extra: &[(&str, &str)]) -> Answer {
        let mut request = self
            .http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        let response = tokio::time::timeout(Duration::from_secs(60), request.send())
            .await
            .unwrap()
            .unwrap();
        let status = response.status().as_u16();
        let session = response
            .headers()
            .get("mcp-session-id")
            .map(|value| value.to_str().unwrap().to_owned());
        let sse = response
            .headers()
            .get("content-type")
            .is_some_and(|value| value.to_str().unwrap().starts_with("text/event-stream"));
        let messages = if sse {
            let mut events = sse_stream::SseByteStream::new(response.bytes_stream());
            let mut messages = Vec::new();
            while let Some(Ok(event)) = tokio::time::timeout(Duration::from_secs(60), events.next())
                .await
                .unwrap()
            {
                if let Some(data) = event.data.filter(|data| !data.is_empty()) {
                    messages.push(serde_json::from_str(&data).unwrap());
                }
            }
            messages
        } else {
            let text = response.text().await.unwrap();
            serde_json::from_str(&text)
                .map(|value| vec![value])
                .unwrap_or_default()
        };
        Answer {
            status,
            session,
            messages,
        }
    }

    /// `initialize` and `notifications/initialized`; returns the session id.
    async fn open_session(&self) -> String {
        let answer = self
            .post(
                None,
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "http-test", "version": "0"}}}),
                &[],
            )
            .await;
        assert_eq!(answer.status, 200);
        assert_eq!(answer.messages[0]["id"], 0, "{:?}", answer.messages);
        let session = answer.session.expect("a session id");
        let initialized = self
            .post(
                Some(&session),
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                &[],
            )
            .await;
        assert_eq!(initialized.status, 202);
        session
    }

    /// A tool call in `session`; returns the text of its one content block.
    async fn call(&self, session: &str, id: i64, tool: &str, arguments: Value) -> String {
        let answer = self
            .post(
                Some(session),
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments}}),
                &[],
            )
            .await;
        assert_eq!(answer.status, 200);
        let response = answer.messages.iter().find(|m| m["id"] == id).unwrap();
        response["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// Stops the proxy as Ctrl-C or SIGTERM does (the CLI's shutdown future); gives back the
    /// sessions' directory, to look at what stayed.
    async fn stop(mut self) -> tempfile::TempDir {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = tokio::time::timeout(Duration::from_secs(20), &mut self.served).await;
        self.dir
    }

    /// DELETE of `session`: the status.
    async fn delete(&self, session: &str) -> u16 {
        let deleted = self
            .http
            .delete(&self.url)
            .header("mcp-session-id", session)
            .send()
            .await
            .unwrap();
        deleted.status().as_u16()
    }

    /// Opens `session`'s GET stream (checked to be accepted).
    async fn open_get(&self, session: &str) -> reqwest::Response {
        let get = self
            .http
            .get(&self.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session)
            .send()
            .await
            .unwrap();
        assert_eq!(get.status().as_u16(), 200);
        get
    }

    /// The upstream child of `session` (the fixture's `pid` tool).
    async fn child_of(&self, session: &str) -> u32 {
        self.call(session, 90, "pid", json!({}))
            .await
            .parse()
            .unwrap()
    }

    fn session_dir(&self, session: &str) -> PathBuf {
        self.dir.path().join(session)
    }
}

async fn two_http_clients_get_separate_sessions_budgets_and_files() {
    let proxy = start(Listen::default()).await;
    let (a, b) = (proxy.open_session().await, proxy.open_session().await);
    assert_ne!(a, b);
    let a_file = pointer_file(&proxy.call(&a, 1, "big", json!({"bytes": 100_000})).await);
    let b_file = pointer_file(&proxy.call(&b, 1, "big", json!({"bytes": 150_000})).await);
    assert!(proxy.session_dir(&a).join(&a_file).exists());
    assert!(proxy.session_dir(&b).join(&b_file).exists());
    assert!(
        !proxy.session_dir(&a).join(&b_file).exists(),
        "no file crosses sessions"
    );
    let crossing = proxy.call(&a, 2, "head", json!({"file": b_file})).await;
    assert!(crossing.contains("not_found"), "{crossing}");
    let budget = |text: &str| text.lines().last().unwrap_or_default().to_owned();
    let first_a = budget(
        &proxy
            .call(&a, 3, "head", json!({"file": a_file, "lines": 50}))
            .await,
    );
    let first_b = budget(
        &proxy
            .call(&b, 2, "head", json!({"file": b_file, "lines": 50}))
            .await,
    );
    let second_a = budget(
        &proxy
            .call(&a, 4, "head", json!({"file": a_file, "lines": 50}))
            .await,
    );
    assert_ne!(first_a, second_a, "A's budget went down");
    assert!(first_b.contains("budget tokens left"), "{first_b}");
    proxy.stop().await;
}

async fn delete_ends_the_session_and_its_child() {
    let proxy = start(Listen::default()).await;
    let session = proxy.open_session().await;
    let pid: u32 = proxy
        .call(&session, 1, "pid", json!({}))
        .await
        .parse()
        .unwrap();
    assert!(PathBuf::from(format!("/proc/{pid}")).exists());
    assert_eq!(proxy.delete(&session).await, 200);
    let after = proxy
        .post(
            Some(&session),
            json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}),
            &[],
        )
        .await;
    assert_eq!(after.status, 404, "the session is gone");
    wait_until_gone(pid).await;
    proxy.stop().await;
}

async fn a_call_cut_off_by_the_end_of_its_session_is_counted_unanswered() {
    let metrics = Metrics::new();
    let proxy = start_counting(Listen::default(), Some(metrics.clone())).await;
    let session = proxy.open_session().await;
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "sleep", "arguments": {"ms": 3_600_000}, "_meta": {"progressToken": "p-3"}}});
    let stream = proxy
        .http
        .post(&proxy.url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    // The progress says the call reached the server; then the client ends the session.
    let mut events = sse_stream::SseByteStream::new(stream.bytes_stream());
    loop {
        let event = tokio::time::timeout(Duration::from_secs(20), events.next())
            .await
            .expect("no progress from the call")
            .unwrap()
            .unwrap();
        if event
            .data
            .is_some_and(|data| data.contains("notifications/progress"))
        {
            break;
        }
    }
    assert_eq!(proxy.delete(&session).await, 200);
    let series = r#"overspill_requests_total{method="tools/call",outcome="unanswered"} 1"#;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !metrics.render().contains(series) {
        assert!(
            std::time::Instant::now() < deadline,
            "{series} not in\n{}",
            metrics.render()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    proxy.stop().await;
}

async fn an_ended_session_lets_go_of_its_relay_and_scratchpad() {
    let proxy = start(Listen::default()).await;
    // One ended by its client, one by its server.
    let deleted = proxy.open_session().await;
    proxy.call(&deleted, 1, "small", json!({})).await;
    assert_eq!(proxy.delete(&deleted).await, 200);
    let crashed = proxy.open_session().await;
    let crash = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": {"name": "crash", "arguments": {}}});
    proxy.post(Some(&crashed), crash, &[]).await;
    let pads: Vec<_> = proxy.made.lock().unwrap().clone();
    assert_eq!(pads.len(), 2);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while pads.iter().any(|pad| pad.upgrade().is_some()) {
        assert!(
            std::time::Instant::now() < deadline,
            "an ended session still holds its scratchpad"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    proxy.stop().await;
}

/// Waits (10 s at most) until the process `pid` has ended (gone, or a zombie).
async fn wait_until_gone(pid: u32) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::fs::read_to_string(format!("/proc/{pid}/status"))
        .is_ok_and(|status| !status.contains("State:\tZ"))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the child {pid} still runs"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn stopping_the_proxy_closes_every_session_stops_every_child_and_keeps_stored_files() {
    let proxy = start(Listen::default()).await;
    let (a, b) = (proxy.open_session().await, proxy.open_session().await);
    let children = [proxy.child_of(&a).await, proxy.child_of(&b).await];
    let a_file = pointer_file(&proxy.call(&a, 1, "big", json!({"bytes": 120_000})).await);
    let b_file = pointer_file(&proxy.call(&b, 1, "big", json!({"bytes": 130_000})).await);
    let stored = [
        proxy.session_dir(&a).join(&a_file),
        proxy.session_dir(&b).join(&b_file),
    ];
    let before: Vec<Vec<u8>> = stored.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let dir = proxy.stop().await;
    for pid in children {
        wait_until_gone(pid).await;
    }
    for (file, content) in stored.iter().zip(before) {
        assert_eq!(
            std::fs::read(file).unwrap(),
            content,
            "{} is kept whole",
            file.display()
        );
    }
    drop(dir);
}

async fn a_cross_origin_request_is_refused_with_403() {
    let proxy = start(Listen::default()).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}});
    let refused = proxy
        .post(None, init.clone(), &[("origin", "http://evil.example")])
        .await;
    assert_eq!(refused.status, 403);
    let local = proxy
        .post(None, init, &[("origin", "http://localhost:6274")])
        .await;
    assert_eq!(local.status, 200, "a local origin is served");
    proxy.stop().await;
}

async fn a_rebound_host_without_an_origin_is_refused_with_403() {
    let proxy = start(Listen::default()).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}});
    let refused = proxy
        .post(None, init.clone(), &[("host", "evil.example:80")])
        .await;
    assert_eq!(refused.status, 403, "a DNS-rebound name in Host, no Origin");
    let local = proxy.post(None, init, &[("host", "localhost:9")]).await;
    assert_eq!(local.status, 200, "a local Host is served");
    proxy.stop().await;
}

async fn a_missing_or_wrong_bearer_token_is_refused_with_401() {
    let mut listen = Listen::default();
    listen.auth_token = Some("right-token".to_owned());
    let proxy = start(listen).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}});
    assert_eq!(proxy.post(None, init.clone(), &[]).await.status, 401);
    let wrong = proxy
        .post(None, init.clone(), &[("authorization", "Bearer wrong")])
        .await;
    assert_eq!(wrong.status, 401);
    let right = proxy
        .post(None, init, &[("authorization", "Bearer right-token")])
        .await;
    assert_eq!(right.status, 200);
    proxy.stop().await;
}

/// Sends `head` (a request line and headers) and `then` on a raw connection to `proxy`, and
/// reads the answer's status line: the proxy must answer without the rest of the body, which
/// never comes (a hang here fails the test after 30 s).
async fn status_without_the_body(proxy: &Proxy, head: &str, then: &[u8]) -> String {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let address = proxy
        .url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap();
    let mut connection = tokio::net::TcpStream::connect(address).await.unwrap();
    connection
        .write_all(format!("{head}Host: {address}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    connection.write_all(then).await.unwrap();
    let mut status = String::new();
    let mut reader = tokio::io::BufReader::new(connection);
    tokio::time::timeout(Duration::from_secs(30), reader.read_line(&mut status))
        .await
        .expect("the proxy waited for a body it must refuse")
        .unwrap();
    status
}

async fn a_body_is_refused_unread_without_the_token_or_over_the_limit() {
    let mut listen = Listen::default();
    listen.auth_token = Some("right-token".to_owned());
    listen.max_body_bytes = 10_000;
    let proxy = start(listen).await;
    let post = "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\n\
                Accept: application/json, text/event-stream\r\n";
    // Ten gigabytes announced, none sent: no token, no reading.
    let anonymous = status_without_the_body(
        &proxy,
        &format!("{post}Content-Length: 10000000000\r\n"),
        b"",
    )
    .await;
    assert!(anonymous.starts_with("HTTP/1.1 401"), "{anonymous}");
    // With the token, a length over the limit is refused as it is announced.
    let token = "Authorization: Bearer right-token\r\n";
    let announced = status_without_the_body(
        &proxy,
        &format!("{post}{token}Content-Length: 20000\r\n"),
        b"",
    )
    .await;
    assert!(announced.starts_with("HTTP/1.1 413"), "{announced}");
    // A chunked body declares no length: it is read up to the limit, then refused, while the
    // client would go on sending.
    let chunk = format!("2000\r\n{}\r\n", "x".repeat(0x2000));
    let chunked = status_without_the_body(
        &proxy,
        &format!("{post}{token}Transfer-Encoding: chunked\r\n"),
        chunk.repeat(2).as_bytes(),
    )
    .await;
    assert!(chunked.starts_with("HTTP/1.1 413"), "{chunked}");
    proxy.stop().await;
}

async fn limits_on_sessions_and_bodies_answer_with_their_status() {
    let mut listen = Listen::default();
    listen.max_sessions = 1;
    listen.max_body_bytes = 10_000;
    let proxy = start(listen).await;
    let session = proxy.open_session().await;
    // A session with its stream open is never reclaimed: the one place is taken.
    let _get = proxy.open_get(&session).await;
    assert_eq!(
        proxy.post(None, initialize_request(), &[]).await.status,
        503,
        "one session at most"
    );
    let big = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                     "params": {"name": "echo_args", "arguments": {"body": "x".repeat(20_000)}}});
    assert_eq!(proxy.post(Some(&session), big, &[]).await.status, 413);
    let garbage = proxy
        .http
        .post(&proxy.url)
        .header("mcp-session-id", &session)
        .header("content-type", "application/json")
        .body("not json")
        .send()
        .await
        .unwrap();
    assert_eq!(garbage.status().as_u16(), 400);
    let error: Value = serde_json::from_str(&garbage.text().await.unwrap()).unwrap();
    assert_eq!(error["error"]["code"], -32700);
    assert_eq!(
        proxy
            .post(
                Some("no-such-session"),
                json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
                &[]
            )
            .await
            .status,
        404
    );
    proxy.stop().await;
}

async fn a_cancelled_call_ends_its_stream_and_leaves_the_session_idle() {
    let mut listen = Listen::default();
    listen.max_sessions = 1;
    let proxy = start(listen).await;
    let session = proxy.open_session().await;
    // The server would answer in an hour; the client cancels (again until the call is seen in
    // flight) and gets no answer, as the specification says: its stream ends without one.
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": "sleep", "arguments": {"ms": 3_600_000}}});
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 7, "reason": "the user pressed stop"}});
    let ended = tokio::time::timeout(Duration::from_secs(60), async {
        let call = proxy.post(Some(&session), call, &[]);
        tokio::pin!(call);
        loop {
            tokio::select! {
                answer = &mut call => break answer,
                () = tokio::time::sleep(Duration::from_millis(200)) => {
                    let accepted = proxy.post(Some(&session), cancel.clone(), &[]).await;
                    assert_eq!(accepted.status, 202);
                }
            }
        }
    })
    .await
    .expect("the cancelled call's stream never ended");
    assert_eq!(ended.status, 200);
    assert!(ended.messages.is_empty(), "{:?}", ended.messages);
    // Nothing open, nothing in flight: the one place is given to a new session.
    assert_eq!(
        proxy.post(None, initialize_request(), &[]).await.status,
        200
    );
    proxy.stop().await;
}

async fn a_client_that_never_finishes_its_request_does_not_keep_the_proxy_from_stopping() {
    use tokio::io::AsyncWriteExt;
    let mut proxy = start(Listen::default()).await;
    let address = proxy
        .url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let mut connection = tokio::net::TcpStream::connect(&address).await.unwrap();
    // Headers that announce a body which never comes.
    connection
        .write_all(
            format!(
                "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{"
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let _ = proxy.stop.take().unwrap().send(());
    let stopped = tokio::time::timeout(Duration::from_secs(60), &mut proxy.served).await;
    assert!(
        matches!(stopped, Ok(Ok(Ok(())))),
        "the proxy did not stop: {stopped:?}"
    );
    drop(connection);
}

async fn what_the_server_sends_on_its_own_reaches_the_get_stream() {
    let proxy = start(Listen::default()).await;
    let session = proxy.open_session().await;
    let get = proxy.open_get(&session).await;
    let mut events = sse_stream::SseByteStream::new(get.bytes_stream());
    assert_eq!(
        proxy.call(&session, 1, "notify_later", json!({})).await,
        "later"
    );
    let note: Value = loop {
        let event = tokio::time::timeout(Duration::from_secs(20), events.next())
            .await
            .expect("nothing on the GET stream")
            .unwrap()
            .unwrap();
        if let Some(data) = event.data.filter(|data| !data.is_empty()) {
            break serde_json::from_str(&data).unwrap();
        }
    };
    assert_eq!(note["method"], "notifications/message", "{note}");
    proxy.stop().await;
}

async fn what_the_server_sent_with_no_stream_open_reaches_the_next_get_stream_whole_and_in_order() {
    let proxy = start(Listen::default()).await;
    let session = proxy.open_session().await;
    // More notes than one stream queues at once, sent while no stream is open to take them.
    let count = 200;
    assert_eq!(
        proxy
            .call(&session, 1, "notify_later", json!({"count": count}))
            .await,
        "later"
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let get = proxy.open_get(&session).await;
    let mut events = sse_stream::SseByteStream::new(get.bytes_stream());
    for number in 0..count {
        let note: Value = loop {
            let event = tokio::time::timeout(Duration::from_secs(20), events.next())
                .await
                .unwrap_or_else(|_| panic!("note {number} never came"))
                .unwrap()
                .unwrap();
            if let Some(data) = event.data.filter(|data| !data.is_empty()) {
                break serde_json::from_str(&data).unwrap();
            }
        };
        assert_eq!(
            note["params"]["data"],
            format!("sent after the call returned: {number}"),
            "{note}"
        );
    }
    proxy.stop().await;
}

async fn progress_goes_on_the_stream_of_its_call_even_with_a_get_stream_open() {
    let proxy = start(Listen::default()).await;
    let session = proxy.open_session().await;
    let get = proxy.open_get(&session).await;
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "progress", "arguments": {}, "_meta": {"progressToken": "p-5"}}});
    let answer = proxy.post(Some(&session), call, &[]).await;
    let methods: Vec<String> = answer
        .messages
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("(response)").to_owned())
        .collect();
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/progress",
            "(response)"
        ],
        "the call's progress, then its answer, on its own stream: {:?}",
        answer.messages
    );
    assert_eq!(answer.messages[0]["params"]["progressToken"], "p-5");
    // Two calls at once, each on its own POST: each stream carries its own call's progress.
    let call = |id: u32| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "progress", "arguments": {}, "_meta": {"progressToken": format!("p-{id}")}}})
    };
    let (six, seven) = tokio::join!(
        proxy.post(Some(&session), call(6), &[]),
        proxy.post(Some(&session), call(7), &[])
    );
    for (answer, token) in [(six, "p-6"), (seven, "p-7")] {
        let tokens: Vec<&Value> = answer
            .messages
            .iter()
            .filter_map(|m| m["params"].get("progressToken"))
            .collect();
        assert_eq!(tokens, [token, token], "{:?}", answer.messages);
    }
    drop(get);
    proxy.stop().await;
}

fn initialize_request() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}})
}

/// Whether `session` still answers (a `ping`), or is gone (404).
async fn alive(proxy: &Proxy, session: &str) -> bool {
    let ping = json!({"jsonrpc": "2.0", "id": 77, "method": "ping"});
    match proxy.post(Some(session), ping, &[]).await.status {
        200 => true,
        404 => false,
        other => panic!("a ping answered {other}"),
    }
}

async fn a_hundred_clients_that_never_delete_are_all_served_and_the_idle_ones_reclaimed() {
    let proxy = start(Listen::default()).await;
    let limit = Listen::default().max_sessions;
    let mut sessions = Vec::new();
    for client in 0..100 {
        // Each client initializes, calls a tool and goes away without DELETE.
        let session = proxy.open_session().await;
        let pid = proxy.child_of(&session).await;
        sessions.push((client, session, pid));
    }
    let (reclaimed, kept) = sessions.split_at(100 - limit);
    for (client, session, pid) in reclaimed {
        assert!(
            !alive(&proxy, session).await,
            "client {client}'s session was reclaimed"
        );
        wait_until_gone(*pid).await;
    }
    for (client, session, _) in kept {
        assert!(
            alive(&proxy, session).await,
            "client {client}'s session is kept"
        );
    }
    proxy.stop().await;
}

async fn fifty_initializes_at_once_never_open_more_sessions_than_the_limit() {
    let metrics = Metrics::new();
    let mut listen = Listen::default();
    listen.max_sessions = 4;
    let proxy = start_counting(listen, Some(metrics.clone())).await;
    let opened = futures_util::future::join_all(
        (0..50).map(|_| proxy.post(None, initialize_request(), &[])),
    )
    .await;
    // Each new one takes an idle one's place, or is refused when none is idle yet.
    assert!(
        opened
            .iter()
            .all(|answer| answer.status == 200 || answer.status == 503),
        "{:?}",
        opened
            .iter()
            .map(|answer| answer.status)
            .collect::<Vec<_>>()
    );
    let rendered = metrics.render();
    let open: u64 = rendered
        .lines()
        .find_map(|line| line.strip_prefix("overspill_sessions_open "))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("{rendered}"));
    assert!(open <= 4, "{open} sessions open:\n{rendered}");
    proxy.stop().await;
}

async fn the_least_recently_used_idle_session_is_reclaimed_first() {
    let mut listen = Listen::default();
    listen.max_sessions = 3;
    let proxy = start(listen).await;
    let first = proxy.open_session().await;
    let second = proxy.open_session().await;
    let third = proxy.open_session().await;
    // The first is used again: the second is now the least recently used.
    assert!(alive(&proxy, &first).await);
    let fourth = proxy.open_session().await;
    assert!(!alive(&proxy, &second).await, "the second was reclaimed");
    for session in [&first, &third, &fourth] {
        assert!(alive(&proxy, session).await);
    }
    proxy.stop().await;
}

async fn a_session_with_an_open_stream_or_a_call_in_flight_is_never_reclaimed() {
    let mut listen = Listen::default();
    listen.max_sessions = 2;
    let proxy = start(listen).await;
    let streaming = proxy.open_session().await;
    let get = proxy.open_get(&streaming).await;
    let calling = proxy.open_session().await;
    // A slow call whose client hangs up: its stream is gone, the call is still in flight (long
    // enough for a loaded machine; it is cancelled at the end).
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "sleep", "arguments": {"ms": 60_000}}});
    let pending = proxy
        .http
        .post(&proxy.url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-session-id", &calling)
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(pending.status().as_u16(), 200);
    drop(pending);
    assert_eq!(
        proxy.post(None, initialize_request(), &[]).await.status,
        503,
        "neither session may be reclaimed"
    );
    assert!(alive(&proxy, &streaming).await && alive(&proxy, &calling).await);
    // Once the stream closes, that session is idle and makes room.
    drop(get);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let answer = proxy.post(None, initialize_request(), &[]).await;
        if answer.status == 200 {
            break;
        }
        assert_eq!(answer.status, 503);
        assert!(
            std::time::Instant::now() < deadline,
            "the closed stream never freed its session"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        !alive(&proxy, &streaming).await,
        "the idle session was reclaimed"
    );
    assert!(
        alive(&proxy, &calling).await,
        "the session with a call in flight was kept"
    );
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 3}});
    proxy.post(Some(&calling), cancel, &[]).await;
    proxy.stop().await;
}

/// The series of a rendering of the metrics: each sample's name and labels.
fn series(metrics: &Metrics) -> std::collections::BTreeSet<String> {
    metrics
        .render()
        .lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .filter_map(|line| line.rsplit_once(' ').map(|(series, _)| series.to_owned()))
        .collect()
}

/// One session of the cardinality test: a stored result, calls with arguments and names drawn
/// from `seed` (an unknown tool, an unknown method, exploration calls on files that do and do
/// not exist), then DELETE.
async fn random_session(proxy: &Proxy, seed: u64) {
    let word = |salt: u64| format!("{:016x}", seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt);
    let session = proxy.open_session().await;
    let bytes = 30_000 + seed % 10_000;
    let pointer = proxy
        .call(&session, 1, "big", json!({"bytes": bytes}))
        .await;
    let file = pointer
        .lines()
        .find_map(|line| line.strip_prefix("file: "))
        .unwrap_or_else(|| panic!("no pointer: {pointer}"))
        .to_owned();
    proxy
        .call(
            &session,
            2,
            "echo_args",
            json!({ word(1): word(2), "n": seed }),
        )
        .await;
    proxy
        .call(
            &session,
            3,
            "grep",
            json!({"file": file, "pattern": word(3)}),
        )
        .await;
    proxy
        .call(
            &session,
            4,
            "head",
            json!({"file": word(4), "lines": seed % 50 + 1}),
        )
        .await;
    let unknown_tool = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                              "params": {"name": word(5), "arguments": {word(6): word(7)}}});
    assert_eq!(
        proxy.post(Some(&session), unknown_tool, &[]).await.status,
        200
    );
    let unknown_method = json!({"jsonrpc": "2.0", "id": 6, "method": format!("x/{}", word(8)),
                                "params": {word(9): word(10)}});
    assert_eq!(
        proxy.post(Some(&session), unknown_method, &[]).await.status,
        200
    );
    assert_eq!(proxy.delete(&session).await, 200);
}

async fn a_thousand_sessions_with_random_arguments_add_no_series() {
    let metrics = Metrics::new();
    let proxy = start_counting(Listen::default(), Some(metrics.clone())).await;
    // A few sessions show every series the test's calls can make; then nothing may add one.
    for seed in 0..4 {
        random_session(&proxy, seed).await;
    }
    let seen = series(&metrics);
    let sessions = futures_util::stream::iter(4..1000u64)
        .map(|seed| random_session(&proxy, seed))
        .buffer_unordered(8);
    sessions.collect::<Vec<()>>().await;
    let after = series(&metrics);
    let added: Vec<&String> = after.difference(&seen).collect();
    assert!(
        added.is_empty(),
        "996 more sessions added series: {added:#?}"
    );
    // And what was there is the bounded set: no argument, session id or upstream tool name.
    for series in &after {
        for value in series.split('"').skip(1).step_by(2) {
            assert!(
                !value.chars().all(|c| c.is_ascii_hexdigit()) || value.len() < 12,
                "a random word became a label value: {series}"
            );
        }
    }
    let rendered = metrics.render();
    assert!(
        rendered.contains("overspill_sessions_started_total 1000"),
        "{rendered}"
    );
    assert!(rendered.contains("method=\"other\""), "{rendered}");
    proxy.stop().await;
}

// ---- The stateless revision (2026-07-28): no initialize, no session id ----

/// The `_meta` every 2026-07-28 request carries.
fn modern_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientInfo": {"name": "modern", "version": "1"},
           "io.modelcontextprotocol/clientCapabilities": {}})
}

/// A 2026-07-28 request (`params` gains the `_meta`) and the headers that mirror it.
fn modern(id: Value, method: &str, mut params: Value) -> (Value, Vec<(String, String)>) {
    params["_meta"] = modern_meta();
    let mut headers = vec![
        ("mcp-protocol-version".to_owned(), "2026-07-28".to_owned()),
        ("mcp-method".to_owned(), method.to_owned()),
    ];
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        headers.push(("mcp-name".to_owned(), name.to_owned()));
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    (body, headers)
}

impl Proxy {
    /// A 2026-07-28 request with `extra` headers besides the mirrored ones; its one answer.
    async fn modern(
        &self,
        id: Value,
        method: &str,
        params: Value,
        extra: &[(&str, &str)],
    ) -> (Answer, Value) {
        let (body, headers) = modern(id, method, params);
        let mut all: Vec<(&str, &str)> = headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        all.extend_from_slice(extra);
        let answer = self.post(None, body, &all).await;
        let last = answer.messages.last().cloned().unwrap_or(Value::Null);
        (answer, last)
    }

    /// A 2026-07-28 call of the raw server's `big` (`extra` headers besides the mirrored ones):
    /// the file its pointer names.
    async fn modern_pointer(&self, extra: &[(&str, &str)]) -> String {
        let call = json!({"name": "big", "arguments": {}});
        let (_, big) = self.modern(json!(1), "tools/call", call, extra).await;
        assert_eq!(big["id"], 1, "the client's own id comes back: {big}");
        let pointer = big["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(pointer.starts_with("[overspill]"), "{big}");
        pointer_file(pointer)
    }
}

async fn a_2026_07_28_client_is_served_without_a_session_and_explores_its_pointer() {
    let proxy = start_raw(Listen::default()).await;
    let (answer, listed) = proxy.modern(json!(1), "tools/list", json!({}), &[]).await;
    assert_eq!(answer.status, 200, "{:?}", answer.messages);
    assert!(answer.session.is_none(), "no session id is handed out");
    assert_eq!(listed["id"], 1);
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(
        names.contains(&"big") && names.contains(&"head"),
        "{names:?}"
    );
    let file = proxy.modern_pointer(&[]).await;
    // Another request, with no session: the same agent's scratchpad finds the file.
    let (_, head) = proxy
        .modern(
            json!("h"),
            "tools/call",
            json!({"name": "head", "arguments": {"file": file}}),
            &[],
        )
        .await;
    assert_eq!(head["id"], "h");
    assert_eq!(head["result"]["resultType"], "complete", "{head}");
    assert!(head["result"].get("isError").is_none(), "{head}");
    proxy.stop().await;
}

async fn two_clients_of_one_agent_sending_the_same_id_at_once_each_get_their_own_answer() {
    let proxy = start_raw(Listen::default()).await;
    let calls = (0..8).map(|n| {
        let proxy = &proxy;
        async move {
            let (_, answer) = proxy
                .modern(json!(7), "custom/echo", json!({"n": n}), &[])
                .await;
            (n, answer)
        }
    });
    for (n, answer) in futures_util::future::join_all(calls).await {
        assert_eq!(answer["id"], 7, "{answer}");
        assert_eq!(answer["result"]["n"], n, "{answer}");
    }
    proxy.stop().await;
}

async fn headers_that_do_not_match_the_body_are_refused_with_header_mismatch() {
    let proxy = start_raw(Listen::default()).await;
    let call = json!({"name": "héllo wörld", "arguments": {}});
    let refused = |answer: &Answer, what: &str| {
        assert_eq!(answer.status, 400, "{what}: {:?}", answer.messages);
        assert_eq!(answer.messages[0]["error"]["code"], -32020, "{what}");
        assert_eq!(answer.messages[0]["id"], 3, "{what}: the request's id");
    };
    let (body, _) = modern(json!(3), "tools/call", call.clone());
    let version = ("mcp-protocol-version", "2026-07-28");
    let method = ("mcp-method", "tools/call");
    let answer = proxy.post(None, body.clone(), &[method]).await;
    refused(&answer, "no MCP-Protocol-Version");
    let answer = proxy.post(None, body.clone(), &[version]).await;
    refused(&answer, "no Mcp-Method");
    let answer = proxy
        .post(None, body.clone(), &[version, ("mcp-method", "tools/list")])
        .await;
    refused(&answer, "another method");
    let answer = proxy.post(None, body.clone(), &[version, method]).await;
    refused(&answer, "no Mcp-Name");
    let answer = proxy
        .post(
            None,
            body.clone(),
            &[version, method, ("mcp-name", "hello")],
        )
        .await;
    refused(&answer, "another name");
    // The name in the Base64 form of the revision matches.
    let encoded = "=?base64?aMOpbGxvIHfDtnJsZA==?=";
    let answer = proxy
        .post(None, body, &[version, method, ("mcp-name", encoded)])
        .await;
    assert_eq!(answer.status, 200, "{:?}", answer.messages);
    proxy.stop().await;
}

async fn a_protocol_version_the_proxy_does_not_speak_is_the_servers_to_refuse_or_the_gateways() {
    let mut meta = modern_meta();
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let body =
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": meta}});
    let headers = [
        ("mcp-protocol-version", "2099-01-01"),
        ("mcp-method", "tools/list"),
    ];
    // One server fronted as itself answers as it would directly (the raw server takes any).
    let plain = start_raw(Listen::default()).await;
    let answer = plain.post(None, body.clone(), &headers).await;
    assert_eq!(answer.status, 200, "{:?}", answer.messages);
    assert!(
        answer.messages[0]["result"]["tools"].is_array(),
        "{:?}",
        answer.messages
    );
    plain.stop().await;
    // A gateway answers for its servers: 400, with the revisions it speaks.
    let exe = std::env::current_exe().unwrap();
    let raw = overspill_mcp::CommandServer {
        command: exe.to_string_lossy().into_owned(),
        args: vec![FIXTURE_FLAG.to_owned(), "--raw".to_owned()],
        env: Default::default(),
        cwd: None,
    };
    let options = overspill_mcp::ProxyOptions::gateway(
        vec![overspill_mcp::Server::new(
            "raw",
            overspill_mcp::Upstream::Command(raw),
        )],
        overspill_mcp::Namespace::default(),
    );
    let gateway = start_serving(Listen::default(), None, options).await;
    let answer = gateway.post(None, body, &headers).await;
    assert_eq!(answer.status, 400, "{:?}", answer.messages);
    let error = &answer.messages[0]["error"];
    assert_eq!(error["code"], -32022, "{error}");
    assert_eq!(answer.messages[0]["id"], 4, "{error}");
    let supported = error["data"]["supported"].as_array().unwrap();
    assert!(supported.contains(&json!("2026-07-28")) && supported.contains(&json!("2025-06-18")));
    gateway.stop().await;
}

async fn a_method_the_revision_removed_is_404_and_an_error_of_the_server_has_its_status() {
    let proxy = start_raw(Listen::default()).await;
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
    ] {
        let (answer, error) = proxy.modern(json!(5), method, json!({}), &[]).await;
        assert_eq!(answer.status, 404, "{method}: {error}");
        assert_eq!(error["error"]["code"], -32601, "{method}: {error}");
        assert_eq!(error["id"], 5);
    }
    // The raw server answers a method it does not know with -32601: 404 too, as a JSON body.
    let (answer, error) = proxy.modern(json!(6), "no/such", json!({}), &[]).await;
    assert_eq!(answer.status, 404, "{error}");
    assert_eq!(error["id"], 6, "the client's id: {error}");
    // A result that comes first is a JSON body with 200.
    let (answer, echoed) = proxy
        .modern(json!(7), "custom/echo", json!({"a": 1}), &[])
        .await;
    assert_eq!(
        (answer.status, echoed["result"]["a"].clone()),
        (200, json!(1))
    );
    proxy.stop().await;
}

async fn a_principal_never_reads_what_another_stored_and_never_enters_its_session() {
    let tokens_dir = tempfile::tempdir().unwrap();
    let file = tokens_dir.path().join("tokens");
    let (alice, bob) = (
        overspill_mcp::Tokens::issue("alice").unwrap(),
        overspill_mcp::Tokens::issue("bob").unwrap(),
    );
    std::fs::write(&file, format!("{}\n{}\n", alice.line, bob.line)).unwrap();
    let mut listen = Listen::default();
    listen.auth_tokens = Some(overspill_mcp::Tokens::load(&file).unwrap());
    let proxy = start_raw(listen).await;
    let (alice_auth, bob_auth) = (
        format!("Bearer {}", alice.token),
        format!("Bearer {}", bob.token),
    );
    let as_alice = [("authorization", alice_auth.as_str())];
    let as_bob = [("authorization", bob_auth.as_str())];
    let file = proxy.modern_pointer(&as_alice).await;
    let head = json!({"name": "head", "arguments": {"file": file}});
    let text = |answer: &Value| {
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (_, bobs) = proxy
        .modern(json!(2), "tools/call", head.clone(), &as_bob)
        .await;
    assert!(text(&bobs).contains("not_found"), "{bobs}");
    // Another agent of alice's (named by the client) has its own budget, and her results.
    let as_alices_worker = [
        ("authorization", alice_auth.as_str()),
        ("overspill-agent", "worker-1"),
    ];
    let (_, worker) = proxy
        .modern(json!(3), "tools/call", head, &as_alices_worker)
        .await;
    assert!(!text(&worker).contains("not_found"), "{worker}");
    // A session alice opened is no session for bob.
    let opened = proxy.post(None, initialize_request(), &as_alice).await;
    let session = opened.session.unwrap();
    let list = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"});
    let bobs = proxy.post(Some(&session), list.clone(), &as_bob).await;
    assert_eq!(bobs.status, 404);
    let alices = proxy.post(Some(&session), list, &as_alice).await;
    assert_eq!(alices.status, 200);
    proxy.stop().await;
}

async fn an_argument_the_tool_mirrors_into_a_header_must_come_with_it() {
    let proxy = start_raw(Listen::default()).await;
    let (listed, _) = proxy.modern(json!(1), "tools/list", json!({}), &[]).await;
    assert_eq!(listed.status, 200);
    let call = json!({"name": "progress", "arguments": {"region": "eu-west 1"}});
    let (without, answer) = proxy
        .modern(json!(2), "tools/call", call.clone(), &[])
        .await;
    assert_eq!(without.status, 400, "{answer}");
    assert_eq!(answer["error"]["code"], -32020, "{answer}");
    let (wrong, answer) = proxy
        .modern(
            json!(3),
            "tools/call",
            call.clone(),
            &[("mcp-param-region", "us")],
        )
        .await;
    assert_eq!(wrong.status, 400, "{answer}");
    let (right, answer) = proxy
        .modern(
            json!(4),
            "tools/call",
            call,
            &[("mcp-param-region", "eu-west 1")],
        )
        .await;
    assert_eq!(right.status, 200, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "done", "{answer}");
    proxy.stop().await;
}

async fn two_instances_sharing_a_directory_keep_one_budget_per_agent() {
    let shared = tempfile::tempdir().unwrap();
    let start_one = || {
        serve_on(
            Listen::default(),
            None,
            fixture_options_with(&["--raw"]),
            tempfile::tempdir().unwrap(),
            shared.path().to_owned(),
            // Room for a few extractions only.
            40_000,
        )
    };
    let (one, two) = (start_one().await, start_one().await);
    let file = one.modern_pointer(&[]).await;
    let head = json!({"name": "head", "arguments": {"file": file, "lines": 40}});
    let remaining = |answer: &Value| -> u64 {
        let text = answer["result"]["content"][0]["text"].as_str().unwrap();
        let hint = text
            .lines()
            .rev()
            .find(|line| line.contains("budget tokens left"))
            .unwrap_or_else(|| panic!("no budget line: {text}"));
        // `… | ~29,038 of 32,000 budget tokens left ---`
        let hint = hint.rsplit('|').next().unwrap();
        hint.split(" of ")
            .next()
            .unwrap()
            .chars()
            .filter(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap()
    };
    // The same agent explores through one instance, then the other, in turn: each sees what
    // the other charged.
    let mut left = Vec::new();
    for (n, proxy) in [&one, &two, &one, &two].into_iter().enumerate() {
        let (_, answer) = proxy
            .modern(json!(10 + n), "tools/call", head.clone(), &[])
            .await;
        left.push(remaining(&answer));
    }
    let step = left[0] - left[1];
    assert!(step > 0, "{left:?}");
    assert_eq!(
        left,
        [
            left[0],
            left[0] - step,
            left[0] - 2 * step,
            left[0] - 3 * step
        ]
    );
    // Another agent of the same principal has a budget of its own.
    let (_, other) = two
        .modern(
            json!(20),
            "tools/call",
            head,
            &[("overspill-agent", "worker-1")],
        )
        .await;
    assert_eq!(remaining(&other), left[0], "{other}");
    one.stop().await;
    two.stop().await;
}

async fn a_2026_07_28_client_that_closes_its_stream_cancels_its_request() {
    let proxy = start_raw(Listen::default()).await;
    // The raw server's `late` holds its one reader until the call is cancelled: nothing else
    // is answered before the server hears of it.
    let (body, headers) = modern(
        json!(1),
        "tools/call",
        json!({"name": "late", "arguments": {}}),
    );
    // A client of its own connection, so that going away closes it for certain.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let address = proxy
        .url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let body = body.to_string();
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in &headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let mut connection = tokio::net::TcpStream::connect(&address).await.unwrap();
    connection
        .write_all(format!("{head}\r\n{body}").as_bytes())
        .await
        .unwrap();
    // No answer comes within half a second: the client gives up and closes its connection.
    let mut nothing = [0u8; 1];
    let gave_up =
        tokio::time::timeout(Duration::from_millis(500), connection.read(&mut nothing)).await;
    assert!(gave_up.is_err(), "no answer before the cancellation");
    drop(connection);
    let (_, echoed) = tokio::time::timeout(
        Duration::from_secs(60),
        proxy.modern(json!(2), "custom/echo", json!({"after": "cancel"}), &[]),
    )
    .await
    .expect("the server heard the cancellation and went on");
    assert_eq!(echoed["result"]["after"], "cancel", "{echoed}");
    proxy.stop().await;
}

// ---- Resumable streams (2025-11-25, SEP-1699) ----

/// The revision whose clients get resumable streams.
const POLLING: &str = "2025-11-25";

impl Proxy {
    /// A POST with the client's `MCP-Protocol-Version` (`version`), as the response came.
    async fn post_at(
        &self,
        session: Option<&str>,
        body: Value,
        version: &str,
    ) -> reqwest::Response {
        let mut request = self
            .http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", version)
            .body(body.to_string());
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send().await.unwrap()
    }

    /// A session whose client speaks `version`: its id, and the events of its `initialize`.
    async fn open_session_at(&self, version: &str) -> (String, Vec<sse_stream::Sse>) {
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "polling-test", "version": "0"}}});
        let response = self.post_at(None, initialize, version).await;
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let events = events_until_end(response).await;
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let accepted = self.post_at(Some(&session), initialized, version).await;
        assert_eq!(accepted.status().as_u16(), 202);
        (session, events)
    }

    /// A GET of `session` at `version`, resuming after the event `last` when given.
    async fn get_at(&self, session: &str, version: &str, last: Option<&str>) -> reqwest::Response {
        let mut request = self
            .http
            .get(&self.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", version);
        if let Some(last) = last {
            request = request.header("last-event-id", last);
        }
        request.send().await.unwrap()
    }
}

/// Every SSE event (comments aside) of `response`, until its stream ends.
async fn events_until_end(response: reqwest::Response) -> Vec<sse_stream::Sse> {
    let mut events = sse_stream::SseByteStream::new(response.bytes_stream());
    let mut all = Vec::new();
    loop {
        let next = tokio::time::timeout(Duration::from_secs(60), events.next())
            .await
            .expect("the stream never ended");
        match next {
            Some(Ok(event)) if event.data.is_some() || event.id.is_some() => all.push(event),
            Some(Ok(_)) => {}
            Some(Err(error)) => panic!("not an event stream: {error}"),
            None => return all,
        }
    }
}

/// The next SSE event (comments aside) of `events`, within `wait`; `None` once it ends or
/// stays quiet.
async fn next_event<S>(events: &mut S, wait: Duration) -> Option<sse_stream::Sse>
where
    S: futures_util::Stream<Item = Result<sse_stream::Sse, sse_stream::Error>> + Unpin,
{
    loop {
        match tokio::time::timeout(wait, events.next()).await {
            Ok(Some(Ok(event))) if event.data.is_some() || event.id.is_some() => {
                return Some(event);
            }
            Ok(Some(Ok(_))) => {}
            _ => return None,
        }
    }
}

/// An event id as `--listen` writes it: its stream and its place there.
fn place(id: &str) -> (u64, u64) {
    let (stream, place) = id.split_once('-').expect("an id is <stream>-<place>");
    (stream.parse().unwrap(), place.parse().unwrap())
}

/// The JSON message an event carries (none for a priming event).
fn message_of(event: &sse_stream::Sse) -> Option<Value> {
    let data = event.data.as_deref().filter(|data| !data.is_empty())?;
    Some(serde_json::from_str(data).unwrap())
}

async fn a_2025_11_25_post_stream_opens_with_a_priming_event_and_a_retry_and_numbers_every_event() {
    let proxy = start(Listen::default()).await;
    let (session, initialized) = proxy.open_session_at(POLLING).await;
    let priming = &initialized[0];
    assert_eq!(priming.data.as_deref(), Some(""), "{initialized:?}");
    assert_eq!(priming.retry, Some(1000));
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "progress", "arguments": {}, "_meta": {"progressToken": "p-5"}}});
    let response = proxy.post_at(Some(&session), call, POLLING).await;
    assert_eq!(
        response.headers()["x-accel-buffering"],
        "no",
        "a reverse proxy passes each event on as it comes"
    );
    let text = response.text().await.unwrap();
    // The priming event comes first, exactly so: an id, the retry delay and an empty data line.
    let (head, _) = text.split_once("\n\n").unwrap();
    let (stream, _) = place(head.strip_prefix("id: ").unwrap().lines().next().unwrap());
    assert_eq!(
        head,
        format!("id: {stream}-0\nretry: 1000\ndata: "),
        "{text}"
    );
    let body = futures_util::stream::iter([Ok::<_, std::io::Error>(axum::body::Bytes::from(text))]);
    let events: Vec<sse_stream::Sse> = sse_stream::SseByteStream::new(body)
        .filter_map(|event| async move { event.ok().filter(|event| event.id.is_some()) })
        .collect()
        .await;
    let places: Vec<(u64, u64)> = events
        .iter()
        .map(|event| place(event.id.as_deref().unwrap()))
        .collect();
    assert_eq!(
        places,
        [(stream, 0), (stream, 1), (stream, 2), (stream, 3)],
        "every event has an id of its stream, in order: {events:?}"
    );
    let methods: Vec<String> = events[1..]
        .iter()
        .filter_map(message_of)
        .map(|m| m["method"].as_str().unwrap_or("(response)").to_owned())
        .collect();
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/progress",
            "(response)"
        ]
    );
    proxy.stop().await;
}

async fn a_client_that_lost_its_post_stream_resumes_it_with_last_event_id_and_gets_what_it_missed()
{
    let proxy = start(Listen::default()).await;
    let (session, _) = proxy.open_session_at(POLLING).await;
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "sleep", "arguments": {"ms": 1_500}, "_meta": {"progressToken": "p-9"}}});
    let response = proxy.post_at(Some(&session), call, POLLING).await;
    let mut events = sse_stream::SseByteStream::new(response.bytes_stream());
    let priming = next_event(&mut events, Duration::from_secs(20))
        .await
        .and_then(|event| event.id)
        .expect("a priming event");
    // The connection goes before the answer: the client comes back with the priming event's id.
    drop(events);
    let resumed = proxy.get_at(&session, POLLING, Some(&priming)).await;
    assert_eq!(resumed.status().as_u16(), 200);
    let events = events_until_end(resumed).await;
    let messages: Vec<Value> = events.iter().filter_map(message_of).collect();
    assert_eq!(
        messages[0]["params"]["progressToken"], "p-9",
        "the progress sent meanwhile is replayed: {messages:?}"
    );
    let answer = messages.last().unwrap();
    assert_eq!(answer["id"], 9, "{messages:?}");
    assert_eq!(answer["result"]["content"][0]["text"], "slept");
    let (stream, _) = place(&priming);
    let places: Vec<(u64, u64)> = events
        .iter()
        .map(|event| place(event.id.as_deref().unwrap()))
        .collect();
    assert_eq!(places, [(stream, 1), (stream, 2)], "{events:?}");
    // The stream has ended and its client had it all: nothing more.
    let last = events.last().and_then(|event| event.id.clone()).unwrap();
    let again = proxy.get_at(&session, POLLING, Some(&last)).await;
    assert_eq!(again.status().as_u16(), 204);
    // An id this proxy never wrote, or of a stream the session never had.
    for foreign in ["not-an-id", "999-1"] {
        let refused = proxy.get_at(&session, POLLING, Some(foreign)).await;
        assert_eq!(refused.status().as_u16(), 400, "{foreign}");
    }
    proxy.stop().await;
}

async fn clients_of_2025_06_18_and_2026_07_28_get_no_priming_event_and_no_event_ids() {
    let proxy = start(Listen::default()).await;
    let (session, initialized) = proxy.open_session_at("2025-06-18").await;
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "progress", "arguments": {}, "_meta": {"progressToken": "p-5"}}});
    let text = proxy
        .post_at(Some(&session), call, "2025-06-18")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        !text.contains("id:") && !text.contains("retry:") && !text.contains("data: \n"),
        "{text}"
    );
    assert!(
        initialized
            .iter()
            .all(|event| event.id.is_none() && message_of(event).is_some()),
        "{initialized:?}"
    );
    proxy.stop().await;

    // 2026-07-28 supports no Last-Event-ID: an answer that streams (progress first) has no ids.
    let proxy = start_raw(Listen::default()).await;
    let (body, headers) = modern(
        json!(1),
        "tools/call",
        json!({"name": "progress", "arguments": {}}),
    );
    let mut body = body;
    body["params"]["_meta"]["progressToken"] = json!("p-1");
    let mut request = proxy
        .http
        .post(&proxy.url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string());
    for (name, value) in &headers {
        request = request.header(name, value);
    }
    let response = request.send().await.unwrap();
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let text = response.text().await.unwrap();
    assert!(text.contains("notifications/progress"), "{text}");
    assert!(
        !text.contains("id:") && !text.contains("retry:") && !text.contains("data: \n"),
        "{text}"
    );
    proxy.stop().await;
}

async fn a_session_keeps_only_its_latest_1024_events_for_a_client_that_resumes() {
    let proxy = start(Listen::default()).await;
    let (session, _) = proxy.open_session_at(POLLING).await;
    let get = proxy.get_at(&session, POLLING, None).await;
    assert_eq!(get.status().as_u16(), 200);
    let mut live = sse_stream::SseByteStream::new(get.bytes_stream());
    let priming = next_event(&mut live, Duration::from_secs(20))
        .await
        .and_then(|event| event.id)
        .expect("a priming event");
    // More events than a session keeps, all on the GET stream.
    let count = 1_100;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "notify_later", "arguments": {"count": count}}});
    let answered = events_until_end(proxy.post_at(Some(&session), call, POLLING).await).await;
    assert!(answered.iter().filter_map(message_of).any(|m| m["id"] == 1));
    let mut last = String::new();
    for number in 0..count {
        let event = next_event(&mut live, Duration::from_secs(20))
            .await
            .unwrap_or_else(|| panic!("note {number} never came"));
        last = event.id.unwrap();
    }
    let (stream, newest) = place(&last);
    assert_eq!(newest, count);
    // Resumed from its very start: only the latest 1,024 are replayed, the newest last.
    let resumed = proxy.get_at(&session, POLLING, Some(&priming)).await;
    assert_eq!(resumed.status().as_u16(), 200);
    let mut replayed = sse_stream::SseByteStream::new(resumed.bytes_stream());
    let mut places = Vec::new();
    while let Some(event) = next_event(&mut replayed, Duration::from_secs(2)).await {
        places.push(place(event.id.as_deref().unwrap()));
    }
    let expected: Vec<(u64, u64)> = (count - 1_023..=count).map(|at| (stream, at)).collect();
    assert_eq!(places.len(), expected.len(), "{places:?}");
    assert_eq!(places, expected);
    proxy.stop().await;
}

/// A Streamable HTTP server that polls (SEP-1699): a call of its one tool, `poll`, is
/// answered on a stream it closes right after the priming event, and the answer goes to the
/// GET that resumes that stream. Its URL.
async fn polling_server() -> String {
    use axum::http::{HeaderMap, Method, StatusCode, header};
    use axum::response::IntoResponse;
    let pending = Arc::new(std::sync::Mutex::new(Value::Null));
    let handler = move |method: Method, headers: HeaderMap, body: String| {
        let pending = Arc::clone(&pending);
        async move {
            let sse = |text: String| {
                ([(header::CONTENT_TYPE, "text/event-stream")], text).into_response()
            };
            let json_answer = |id: &Value, result: Value| {
                let body = json!({"jsonrpc": "2.0", "id": id, "result": result});
                (
                    [
                        (header::CONTENT_TYPE, "application/json"),
                        (
                            header::HeaderName::from_static("mcp-session-id"),
                            "polled-session",
                        ),
                    ],
                    body.to_string(),
                )
                    .into_response()
            };
            if method == Method::GET {
                return match headers.get("last-event-id") {
                    Some(last) if last == "call-0" => {
                        let id = pending.lock().unwrap().clone();
                        let answer = json!({"jsonrpc": "2.0", "id": id, "result": {
                            "content": [{"type": "text", "text": "polled"}]}});
                        sse(format!("id: call-1\ndata: {answer}\n\n"))
                    }
                    _ => StatusCode::METHOD_NOT_ALLOWED.into_response(),
                };
            }
            if method != Method::POST {
                return StatusCode::OK.into_response();
            }
            let message: Value = serde_json::from_str(&body).unwrap_or_default();
            let id = message["id"].clone();
            match message["method"].as_str() {
                Some("initialize") => json_answer(
                    &id,
                    json!({"protocolVersion": POLLING, "capabilities": {"tools": {}},
                           "serverInfo": {"name": "poller", "version": "0"}}),
                ),
                Some("tools/list") => json_answer(
                    &id,
                    json!({"tools": [{"name": "poll", "inputSchema": {"type": "object"}}]}),
                ),
                Some("tools/call") => {
                    *pending.lock().unwrap() = id;
                    sse("id: call-0\nretry: 100\ndata: \n\n".to_owned())
                }
                _ if id.is_null() => StatusCode::ACCEPTED.into_response(),
                _ => json_answer(&id, json!({})),
            }
        }
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let router = axum::Router::new().route("/mcp", axum::routing::any(handler));
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

async fn a_url_server_that_closes_its_stream_before_answering_has_the_client_resume_it_too() {
    let upstream = polling_server().await;
    let options = overspill_mcp::ProxyOptions::remote(
        "poller",
        overspill_mcp::Remote::new(&upstream).unwrap(),
    );
    let proxy = start_serving(Listen::default(), None, options).await;
    let (session, _) = proxy.open_session_at(POLLING).await;
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "poll", "arguments": {}}});
    let first = events_until_end(proxy.post_at(Some(&session), call, POLLING).await).await;
    assert!(
        first.iter().all(|event| message_of(event).is_none()),
        "the client's stream closes after its priming event, as the server's did: {first:?}"
    );
    let priming = first[0].id.clone().unwrap();
    let resumed = proxy.get_at(&session, POLLING, Some(&priming)).await;
    assert_eq!(resumed.status().as_u16(), 200);
    let messages: Vec<Value> = events_until_end(resumed)
        .await
        .iter()
        .filter_map(message_of)
        .collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0]["id"], 3);
    assert_eq!(messages[0]["result"]["content"][0]["text"], "polled");
    proxy.stop().await;
}

cases!(
    a_2025_11_25_post_stream_opens_with_a_priming_event_and_a_retry_and_numbers_every_event,
    a_client_that_lost_its_post_stream_resumes_it_with_last_event_id_and_gets_what_it_missed,
    clients_of_2025_06_18_and_2026_07_28_get_no_priming_event_and_no_event_ids,
    a_session_keeps_only_its_latest_1024_events_for_a_client_that_resumes,
    a_url_server_that_closes_its_stream_before_answering_has_the_client_resume_it_too,
    two_instances_sharing_a_directory_keep_one_budget_per_agent,
    an_argument_the_tool_mirrors_into_a_header_must_come_with_it,
    a_2026_07_28_client_that_closes_its_stream_cancels_its_request,
    a_2026_07_28_client_is_served_without_a_session_and_explores_its_pointer,
    two_clients_of_one_agent_sending_the_same_id_at_once_each_get_their_own_answer,
    headers_that_do_not_match_the_body_are_refused_with_header_mismatch,
    a_protocol_version_the_proxy_does_not_speak_is_the_servers_to_refuse_or_the_gateways,
    a_method_the_revision_removed_is_404_and_an_error_of_the_server_has_its_status,
    a_principal_never_reads_what_another_stored_and_never_enters_its_session,
    a_thousand_sessions_with_random_arguments_add_no_series,
    an_ended_session_lets_go_of_its_relay_and_scratchpad,
    a_call_cut_off_by_the_end_of_its_session_is_counted_unanswered,
    two_http_clients_get_separate_sessions_budgets_and_files,
    delete_ends_the_session_and_its_child,
    stopping_the_proxy_closes_every_session_stops_every_child_and_keeps_stored_files,
    progress_goes_on_the_stream_of_its_call_even_with_a_get_stream_open,
    a_rebound_host_without_an_origin_is_refused_with_403,
    a_cross_origin_request_is_refused_with_403,
    a_missing_or_wrong_bearer_token_is_refused_with_401,
    limits_on_sessions_and_bodies_answer_with_their_status,
    a_body_is_refused_unread_without_the_token_or_over_the_limit,
    a_cancelled_call_ends_its_stream_and_leaves_the_session_idle,
    a_client_that_never_finishes_its_request_does_not_keep_the_proxy_from_stopping,
    what_the_server_sends_on_its_own_reaches_the_get_stream,
    what_the_server_sent_with_no_stream_open_reaches_the_next_get_stream_whole_and_in_order,
    a_hundred_clients_that_never_delete_are_all_served_and_the_idle_ones_reclaimed,
    fifty_initializes_at_once_never_open_more_sessions_than_the_limit,
    the_least_recently_used_idle_session_is_reclaimed_first,
    a_session_with_an_open_stream_or_a_call_in_flight_is_never_reclaimed,
);

fn main() {
    main_with("listen", CASES, fixture::run);
}
