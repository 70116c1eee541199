//! The client side of the `mcp_proxy` bench: one MCP session over a child process's stdio,
//! with the handshake a real client does and blocking request/response timing.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

/// One MCP client session with a server process (the proxy, or the server itself).
pub struct Session {
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

/// One line from the server and when it had fully arrived.
pub struct Arrival {
    /// When the line's last byte had been read.
    pub at: Instant,
    /// The same moment on the system clock, in nanoseconds since the Unix epoch.
    pub at_unix_ns: u64,
    /// The message.
    pub message: Value,
}

impl Session {
    /// Starts `command` and opens the session: `initialize`, `notifications/initialized`
    /// and `tools/list`, as a client does before its first call.
    pub fn start(command: Command) -> Session {
        let mut session = Session::spawn(command);
        let init = session.send("initialize", initialize_params());
        session.response(init);
        session.write(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let list = session.send("tools/list", json!({}));
        assert_lists_tools(&session.response(list).message);
        session
    }

    /// Starts `command` and sends nothing yet: a session whose first request is the caller's.
    pub fn spawn(mut command: Command) -> Session {
        let mut child = spawn_piped(&mut command);
        let input = child.stdin.take();
        // Large results arrive in few reads.
        let output = BufReader::with_capacity(1 << 20, child.stdout.take().unwrap());
        Session {
            child,
            input,
            output,
            next_id: 1,
        }
    }

    /// The process id of the program the session talks to.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `tools/call` of `tool` (no arguments); returns the request's id.
    pub fn call(&mut self, tool: &str) -> u64 {
        self.send("tools/call", json!({"name": tool, "arguments": {}}))
    }

    /// Sends a request; returns its id.
    pub fn send(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Reads messages until the response to `id`, which it returns.
    pub fn response(&mut self, id: u64) -> Arrival {
        loop {
            let arrival = self.next();
            if is_response_to(&arrival.message, id) {
                return arrival;
            }
        }
    }

    /// The next message from the server.
    pub fn next(&mut self) -> Arrival {
        let mut line = Vec::new();
        let read = self.output.read_until(b'\n', &mut line).unwrap();
        let (at, at_unix_ns) = (Instant::now(), super::upstream::unix_ns());
        assert!(read > 0, "the server closed its stdout");
        Arrival {
            at,
            at_unix_ns,
            message: serde_json::from_slice(&line).unwrap(),
        }
    }

    /// Ends the session as a client does, by closing the server's stdin, and waits for it.
    pub fn close(mut self) {
        drop(self.input.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "the server exited with {status}");
    }

    fn write(&mut self, message: &Value) {
        // One write per message, so the reader never sees a line in pieces.
        let mut line = message.to_string();
        line.push('\n');
        let input = self.input.as_mut().unwrap();
        input.write_all(line.as_bytes()).unwrap();
        input.flush().unwrap();
    }
}

/// Starts `command` as a client starts its server: its stdin and stdout piped to this process,
/// its stderr shown with ours.
pub fn spawn_piped(command: &mut Command) -> Child {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

/// The `initialize` params of the bench's client (revision 2025-06-18), over stdio and HTTP.
pub fn initialize_params() -> Value {
    json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "overspill-bench", "version": "1"},
    })
}

/// Checks that a `tools/list` response lists the bench server's tools (`small` and `big`, at
/// least).
pub fn assert_lists_tools(response: &Value) {
    assert!(
        response["result"]["tools"]
            .as_array()
            .is_some_and(|t| t.len() >= 2),
        "tools/list: {response}"
    );
}

/// Whether `message` is the response to the request `id`.
pub fn is_response_to(message: &Value, id: u64) -> bool {
    message.get("method").is_none() && message.get("id").and_then(Value::as_u64) == Some(id)
}

/// The text of a tool result's first content block.
pub fn result_text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| {
            let start: String = response.to_string().chars().take(300).collect();
            panic!("not a text result: {start}")
        })
}
