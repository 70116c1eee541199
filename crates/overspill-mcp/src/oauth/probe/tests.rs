use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{HeaderMap as Headers, Method};
use axum::response::{IntoResponse, Response};

use super::*;

const CHALLENGE: &str =
    r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource""#;
const SCOPE_CHALLENGE: &str = r#"Bearer error="insufficient_scope", scope="files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource""#;

fn base() -> Url {
    Url::parse("https://mcp.example.com/mcp").unwrap()
}

fn discover(status: u16, challenge: Option<&str>, message: Option<Value>) -> Option<Probe> {
    verdict(
        Asked::Discover,
        StatusCode::from_u16(status).unwrap(),
        challenge,
        message.as_ref(),
        &base(),
    )
}

fn initialize(status: u16, challenge: Option<&str>) -> Option<Probe> {
    verdict(
        Asked::Initialize,
        StatusCode::from_u16(status).unwrap(),
        challenge,
        None,
        &base(),
    )
}

fn error(code: i64, data: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "error": {"code": code, "message": "no", "data": data}})
}

#[test]
fn a_401_to_server_discover_is_the_challenge_and_initialize_is_never_sent() {
    assert_eq!(
        discover(401, Some(CHALLENGE), None),
        Some(Probe::Refused(Some(CHALLENGE.to_owned())))
    );
    assert_eq!(discover(401, None, None), Some(Probe::Refused(None)));
}

#[test]
fn a_403_insufficient_scope_to_either_request_is_the_challenge_with_its_scopes() {
    let expected = Some(Probe::Refused(Some(SCOPE_CHALLENGE.to_owned())));
    assert_eq!(discover(403, Some(SCOPE_CHALLENGE), None), expected);
    assert_eq!(initialize(403, Some(SCOPE_CHALLENGE)), expected);
}

#[test]
fn a_403_without_insufficient_scope_is_no_challenge_and_calls_for_initialize() {
    assert_eq!(
        discover(403, Some(r#"Bearer error="invalid_token""#), None),
        None
    );
    assert_eq!(initialize(403, None), Some(Probe::Refused(None)));
}

#[test]
fn a_discover_result_is_a_2026_07_28_server_open_to_the_probe() {
    let result = json!({"jsonrpc": "2.0", "id": 0, "result": {
        "supportedVersions": ["2026-07-28"], "capabilities": {}, "resultType": "complete"}});
    assert_eq!(discover(200, None, Some(result)), Some(Probe::Open(200)));
}

#[test]
fn an_error_only_2026_07_28_defines_is_a_modern_refusal_not_a_reason_for_initialize() {
    assert_eq!(
        discover(400, None, Some(error(-32020, Value::Null))),
        Some(Probe::Refused(None))
    );
    assert_eq!(
        discover(400, None, Some(error(-32021, Value::Null))),
        Some(Probe::Refused(None))
    );
    // Only revisions newer than overspill's: nothing to fall back to.
    assert_eq!(
        discover(
            400,
            None,
            Some(error(-32022, json!({"supported": ["2099-01-01"]})))
        ),
        Some(Probe::Refused(None))
    );
}

#[test]
fn an_unsupported_version_error_offering_a_session_revision_calls_for_initialize() {
    let offered = error(
        -32022,
        json!({"supported": ["2025-11-25", "2025-06-18"], "requested": "2026-07-28"}),
    );
    assert_eq!(discover(400, None, Some(offered)), None);
}

#[test]
fn a_legacy_servers_answers_to_server_discover_call_for_initialize() {
    // A session server without a session, a stateless one without the method, an empty 4xx,
    // a server of the deprecated HTTP+SSE transport.
    let no_session = error(-32000, Value::Null);
    assert_eq!(discover(400, None, Some(no_session)), None);
    assert_eq!(discover(200, None, Some(error(-32601, Value::Null))), None);
    assert_eq!(discover(404, None, Some(error(-32601, Value::Null))), None);
    assert_eq!(discover(400, None, None), None);
    assert_eq!(discover(405, None, None), None);
    // A result refused by status is no answer either.
    let result = json!({"jsonrpc": "2.0", "id": 0, "result": {}});
    assert_eq!(discover(500, None, Some(result)), None);
}

#[test]
fn the_answer_to_initialize_is_final() {
    assert_eq!(
        initialize(401, Some(CHALLENGE)),
        Some(Probe::Refused(Some(CHALLENGE.to_owned())))
    );
    assert_eq!(initialize(200, None), Some(Probe::Open(200)));
    assert_eq!(initialize(400, None), Some(Probe::Refused(None)));
    assert_eq!(initialize(404, None), Some(Probe::Refused(None)));
}

#[test]
fn the_first_response_of_a_stream_is_found_after_its_notifications() {
    let stream = "event: message\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\r\n\r\n\
                  data: {\"jsonrpc\":\"2.0\",\r\ndata:\"id\":0,\"result\":{}}\r\n\r\n\
                  data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"later\":true}}\r\n\r\n";
    assert_eq!(
        first_response(stream),
        Some(json!({"jsonrpc": "2.0", "id": 0, "result": {}}))
    );
    assert_eq!(first_response(": keep-alive\n\n"), None);
    // A response cut short is no response yet.
    assert_eq!(
        first_response("data: {\"jsonrpc\":\"2.0\",\"id\":0,\"res"),
        None
    );
}

#[test]
fn server_discover_carries_the_2026_07_28_envelope() {
    let request: Value = serde_json::from_str(&discover_request()).unwrap();
    let meta = &request["params"]["_meta"];
    assert_eq!(request["method"], "server/discover");
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(
        meta["io.modelcontextprotocol/clientInfo"]["name"],
        "overspill"
    );
    assert_eq!(
        meta["io.modelcontextprotocol/clientCapabilities"],
        json!({})
    );
    let initialize: Value = serde_json::from_str(&initialize_request()).unwrap();
    assert_eq!(initialize["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(initialize["jsonrpc"], "2.0");
}

/// What a test server saw: each request's HTTP method, JSON-RPC method and `MCP-Protocol-Version`.
type Seen = Arc<Mutex<Vec<String>>>;
/// How a test server answers a request (its HTTP method, headers and JSON body).
type Answer = fn(&Method, &Headers, &Value) -> Response;

/// Serves `answer` on `/mcp`, recording each request; returns the endpoint's URL.
async fn serve(answer: fn(&Method, &Headers, &Value) -> Response, seen: Seen) -> String {
    async fn handle(
        State((answer, seen)): State<(Answer, Seen)>,
        method: Method,
        headers: Headers,
        body: String,
    ) -> Response {
        let message: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        let version = headers
            .get("mcp-protocol-version")
            .and_then(|value| value.to_str().ok());
        let said: Vec<&str> = [Some(method.as_str()), message["method"].as_str(), version]
            .into_iter()
            .flatten()
            .collect();
        seen.lock().unwrap().push(said.join(" "));
        answer(&method, &headers, &message)
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let router = axum::Router::new()
        .route("/mcp", axum::routing::any(handle))
        .with_state((answer, seen));
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

fn json_answer(status: u16, body: Value) -> Response {
    (
        StatusCode::from_u16(status).unwrap(),
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}

#[tokio::test]
async fn a_legacy_server_open_to_initialize_is_probed_with_initialize_and_its_session_closed() {
    fn legacy(method: &Method, _: &Headers, message: &Value) -> Response {
        match (method.as_str(), message["method"].as_str()) {
            ("POST", Some("initialize")) => (
                StatusCode::OK,
                [
                    ("content-type", "application/json"),
                    ("mcp-session-id", "s-1"),
                ],
                json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25",
                       "capabilities": {}, "serverInfo": {"name": "old", "version": "1"}}})
                .to_string(),
            )
                .into_response(),
            ("DELETE", _) => StatusCode::OK.into_response(),
            _ => json_answer(
                400,
                json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000,
                       "message": "Bad Request: No valid session ID provided"}}),
            ),
        }
    }
    let seen = Seen::default();
    let url = serve(legacy, seen.clone()).await;
    assert_eq!(probe(&url).await.unwrap(), Probe::Open(200));
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "POST server/discover 2026-07-28",
            "POST initialize",
            "DELETE"
        ]
    );
}

