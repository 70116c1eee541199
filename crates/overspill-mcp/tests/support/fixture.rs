//! A tiny upstream MCP server for the proxy tests, run as this same test binary with
//! `--overspill-mcp-fixture` (the tests' `main` dispatches on it).
//!
//! Tools: `small` (a short fixed text), `big {bytes}` (JSON text of at least `bytes` bytes),
//! `picture` (an image block and a short text), `crash` (the process exits mid-call),
//! `echo_args {body: string, value}` (its arguments as JSON text, each string longer than
//! [`ECHO_DIGEST_OVER`] bytes replaced by its [`digest`]). With `--clash` it also has a tool
//! named `grep`. One resource ([`NOTES_URI`], text [`NOTES`]) and one prompt (`triage`, whose
//! message names its `service` argument), so the tests can see the proxy forward them.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// The text `small` returns.
pub const SMALL: &str = "{\"status\": \"ok\", \"note\": \"tiny ünïcode ✓\"}";

/// The fixture's one resource.
pub const NOTES_URI: &str = "fixture://notes";

/// The text of [`NOTES_URI`].
pub const NOTES: &str = "on-call notes: restart the worker pods first";

/// A model type from its JSON form (as the MCP schema writes it).
fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value)
        .map_err(|error| ErrorData::internal_error(error.to_string(), None))
}

/// The instructions the fixture server sends.
pub const INSTRUCTIONS: &str = "A fixture server for overspill's proxy tests.";

/// The JSON text `big` returns for `bytes`: `{"kind": "List", "items": [{"id", "name", "tags"}…]}`.
pub fn big_json(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 128);
    out.push_str("{\"kind\": \"List\", \"items\": [");
    let mut id = 0usize;
    while out.len() < bytes {
        if id > 0 {
            out.push_str(", ");
        }
        out.push_str(&format!(
            "{{\"id\": {id}, \"name\": \"item-{id}\", \"tags\": [\"t{}\", \"fixture\"]}}",
            id % 7
        ));
        id += 1;
    }
    out.push_str("]}");
    out
}

/// Strings longer than this come back from `echo_args` as their [`digest`].
pub const ECHO_DIGEST_OVER: usize = 4096;

/// What `echo_args` returns for a long string: its length and FNV-1a 64 hash, so a test can
/// check a multi-megabyte argument arrived byte for byte without echoing it back.
pub fn digest(text: &str) -> Value {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    json!({"len": text.len(), "fnv1a64": format!("{hash:016x}")})
}

fn echo(value: Value) -> Value {
    match value {
        Value::String(text) if text.len() > ECHO_DIGEST_OVER => digest(&text),
        Value::Array(items) => Value::Array(items.into_iter().map(echo).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, echo(v))).collect()),
        other => other,
    }
}

