//! `--url`: the proxy in front of a remote server over Streamable HTTP. The server is the
//! fixture (`support/fixture.rs`) served by rmcp's own Streamable HTTP server on a loopback
//! port, in SSE and in JSON answer mode, behind a small layer that can demand a bearer token,
//! forget sessions, and record the requests it saw.

// A test binary without libtest (`harness = false`): clippy.toml's test allowance does not reach it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::{fixture, harness};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use overspill::Scratchpad;
use overspill_mcp::{ProxyError, ProxyOptions, Remote, parse_header};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};

use harness::*;

/// What the layer in front of the fixture does and saw.
#[derive(Default)]
struct Gate {
    /// The `Authorization` value required, if any.
    token: Option<String>,
    /// Answer 404 to every request that names a session.
    forget_sessions: AtomicBool,
    /// Method and session id of each request seen.
    seen: Mutex<Vec<(String, Option<String>)>>,
    /// The `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers of each POST.
    mirrored: Mutex<Vec<[Option<String>; 3]>>,
}

async fn gate(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    let session = request
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    gate.seen
        .lock()
        .unwrap()
        .push((request.method().to_string(), session.clone()));
    if request.method() == axum::http::Method::POST {
        let header = |name: &str| {
            let value = request.headers().get(name)?.to_str().ok()?;
            Some(value.to_owned())
        };
        gate.mirrored.lock().unwrap().push([
            header("mcp-protocol-version"),
            header("mcp-method"),
            header("mcp-name"),
        ]);
    }
    if let Some(token) = &gate.token {
        let given = request
            .headers()
            .get("authorization")
            .and_then(|value| value.to_str().ok());
        if given != Some(token.as_str()) {
            return (
                axum::http::StatusCode::UNAUTHORIZED,
                [(
                    "www-authenticate",
                    "Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource\"",
                )],
            )
                .into_response();
        }
    }
    if session.is_some() && gate.forget_sessions.load(Ordering::SeqCst) {
        return axum::http::StatusCode::NOT_FOUND.into_response();
    }
    next.run(request).await
}

/// Serves the fixture over Streamable HTTP on a loopback port; returns its URL.
async fn serve_fixture(gate: Arc<Gate>, json_response: bool) -> String {
    let mut config = StreamableHttpServerConfig::default();
    config.json_response = json_response;
    let service = StreamableHttpService::new(
        || Ok(fixture::Fixture::default()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(gate, self::gate));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}/mcp")
}

fn scratchpad(dir: &std::path::Path) -> Scratchpad {
    Scratchpad::builder()
        .scratchpad_dir(dir)
        .context_window(128_000)
        .intercept_all(5120)
        .build()
        .unwrap()
}

async fn through_the_proxy(remote: Remote) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let scratch = scratchpad(dir.path());
    start_with(scratch, dir, ProxyOptions::remote("fixture", remote)).await
}

async fn lists_calls_and_stores(json_response: bool) {
    let gate = Arc::new(Gate::default());
    let url = serve_fixture(Arc::clone(&gate), json_response).await;
    let session = through_the_proxy(Remote::new(&url).unwrap()).await;
    let tools = session.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert!(
        names.contains(&"small") && names.contains(&"head"),
        "{names:?}"
    );
    let small = call(&session, "small", json!({})).await;
    assert_eq!(only_text(&small), fixture::SMALL);
    let big = call(&session, "big", json!({"bytes": 2_000_000})).await;
    let file = pointer_file(only_text(&big));
    let stored = std::fs::read_to_string(session.dir.path().join(&file)).unwrap();
    let stored: serde_json::Value = serde_json::from_str(&stored).unwrap();
    let sent: serde_json::Value = serde_json::from_str(&fixture::big_json(2_000_000)).unwrap();
    assert!(
        stored == sent,
        "the stored document is the one the server sent"
    );
    let head = call(&session, "head", json!({"file": file, "lines": 2})).await;
    assert!(
        only_text(&head).contains("\"kind\""),
        "{}",
        only_text(&head)
    );
    session.client.cancel().await.unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(10), session.proxy)
        .await
        .unwrap()
        .unwrap();
    assert!(ended.is_ok(), "{ended:?}");
    let seen = gate.seen.lock().unwrap().clone();
    let session_id = seen.iter().find_map(|(_, id)| id.clone());
    assert!(
        session_id.is_some(),
        "the session id rides on later requests: {seen:?}"
    );
    assert!(
        seen.iter()
            .any(|(method, id)| method == "DELETE" && *id == session_id),
        "the session is deleted when the client goes: {seen:?}"
    );
}

