//! The upstream MCP server of the `mcp_proxy` bench: newline-delimited JSON-RPC on stdio,
//! nothing from outside, and as little work per message as a server can do, so that what the
//! bench measures is the proxy.
//!
//! Tools: `small` (a one-line text result) and `big` (the whole text of the file named on the
//! command line, as one text block). The `big` response is built once at start, so answering
//! it is one write of the prepared bytes; right after its last byte, the server sends the
//! notification [`WRITTEN`] with the wall-clock time that byte left (`at_unix_ns`), which is
//! where the bench starts timing the proxy's work on it.
//!
//! [`reply`] decides every answer, so `http_upstream.rs` serves the same server over HTTP.

use std::io::{BufRead, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

/// The first argument that makes the bench binary this server: `<bench> serve-mcp [FILE]`.
pub const SERVE: &str = "serve-mcp";

/// The notification the server sends after the last byte of a `big` response.
pub const WRITTEN: &str = "bench/written";

/// The environment variable that makes the server wait this many milliseconds before it reads
/// anything: a server that is slow to start, for the gateway's startup row and the first
/// answer's.
pub const START_DELAY: &str = "OVERSPILL_BENCH_START_DELAY_MS";

/// The text of every `small` result.
pub const SMALL_TEXT: &str = "ok: one small result";

/// Nanoseconds since the Unix epoch: both processes read the same system clock.
pub fn unix_ns() -> u64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
}

/// What the server does with one message.
pub enum Reply {
    /// Nothing: a notification, a response, or text that is not JSON.
    Nothing,
    /// This message, the response.
    Message(Value),
    /// The prepared `big` result, with this request id.
    Big(Value),
}

/// The `big` response's text around its id: `{"jsonrpc":"2.0","result":{…},"id":` and `}`.
/// Built once at start, so that answering is one write.
pub fn big_head(file: Option<&str>) -> Option<String> {
    file.map(|path| {
        let text = std::fs::read_to_string(path).unwrap();
        let result = json!({"content": [{"type": "text", "text": text}]});
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":"#)
    })
}

/// The server's answer to `message`, whatever the transport; `big` says whether a `big`
/// result was prepared (without one, `big` answers like `small`).
pub fn reply(message: &Value, big: bool) -> Reply {
    let Some(id) = message.get("id").filter(|id| !id.is_null()) else {
        return Reply::Nothing; // a notification
    };
    if message.get("method").is_none() {
        return Reply::Nothing; // a response to a request of ours (there are none)
    }
    let params = &message["params"];
    let result = match message["method"].as_str().unwrap_or_default() {
        "initialize" => json!({
            "protocolVersion": params["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "overspill-bench-upstream", "version": "1"},
        }),
        // The 2026-07-28 revision's stateless start: no `initialize`, what the server is in
        // one answer.
        "server/discover" => json!({
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "overspill-bench-upstream", "version": "1"},
        }),
        "tools/list" => json!({"tools": [
            {"name": "small", "description": "a one-line text", "inputSchema": {"type": "object"}},
            {"name": "big", "description": "a large text", "inputSchema": {"type": "object"}},
        ]}),
        "tools/call" if big && params["name"] == "big" => return Reply::Big(id.clone()),
        "tools/call" => json!({"content": [{"type": "text", "text": SMALL_TEXT}]}),
        method => {
            let error = json!({"code": -32601, "message": format!("no method `{method}` here")});
            return Reply::Message(json!({"jsonrpc": "2.0", "id": id, "error": error}));
        }
    };
    Reply::Message(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// Serves MCP on stdin/stdout until stdin ends; `file` holds the text of `big`.
pub fn serve(file: Option<&str>) {
    if let Some(delay) = std::env::var(START_DELAY)
        .ok()
        .and_then(|ms| ms.parse().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(delay));
    }
    let big_head = big_head(file);
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        match (reply(&message, big_head.is_some()), &big_head) {
            (Reply::Nothing, _) => {}
            (Reply::Message(answer), _) => send(&mut out, &answer),
            (Reply::Big(id), Some(head)) => {
                out.write_all(head.as_bytes()).unwrap();
                out.write_all(format!("{id}}}\n").as_bytes()).unwrap();
                out.flush().unwrap();
                let at = unix_ns();
                let written = json!({"jsonrpc": "2.0", "method": WRITTEN,
                                     "params": {"at_unix_ns": at}});
                send(&mut out, &written);
            }
            (Reply::Big(_), None) => unreachable!("`big` is answered only when prepared"),
        }
    }
}

fn send(out: &mut impl Write, message: &Value) {
    let mut line = message.to_string();
    line.push('\n');
    out.write_all(line.as_bytes()).unwrap();
    out.flush().unwrap();
}