#[tokio::test]
async fn a_server_that_opens_only_initialize_gives_its_challenge_to_server_discover() {
    fn guarded(_: &Method, headers: &Headers, message: &Value) -> Response {
        if message["method"] == "initialize" || headers.contains_key("authorization") {
            return json_answer(200, json!({"jsonrpc": "2.0", "id": 0, "result": {}}));
        }
        (
            StatusCode::UNAUTHORIZED,
            [("www-authenticate", r#"Bearer scope="mcp:basic""#)],
        )
            .into_response()
    }
    let seen = Seen::default();
    let url = serve(guarded, seen.clone()).await;
    assert_eq!(
        probe(&url).await.unwrap(),
        Probe::Refused(Some(r#"Bearer scope="mcp:basic""#.to_owned()))
    );
    assert_eq!(*seen.lock().unwrap(), ["POST server/discover 2026-07-28"]);
}

#[tokio::test]
async fn a_modern_server_answering_over_sse_is_open_without_initialize() {
    fn modern(_: &Method, headers: &Headers, _: &Value) -> Response {
        assert_eq!(headers["mcp-method"], "server/discover");
        (
            StatusCode::OK,
            [("content-type", "text/event-stream")],
            "data: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"supportedVersions\":[\"2026-07-28\"],\
             \"capabilities\":{},\"resultType\":\"complete\"}}\n\n",
        )
            .into_response()
    }
    let seen = Seen::default();
    let url = serve(modern, seen.clone()).await;
    assert_eq!(probe(&url).await.unwrap(), Probe::Open(200));
    assert_eq!(*seen.lock().unwrap(), ["POST server/discover 2026-07-28"]);
}

#[test]
fn only_a_challenge_that_is_insufficient_scope_asks_for_scope_not_one_that_mentions_it() {
    let base = Url::parse("https://mcp.example/mcp").unwrap();
    assert!(asks_for_scope(
        r#"Bearer error="insufficient_scope", scope="files:read files:write""#,
        &base
    ));
    assert!(!asks_for_scope(
        r#"Bearer error="invalid_token", error_description="not insufficient_scope: expired""#,
        &base
    ));
    assert!(!asks_for_scope("Bearer", &base));
}
