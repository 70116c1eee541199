//! The real server: a child process we spawn, spoken to over its stdio.
//!
//! rmcp's `TokioChildProcess` cannot raise the transport's line limit (16 MiB by default, and a
//! longer JSON-RPC line is dropped, which hangs the call), so the child is spawned here and the
//! transport built on its pipes with [`MAX_LINE_BYTES`].
//!
//! Sampling, roots and logging are deprecated in the newest MCP revision (SEP-2577) but still
//! part of the revisions clients speak today, so the proxy relays them.
#![allow(deprecated)]

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CancelledNotificationParam, ClientCapabilities, ClientConfig, CreateMessageRequestParams,
    CreateMessageResult, ErrorData, Implementation, ListRootsResult,
    LoggingMessageNotificationParam, ProgressNotificationParam, ResourceUpdatedNotificationParam,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RunningService};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ClientHandler, RoleClient, RoleServer, ServiceExt};
use tokio::process::{Child, Command};

use crate::error::ProxyError;

/// The longest JSON-RPC line the proxy reads, in either direction: 256 MiB.
pub const MAX_LINE_BYTES: usize = 256 << 20;

/// How long a request from upstream (roots, sampling) waits for the client to connect: servers
/// ask for roots right after their handshake, which the proxy completes before the client is in.
const CLIENT_WAIT: Duration = Duration::from_secs(30);

/// The client peer, once it has connected.
#[derive(Clone)]
pub(crate) struct Downstream(Arc<tokio::sync::watch::Sender<Option<Peer<RoleServer>>>>);

impl Downstream {
    pub(crate) fn new() -> Downstream {
        Downstream(Arc::new(tokio::sync::watch::Sender::new(None)))
    }

    /// Records the connected client (the first one; stdio has only one).
    pub(crate) fn set(&self, peer: Peer<RoleServer>) {
        self.0.send_if_modified(|slot| {
            let empty = slot.is_none();
            if empty {
                *slot = Some(peer);
            }
            empty
        });
    }

    /// The client, if connected: notifications from before it are dropped.
    fn get(&self) -> Option<Peer<RoleServer>> {
        self.0.borrow().clone()
    }

    /// The client, waiting up to [`CLIENT_WAIT`] for it to connect.
    async fn wait(&self) -> Option<Peer<RoleServer>> {
        let mut receiver = self.0.subscribe();
        let connected = receiver.wait_for(Option::is_some);
        match tokio::time::timeout(CLIENT_WAIT, connected).await {
            Ok(Ok(peer)) => peer.clone(),
            _ => None,
        }
    }
}

/// The running upstream server: its MCP session and its process.
pub(crate) struct Upstream {
    pub(crate) service: RunningService<RoleClient, Relay>,
    pub(crate) child: Child,
}

/// Starts `program args…` with piped stdin/stdout and inherited stderr, and completes the MCP
/// handshake with it.
pub(crate) async fn start(
    program: &str,
    args: &[String],
    downstream: Downstream,
) -> Result<Upstream, ProxyError> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| ProxyError::Spawn {
            command: program.to_owned(),
            source,
        })?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(ProxyError::UpstreamLost(
            "the child's stdio pipes were not created".to_owned(),
        ));
    };
    let transport = AsyncRwTransport::<RoleClient, _, _>::new(stdout, stdin)
        .with_max_line_length(MAX_LINE_BYTES);
    let service = Relay { downstream }
        .serve(transport)
        .await
        .map_err(|error| ProxyError::Handshake {
            command: program.to_owned(),
            reason: error.to_string(),
        })?;
    Ok(Upstream { service, child })
}

/// The proxy's client side: relays what the upstream server sends on its own (notifications,
/// sampling and roots requests) to the MCP client.
#[derive(Clone)]
pub(crate) struct Relay {
    downstream: Downstream,
}

impl Relay {
    fn client(&self) -> Option<Peer<RoleServer>> {
        self.downstream.get()
    }
}

/// A request from upstream that has nowhere to go yet.
fn no_client() -> ErrorData {
    ErrorData::internal_error(
        "no MCP client connected to the overspill proxy within 30 s",
        None,
    )
}

fn relayed(error: rmcp::ServiceError) -> ErrorData {
    match error {
        rmcp::ServiceError::McpError(error) => error,
        other => ErrorData::internal_error(format!("the MCP client did not answer: {other}"), None),
    }
}

impl ClientHandler for Relay {
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder()
            .enable_roots()
            .enable_roots_list_changed()
            .build();
        ClientConfig::new(
            capabilities,
            Implementation::new("overspill-mcp", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let client = self.downstream.wait().await.ok_or_else(no_client)?;
        client.create_message(params).await.map_err(relayed)
    }

    #[allow(deprecated)]
    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let client = self.downstream.wait().await.ok_or_else(no_client)?;
        client.list_roots().await.map_err(relayed)
    }

    async fn on_cancelled(
        &self,
        params: CancelledNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(client) = self.client() {
            let _ = client.notify_cancelled(params).await;
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(client) = self.client() {
            let _ = client.notify_progress(params).await;
        }
    }

    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(client) = self.client() {
            let _ = client.notify_logging_message(params).await;
        }
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(client) = self.client() {
            let _ = client.notify_resource_updated(params).await;
        }
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(client) = self.client() {
            let _ = client.notify_resource_list_changed().await;
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(client) = self.client() {
            let _ = client.notify_tool_list_changed().await;
        }
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(client) = self.client() {
            let _ = client.notify_prompt_list_changed().await;
        }
    }
}
