//! `--url`: the proxy in front of a remote server over Streamable HTTP. The server is the
//! fixture (`support/fixture.rs`) served by rmcp's own Streamable HTTP server on a loopback
//! port, in SSE and in JSON answer mode, behind a small layer that can demand a bearer token,
//! forget sessions, and record the requests it saw.

// A test binary without libtest (`harness = false`): clippy.toml's test allowance does not reach it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/fixture.rs"]
mod fixture;
#[path = "support/harness.rs"]
#[allow(dead_code)]
mod harness;
#[path = "support/raw_server.rs"]
#[allow(dead_code)]
mod raw_server;

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
use serde_json::json;

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
    assert_eq!(note["params"]["data"], "sent after the call returned");
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

cases!(
    a_remote_server_answering_with_event_streams_is_relayed_and_large_results_stored,
    a_remote_server_answering_with_json_is_relayed_and_large_results_stored,
    a_header_from_an_environment_variable_reaches_the_server,
    a_stateless_request_reaches_the_server_with_its_method_name_and_version_headers,
    a_401_tells_the_client_and_the_proxy_what_to_do_without_showing_the_token,
    a_session_the_server_forgot_is_a_clear_error,
    messages_the_server_sends_on_its_own_arrive_over_the_get_stream,
);

fn main() {
    #[allow(unsafe_code)]
    // SAFETY: no other thread exists yet (the runtime starts in `main_with`).
    unsafe {
        std::env::set_var("OVERSPILL_TEST_REMOTE_TOKEN", "s3cret-from-the-environment");
    }
    main_with("remote", CASES, fixture::run);
}
