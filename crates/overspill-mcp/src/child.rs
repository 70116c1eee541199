//! The upstream as a child process spoken to over its stdio.
//!
//! The child starts with the session, so its stderr (inherited: the client's log for this
//! server) shows early, but it hears nothing until the client's first message.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::process::Stdio;

use overspill::config::CommandServer;
use tokio::process::{Child, Command};
use tokio::sync::watch;

use crate::error::ProxyError;
use crate::lines;
use crate::lines::{Side, read_side};
use crate::relay::{DRAIN, ServerEnd, UpstreamPorts};

/// How long the server may take to exit after its stdin closes, before it is killed.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Where the server's diagnostics go: its stderr is the proxy's.
pub(crate) const DIAGNOSTICS: &str = "the proxy's stderr (your MCP client's log for this server)";

/// How the session ended.
enum Ended {
    Client,
    /// The server's stdout ended (`true`) or its process exited (`false`).
    Server {
        stdout_done: bool,
    },
    Fatal(ProxyError),
}

/// Runs the session against the server `command` starts until the client goes (`gone`) or
/// the server does; its stderr goes to `log` (appended) when given.
pub(crate) async fn run(
    command: &CommandServer,
    log: Option<&Path>,
    server: &ServerEnd,
    ports: UpstreamPorts,
    gone: Pin<&mut impl Future<Output = ()>>,
) -> Result<(), ProxyError> {
    let UpstreamPorts { queue, mut stopped } = ports;
    let mut child = spawn(command, log)?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(ProxyError::UpstreamLost(
            "the child's stdio pipes were not created".to_owned(),
        ));
    };
    let (close_server, server_closing) = watch::channel(false);
    let server_writer = tokio::spawn(lines::write_lines(stdin, queue, server_closing));
    let mut server_reader = tokio::spawn(read_side(stdout, Side::Server(server.clone())));

    let ended = tokio::select! {
        () = gone => Ended::Client,
        _ = &mut server_reader => Ended::Server { stdout_done: true },
        _ = child.wait() => Ended::Server { stdout_done: false },
        Some(error) = stopped.recv() => Ended::Fatal(error),
    };
    match ended {
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
            server.gone(&why).await;
            Err(error)
        }
        Ended::Fatal(error) => {
            let _ = child.kill().await;
            Err(error)
        }
    }
}

/// Starts the server with piped stdin/stdout and the proxy's stderr (or `log`), in its `cwd`
/// (the proxy's own when none) and with its `env` added to the proxy's environment.
fn spawn(command: &CommandServer, log: Option<&Path>) -> Result<Child, ProxyError> {
    let stderr = match log {
        None => Stdio::inherit(),
        Some(path) => std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map(Stdio::from)
            .map_err(|error| ProxyError::Log {
                path: path.to_owned(),
                error,
            })?,
    };
    let mut child = Command::new(&command.command);
    child
        .args(&command.args)
        .envs(&command.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .kill_on_drop(true);
    if let Some(cwd) = &command.cwd {
        child.current_dir(cwd);
    }
    child.spawn().map_err(|error| ProxyError::Spawn {
        command: command.command.clone(),
        error,
    })
}

/// The server's command line as errors show it.
pub(crate) fn command_line(command: &CommandServer) -> String {
    std::iter::once(command.command.as_str())
        .chain(command.args.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `command`'s program can be started: a path that is a file, or a name found on the
/// `PATH` it would be started with. What a readiness check can ask of a server each session
/// starts for itself. `Err` says why not.
pub(crate) fn findable(command: &CommandServer) -> Result<(), String> {
    let program = Path::new(&command.command);
    if program.components().count() > 1 {
        let at = match &command.cwd {
            Some(cwd) if program.is_relative() => Path::new(cwd).join(program),
            _ => program.to_owned(),
        };
        return if is_program(&at) {
            Ok(())
        } else {
            Err(format!("{} is not an executable file", at.display()))
        };
    }
    let path = command
        .env
        .get("PATH")
        .map(std::ffi::OsString::from)
        .or_else(|| std::env::var_os("PATH"))
        .unwrap_or_default();
    match find_on_path(&command.command, &path) {
        Some(_) => Ok(()),
        None => Err(format!("`{}` is not found on its PATH", command.command)),
    }
}

/// The first executable file named `program` in the directories of `path` (a `PATH` value).
pub fn find_on_path(program: &str, path: &std::ffi::OsStr) -> Option<std::path::PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_program(candidate))
}

/// Whether `path` is a file this process may run (on Unix: with an execute bit).
fn is_program(path: &Path) -> bool {
    let Ok(metadata) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    metadata.is_file()
}
