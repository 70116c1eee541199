//! The proxy's server side: what the MCP client talks to.
//!
//! Logging and legacy resource subscriptions are deprecated in the newest MCP revision but
//! still spoken by today's clients, so the proxy forwards them.
#![allow(deprecated)]

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    ContentBlock, ErrorData, GetPromptRequestParams, GetPromptResponse, InitializeRequestParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerConfig, ServerPeerInfo, SetLevelRequestParams, SubscribeRequestParams, Tool,
    UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, Peer, RequestContext};
use rmcp::{RoleClient, RoleServer, ServerHandler, ServiceError};

use crate::names::ToolNames;
use crate::scratch::Scratch;
use crate::upstream::Downstream;

/// The MCP server the client sees: the upstream server plus the exploration tools.
#[derive(Clone)]
pub(crate) struct Proxy {
    pub(crate) upstream: Peer<RoleClient>,
    pub(crate) info: ServerConfig,
    pub(crate) server: String,
    pub(crate) names: Arc<ToolNames>,
    pub(crate) exploration: Arc<Vec<Tool>>,
    pub(crate) scratch: Arc<dyn Scratch>,
    pub(crate) downstream: Downstream,
    pub(crate) in_flight: Arc<AtomicUsize>,
    pub(crate) schemas: Arc<Schemas>,
}

/// The upstream tools' input schemas by name, so `overspill://` references in a call's
/// arguments can be inserted as the tool declares them.
#[derive(Default)]
pub(crate) struct Schemas(RwLock<HashMap<String, Arc<serde_json::Value>>>);

impl Schemas {
    /// Records the schemas of `tools` (a later list adds to or replaces earlier entries).
    pub(crate) fn record(&self, tools: &[Tool]) {
        let mut map = self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for tool in tools {
            let schema = serde_json::Value::Object(tool.input_schema.as_ref().clone());
            map.insert(tool.name.to_string(), Arc::new(schema));
        }
    }

    fn get(&self, name: &str) -> Option<Arc<serde_json::Value>> {
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(name)
            .cloned()
    }
}

/// The line added to the upstream server's instructions.
pub(crate) fn instructions_line(names: &ToolNames) -> String {
    format!(
        "Large tool results are stored by overspill and replaced by a short pointer; explore \
         them with the exploration tools, starting with `{}`.",
        names.exposed("schema")
    )
}

/// The upstream server's `initialize` result as the client sees it: its name and instructions
/// kept (plus one line about the exploration tools), tools always on.
pub(crate) fn merged_info(upstream: Option<&ServerPeerInfo>, names: &ToolNames) -> ServerConfig {
    let mut info = ServerConfig::default();
    if let Some(upstream) = upstream {
        info.protocol_version = upstream.protocol_version.clone();
        info.capabilities = upstream.capabilities.clone();
        if let Some(implementation) = &upstream.server_info {
            info.server_info = implementation.clone();
        }
        info.instructions = upstream.instructions.clone();
        info.meta = upstream.meta.clone();
    }
    let tools = info.capabilities.tools.get_or_insert_with(Default::default);
    tools.list_changed = Some(tools.list_changed.unwrap_or(false));
    let line = instructions_line(names);
    info.instructions = Some(match info.instructions.take() {
        Some(text) if !text.trim().is_empty() => format!("{}\n\n{line}", text.trim_end()),
        _ => line,
    });
    info
}

/// An upstream failure as the client should see it.
fn upstream_error(error: ServiceError) -> ErrorData {
    match error {
        ServiceError::McpError(error) => error,
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
            ErrorData::internal_error(
                "the upstream MCP server closed its connection (it exited or crashed; see the \
             proxy's stderr); restart the proxy",
                None,
            )
        }
        ServiceError::Cancelled { reason } => ErrorData::internal_error(
            format!(
                "the upstream request was cancelled: {}",
                reason.as_deref().unwrap_or("no reason given")
            ),
            None,
        ),
        other => ErrorData::internal_error(format!("upstream MCP server: {other}"), None),
    }
}

/// Arguments back into the object a request carries.
fn args_object(args: serde_json::Value) -> Option<rmcp::model::JsonObject> {
    match args {
        serde_json::Value::Object(map) => Some(map),
        _ => None,
    }
}

