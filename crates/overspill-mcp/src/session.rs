//! One client session on a pair of byte streams (the proxy's own stdin and stdout, or a pipe
//! in tests): the client's side of the relay, and the upstream servers of [`ProxyOptions`] —
//! each a child process ([`crate::child`]) or a Streamable HTTP endpoint ([`crate::remote`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, watch};

use crate::error::ProxyError;
use crate::lines::{self, Side, read_side};
use crate::relay::{
    DRAIN, Ports, QUEUE, Relay, ServerEnd, ServerPorts, ServerSettings, Settings, UpstreamPorts,
};
use crate::scratch::Scratch;
use crate::{ProxyOptions, Server, Upstream, child, remote};

/// How long a gateway's server must have run for its next failure to count as a first one
/// (the restart waits [`crate::relay::backoff`] of the failures in a row).
const STABLE: Duration = Duration::from_secs(60);

/// How long a gateway's servers may take to stop once the client is gone.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// A session's relay and the queues around it, before any transport is attached.
pub(crate) struct Wiring {
    pub(crate) relay: Relay,
    /// What the relay sends to the client.
    pub(crate) client_queue: mpsc::Receiver<String>,
    /// The servers and what the relay sends each, in their configured order.
    pub(crate) upstream: Vec<(Server, UpstreamPorts)>,
}

/// Builds the relay for one session of `options` over `scratch`; with `ledger`, the relay
/// keeps one of the client's requests for a transport that reports their answers.
pub(crate) fn wire(
    options: &ProxyOptions,
    scratch: Arc<dyn Scratch>,
    ledger: bool,
) -> Result<Wiring, ProxyError> {
    let (to_client, client_queue) = mpsc::channel(QUEUE);
    let mut servers = Vec::new();
    let mut ports = Vec::new();
    let mut upstream = Vec::new();
    // A session started after a reload starts with the list as reloaded.
    let current = match &options.reload {
        Some(reload) => reload.subscribe().borrow().clone(),
        None => options.servers.clone(),
    };
    for server in current {
        let (ours, theirs) = ServerPorts::pair();
        servers.push(server_settings(options, &server));
        ports.push(ours);
        upstream.push((server, theirs));
    }
    let settings = Settings {
        servers,
        init_timeout: options.init_timeout,
        answer_within: options.answer_within,
        namespace: options.namespace.clone(),
        metrics: options.metrics.clone(),
        ledger,
    };
    let ports = Ports {
        to_client,
        servers: ports,
    };
    Ok(Wiring {
        relay: Relay::new(scratch, settings, ports)?,
        client_queue,
        upstream,
    })
}

/// What the relay knows of `server` in a session of `options`.
fn server_settings(options: &ProxyOptions, server: &Server) -> ServerSettings {
    let diagnostics = match (&server.log, &server.upstream) {
        (_, Upstream::Http(_)) => remote::DIAGNOSTICS.to_owned(),
        (Some(log), _) => format!("its log {}", log.display()),
        (None, _) => child::DIAGNOSTICS.to_owned(),
    };
    // A gateway's messages name the server as configured, then what runs it.
    let (label, invalid) = match (&options.namespace, &server.upstream) {
        (_, Upstream::Invalid(problem)) => {
            (format!("`{}`", server.name), Some(invalid_reason(problem)))
        }
        (Some(_), _) => (format!("`{}` ({})", server.name, server.label()), None),
        (None, _) => (server.label(), None),
    };
    ServerSettings {
        name: server.name.clone(),
        label,
        diagnostics,
        invalid,
    }
}

/// What befalls a server whose entry cannot be started from, as the messages about it say
/// ("the MCP server `x` {reason}").
fn invalid_reason(problem: &str) -> String {
    format!("cannot be started from its entry: {problem}")
}