async fn a_remote_server_answering_with_event_streams_is_relayed_and_large_results_stored() {
    lists_calls_and_stores(false).await;
}

async fn a_remote_server_answering_with_json_is_relayed_and_large_results_stored() {
    lists_calls_and_stores(true).await;
}

async fn a_header_from_an_environment_variable_reaches_the_server() {
    let secret = "Bearer s3cret-from-the-environment";
    let gate = Arc::new(Gate {
        token: Some(secret.to_owned()),
        ..Gate::default()
    });
    let url = serve_fixture(gate, false).await;
    // `main` set OVERSPILL_TEST_REMOTE_TOKEN before any thread started.
    let (name, value) =
        parse_header("Authorization: Bearer ${OVERSPILL_TEST_REMOTE_TOKEN}").unwrap();
    let remote = Remote::new(&url)
        .unwrap()
        .with_header(&name, &value)
        .unwrap();
    assert!(!format!("{remote:?}").contains("s3cret"));
    let session = through_the_proxy(remote).await;
    let small = call(&session, "small", json!({})).await;
    assert_eq!(only_text(&small), fixture::SMALL);
    session.client.cancel().await.unwrap();
}

async fn a_stateless_request_reaches_the_server_with_its_method_name_and_version_headers() {
    let gate = Arc::new(Gate::default());
    let url = serve_fixture(Arc::clone(&gate), true).await;
    let dir = tempfile::tempdir().unwrap();
    let scratch = scratchpad(dir.path());
    let options = ProxyOptions::remote("fixture", Remote::new(&url).unwrap());
    let mut session = RawSession::start(scratch, dir, options);
    // The 2026-07-28 form: no initialize, the envelope in each request's _meta.
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}});
    let id = json!(7);
    session
        .send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "small", "arguments": {}, "_meta": meta}}))
        .await;
    // Whatever the fixture (a server of an earlier revision) makes of it, the request went out
    // with the headers the revision requires.
    let _ = session.response(&id).await;
    let mirrored = gate.mirrored.lock().unwrap().clone();
    let wanted = ["2026-07-28", "tools/call", "small"].map(|v| Some(v.to_owned()));
    assert_eq!(mirrored, [wanted]);
}

/// A server of the stateless revision that serves no method: each request answered 404 with
/// its JSON-RPC error, as the revision has it.
async fn serve_nothing() -> String {
    async fn nothing(request: Request) -> Response {
        let body = axum::body::to_bytes(request.into_body(), 1 << 20)
            .await
            .unwrap_or_default();
        let id = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|value| value.get("id").cloned())
            .unwrap_or(Value::Null);
        let error = json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32601, "message": "no such method here", "data": {"x": 1}}});
        let json = [(axum::http::header::CONTENT_TYPE, "application/json")];
        (axum::http::StatusCode::NOT_FOUND, json, error.to_string()).into_response()
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let router = axum::Router::new().route("/mcp", axum::routing::any(nothing));
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

async fn a_servers_json_rpc_error_with_an_http_error_status_reaches_the_client_as_it_wrote_it() {
    let url = serve_nothing().await;
    let dir = tempfile::tempdir().unwrap();
    let scratch = scratchpad(dir.path());
    let options = ProxyOptions::remote("fixture", Remote::new(&url).unwrap());
    let mut session = RawSession::start(scratch, dir, options);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}});
    let id = json!("q-1");
    session
        .send(json!({"jsonrpc": "2.0", "id": id, "method": "no/such", "params": {"_meta": meta}}))
        .await;
    let answer = session.response(&id).await;
    assert_eq!(
        answer["error"],
        json!({"code": -32601, "message": "no such method here", "data": {"x": 1}}),
        "{answer}"
    );
}