/// The fixture's handler (served over stdio by [`run`], or over HTTP by a test).
#[derive(Default)]
pub struct Fixture {
    /// Whether it also has a tool named `grep`.
    pub clash: bool,
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .build();
        ServerConfig::new(capabilities).with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let object = json!({"type": "object"});
        let mut tools = vec![
            json!({"name": "small", "description": "a short text", "inputSchema": object,
                   "outputSchema": {"type": "object", "properties": {"status": {"type": "string"}}}}),
            json!({"name": "big", "description": "JSON of `bytes` bytes",
                   "inputSchema": {"type": "object", "properties": {"bytes": {"type": "integer"}}}}),
            json!({"name": "picture", "description": "an image", "inputSchema": object}),
            json!({"name": "crash", "description": "exits mid-call", "inputSchema": object}),
            json!({"name": "notify_later", "description": "answers, then logs `count` messages",
                   "inputSchema": {"type": "object", "properties": {"count": {"type": "integer"}}}}),
            json!({"name": "pid", "description": "the server's process id", "inputSchema": object}),
            json!({"name": "sleep", "description": "answers after `ms` milliseconds (progress first, given a token)",
                   "inputSchema": {"type": "object", "properties": {"ms": {"type": "integer"}}}}),
            json!({"name": "progress", "description": "reports progress, then answers",
                   "inputSchema": object}),
            json!({"name": "echo_args", "description": "returns its arguments",
                   "inputSchema": {"type": "object",
                                   "properties": {"body": {"type": "string"}, "value": {}}}}),
        ];
        if self.clash {
            tools.push(json!({"name": "grep", "description": "clashes", "inputSchema": object}));
        }
        serde_json::from_value(json!({ "tools": tools }))
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        from_json(json!({"resources": [
            {"uri": NOTES_URI, "name": "notes", "mimeType": "text/plain"}
        ]}))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != NOTES_URI {
            return Err(ErrorData::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ));
        }
        let result: ReadResourceResult = from_json(json!({"contents": [
            {"uri": NOTES_URI, "mimeType": "text/plain", "text": NOTES}
        ]}))?;
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        from_json(json!({"prompts": [{
            "name": "triage",
            "description": "triage a failing service",
            "arguments": [{"name": "service", "required": true}]
        }]}))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let service = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("service"))
            .and_then(Value::as_str)
            .unwrap_or("nothing")
            .to_owned();
        let result: GetPromptResult = from_json(json!({
            "description": "triage a failing service",
            "messages": [{"role": "user", "content": {"type": "text", "text": format!("Triage {service}.")}}]
        }))?;
        Ok(result.into())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        let result = match request.name.as_ref() {
            "small" => CallToolResult::success(vec![ContentBlock::text(SMALL)]),
            "big" => {
                let bytes = args["bytes"].as_u64().unwrap_or(100_000) as usize;
                CallToolResult::success(vec![ContentBlock::text(big_json(bytes))])
            }
            "picture" => CallToolResult::success(vec![
                ContentBlock::image("iVBORw0KGgo=", "image/png"),
                ContentBlock::text(big_json(200_000)),
            ]),
            "crash" => std::process::exit(3),
            "pid" => {
                CallToolResult::success(vec![ContentBlock::text(std::process::id().to_string())])
            }
            "sleep" => {
                // Progress first, when asked: the caller then knows the call is under way.
                if let Some(token) = context.meta.get_progress_token()
                    && let Ok(note) = serde_json::from_value(json!({
                        "progressToken": token, "progress": 0, "total": 1
                    }))
                {
                    let _ = context.peer.notify_progress(note).await;
                }
                let ms = args["ms"].as_u64().unwrap_or(1_000);
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                CallToolResult::success(vec![ContentBlock::text("slept")])
            }
            "notify_later" => {
                let peer = context.peer.clone();
                let count = args["count"].as_u64().unwrap_or(1);
                tokio::spawn(async move {
                    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                    for number in 0..count {
                        let note = serde_json::from_value(json!({
                            "level": "info", "data": format!("sent after the call returned: {number}")
                        }));
                        if let Ok(note) = note {
                            #[allow(deprecated)]
                            let _ = peer.notify_logging_message(note).await;
                        }
                    }
                });
                CallToolResult::success(vec![ContentBlock::text("later")])
            }
            "progress" => {
                if let Some(token) = context.meta.get_progress_token() {
                    for step in [1, 2] {
                        let note = serde_json::from_value(json!({
                            "progressToken": token, "progress": step, "total": 2
                        }));
                        if let Ok(note) = note {
                            let _ = context.peer.notify_progress(note).await;
                        }
                    }
                }
                CallToolResult::success(vec![ContentBlock::text("done")])
            }
            "echo_args" => {
                CallToolResult::success(vec![ContentBlock::text(echo(args).to_string())])
            }
            other => CallToolResult::error(vec![ContentBlock::text(format!("no tool {other}"))]),
        };
        Ok(result.into())
    }
}

/// Serves the fixture on stdio until the proxy closes it (the raw server with `--raw`).
pub fn run() {
    if std::env::args().any(|arg| arg == "--raw") {
        return super::raw_server::run();
    }
    let clash = std::env::args().any(|arg| arg == "--clash");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let transport =
            AsyncRwTransport::<RoleServer, _, _>::new(tokio::io::stdin(), tokio::io::stdout())
                .with_max_line_length(overspill_mcp::MAX_LINE_BYTES);
        let running = Fixture { clash }.serve(transport).await.unwrap();
        let _ = running.waiting().await;
    });
}
