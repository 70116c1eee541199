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
mod tests {
    use super::*;

    fn start(memory: &Path, run: &str, max: usize) -> RunStarted {
        Layout::coordinator(memory, Some("s"), run)
            .unwrap()
            .start_run(max)
            .unwrap()
    }

    fn runs(memory: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(memory.join("s"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn start_run_prunes_the_oldest_runs_beyond_max_session_runs() {
        let tmp = tempfile::tempdir().unwrap();
        let mut pruned = Vec::new();
        // Started in the reverse of their name order, so only the start time can pick them.
        for i in (1..=25).rev() {
            pruned
                .extend(start(tmp.path(), &format!("run-{i:02}"), DEFAULT_MAX_SESSION_RUNS).pruned);
        }
        assert_eq!(pruned, ["run-25", "run-24", "run-23", "run-22", "run-21"]);
        let left = runs(tmp.path());
        assert_eq!(left.len(), 20);
        assert_eq!((left[0].as_str(), left[19].as_str()), ("run-01", "run-20"));
    }

    #[test]
    fn restarting_a_run_keeps_its_first_start_time() {
        let tmp = tempfile::tempdir().unwrap();
        // Names sort against start order, so neither name order nor a re-stamp passes this.
        start(tmp.path(), "z", 2);
        start(tmp.path(), "m", 2);
        start(tmp.path(), "z", 2); // "z" is still the oldest
        assert_eq!(start(tmp.path(), "a", 2).pruned, ["z"]);
        assert_eq!(runs(tmp.path()), ["a", "m"]);
    }

    #[test]
    fn the_run_being_started_is_kept_even_with_max_zero() {
        let tmp = tempfile::tempdir().unwrap();
        start(tmp.path(), "a", 5);
        assert_eq!(start(tmp.path(), "b", 0).pruned, ["a"]);
        assert_eq!(runs(tmp.path()), ["b"]);
    }

    #[test]
    fn runs_without_a_session_are_never_pruned() {
        let tmp = tempfile::tempdir().unwrap();
        for run in ["a", "b", "c"] {
            assert!(
                Layout::coordinator(tmp.path(), None, run)
                    .unwrap()
                    .start_run(1)
                    .unwrap()
                    .pruned
                    .is_empty()
            );
        }
        assert!(["a", "b", "c"].iter().all(|r| tmp.path().join(r).is_dir()));
    }

    #[cfg(unix)]
    #[test]
    fn pruning_leaves_foreign_entries_and_symlinks_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let session = tmp.path().join("s");
        fs::create_dir_all(session.join("notes")).unwrap();
        fs::write(session.join("file.txt"), "x").unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        fs::create_dir_all(elsewhere.join("artifacts")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, session.join("linked-run")).unwrap();
        // A host-made run without a marker is still recognised by its artifacts dir.
        fs::create_dir_all(session.join("host-run/artifacts")).unwrap();
        start(tmp.path(), "new", 1);
        assert_eq!(runs(tmp.path()), ["file.txt", "linked-run", "new", "notes"]);
        assert!(elsewhere.join("artifacts").is_dir());
    }

    #[test]
    fn start_run_creates_the_run_directories() {
        let tmp = tempfile::tempdir().unwrap();
        let w = Layout::worker(tmp.path(), Some("s"), "r", 4).unwrap();
        w.start_run(DEFAULT_MAX_SESSION_RUNS).unwrap();
        assert!(w.scratchpad_dir().unwrap().is_dir() && w.artifacts_dir().unwrap().is_dir());
        assert!(matches!(
            Layout::single_agent(tmp.path()).start_run(3),
            Err(LayoutError::WrongRole(_))
        ));
    }
}