/// Runs the upstream servers of `options` for `relay` until the client goes (`gone`). The
/// one server of a plain proxy ends the session when it goes, or when the relay stops it; a
/// gateway's servers are each restarted when they fail, and follow the options' [`Reload`]
/// (docs/mcp-proxy.md#several-servers). `closed` hears of the event streams the one server of a
/// plain proxy closes before answering (a gateway's requests carry ids of its own upstream).
///
/// [`Reload`]: crate::Reload
pub(crate) async fn run_upstream(
    options: &ProxyOptions,
    relay: &Relay,
    upstream: Vec<(Server, UpstreamPorts)>,
    gone: Pin<&mut impl Future<Output = ()>>,
    closed: Option<remote::StreamClosed>,
) -> Result<(), ProxyError> {
    if options.namespace.is_none() {
        let Some((server, ports)) = upstream.into_iter().next() else {
            return Ok(());
        };
        return run_server(&server, &relay.server_end(0), ports, gone, closed).await;
    }
    let (close, closing) = watch::channel(false);
    let mut running = Running {
        relay: relay.clone(),
        closing,
        members: Vec::new(),
    };
    for (index, (server, ports)) in upstream.into_iter().enumerate() {
        running.start(index, server, ports, false);
    }
    let mut reloads = options.reload.as_ref().map(crate::Reload::subscribe);
    tokio::pin!(gone);
    loop {
        let changed = async {
            match &mut reloads {
                Some(reloads) => reloads.changed().await.is_ok(),
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = &mut gone => break,
            still = changed => {
                if !still {
                    reloads = None;
                    continue;
                }
                let servers = reloads.as_mut().map(|reloads| reloads.borrow_and_update().clone());
                running.reload(options, servers.unwrap_or_default());
            }
        }
    }
    let _ = close.send(true);
    let tasks = running.members.into_iter().map(|member| member.task);
    let _ = tokio::time::timeout(STOP_GRACE, join_all(tasks)).await;
    Ok(())
}

/// A gateway session's servers as they run.
struct Running {
    relay: Relay,
    closing: watch::Receiver<bool>,
    members: Vec<Started>,
}

/// One server started in the session.
struct Started {
    index: usize,
    server: Server,
    /// Raised when a reload removes it.
    retire: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    /// Starts `server` as member `index`; `added` when a reload added it to a running session.
    fn start(&mut self, index: usize, server: Server, ports: UpstreamPorts, added: bool) {
        let (retire, retired) = watch::channel(false);
        let member = Member {
            server: server.clone(),
            relay: self.relay.clone(),
            index,
            closing: self.closing.clone(),
            retired,
        };
        let task = tokio::spawn(member.run(ports, added));
        self.members.push(Started {
            index,
            server,
            retire,
            task,
        });
    }

    /// Makes the running servers `servers`: those no longer listed (or listed differently)
    /// are stopped and withdrawn, the new ones (and the changed ones, anew) started.
    fn reload(&mut self, options: &ProxyOptions, servers: Vec<Server>) {
        let (kept, gone): (Vec<Started>, Vec<Started>) = std::mem::take(&mut self.members)
            .into_iter()
            .partition(|started| servers.contains(&started.server));
        for started in &gone {
            let replaced = servers
                .iter()
                .any(|server| server.name == started.server.name);
            self.relay.retire(started.index, replaced);
            let _ = started.retire.send(true);
        }
        // Their tasks end on their own; nothing waits for them here.
        drop(gone);
        self.members = kept;
        for server in servers {
            if self.members.iter().any(|started| started.server == server) {
                continue;
            }
            let (index, ports) = self.relay.add_server(server_settings(options, &server));
            self.start(index, server, ports, true);
        }
    }
}

/// Runs one server's transport until the client goes or the server does; `closed` hears of
/// the event streams a remote server closes before answering.
async fn run_server(
    server: &Server,
    end: &ServerEnd,
    ports: UpstreamPorts,
    gone: Pin<&mut impl Future<Output = ()>>,
    closed: Option<remote::StreamClosed>,
) -> Result<(), ProxyError> {
    let metrics = end.metrics();
    if let Some(metrics) = &metrics {
        metrics.upstream_started(&server.name);
    }
    let outcome = match &server.upstream {
        Upstream::Command(command) => {
            child::run(command, server.log.as_deref(), end, ports, gone).await
        }
        Upstream::Http(remote) => remote::run(remote, end, ports, gone, closed).await,
        Upstream::Invalid(problem) => Err(ProxyError::InvalidEntry {
            server: server.name.clone(),
            problem: problem.clone(),
        }),
    };
    if let (Some(metrics), Err(_)) = (&metrics, &outcome) {
        metrics.upstream_failed(&server.name);
    }
    outcome
}

/// One server of a gateway, kept running for the session.
struct Member {
    server: Server,
    relay: Relay,
    index: usize,
    closing: watch::Receiver<bool>,
    retired: watch::Receiver<bool>,
}

impl Member {
    /// Runs the server, and again after each failure (waiting longer each time it fails
    /// soon after starting), until the client goes or a reload removes it. A server `added` to
    /// a running session joins it as soon as it starts.
    async fn run(mut self, first: UpstreamPorts, added: bool) {
        if let Upstream::Invalid(_) = &self.server.upstream {
            return self.never_starts().await;
        }
        let mut ports = Some(first);
        let mut failures = 0u32;
        loop {
            // The first run of a server the session started with joins with the client's
            // `initialize`; every other run (a restart, a server a reload added) joins itself.
            let first_run = ports.take();
            let joins_itself = first_run.is_none() || added;
            let Some((this_run, run)) = first_run
                .map(|ports| (ports, 0))
                .or_else(|| self.relay.reconnect(self.index))
            else {
                return;
            };
            let started = Instant::now();
            let end = self.relay.server_end(self.index);
            if joins_itself {
                let relay = self.relay.clone();
                let index = self.index;
                tokio::spawn(async move { relay.rejoin(index, run).await });
            }
            let (mut closing, mut retired) = (self.closing.clone(), self.retired.clone());
            let gone = async move {
                tokio::select! {
                    _ = closing.wait_for(|closed| *closed) => {}
                    _ = retired.wait_for(|retired| *retired) => {}
                }
            };
            tokio::pin!(gone);
            let outcome = run_server(&self.server, &end, this_run, gone, None).await;
            if *self.closing.borrow() {
                return;
            }
            if *self.retired.borrow() {
                end.gone("was removed from the server list").await;
                return;
            }
            let why = match outcome {
                Ok(()) => "ended its session".to_owned(),
                Err(error) => error.reason(),
            };
            end.gone(&why).await;
            if started.elapsed() >= STABLE {
                failures = 0;
            }
            let wait = crate::relay::backoff(failures);
            failures = failures.saturating_add(1);
            tracing::warn!(server = %self.server.name, "the MCP server stopped ({why}); restarting it in {} s", wait.as_secs());
            let removed = tokio::select! {
                () = tokio::time::sleep(wait) => false,
                _ = self.closing.wait_for(|closed| *closed) => return,
                _ = self.retired.wait_for(|retired| *retired) => true,
            };
            if removed {
                return end.gone("was removed from the server list").await;
            }
            if let Some(metrics) = end.metrics() {
                metrics.upstream_restarted(&self.server.name);
            }
        }
    }
}

impl Member {
    /// A server whose entry cannot be started from: the client and the proxy's stderr are told
    /// why, once, and so is its log, which the messages point to; then it waits for the
    /// session's end or a reload (which starts its entry anew once it changed).
    async fn never_starts(mut self) {
        let said = self.relay.server_end(self.index).never_starts().await;
        if let Some(log) = &self.server.log {
            let line = format!("overspill mcp: {said}\n");
            let written = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
                .and_then(|mut file| std::io::Write::write_all(&mut file, line.as_bytes()));
            if let Err(error) = written {
                tracing::warn!(server = %self.server.name, "cannot write to the server log {}: {error}", log.display());
            }
        }
        tokio::select! {
            _ = self.closing.wait_for(|closed| *closed) => {}
            _ = self.retired.wait_for(|retired| *retired) => {}
        }
    }
}

/// [`run`](crate::run) on any byte streams to the client (a socket, or an in-memory pipe in
/// tests).
///
/// # Errors
///
/// As for [`run`](crate::run).
pub async fn serve<R, W>(
    options: ProxyOptions,
    scratch: Arc<dyn Scratch>,
    read: R,
    write: W,
) -> Result<(), ProxyError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let Wiring {
        relay,
        client_queue,
        upstream,
    } = wire(&options, scratch, false)?;
    let (close, closing) = watch::channel(false);
    let writer = tokio::spawn(lines::write_lines(write, client_queue, closing));
    let mut reader = tokio::spawn(read_side(read, Side::Client(relay.clone())));
    let gone = async {
        let _ = (&mut reader).await;
    };
    tokio::pin!(gone);
    let outcome = run_upstream(&options, &relay, upstream, gone, None).await;
    relay.drain().await;
    relay.log_usage("stdio");
    reader.abort();
    let _ = close.send(true);
    let _ = tokio::time::timeout(DRAIN, writer).await;
    outcome
}