/// Counts a request as in flight until dropped, so shutdown can let answers get out first.
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn enter(counter: &Arc<AtomicUsize>) -> InFlight {
        counter.fetch_add(1, Ordering::SeqCst);
        InFlight(Arc::clone(counter))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Proxy {
    async fn call_exploration(
        &self,
        local: &str,
        args: Option<rmcp::model::JsonObject>,
    ) -> CallToolResult {
        let scratch = Arc::clone(&self.scratch);
        let tool = local.to_owned();
        let args = serde_json::Value::Object(args.unwrap_or_default());
        let answer = tokio::task::spawn_blocking(move || scratch.call(&tool, args)).await;
        match answer {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(error) => CallToolResult::error(vec![ContentBlock::text(format!(
                "the exploration tool `{local}` failed inside the proxy: {error}"
            ))]),
        }
    }

    /// Inserts the stored content named by `overspill://` references in the arguments; `Err`
    /// is the message for the model, and the call is not forwarded.
    async fn resolve_references(
        &self,
        mut request: CallToolRequestParams,
    ) -> Result<CallToolRequestParams, String> {
        let Some(args) = request.arguments.take() else {
            return Ok(request);
        };
        let args = serde_json::Value::Object(args);
        if !overspill::references::has_references(&args) {
            request.arguments = args_object(args);
            return Ok(request);
        }
        let scratch = Arc::clone(&self.scratch);
        let schema = self.schemas.get(&request.name);
        let resolved = tokio::task::spawn_blocking(move || {
            scratch.resolve_references(args, schema.as_deref())
        })
        .await
        .map_err(|error| {
            format!("resolving overspill:// references failed in the proxy: {error}")
        })??;
        request.arguments = args_object(resolved);
        Ok(request)
    }

    /// Runs interception on a finished, non-error upstream result.
    async fn intercept(
        &self,
        tool: &str,
        result: CallToolResult,
    ) -> Result<CallToolResult, ErrorData> {
        if result.is_error == Some(true) {
            return Ok(result);
        }
        let json = serde_json::to_value(&result).map_err(|error| {
            ErrorData::internal_error(format!("cannot read the upstream result: {error}"), None)
        })?;
        let scratch = Arc::clone(&self.scratch);
        let server = self.server.clone();
        let name = tool.to_owned();
        let decided = tokio::task::spawn_blocking(move || scratch.intercept(&server, &name, json))
            .await
            .map_err(|error| {
                ErrorData::internal_error(format!("interception failed: {error}"), None)
            })?;
        Ok(match decided {
            None => result,
            Some(pointer) => {
                let mut replaced = CallToolResult::success(vec![ContentBlock::text(pointer)]);
                replaced.meta = result.meta;
                replaced
            }
        })
    }
}

impl ServerHandler for Proxy {
    fn get_info(&self) -> ServerConfig {
        self.info.clone()
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        self.downstream.set(context.peer.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let _guard = InFlight::enter(&self.in_flight);
        let first_page = request
            .as_ref()
            .and_then(|page| page.cursor.as_ref())
            .is_none();
        let mut page = self
            .upstream
            .list_tools(request)
            .await
            .map_err(upstream_error)?;
        self.schemas.record(&page.tools);
        if first_page {
            if page.next_cursor.is_none() {
                // The whole list in one page: keep the thresholds in step with it.
                let tools = page
                    .tools
                    .iter()
                    .map(|tool| tool.name.to_string())
                    .collect();
                self.scratch.set_server_tools(&self.server, tools);
            }
            // Exploration tools win a late clash (tools/list_changed after start): the model
            // could not reach the stored outputs otherwise.
            page.tools
                .retain(|tool| self.names.local(&tool.name).is_none());
        }
        // A pointer cannot match a tool's output schema, and clients reject a result without
        // the structured content a schema promises: interceptable tools are listed without one.
        for tool in &mut page.tools {
            if tool.output_schema.is_some() && self.scratch.intercepts(&self.server, &tool.name) {
                tool.output_schema = None;
            }
        }
        if first_page {
            let mut tools: Vec<Tool> = self.exploration.as_ref().clone();
            tools.append(&mut page.tools);
            page.tools = tools;
        }
        Ok(page)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let _guard = InFlight::enter(&self.in_flight);
        if let Some(local) = self.names.local(&request.name) {
            let local = local.to_owned();
            return Ok(self
                .call_exploration(&local, request.arguments)
                .await
                .into());
        }
        let tool: Cow<'static, str> = request.name.clone();
        let request = match self.resolve_references(request).await {
            Ok(request) => request,
            Err(message) => {
                return Ok(CallToolResult::error(vec![ContentBlock::text(message)]).into());
            }
        };
        let response = tokio::select! {
            response = self.upstream.call_tool_once(request) => response.map_err(upstream_error)?,
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error("the client cancelled the call", None));
            }
        };
        match response {
            CallToolResponse::Complete(result) => Ok(self.intercept(&tool, result).await?.into()),
            other => Ok(other),
        }
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let _guard = InFlight::enter(&self.in_flight);
        self.upstream
            .list_resources(request)
            .await
            .map_err(upstream_error)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let _guard = InFlight::enter(&self.in_flight);
        self.upstream
            .list_resource_templates(request)
            .await
            .map_err(upstream_error)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let _guard = InFlight::enter(&self.in_flight);
        self.upstream
            .read_resource_once(request)
            .await
            .map_err(upstream_error)
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.upstream
            .subscribe(request)
            .await
            .map_err(upstream_error)
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.upstream
            .unsubscribe(request)
            .await
            .map_err(upstream_error)
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let _guard = InFlight::enter(&self.in_flight);
        self.upstream
            .list_prompts(request)
            .await
            .map_err(upstream_error)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let _guard = InFlight::enter(&self.in_flight);
        self.upstream
            .get_prompt_once(request)
            .await
            .map_err(upstream_error)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let _guard = InFlight::enter(&self.in_flight);
        self.upstream
            .complete(request)
            .await
            .map_err(upstream_error)
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.upstream
            .set_level(request)
            .await
            .map_err(upstream_error)
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        let _ = self.upstream.notify_roots_list_changed().await;
    }
}
