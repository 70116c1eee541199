//! One client session on a pair of byte streams (the proxy's own stdin and stdout, or a pipe
//! in tests): the client's side of the relay, and the upstream of [`ProxyOptions`] — a child
//! process ([`crate::child`]) or a Streamable HTTP endpoint ([`crate::remote`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, watch};

use crate::error::ProxyError;
use crate::lines::{self, Side, read_side};
use crate::relay::{DRAIN, Ports, Relay, Settings, UpstreamPorts};
use crate::scratch::Scratch;
use crate::{ProxyOptions, Upstream, child, remote};

/// Messages queued towards one side before the other side's reader waits (back-pressure).
pub(crate) const QUEUE: usize = 256;

/// A session's relay and the queues around it, before any transport is attached.
pub(crate) struct Wiring {
    pub(crate) relay: Relay,
    /// What the relay sends to the client.
    pub(crate) client_queue: mpsc::Receiver<String>,
    pub(crate) upstream: UpstreamPorts,
}

/// Builds the relay for one session of `options` over `scratch`.
pub(crate) fn wire(
    options: &ProxyOptions,
    scratch: Arc<dyn Scratch>,
) -> Result<Wiring, ProxyError> {
    let (to_client, client_queue) = mpsc::channel(QUEUE);
    let (to_server, queue) = mpsc::channel(QUEUE);
    let (stop, stopped) = mpsc::unbounded_channel();
    let (label, diagnostics) = match &options.upstream {
        Upstream::Command(command) => (
            format!("`{}`", child::command_line(command)),
            child::DIAGNOSTICS.to_owned(),
        ),
        Upstream::Http(remote) => (
            format!("at {}", remote.url()),
            remote::DIAGNOSTICS.to_owned(),
        ),
    };
    let settings = Settings {
        server: options.server.clone(),
        label,
        diagnostics,
        init_timeout: options.init_timeout,
    };
    let ports = Ports {
        to_client,
        to_server,
        stop,
    };
    Ok(Wiring {
        relay: Relay::new(scratch, settings, ports)?,
        client_queue,
        upstream: UpstreamPorts { queue, stopped },
    })
}

/// Runs the upstream of `options` for `relay` until the client goes (`gone`), the server
/// goes, or the relay stops the session.
pub(crate) async fn run_upstream(
    options: &ProxyOptions,
    relay: &Relay,
    upstream: UpstreamPorts,
    gone: Pin<&mut impl Future<Output = ()>>,
) -> Result<(), ProxyError> {
    match &options.upstream {
        Upstream::Command(command) => child::run(command, relay, upstream, gone).await,
        Upstream::Http(remote) => remote::run(remote, relay, upstream, gone).await,
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
    } = wire(&options, scratch)?;
    let (close, closing) = watch::channel(false);
    let writer = tokio::spawn(lines::write_lines(write, client_queue, closing));
    let mut reader = tokio::spawn(read_side(read, relay.clone(), Side::Client));
    let gone = async {
        let _ = (&mut reader).await;
    };
    tokio::pin!(gone);
    let outcome = run_upstream(&options, &relay, upstream, gone).await;
    relay.drain().await;
    reader.abort();
    let _ = close.send(true);
    let _ = tokio::time::timeout(DRAIN, writer).await;
    outcome
}
