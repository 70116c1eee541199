//! OAuth sign-in for `--url`: a test authorization server and a protected MCP server (the
//! fixture behind rmcp's Streamable HTTP server) on one loopback port, a login whose "browser"
//! is a GET of the printed authorization URL that follows the redirect to the loopback
//! callback, and the proxy using, refreshing and re-sending with the stored token. Every log
//! event of the process is captured, so the tests can show that no token is ever in one.

// A test binary without libtest (`harness = false`): clippy.toml's test allowance does not reach it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::capture::{self, LOG};
use support::{fixture, harness};

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::extract::{RawQuery, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use overspill::Scratchpad;
use overspill_mcp::oauth::{self, Login, Notice, OAuthError, TokenStore};
use overspill_mcp::{Metrics, ProxyError, ProxyOptions, Remote};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};

use harness::*;

/// The test authorization server's state, and what it and the MCP server saw.
#[derive(Default)]
struct Server {
    base: OnceLock<String>,
    codes: Mutex<HashMap<String, String>>,
    access: Mutex<HashSet<String>>,
    refresh: Mutex<HashSet<String>>,
    /// Every secret handed out (codes, access and refresh tokens): none may leak.
    issued: Mutex<Vec<String>>,
    /// `expires_in` of the tokens the code exchange issues (refreshes issue an hour).
    first_lifetime: AtomicU64,
    refuse_refresh: AtomicBool,
    refreshes: AtomicUsize,
    unauthorized: AtomicUsize,
    /// `resource` of each token request (RFC 8707).
    resources: Mutex<Vec<String>>,
    counter: AtomicUsize,
}

impl Server {
    fn base(&self) -> &str {
        self.base.get().unwrap()
    }

    fn url(&self) -> String {
        format!("{}/mcp", self.base())
    }

    fn secret(&self, kind: &str) -> String {
        let n = self.counter.fetch_add(1, Ordering::SeqCst);
        let value = format!(
            "{kind}-{n}-{:x}",
            std::process::id() as u64 * 7919 + n as u64
        );
        self.issued.lock().unwrap().push(value.clone());
        value
    }

    /// Makes every access token issued so far invalid, as their expiry would.
    fn expire_access_tokens(&self) {
        self.access.lock().unwrap().clear();
    }

    fn tokens(&self, lifetime: u64) -> Response {
        let access = self.secret("access-tok3n");
        let refresh = self.secret("refresh-tok3n");
        self.access.lock().unwrap().insert(access.clone());
        self.refresh.lock().unwrap().insert(refresh.clone());
        json_response(
            StatusCode::OK,
            json!({"access_token": access, "token_type": "Bearer", "expires_in": lifetime,
                   "refresh_token": refresh, "scope": "mcp"}),
        )
    }
}

