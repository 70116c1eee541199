//! The first answer of a session (issue 38): how long a client waits, from starting the
//! process it talks to, for the answer to its first request, `initialize` or the 2026-07-28
//! revision's `server/discover`. The server takes 300 ms to answer ([`SERVER_MS`]); it is
//! started directly, and behind `overspill mcp` with the token tables neither built nor cached
//! (an empty `OVERSPILL_CACHE_DIR`, a machine where overspill never ran) and cached. Nothing
//! before the proxy's first answer may wait for the tables (docs/tokens.md), so the proxy
//! should add only its own start to the server's 300 ms.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::median;
use super::session::{Session, initialize_params};

/// How long the server waits before it reads (and so answers) anything.
pub const SERVER_MS: u64 = 300;

/// The two ways a client opens a session.
#[derive(Debug, Clone, Copy)]
pub enum Opening {
    /// `initialize`, the handshake of every revision up to 2025-11-25.
    Initialize,
    /// `server/discover`, the stateless start of the 2026-07-28 revision.
    Discover,
}

impl Opening {
    /// The request's method and params, the client's first line.
    fn request(self) -> (&'static str, Value) {
        match self {
            Opening::Initialize => ("initialize", initialize_params()),
            Opening::Discover => (
                "server/discover",
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                 "io.modelcontextprotocol/clientInfo":
                                     {"name": "overspill-bench", "version": "1"}}}),
            ),
        }
    }
}

/// What one opening took: directly, through a proxy with no tables, and with cached ones.
#[derive(Debug, Clone, Copy)]
pub struct Figures {
    pub direct: Duration,
    pub cold: Duration,
    pub warm: Duration,
}

/// The medians of `samples` first answers to `opening`. `server` starts the slow server;
/// `proxy(cache)` the proxy in front of it, keeping its token tables in `cache`. The three
/// take turns, so that each sample of each sees the same machine; a cold sample gets a new
/// empty directory, the warm ones share one the proxy filled beforehand (`warm` makes it).
pub fn measure(
    opening: Opening,
    samples: usize,
    server: &dyn Fn() -> Command,
    proxy: &dyn Fn(&Path) -> Command,
    warm: &Path,
) -> Figures {
    let (mut direct, mut cold, mut warmed) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..samples {
        direct.push(first_answer(server(), opening));
        let empty = tempfile::tempdir().unwrap();
        cold.push(first_answer(proxy(empty.path()), opening));
        warmed.push(first_answer(proxy(warm), opening));
    }
    Figures {
        direct: median(direct),
        cold: median(cold),
        warm: median(warmed),
    }
}

/// Fills `cache` with the tables `overspill mcp` counts with by default (`o200k_base`), as
/// the first run on a machine leaves them, and checks they are there.
pub fn warm_up(overspill: &Path, cache: &Path) {
    let mut count = Command::new(overspill)
        .arg("count")
        .env("OVERSPILL_CACHE_DIR", cache)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    drop(count.stdin.take());
    assert!(count.wait().unwrap().success(), "overspill count failed");
    let tables = std::fs::read_dir(cache.join("tables")).unwrap();
    assert!(
        tables
            .flatten()
            .any(|entry| entry.file_name().to_string_lossy().ends_with(".bpe")),
        "overspill count left no tables in {}",
        cache.display()
    );
}

/// Starts `command`, sends `opening` as its first line, and returns the time from the start to
/// the answer's arrival; then ends the session as a client does, closing the process's stdin.
fn first_answer(command: Command, opening: Opening) -> Duration {
    let started = Instant::now();
    let mut session = Session::spawn(command);
    let (method, params) = opening.request();
    let id = session.send(method, params);
    let answer = session.response(id);
    assert!(
        answer.message.get("result").is_some(),
        "{opening:?} was not answered with a result: {}",
        answer.message
    );
    session.close();
    answer.at - started
}
