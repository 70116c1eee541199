//! The HTTP client side of the `mcp_proxy` bench: one MCP session over Streamable HTTP, as a
//! client that speaks HTTP opens it (`initialize` with its session id kept,
//! `notifications/initialized`, `tools/list`), then `tools/call small`. It reads an answer as
//! one JSON body (the bench's own server) or as an SSE stream (`overspill mcp --listen`).
//! Every request has a deadline, so a bench run cannot hang on a silent server.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::{Value, json};

use super::session::{assert_lists_tools, initialize_params, is_response_to, result_text};
use super::upstream;

/// The longest any request (its whole answer included) may take.
const DEADLINE: Duration = Duration::from_secs(60);

/// A new HTTP client: its own connection pool, so each client keeps its own connection.
pub fn client() -> reqwest::Client {
    // reqwest is built without a compiled-in crypto provider (as in overspill-mcp); the bench
    // speaks plain HTTP on loopback, but building a client still wants one.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(DEADLINE)
        .connect_timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

/// One MCP session at `url`.
pub struct HttpSession {
    http: reqwest::Client,
    url: String,
    session: Option<String>,
    next_id: u64,
}

impl HttpSession {
    /// Opens the session as a client does before its first call.
    pub async fn open(http: reqwest::Client, url: &str) -> HttpSession {
        let mut session = HttpSession {
            http,
            url: url.to_owned(),
            session: None,
            next_id: 1,
        };
        session.request("initialize", initialize_params()).await;
        session
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_lists_tools(&session.request("tools/list", json!({})).await);
        session
    }

    /// One `tools/call small`, from sending the request to having its response.
    pub async fn call_small(&mut self) -> Duration {
        let sent = Instant::now();
        let response = self
            .request("tools/call", json!({"name": "small", "arguments": {}}))
            .await;
        let took = sent.elapsed();
        assert_eq!(result_text(&response), upstream::SMALL_TEXT);
        took
    }

    /// Ends the session as a client does: DELETE (a server without sessions has nothing to
    /// end, and may answer 405).
    pub async fn close(self) {
        if let Some(session) = &self.session {
            let response = self
                .http
                .delete(&self.url)
                .header("mcp-session-id", session)
                .send()
                .await
                .unwrap();
            assert!(
                response.status().is_success() || response.status() == 405,
                "DELETE: {}",
                response.status()
            );
        }
    }

    /// Sends a request; returns its response.
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let response = self
            .post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        if method == "initialize" {
            self.session = response
                .headers()
                .get("mcp-session-id")
                .map(|value| value.to_str().unwrap().to_owned());
        }
        let sse = response
            .headers()
            .get(CONTENT_TYPE)
            .is_some_and(|kind| kind.as_bytes().starts_with(b"text/event-stream"));
        if !sse {
            let message: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
            assert!(is_response_to(&message, id), "not the answer: {message}");
            return message;
        }
        let mut events = sse_stream::SseByteStream::new(response.bytes_stream());
        while let Some(event) = events.next().await {
            let Some(data) = event.unwrap().data.filter(|data| !data.trim().is_empty()) else {
                continue;
            };
            let message: Value = serde_json::from_str(&data).unwrap();
            if is_response_to(&message, id) {
                return message;
            }
        }
        panic!("the event stream ended before the answer to {method}");
    }

    /// POSTs one message; a status that is not success fails the bench.
    async fn post(&self, message: &Value) -> reqwest::Response {
        let mut request = self
            .http
            .post(&self.url)
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .body(message.to_string());
        if let Some(session) = &self.session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-06-18");
        }
        let response = request.send().await.unwrap();
        assert!(
            response.status().is_success(),
            "POST {}: {}",
            message["method"],
            response.status()
        );
        response
    }
}