async fn a_401_tells_the_client_and_the_proxy_what_to_do_without_showing_the_token() {
    let gate = Arc::new(Gate {
        token: Some("Bearer right".to_owned()),
        ..Gate::default()
    });
    let url = serve_fixture(gate, false).await;
    let remote = Remote::new(&url)
        .unwrap()
        .with_header("Authorization", "Bearer wrong-secret-value")
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut raw = RawSession::start(
        scratchpad(dir.path()),
        dir,
        ProxyOptions::remote("fixture", remote),
    );
    let response = raw
        .request(
            json!(1),
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}),
        )
        .await;
    let message = response["error"]["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains("HTTP 401") && message.contains("--header"),
        "{message}"
    );
    assert!(message.contains("overspill auth login --url"), "{message}");
    assert!(!message.contains("wrong-secret-value"), "{message}");
    let ended = tokio::time::timeout(Duration::from_secs(10), raw.proxy)
        .await
        .unwrap()
        .unwrap();
    match ended {
        Err(error @ ProxyError::AuthRequired { .. }) => {
            assert!(!error.to_string().contains("wrong-secret-value"), "{error}");
        }
        other => panic!("AuthRequired expected, got {other:?}"),
    }
}

async fn a_session_the_server_forgot_is_a_clear_error() {
    let gate = Arc::new(Gate::default());
    let url = serve_fixture(Arc::clone(&gate), false).await;
    let session = through_the_proxy(Remote::new(&url).unwrap()).await;
    let small = call(&session, "small", json!({})).await;
    assert_eq!(only_text(&small), fixture::SMALL);
    gate.forget_sessions.store(true, Ordering::SeqCst);
    let request = rmcp::model::CallToolRequestParams::new("small");
    let outcome = tokio::time::timeout(Duration::from_secs(20), session.client.call_tool(request))
        .await
        .expect("the call hung");
    let error = outcome.unwrap_err().to_string();
    assert!(error.contains("ended the session"), "{error}");
    let ended = tokio::time::timeout(Duration::from_secs(10), session.proxy)
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(ended, Err(ProxyError::SessionEnded { .. })),
        "{ended:?}"
    );
}

async fn messages_the_server_sends_on_its_own_arrive_over_the_get_stream() {
    let gate = Arc::new(Gate::default());
    let url = serve_fixture(Arc::clone(&gate), false).await;
    let dir = tempfile::tempdir().unwrap();
    let options = ProxyOptions::remote("fixture", Remote::new(&url).unwrap());
    let mut raw = RawSession::start(scratchpad(dir.path()), dir, options);
    raw.initialize_plain().await;
    let answer = raw.call(2, "notify_later", json!({})).await;
    assert_eq!(answer["result"]["content"][0]["text"], "later");
    let note = loop {
        let message = raw.next().await;
        if message["method"] == "notifications/message" {
            break message;
        }
    };
    assert_eq!(note["params"]["data"], "sent after the call returned: 0");
    assert!(
        gate.seen
            .lock()
            .unwrap()
            .iter()
            .any(|(method, _)| method == "GET"),
        "the proxy opened the GET stream"
    );
    raw.proxy.abort();
}

/// A server that sends its own request on the GET stream the moment a call arrives, and drops
/// it when no GET stream is open yet, as the conformance suite's server does; it answers the GET
/// only after `delay` (a slow network).
#[derive(Default)]
struct Eager {
    delay: Duration,
    get: Mutex<Option<tokio::sync::mpsc::Sender<String>>>,
    answers: Mutex<std::collections::HashMap<String, tokio::sync::oneshot::Sender<Value>>>,
}

