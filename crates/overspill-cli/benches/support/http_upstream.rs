//! The bench's upstream server over Streamable HTTP: the same answers as `upstream.rs` (one
//! [`upstream::reply`] for both), served at `/mcp` on a loopback port in JSON answer mode, as
//! a hosted server does. It is the baseline of the HTTP rows (`client → this server`) and the
//! upstream of `overspill mcp --url`.
//!
//! `<bench> serve-mcp-http [FILE]` binds `127.0.0.1:0`, prints `listening <address>` on
//! stdout, and, after each `big` response's last byte went to the socket, `written
//! <unix ns>` there too: stdout is not the MCP channel here, so it carries what the stdio
//! server sends as its [`upstream::WRITTEN`] notification. The server stops when its stdin
//! ends, so it never outlives the bench.

use std::convert::Infallible;
use std::io::{Read, Write};
use std::sync::Arc;
use std::task::Poll;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use serde_json::Value;

use super::upstream::{self, Reply};

/// The first argument that makes the bench binary this server.
pub const SERVE_HTTP: &str = "serve-mcp-http";

/// The endpoint's path.
pub const PATH: &str = "/mcp";

/// The first word of the line with the address.
pub const LISTENING: &str = "listening";

/// The first word of the line with the time of a `big` response's last byte.
pub const WRITTEN_AT: &str = "written";

/// The `big` body goes out in pieces of this size: a piece is handed to the HTTP layer once
/// the one before has been written to the socket, so the end of the body is the moment its
/// last byte left, give or take one piece's copy into the kernel.
const PIECE: usize = 1 << 20;

/// Serves until stdin ends; `file` holds the text of `big`.
pub fn serve(file: Option<&str>) {
    let head = upstream::big_head(file).map(Bytes::from);
    std::thread::spawn(|| {
        // The bench closes our stdin to stop us (or dies, which closes it too).
        let _ = std::io::stdin().lock().read_to_end(&mut Vec::new());
        std::process::exit(0);
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        // As servers in production do: no small write waits for the client's ACK.
        let listener = listener.tap_io(|stream| stream.set_nodelay(true).unwrap());
        say(&format!("{LISTENING} {address}"));
        // Only POST is routed: GET (the server's own stream) and DELETE get 405, which
        // tells a client this server offers neither.
        let app = axum::Router::new()
            .route(PATH, axum::routing::post(post))
            .with_state(Arc::new(head));
        axum::serve(listener, app).await.unwrap();
    });
}

/// One POSTed message: 202 for what needs no answer, the response as one JSON body otherwise.
async fn post(State(head): State<Arc<Option<Bytes>>>, body: Bytes) -> Response {
    let Ok(message) = serde_json::from_slice::<Value>(&body) else {
        return (StatusCode::BAD_REQUEST, "not JSON").into_response();
    };
    let body = match (upstream::reply(&message, head.is_some()), head.as_ref()) {
        (Reply::Nothing, _) => return StatusCode::ACCEPTED.into_response(),
        (Reply::Message(answer), _) => Body::from(answer.to_string()),
        (Reply::Big(id), Some(head)) => big_body(head.clone(), Bytes::from(format!("{id}}}"))),
        (Reply::Big(_), None) => unreachable!("`big` is answered only when prepared"),
    };
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The prepared `big` response, `head` then `tail`, in pieces; when the HTTP layer asks for
/// more after the last piece, everything has been written, and the time is printed.
fn big_body(head: Bytes, tail: Bytes) -> Body {
    let pieces = (0..head.len())
        .step_by(PIECE)
        .map(move |at| head.slice(at..(at + PIECE).min(head.len())));
    let mut pieces = pieces.chain(std::iter::once(tail)).fuse();
    let mut ended = false;
    // No Content-Length: the chunked encoding makes the server ask for the end of the body.
    Body::from_stream(futures_util::stream::poll_fn(move |_| {
        Poll::Ready(match pieces.next() {
            Some(piece) => Some(Ok::<_, Infallible>(piece)),
            None => {
                if !std::mem::replace(&mut ended, true) {
                    say(&format!("{WRITTEN_AT} {}", upstream::unix_ns()));
                }
                None
            }
        })
    }))
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").unwrap();
    out.flush().unwrap();
}