fn json_response(status: StatusCode, body: Value) -> Response {
    (
        status,
        [("content-type", "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn form(text: &str) -> HashMap<String, String> {
    reqwest::Url::parse(&format!("http://127.0.0.1/?{text}"))
        .unwrap()
        .query_pairs()
        .map(|(key, value)| (key.into_owned(), value.into_owned()))
        .collect()
}

async fn resource_metadata(State(server): State<Arc<Server>>) -> Response {
    json_response(
        StatusCode::OK,
        json!({"resource": server.url(), "authorization_servers": [server.base()],
               "scopes_supported": ["mcp"]}),
    )
}

async fn authorization_metadata(State(server): State<Arc<Server>>) -> Response {
    let base = server.base();
    json_response(
        StatusCode::OK,
        json!({"issuer": base,
               "authorization_endpoint": format!("{base}/authorize"),
               "token_endpoint": format!("{base}/token"),
               "registration_endpoint": format!("{base}/register"),
               "response_types_supported": ["code"],
               "grant_types_supported": ["authorization_code", "refresh_token"],
               "code_challenge_methods_supported": ["S256"],
               "token_endpoint_auth_methods_supported": ["none"]}),
    )
}

async fn register(body: String) -> Response {
    let request: Value = serde_json::from_str(&body).unwrap();
    json_response(
        StatusCode::CREATED,
        json!({"client_id": "overspill-test-client", "redirect_uris": request["redirect_uris"]}),
    )
}

/// Approves at once: back to the redirect URI with a code and the state.
async fn authorize(State(server): State<Arc<Server>>, RawQuery(query): RawQuery) -> Response {
    let query = form(&query.unwrap_or_default());
    assert_eq!(query["code_challenge_method"], "S256");
    assert!(query.contains_key("code_challenge"));
    assert_eq!(query["resource"], server.url());
    let code = server.secret("c0de");
    let redirect = query["redirect_uri"].clone();
    server
        .codes
        .lock()
        .unwrap()
        .insert(code.clone(), redirect.clone());
    let state = &query["state"];
    Redirect::to(&format!("{redirect}?code={code}&state={state}")).into_response()
}

async fn token(State(server): State<Arc<Server>>, body: String) -> Response {
    let request = form(&body);
    server
        .resources
        .lock()
        .unwrap()
        .push(request.get("resource").cloned().unwrap_or_default());
    let refused = |error: &str| json_response(StatusCode::BAD_REQUEST, json!({"error": error}));
    match request["grant_type"].as_str() {
        "authorization_code" => {
            if server
                .codes
                .lock()
                .unwrap()
                .remove(&request["code"])
                .is_none()
            {
                return refused("invalid_grant");
            }
            assert!(request.contains_key("code_verifier"));
            server.tokens(server.first_lifetime.load(Ordering::SeqCst))
        }
        "refresh_token" => {
            server.refreshes.fetch_add(1, Ordering::SeqCst);
            let known = server
                .refresh
                .lock()
                .unwrap()
                .remove(&request["refresh_token"]);
            if !known || server.refuse_refresh.load(Ordering::SeqCst) {
                return refused("invalid_grant");
            }
            server.tokens(3600)
        }
        _ => refused("unsupported_grant_type"),
    }
}

/// The MCP endpoint's guard: a valid bearer, else 401 naming the resource metadata.
async fn guard(State(server): State<Arc<Server>>, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::to_owned);
    let valid = given.is_some_and(|token| server.access.lock().unwrap().contains(&token));
    if !valid {
        server.unauthorized.fetch_add(1, Ordering::SeqCst);
        let challenge = format!(
            "Bearer error=\"invalid_token\", resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
            server.base()
        );
        return (StatusCode::UNAUTHORIZED, [("www-authenticate", challenge)]).into_response();
    }
    next.run(request).await
}

/// Serves the authorization server and the protected fixture on one loopback port.
async fn serve(first_lifetime: u64) -> Arc<Server> {
    let server = Arc::new(Server::default());
    server
        .first_lifetime
        .store(first_lifetime, Ordering::SeqCst);
    let mcp = StreamableHttpService::new(
        || Ok(fixture::Fixture::default()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let protected =
        axum::Router::new()
            .nest_service("/mcp", mcp)
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&server),
                guard,
            ));
    let router = axum::Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            axum::routing::get(resource_metadata),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            axum::routing::get(authorization_metadata),
        )
        .route("/register", axum::routing::post(register))
        .route("/authorize", axum::routing::get(authorize))
        .route("/token", axum::routing::post(token))
        .with_state(Arc::clone(&server))
        .merge(protected);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    server.base.set(format!("http://{address}")).unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    server
}