async fn eager(State(server): State<Arc<Eager>>, request: Request) -> Response {
    use axum::http::{Method, StatusCode};
    if request.method() == Method::GET {
        tokio::time::sleep(server.delay).await;
        let (sender, receiver) = tokio::sync::mpsc::channel::<String>(8);
        *server.get.lock().unwrap() = Some(sender);
        let events = futures_util::stream::unfold(receiver, |mut receiver| async move {
            let text = receiver.recv().await?;
            let event = axum::response::sse::Event::default().data(text);
            Some((Ok::<_, std::convert::Infallible>(event), receiver))
        });
        return axum::response::sse::Sse::new(events).into_response();
    }
    let body = axum::body::to_bytes(request.into_body(), 1 << 20)
        .await
        .unwrap();
    let message: Value = serde_json::from_slice(&body).unwrap();
    let id = message["id"].clone();
    let answer = |result: Value| {
        let text = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
        (
            [
                ("content-type", "application/json"),
                ("mcp-session-id", "eager-1"),
            ],
            text,
        )
            .into_response()
    };
    match message["method"].as_str() {
        Some("initialize") => answer(json!({"protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}}, "serverInfo": {"name": "eager", "version": "0"}})),
        Some("tools/list") => answer(json!({"tools": [
            {"name": "sample", "inputSchema": {"type": "object"}}]})),
        Some("tools/call") => {
            let get = server.get.lock().unwrap().clone();
            let Some(get) = get else {
                // What a real server does with a request it has no stream for: drops it.
                return answer(json!({"content": [{"type": "text", "text": "dropped"}]}));
            };
            let (delivered, answered) = tokio::sync::oneshot::channel();
            server
                .answers
                .lock()
                .unwrap()
                .insert("sampling-1".to_owned(), delivered);
            let request = json!({"jsonrpc": "2.0", "id": "sampling-1",
                "method": "sampling/createMessage", "params": {"maxTokens": 10,
                "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}});
            get.send(request.to_string()).await.unwrap();
            let sampled = tokio::time::timeout(Duration::from_secs(10), answered)
                .await
                .map_or(Value::Null, Result::unwrap);
            let text = sampled["result"]["content"]["text"].clone();
            answer(json!({"content": [{"type": "text", "text": text}]}))
        }
        None if message.get("result").is_some() => {
            let waiting = id
                .as_str()
                .and_then(|id| server.answers.lock().unwrap().remove(id));
            if let Some(waiting) = waiting {
                let _ = waiting.send(message);
            }
            StatusCode::ACCEPTED.into_response()
        }
        _ => StatusCode::ACCEPTED.into_response(),
    }
}

/// Serves [`Eager`] on a loopback port; returns its URL.
async fn serve_eager(delay: Duration) -> String {
    let server = Arc::new(Eager {
        delay,
        ..Eager::default()
    });
    let router = axum::Router::new().route("/mcp", axum::routing::any(eager).with_state(server));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{address}/mcp")
}

async fn a_server_request_sent_the_moment_a_call_arrives_reaches_the_client_despite_a_slow_get() {
    // Each session: the call follows `notifications/initialized` at once, and the server
    // answers the GET 300 ms late. Before the fix every one of these lost its request.
    for session in 0..5 {
        let url = serve_eager(Duration::from_millis(300)).await;
        let dir = tempfile::tempdir().unwrap();
        let options = ProxyOptions::remote("eager", Remote::new(&url).unwrap());
        let mut raw = RawSession::start(scratchpad(dir.path()), dir, options);
        raw.initialize_plain().await;
        raw.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "sample", "arguments": {}}}))
            .await;
        let request = raw.next().await;
        assert_eq!(
            request["method"], "sampling/createMessage",
            "session {session}: the server's request did not arrive first: {request}"
        );
        raw.send(json!({"jsonrpc": "2.0", "id": request["id"], "result": {
            "role": "assistant", "model": "scripted",
            "content": {"type": "text", "text": "sampled"}}}))
            .await;
        let answer = raw.response(&json!(7)).await;
        assert_eq!(
            answer["result"]["content"][0]["text"], "sampled",
            "session {session}: {answer}"
        );
        raw.proxy.abort();
    }
}

cases!(
    a_servers_json_rpc_error_with_an_http_error_status_reaches_the_client_as_it_wrote_it,
    a_remote_server_answering_with_event_streams_is_relayed_and_large_results_stored,
    a_remote_server_answering_with_json_is_relayed_and_large_results_stored,
    a_header_from_an_environment_variable_reaches_the_server,
    a_stateless_request_reaches_the_server_with_its_method_name_and_version_headers,
    a_401_tells_the_client_and_the_proxy_what_to_do_without_showing_the_token,
    a_session_the_server_forgot_is_a_clear_error,
    messages_the_server_sends_on_its_own_arrive_over_the_get_stream,
    a_server_request_sent_the_moment_a_call_arrives_reaches_the_client_despite_a_slow_get,
);

fn main() {
    #[allow(unsafe_code)]
    // SAFETY: no other thread exists yet (the runtime starts in `main_with`).
    unsafe {
        std::env::set_var("OVERSPILL_TEST_REMOTE_TOKEN", "s3cret-from-the-environment");
    }
    main_with("remote", CASES, fixture::run);
}
