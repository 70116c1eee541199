//! An upstream MCP server written as raw JSON lines, for what a typed SDK server cannot send:
//! extension fields everywhere, tasks, `input_required` results, server→client requests with
//! ids of its own, custom methods. Run as the test binary with
//! `--overspill-mcp-fixture --raw` (`--silent`: it never answers `initialize`; `--version V`: it
//! answers it with protocol version V; `--init-delay MS`: it answers it MS milliseconds late;
//! `--settles`: after `server/discover` it refuses `initialize`, as the Python SDK 2.x does;
//! `--refuses`: it answers `initialize` with an error).
//!
//! Tools: `vendor` (a small result full of extension fields), `progress` (one
//! `notifications/progress` when the call carries a `progressToken`), `big` (a large text with
//! `_meta` and an extension field; as a task-augmented call it creates task `task-1`, whose
//! `tasks/result` is that large result), `needs_input` (a large `input_required` result),
//! `failing` (a large `isError` result), `ask` (an `elicitation/create` request to the client,
//! answered with what the client sent), `late` (waits for the call's cancellation, then
//! answers anyway with the large result), `not_utf8` (an answer with a byte that is not
//! UTF-8), `too_long` and `too_long_id_first` (an answer one byte over the proxy's line limit,
//! its id last as the TypeScript SDK writes it, or first), `numbers` (structured content with
//! numbers beyond f64, `-0`, `1.0` and `1E2`, padded to `pad` bytes). `server/discover` (the
//! 2026-07-28 revision's stateless start) is answered as `initialize` is; `custom/echo` returns its params;
//! `notifications/cancelled` is answered with a log notification naming the request, and
//! `logging/setLevel` with one naming the level.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