/// Runs the login as `overspill auth login --no-browser` does; the "browser" GETs the URL it
/// shows and follows the redirect to the loopback callback. Returns what the user was shown.
async fn sign_in(server: &Server, store: &TokenStore) -> Vec<String> {
    let shown = Arc::new(Mutex::new(Vec::new()));
    let (urls, mut url) = tokio::sync::mpsc::unbounded_channel();
    let notice = {
        let shown = Arc::clone(&shown);
        Notice::new(move |line| {
            shown.lock().unwrap().push(line.to_owned());
            if let Some(found) = line.strip_prefix("  ") {
                let _ = urls.send(found.to_owned());
            }
        })
    };
    let login = Login::new(&server.url(), notice)
        .unwrap()
        .without_browser()
        .with_wait(Duration::from_secs(60));
    let store_for_login = store.clone();
    let running = tokio::spawn(async move { oauth::login(&store_for_login, &login, None).await });
    let authorization_url = tokio::time::timeout(Duration::from_secs(30), url.recv())
        .await
        .expect("the login showed no authorization URL")
        .unwrap();
    let browser = reqwest::Client::new();
    let landed = browser.get(&authorization_url).send().await.unwrap();
    assert_eq!(landed.status(), StatusCode::OK);
    assert!(landed.url().as_str().starts_with("http://127.0.0.1:"));
    let signed_in = tokio::time::timeout(Duration::from_secs(30), running)
        .await
        .expect("the login did not finish")
        .unwrap()
        .unwrap();
    assert_eq!(signed_in.server_url, server.url());
    assert!(signed_in.refreshable);
    shown.lock().unwrap().clone()
}

fn scratchpad(dir: &Path) -> Scratchpad {
    Scratchpad::builder()
        .scratchpad_dir(dir)
        .context_window(128_000)
        .intercept_all(5120)
        .build()
        .unwrap()
}

async fn proxy(server: &Server, store: &TokenStore) -> Session {
    proxy_counted(server, store, &Metrics::new()).await
}

/// [`proxy`], counting into `metrics`.
async fn proxy_counted(server: &Server, store: &TokenStore, metrics: &Metrics) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let remote = Remote::new(&server.url())
        .unwrap()
        .with_oauth(store.clone(), None);
    start_with(
        scratchpad(dir.path()),
        dir,
        ProxyOptions::remote("fixture", remote).with_metrics(metrics),
    )
    .await
}

/// The access token in the sign-in file now.
fn stored_access_token(store: &TokenStore, server: &Server) -> String {
    let text = std::fs::read_to_string(store.file_for(&server.url())).unwrap();
    let file: Value = serde_json::from_str(&text).unwrap();
    file["credentials"]["token_response"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn signing_in_with_a_simulated_browser_keeps_the_tokens_in_a_0600_file_in_a_0700_dir() {
    let server = serve(3600).await;
    let home = tempfile::tempdir().unwrap();
    let store = TokenStore::at(home.path().join("overspill/oauth"));
    let shown = sign_in(&server, &store).await;
    assert!(shown[0].contains("open this URL"), "{shown:?}");
    let file = store.file_for(&server.url());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&file), 0o600, "the token file");
        assert_eq!(mode(store.dir()), 0o700, "the token dir");
    }
    let leftovers: Vec<_> = std::fs::read_dir(store.dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(
        leftovers.len(),
        1,
        "one file, no temporary left: {leftovers:?}"
    );
    let listed = oauth::sign_ins(&store).unwrap();
    assert_eq!(listed.len(), 1);
    let listed = listed[0].as_ref().unwrap();
    assert_eq!(listed.client_id, "overspill-test-client");
    assert!(listed.expires_at.is_some() && listed.has_tokens);
    assert!(
        server
            .resources
            .lock()
            .unwrap()
            .iter()
            .all(|r| *r == server.url()),
        "every token request names the resource (RFC 8707)"
    );
    // Signed in: the proxy's calls carry the token.
    let session = proxy(&server, &store).await;
    let small = call(&session, "small", json!({})).await;
    assert_eq!(only_text(&small), fixture::SMALL);
    session.client.cancel().await.unwrap();
}

