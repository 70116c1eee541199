//! Retention: a session keeps its newest `max_session_runs` run directories (docs/storage.md).
//!
//! [`Layout::start_run`] stamps the run dir with a start marker (`.overspill-run`, holding the
//! start time in nanoseconds since the Unix epoch) and then removes the session's oldest runs
//! beyond the limit. Oldest means earliest start marker; a run dir without one (made by a host
//! that never called `start_run`) counts from its modification time. Only directories that look
//! like runs (a marker, an `artifacts/` dir or an `iteration-N/` dir) are ever removed, symlinks
//! are never followed, and the run being started is always kept.

use std::fs;
use std::io;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::atomic::{create_private_dir_all, write_if_absent};
use crate::error::LayoutError;
use crate::layout::{Layout, validate_id};
use crate::root_file::read_small;

/// How many runs a session keeps unless configured otherwise.
pub const DEFAULT_MAX_SESSION_RUNS: usize = 20;

/// The start marker inside a run dir (reserved prefix: never readable through a read root).
const RUN_MARKER: &str = ".overspill-run";

/// What [`Layout::start_run`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunStarted {
    /// Run ids removed from the session, oldest first.
    pub pruned: Vec<String>,
}

impl Layout {
    /// Starts this layout's run: creates its directories (0700), stamps its start time (once;
    /// a restarted run keeps its first stamp), and in a session removes the oldest other runs
    /// so that at most `max_session_runs` remain, this one included.
    ///
    /// A run that cannot be removed is logged and skipped: starting a run never fails because
    /// of an old one. Without a session nothing is pruned.
    pub fn start_run(&self, max_session_runs: usize) -> Result<RunStarted, LayoutError> {
        let (Some(run_id), Some(run_dir)) = (self.run_id(), self.run_dir()) else {
            return Err(LayoutError::WrongRole(
                "start_run() needs an orchestration layout (Layout::coordinator or Layout::worker)",
            ));
        };
        self.create_dirs()?;
        create_private_dir_all(run_dir).map_err(|error| LayoutError::Io {
            action: "create",
            dir: run_dir.to_owned(),
            error,
        })?;
        if !run_dir.join(RUN_MARKER).exists() {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos();
            write_if_absent(run_dir, RUN_MARKER, format!("{now}\n").as_bytes()).map_err(
                |error| LayoutError::Io {
                    action: "create",
                    dir: run_dir.to_owned(),
                    error,
                },
            )?;
        }
        match self.session_dir() {
            Some(session_dir) => prune(session_dir, run_id, max_session_runs),
            None => Ok(RunStarted::default()),
        }
    }
}

/// Removes the oldest runs in `session_dir` other than `current` so that at most `max` remain.
fn prune(session_dir: &Path, current: &str, max: usize) -> Result<RunStarted, LayoutError> {
    let read_error = |error| LayoutError::Io {
        action: "read",
        dir: session_dir.to_owned(),
        error,
    };
    let mut runs: Vec<(SystemTime, String)> = Vec::new();
    for entry in fs::read_dir(session_dir).map_err(read_error)? {
        let entry = entry.map_err(read_error)?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        // `file_type` does not follow symlinks: a link to a directory is never a run.
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if name == current || !is_dir || validate_id("run id", &name).is_err() {
            continue;
        }
        if let Some(started) = run_started(&entry.path()) {
            runs.push((started, name));
        }
    }
    runs.sort();
    let keep_others = max.max(1) - 1;
    let excess = runs.len().saturating_sub(keep_others);
    let mut pruned = Vec::new();
    for (_, name) in runs.into_iter().take(excess) {
        match fs::remove_dir_all(session_dir.join(&name)) {
            Ok(()) => pruned.push(name),
            // Another process pruned it first.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(error) => {
                tracing::warn!(run = %name, %error, "could not prune an old run; leaving it")
            }
        }
    }
    Ok(RunStarted { pruned })
}

/// When the run in `dir` started, or `None` if `dir` does not look like a run.
fn run_started(dir: &Path) -> Option<SystemTime> {
    // A regular file only, never waited on: a FIFO planted as a marker must not stall a run.
    if let Some(nanos) = read_small(dir, RUN_MARKER, 64)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|s| s.trim().parse::<u64>().ok())
    {
        return Some(UNIX_EPOCH + Duration::from_nanos(nanos));
    }
    looks_like_run(dir)
        .then(|| fs::symlink_metadata(dir).and_then(|m| m.modified()).ok())
        .flatten()
}

fn looks_like_run(dir: &Path) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        is_dir
            && (name == "artifacts"
                || name
                    .strip_prefix("iteration-")
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())))
    })
}

#[cfg(test)]
mod tests;
