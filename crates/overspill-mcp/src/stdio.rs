//! stdio on both sides: the client on a pair of byte streams (the proxy's own stdin and
//! stdout), the server as a child process spoken to over its pipes.
//!
//! The child starts with the proxy, so its stderr (inherited: the client's log for this
//! server) shows early, but it hears nothing until the client's first message.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, watch};

use crate::error::ProxyError;
use crate::lines::{self, Line};
use crate::relay::{Ports, Relay, Settings, Unreadable};
use crate::scratch::Scratch;
use crate::{MAX_LINE_BYTES, ProxyOptions};

/// Messages queued towards one side before the other side's reader waits (back-pressure).
const QUEUE: usize = 256;

/// The read buffer per side: large results arrive in few reads.
const READ_BUFFER: usize = 1 << 20;

/// How long answers already under way may take to reach the client once the session ends.
const DRAIN: Duration = Duration::from_secs(2);

/// How long the server may take to exit after its stdin closes, before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// Where the server's diagnostics go: its stderr is the proxy's.
const DIAGNOSTICS: &str = "the proxy's stderr (your MCP client's log for this server)";

/// Which side a reader reads.
#[derive(Clone, Copy)]
enum Side {
    Client,
    Server,
}

/// How the session ended.
enum Ended {
    Client,
    /// The server's stdout ended (`true`) or its process exited (`false`).
    Server {
        stdout_done: bool,
    },
    Fatal(ProxyError),
}

pub(crate) async fn serve<R, W>(
    options: ProxyOptions,
    scratch: Arc<dyn Scratch>,
    read: R,
    write: W,
) -> Result<(), ProxyError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (to_client, client_queue) = mpsc::channel(QUEUE);
    let (to_server, server_queue) = mpsc::channel(QUEUE);
    let (stop, mut stopped) = mpsc::unbounded_channel();
    let settings = Settings {
        server: options.server.clone(),
        label: format!("`{}`", command_line(&options)),
        diagnostics: DIAGNOSTICS.to_owned(),
        init_timeout: options.init_timeout,
    };
    let relay = Relay::new(
        scratch,
        settings,
        Ports {
            to_client,
            to_server,
            stop,
        },
    )?;
    let mut child = spawn(&options)?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(ProxyError::UpstreamLost(
            "the child's stdio pipes were not created".to_owned(),
        ));
    };

    let (close_client, client_closing) = watch::channel(false);
    let (close_server, server_closing) = watch::channel(false);
    let client_writer = tokio::spawn(lines::write_lines(write, client_queue, client_closing));
    let server_writer = tokio::spawn(lines::write_lines(stdin, server_queue, server_closing));
    let mut client_reader = tokio::spawn(read_side(read, relay.clone(), Side::Client));
    let mut server_reader = tokio::spawn(read_side(stdout, relay.clone(), Side::Server));

    let ended = tokio::select! {
        _ = &mut client_reader => Ended::Client,
        _ = &mut server_reader => Ended::Server { stdout_done: true },
        _ = child.wait() => Ended::Server { stdout_done: false },
        Some(error) = stopped.recv() => Ended::Fatal(error),
    };
    let outcome = match ended {
        Ended::Client => {
            // The client is gone: close the server's stdin and let it exit.
            let _ = close_server.send(true);
            let _ = tokio::time::timeout(EXIT_GRACE, server_writer).await;
            if tokio::time::timeout(EXIT_GRACE, child.wait())
                .await
                .is_err()
            {
                let _ = child.kill().await;
            }
            server_reader.abort();
            Ok(())
        }
        Ended::Server { stdout_done } => {
            // Relay what the server wrote before it went, then answer what it never will.
            if !stdout_done {
                let _ = tokio::time::timeout(DRAIN, &mut server_reader).await;
            }
            let status = tokio::time::timeout(EXIT_GRACE, child.wait()).await;
            let (why, error) = match status {
                Ok(Ok(status)) => (
                    format!("exited ({status})"),
                    ProxyError::UpstreamExited { status },
                ),
                Ok(Err(error)) => (
                    "was lost".to_owned(),
                    ProxyError::UpstreamLost(error.to_string()),
                ),
                Err(_) => {
                    let _ = child.kill().await;
                    (
                        "closed its stdout".to_owned(),
                        ProxyError::UpstreamLost("the server closed its stdout".to_owned()),
                    )
                }
            };
            relay.server_gone(&why).await;
            Err(error)
        }
        Ended::Fatal(error) => {
            let _ = child.kill().await;
            Err(error)
        }
    };
    drain(&relay).await;
    client_reader.abort();
    let _ = close_client.send(true);
    let _ = tokio::time::timeout(DRAIN, client_writer).await;
    outcome
}

/// Starts the server with piped stdin/stdout and the proxy's stderr.
fn spawn(options: &ProxyOptions) -> Result<Child, ProxyError> {
    Command::new(&options.program)
        .args(&options.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| ProxyError::Spawn {
            command: options.program.clone(),
            source,
        })
}

/// Hands each line of one side to the relay until the stream ends.
async fn read_side<R: AsyncRead + Unpin>(read: R, relay: Relay, side: Side) {
    let mut reader = BufReader::with_capacity(READ_BUFFER, read);
    loop {
        let unreadable = match lines::next_line(&mut reader, MAX_LINE_BYTES).await {
            Ok(Some(Line::Text(text))) => {
                match side {
                    Side::Client => relay.client_says(text).await,
                    Side::Server => relay.server_says(text).await,
                }
                continue;
            }
            Ok(Some(Line::TooLong)) => Unreadable::TooLong(MAX_LINE_BYTES),
            Ok(Some(Line::NotUtf8)) => Unreadable::NotUtf8,
            Ok(None) | Err(_) => return,
        };
        match side {
            Side::Client => relay.client_unreadable(unreadable).await,
            Side::Server => relay.server_unreadable(unreadable).await,
        }
    }
}

/// Waits until no scratchpad work is under way, for at most [`DRAIN`].
async fn drain(relay: &Relay) {
    let deadline = tokio::time::Instant::now() + DRAIN;
    while relay.busy() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The server's command line as errors show it.
fn command_line(options: &ProxyOptions) -> String {
    std::iter::once(options.program.as_str())
        .chain(options.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}