async fn a_token_that_expires_mid_session_is_refreshed_and_the_call_that_got_the_401_succeeds() {
    let server = serve(3600).await;
    let home = tempfile::tempdir().unwrap();
    let store = TokenStore::at(home.path());
    sign_in(&server, &store).await;
    let before = stored_access_token(&store, &server);
    let metrics = Metrics::new();
    let session = proxy_counted(&server, &store, &metrics).await;
    let small = call(&session, "small", json!({})).await;
    assert_eq!(only_text(&small), fixture::SMALL);
    let unauthorized = server.unauthorized.load(Ordering::SeqCst);
    server.expire_access_tokens();
    // No user action: this call gets a 401, the proxy refreshes and sends it again.
    let small = call(&session, "small", json!({})).await;
    assert_eq!(only_text(&small), fixture::SMALL);
    assert!(!small.is_error.unwrap_or(false));
    assert_eq!(server.refreshes.load(Ordering::SeqCst), 1, "one refresh");
    let counted = metrics.render();
    assert!(
        counted.contains("overspill_oauth_refreshes_total{server=\"fixture\",outcome=\"ok\"} 1"),
        "{counted}"
    );
    assert_eq!(
        server.unauthorized.load(Ordering::SeqCst),
        unauthorized + 1,
        "exactly the one request got a 401"
    );
    let after = stored_access_token(&store, &server);
    assert_ne!(before, after, "the refreshed token is stored");
    // And the session goes on with the new token.
    let big = call(&session, "big", json!({"bytes": 200_000})).await;
    assert!(only_text(&big).contains("file: "), "{}", only_text(&big));
    session.client.cancel().await.unwrap();
}

async fn a_token_about_to_expire_is_refreshed_before_the_request_is_sent() {
    // The code exchange issues a token that is already due for renewal.
    let server = serve(0).await;
    let home = tempfile::tempdir().unwrap();
    let store = TokenStore::at(home.path());
    sign_in(&server, &store).await;
    // (The login's own probe got one.)
    let unauthorized = server.unauthorized.load(Ordering::SeqCst);
    let session = proxy(&server, &store).await;
    let small = call(&session, "small", json!({})).await;
    assert_eq!(only_text(&small), fixture::SMALL);
    assert_eq!(server.refreshes.load(Ordering::SeqCst), 1);
    assert_eq!(
        server.unauthorized.load(Ordering::SeqCst),
        unauthorized,
        "the renewed token went out with the first request"
    );
    session.client.cancel().await.unwrap();
}

async fn without_a_sign_in_the_client_and_the_error_say_to_run_auth_login() {
    let server = serve(3600).await;
    let home = tempfile::tempdir().unwrap();
    let store = TokenStore::at(home.path());
    let dir = tempfile::tempdir().unwrap();
    let remote = Remote::new(&server.url()).unwrap().with_oauth(store, None);
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
    let answer = response["error"]["message"].as_str().unwrap().to_owned();
    let expected = format!("overspill auth login --url {}", server.url());
    assert!(answer.contains(&expected), "{answer}");
    let ended = tokio::time::timeout(Duration::from_secs(10), raw.proxy)
        .await
        .unwrap()
        .unwrap();
    match ended {
        Err(ProxyError::SignIn(OAuthError::SignInRequired { url })) => {
            assert_eq!(url, server.url());
        }
        other => panic!("SignInRequired expected, got {other:?}"),
    }
}

async fn a_refresh_the_server_refuses_tells_the_client_to_sign_in_again() {
    let server = serve(3600).await;
    let home = tempfile::tempdir().unwrap();
    let store = TokenStore::at(home.path());
    sign_in(&server, &store).await;
    let metrics = Metrics::new();
    let session = proxy_counted(&server, &store, &metrics).await;
    server.expire_access_tokens();
    server.refuse_refresh.store(true, Ordering::SeqCst);
    let request = rmcp::model::CallToolRequestParams::new("small");
    let outcome = tokio::time::timeout(Duration::from_secs(30), session.client.call_tool(request))
        .await
        .expect("the call hung");
    let error = outcome.unwrap_err().to_string();
    assert!(
        error.contains("could not be renewed") && error.contains("overspill auth login --url"),
        "{error}"
    );
    let ended = tokio::time::timeout(Duration::from_secs(10), session.proxy)
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(ended, Err(ProxyError::SignIn(OAuthError::Expired { .. }))),
        "{ended:?}"
    );
    let counted = metrics.render();
    assert!(
        counted
            .contains("overspill_oauth_refreshes_total{server=\"fixture\",outcome=\"failed\"} 1"),
        "{counted}"
    );
    assert!(
        counted.contains("overspill_upstream_failures_total{server=\"fixture\"} 1"),
        "{counted}"
    );
}

