//! The upstream MCP server of the `mcp_proxy` bench: newline-delimited JSON-RPC on stdio,
//! nothing from outside, and as little work per message as a server can do, so that what the
//! bench measures is the proxy.
//!
//! Tools: `small` (a one-line text result) and `big` (the whole text of the file named on the
//! command line, as one text block). The `big` response is built once at start, so answering
//! it is one write of the prepared bytes; right after its last byte, the server sends the
//! notification [`WRITTEN`] with the wall-clock time that byte left (`at_unix_ns`), which is
//! where the bench starts timing the proxy's work on it.

use std::io::{BufRead, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

/// The first argument that makes the bench binary this server: `<bench> serve-mcp [FILE]`.
pub const SERVE: &str = "serve-mcp";

/// The notification the server sends after the last byte of a `big` response.
pub const WRITTEN: &str = "bench/written";

/// The text of every `small` result.
pub const SMALL_TEXT: &str = "ok: one small result";

/// Nanoseconds since the Unix epoch: both processes read the same system clock.
pub fn unix_ns() -> u64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
}

/// Serves MCP on stdin/stdout until stdin ends; `file` holds the text of `big`.
pub fn serve(file: Option<&str>) {
    // `{"jsonrpc":"2.0","result":{…},"id":` — the id and the closing brace follow per call.
    let big_head = file.map(|path| {
        let text = std::fs::read_to_string(path).unwrap();
        let result = json!({"content": [{"type": "text", "text": text}]});
        format!(r#"{{"jsonrpc":"2.0","result":{result},"id":"#)
    });
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = message.get("id").filter(|id| !id.is_null()) else {
            continue; // a notification
        };
        let params = &message["params"];
        let result = match message["method"].as_str().unwrap_or_default() {
            "initialize" => json!({
                "protocolVersion": params["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "overspill-bench-upstream", "version": "1"},
            }),
            "tools/list" => json!({"tools": [
                {"name": "small", "description": "a one-line text", "inputSchema": {"type": "object"}},
                {"name": "big", "description": "a large text", "inputSchema": {"type": "object"}},
            ]}),
            "tools/call" => match (params["name"].as_str(), &big_head) {
                (Some("big"), Some(head)) => {
                    out.write_all(head.as_bytes()).unwrap();
                    out.write_all(format!("{id}}}\n").as_bytes()).unwrap();
                    out.flush().unwrap();
                    let at = unix_ns();
                    let written = json!({"jsonrpc": "2.0", "method": WRITTEN,
                                         "params": {"at_unix_ns": at}});
                    send(&mut out, &written);
                    continue;
                }
                _ => json!({"content": [{"type": "text", "text": SMALL_TEXT}]}),
            },
            method => {
                let error =
                    json!({"code": -32601, "message": format!("no method `{method}` here")});
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "id": id, "error": error}),
                );
                continue;
            }
        };
        send(
            &mut out,
            &json!({"jsonrpc": "2.0", "id": id, "result": result}),
        );
    }
}

fn send(out: &mut impl Write, message: &Value) {
    let mut line = message.to_string();
    line.push('\n');
    out.write_all(line.as_bytes()).unwrap();
    out.flush().unwrap();
}