/// The tools the raw server lists, exactly as it sends them.
pub fn tools() -> Value {
    let object = json!({"type": "object"});
    json!([
        {"name": "vendor", "description": "extension fields", "inputSchema": object,
         "x-vendor-tool": {"a": [1, 2]}, "execution": {"taskSupport": "optional"},
         "_meta": {"m": 1}},
        // An argument mirrored into a header in 2026-07-28 (`Mcp-Param-Region`).
        {"name": "progress", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"}}}},
        {"name": "big", "inputSchema": object, "execution": {"taskSupport": "optional"}},
        {"name": "needs_input", "inputSchema": object},
        {"name": "failing", "inputSchema": object},
        {"name": "ask", "inputSchema": object},
        {"name": "late", "inputSchema": object},
        {"name": "not_utf8", "inputSchema": object},
        {"name": "too_long", "inputSchema": object},
        {"name": "too_long_id_first", "inputSchema": object},
        {"name": "numbers", "inputSchema": object},
    ])
}

/// The result of `vendor`, exactly as the raw server sends it.
pub fn vendor_result() -> Value {
    json!({"content": [{"type": "text", "text": "v", "x-block": true}],
           "x-vendor-result": {"kept": true}, "_meta": {"m": 2}})
}

/// The large text of `big`, `needs_input` and `failing`: about 200 KB.
pub fn big_text() -> String {
    (0..4000)
        .map(|i| format!("line {i}: the quick brown fox jumps over the lazy dog\n"))
        .collect()
}

/// The numbers `numbers` sends, as written: none survives a round trip through `f64`.
pub fn awkward_numbers() -> Vec<String> {
    let huge = format!("1{}", "0".repeat(5_000));
    vec![
        "1e400".to_owned(),
        huge,
        "-0".to_owned(),
        "1.0".to_owned(),
        "1E2".to_owned(),
    ]
}

/// The text of the `numbers` result: its structured content holds [`awkward_numbers`] and a
/// string of `pad` bytes.
pub fn numbers_result(pad: usize) -> String {
    format!(
        r#"{{"content":[{{"type":"text","text":"numbers"}}],"structuredContent":{{"values":[{}],"pad":"{}"}}}}"#,
        awkward_numbers().join(","),
        "p ".repeat(pad / 2)
    )
}

/// The instructions the raw server sends.
pub const INSTRUCTIONS: &str = "Raw fixture.";

pub fn run() {
    let silent = std::env::args().any(|arg| arg == "--silent");
    // `--version V`: answer `initialize` with protocol version V whatever the client asked.
    let args: Vec<String> = std::env::args().collect();
    let version = args
        .iter()
        .position(|arg| arg == "--version")
        .and_then(|at| args.get(at + 1))
        .cloned();
    let init_delay = args
        .iter()
        .position(|arg| arg == "--init-delay")
        .and_then(|at| args.get(at + 1))
        .and_then(|ms| ms.parse().ok())
        .map(std::time::Duration::from_millis);
    // `--settles`: once asked `server/discover`, the connection serves 2026-07-28 only and
    // refuses `initialize`, as the Python SDK 2.x server over stdio does.
    let settles = args.iter().any(|arg| arg == "--settles");
    // `--refuses`: `initialize` is answered with an error.
    let refuses = args.iter().any(|arg| arg == "--refuses");
    let mut settled = false;
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let send = |message: Value| send_raw(message.to_string().as_bytes());
    while let Some(Ok(line)) = lines.next() {
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        let answer = |result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result});
        match message.get("method").and_then(Value::as_str) {
            Some("initialize") if silent => {}
            Some("initialize") if refuses => send(json!({"jsonrpc": "2.0", "id": id, "error": {
                "code": -32603, "message": "not today"}})),
            Some("initialize") if settled => send(json!({"jsonrpc": "2.0", "id": id, "error": {
                "code": -32022,
                "message": "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted"}})),
            Some("initialize") => {
                if let Some(delay) = init_delay {
                    std::thread::sleep(delay);
                }
                send(answer(json!({
                "protocolVersion": version.clone().map_or(params["protocolVersion"].clone(), Value::String),
                "capabilities": {"tasks": {"requests": {"tools": {"call": {}}}},
                                 "logging": {}, "x-vendor-capability": {"on": true}},
                "serverInfo": {"name": "raw", "version": "1"},
                "instructions": INSTRUCTIONS,
                "x-received-initialize": params,
                })));
            }
            Some("server/discover") if silent => {}
            Some("server/discover") => {
                settled = settles;
                send(answer(json!({
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}, "logging": {}},
                "serverInfo": {"name": "raw", "version": "1"},
                "instructions": INSTRUCTIONS,
                })));
            }
            Some("tools/list") => send(answer(json!({"tools": tools()}))),
            Some("tools/call") => {
                let name = params["name"].as_str().unwrap_or_default();
                let task = params.get("task").is_some();
                let limit = overspill_mcp::MAX_LINE_BYTES;
                match name {
                    "not_utf8" => {
                        let start = format!(
                            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"caf"#
                        );
                        send_raw(&[start.as_bytes(), b"\xe9\"}]}}"].concat());
                        continue;
                    }
                    "too_long" | "too_long_id_first" => {
                        let (start, end) = if name == "too_long" {
                            (
                                r#"{"result":{"content":[{"type":"text","text":""#.to_owned(),
                                format!(r#""}}]}},"jsonrpc":"2.0","id":{id}}}"#),
                            )
                        } else {
                            (
                                format!(
                                    r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":""#
                                ),
                                r#""}]}}"#.to_owned(),
                            )
                        };
                        let fill = vec![b'x'; limit + 1 - start.len() - end.len()];
                        send_raw(&[start.as_bytes(), &fill, end.as_bytes()].concat());
                        continue;
                    }
                    "numbers" => {
                        let pad = params["arguments"]["pad"].as_u64().unwrap_or(0) as usize;
                        let text = format!(
                            r#"{{"jsonrpc":"2.0","id":{id},"result":{}}}"#,
                            numbers_result(pad)
                        );
                        send_raw(text.as_bytes());
                        continue;
                    }
                    _ => {}
                }
                let result = match name {
                    "vendor" => vendor_result(),
                    "progress" => {
                        if let Some(token) = params.pointer("/_meta/progressToken") {
                            send(json!({"jsonrpc": "2.0", "method": "notifications/progress",
                                        "params": {"progressToken": token, "progress": 1, "total": 2}}));
                        }
                        json!({"content": [{"type": "text", "text": "done"}]})
                    }
                    "big" if task => json!({"task": {"taskId": "task-1", "status": "working",
                                                     "createdAt": "2026-12-04T00:00:00Z"}}),
                    "big" => big_result(),
                    "needs_input" => json!({"resultType": "input_required",
                        "inputRequests": {"confirm": {"method": "elicitation/create",
                            "params": {"message": "sure?", "requestedSchema": {"type": "object"}}}},
                        "requestState": big_text(),
                        "content": [{"type": "text", "text": big_text()}]}),
                    "failing" => json!({"isError": true,
                                        "content": [{"type": "text", "text": big_text()}]}),
                    "ask" => {
                        send(
                            json!({"jsonrpc": "2.0", "id": "srv-1", "method": "elicitation/create",
                                    "params": {"message": "name?", "x-ext": 1,
                                               "requestedSchema": {"type": "object"}}}),
                        );
                        let reply = loop {
                            let Some(Ok(line)) = lines.next() else { return };
                            let Ok(reply) = serde_json::from_str::<Value>(&line) else {
                                continue;
                            };
                            if reply["id"] == "srv-1" {
                                break reply;
                            }
                        };
                        json!({"content": [{"type": "text", "text": reply.to_string()}]})
                    }
                    "late" => {
                        loop {
                            let Some(Ok(line)) = lines.next() else { return };
                            let Ok(note) = serde_json::from_str::<Value>(&line) else {
                                continue;
                            };
                            if note["method"] == "notifications/cancelled" {
                                send(json!({"jsonrpc": "2.0", "method": "notifications/message",
                                    "params": {"level": "info",
                                               "data": format!("cancelled {}", note["params"]["requestId"])}}));
                                break;
                            }
                        }
                        big_result()
                    }
                    other => json!({"isError": true,
                                    "content": [{"type": "text", "text": format!("no tool {other}")}]}),
                };
                send(answer(result));
            }
            Some("tasks/result") => send(answer(big_result())),
            Some("custom/echo") => send(answer(params)),
            Some("logging/setLevel") => {
                send(answer(json!({})));
                send(json!({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "warning", "data": format!("level set to {}", params["level"])}}));
            }
            Some("ping") => send(answer(json!({}))),
            Some("notifications/cancelled") => send(json!({"jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": format!("cancelled {}", params["requestId"])}})),
            Some(method) if message.get("id").is_some() => send(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": format!("no method {method}")}})),
            _ => {}
        }
    }
}

/// Writes `bytes` as one line on stdout.
fn send_raw(bytes: &[u8]) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(bytes);
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

fn big_result() -> Value {
    json!({"content": [{"type": "text", "text": big_text()}],
           "_meta": {"m": 3}, "x-vendor-result": "kept"})
}