async fn logout_forgets_the_sign_in() {
    let server = serve(3600).await;
    let home = tempfile::tempdir().unwrap();
    let store = TokenStore::at(home.path());
    sign_in(&server, &store).await;
    assert!(oauth::sign_in(&store, &server.url()).unwrap().is_some());
    assert!(store.remove(&server.url()).unwrap());
    assert!(oauth::sign_in(&store, &server.url()).unwrap().is_none());
    assert!(oauth::sign_ins(&store).unwrap().is_empty());
}

async fn no_token_appears_in_any_log_line_stored_output_error_or_notice() {
    let server = serve(3600).await;
    let home = tempfile::tempdir().unwrap();
    let store = TokenStore::at(home.path());
    let shown = sign_in(&server, &store).await;
    let session = proxy(&server, &store).await;
    let big = call(&session, "big", json!({"bytes": 200_000})).await;
    assert!(only_text(&big).contains("file: "));
    server.expire_access_tokens();
    call(&session, "small", json!({})).await;
    // A refused refresh produces the error texts too.
    server.expire_access_tokens();
    server.refuse_refresh.store(true, Ordering::SeqCst);
    let request = rmcp::model::CallToolRequestParams::new("small");
    let refused = session
        .client
        .call_tool(request)
        .await
        .unwrap_err()
        .to_string();
    let ended = tokio::time::timeout(Duration::from_secs(10), session.proxy)
        .await
        .unwrap()
        .unwrap();
    let mut texts = vec![refused, format!("{ended:?}"), format!("{store:?}")];
    texts.extend(shown);
    for sign_in in oauth::sign_ins(&store).unwrap() {
        texts.push(format!("{sign_in:?}"));
    }
    let mut stored = Vec::new();
    for entry in walk(session.dir.path()) {
        stored.push((entry.display().to_string(), std::fs::read(&entry).unwrap()));
    }
    assert!(!stored.is_empty(), "the large result was stored");
    let logs = LOG.lock().unwrap().clone();
    assert!(!logs.is_empty(), "log events were captured");
    let issued: Vec<String> = server
        .issued
        .lock()
        .unwrap()
        .iter()
        .filter(|secret| !secret.starts_with("c0de"))
        .cloned()
        .collect();
    assert!(issued.len() >= 4, "{issued:?}");
    for secret in &issued {
        for line in &logs {
            assert!(
                !line.contains(secret.as_str()),
                "a log line holds a token: {line}"
            );
        }
        for text in &texts {
            assert!(
                !text.contains(secret.as_str()),
                "an error or notice holds a token: {text}"
            );
        }
        for (path, bytes) in &stored {
            let found = bytes
                .windows(secret.len())
                .any(|window| window == secret.as_bytes());
            assert!(!found, "the stored file {path} holds a token");
        }
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

cases!(
    signing_in_with_a_simulated_browser_keeps_the_tokens_in_a_0600_file_in_a_0700_dir,
    a_token_that_expires_mid_session_is_refreshed_and_the_call_that_got_the_401_succeeds,
    a_token_about_to_expire_is_refreshed_before_the_request_is_sent,
    without_a_sign_in_the_client_and_the_error_say_to_run_auth_login,
    a_refresh_the_server_refuses_tells_the_client_to_sign_in_again,
    logout_forgets_the_sign_in,
    no_token_appears_in_any_log_line_stored_output_error_or_notice,
);

fn main() {
    capture::install();
    main_with("oauth", CASES, fixture::run);
}
