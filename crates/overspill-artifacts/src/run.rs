//! One orchestration run, seen from one iteration: where its artifacts live and what its
//! workers may read (docs/storage.md "Layout", §8).

use std::path::{Path, PathBuf};

use overspill_store::{Layout, LayoutError, PathError, ReadRoot, RunStarted};

use crate::listing::Available;

/// Why a run could not be opened, started or listed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// An id is unusable, or a run directory could not be created or pruned.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// A cross-run read names a run outside this run's session.
    #[error(
        "run `{0}` is not readable from here: without a session id only the current run's \
         artifacts can be read; leave `run_id` out, or give the orchestration a session id"
    )]
    OutsideSession(String),
    /// The artifacts directory exists but cannot be read.
    #[error("cannot list the artifacts in {}: {error}; check the directory's permissions", dir.display())]
    List {
        /// The artifacts directory.
        dir: PathBuf,
        /// The operating system's error, stated in the message (not returned by `source()`).
        error: std::io::Error,
    },
}

/// An orchestration run at one iteration: session (optional), run id, iteration.
///
/// Built from the store's [`Layout`], so the directories are exactly those the rest of
/// overspill uses:
///
/// ```text
/// {memory_dir}[/{session_id}]/{run_id}/artifacts/                 result artifacts
/// {memory_dir}[/{session_id}]/{run_id}/iteration-{n}/scratchpad/  a worker's scratchpad
/// ```
///
/// A worker reads anywhere under the session dir (the run dir without a session), starting
/// from its scratchpad dir. Building a `Run` touches nothing on disk; [`Run::start`] creates
/// the directories and applies retention.
///
/// ```
/// use std::path::Path;
/// use overspill_artifacts::Run;
///
/// let run = Run::new("/m", Some("s1"), "run-7", 2)?;
/// assert_eq!(run.artifacts_dir(), Path::new("/m/s1/run-7/artifacts"));
/// assert_eq!(run.iteration_dir(), Path::new("/m/s1/run-7/iteration-2"));
/// assert_eq!(run.worker_scratchpad_dir(), Path::new("/m/s1/run-7/iteration-2/scratchpad"));
/// assert_eq!(run.worker_read_root_dir(), Path::new("/m/s1"));
/// assert_eq!(Run::new("/m", None, "run-7", 2)?.worker_read_root_dir(), Path::new("/m/run-7"));
/// assert!(Run::new("/m", None, "../x", 0).is_err());
/// # Ok::<(), overspill_artifacts::RunError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    coordinator: Layout,
    worker: Layout,
    iteration: u32,
    run_id: String,
    run_dir: PathBuf,
    artifacts_dir: PathBuf,
    worker_scratchpad_dir: PathBuf,
}

impl Run {
    /// The run `run_id` at `iteration`, in session `session_id` if there is one, under
    /// `memory_dir`. Touches nothing on disk.
    ///
    /// # Errors
    /// [`RunError::Layout`] when the run or session id cannot name a directory (empty, a
    /// separator, `..`, a leading dot, …).
    pub fn new(
        memory_dir: impl Into<PathBuf>,
        session_id: Option<&str>,
        run_id: &str,
        iteration: u32,
    ) -> Result<Run, RunError> {
        let coordinator = Layout::coordinator(memory_dir, session_id, run_id)?;
        let worker = coordinator.for_iteration(iteration)?;
        let missing = || {
            LayoutError::WrongRole(
                "an orchestration layout always has a run, artifacts and a scratchpad",
            )
        };
        let run_dir = coordinator.run_dir().ok_or_else(missing)?.to_owned();
        let artifacts_dir = coordinator.artifacts_dir().ok_or_else(missing)?.to_owned();
        let worker_scratchpad_dir = worker.scratchpad_dir().ok_or_else(missing)?.to_owned();
        Ok(Run {
            coordinator,
            worker,
            iteration,
            run_id: run_id.to_owned(),
            run_dir,
            artifacts_dir,
            worker_scratchpad_dir,
        })
    }

    /// Starts the run: creates its directories (mode 0700) and, in a session, prunes the
    /// session's oldest runs so that at most `max_session_runs` remain, this one included
    /// (docs/storage.md retention; [`overspill_store::DEFAULT_MAX_SESSION_RUNS`] is the usual value).
    /// Starting the same run again is harmless.
    ///
    /// # Errors
    /// [`RunError::Layout`] when a directory cannot be created or the session dir read. An old
    /// run that cannot be removed is logged and skipped, never an error.
    pub fn start(&self, max_session_runs: usize) -> Result<RunStarted, RunError> {
        let started = self.worker.start_run(max_session_runs)?;
        if !started.pruned.is_empty() {
            tracing::debug!(run = %self.run_id, pruned = ?started.pruned, "pruned old runs");
        }
        Ok(started)
    }

    /// The same run at another iteration.
    ///
    /// # Errors
    /// Never in practice: the ids were checked when this run was built.
    pub fn at_iteration(&self, iteration: u32) -> Result<Run, RunError> {
        Run::new(
            self.memory_dir(),
            self.session_id(),
            &self.run_id,
            iteration,
        )
    }

    /// Another run of the same session, at iteration 0: what a cross-run read opens.
    ///
    /// # Errors
    /// [`RunError::Layout`] for an unusable id; [`RunError::OutsideSession`] when this run has
    /// no session and `run_id` is not this run (a worker's read root is then this run's dir,
    /// so nothing of another run is readable).
    pub fn sibling(&self, run_id: &str) -> Result<Run, RunError> {
        overspill_store::validate_id("run id", run_id)?;
        if self.session_id().is_none() && run_id != self.run_id {
            return Err(RunError::OutsideSession(run_id.to_owned()));
        }
        Run::new(self.memory_dir(), self.session_id(), run_id, 0)
    }

    /// The persistence root (`memory_dir`).
    pub fn memory_dir(&self) -> &Path {
        self.coordinator.memory_dir()
    }

    /// The session id, if the run is in a session.
    pub fn session_id(&self) -> Option<&str> {
        self.coordinator.session_id()
    }

    /// The run id.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The iteration this handle is at.
    pub fn iteration(&self) -> u32 {
        self.iteration
    }

    /// The session dir, if the run is in a session.
    pub fn session_dir(&self) -> Option<&Path> {
        self.coordinator.session_dir()
    }

    /// `{…}/{run_id}/`.
    pub fn run_dir(&self) -> &Path {
        &self.run_dir
    }

    /// `{…}/{run_id}/iteration-{n}/`.
    pub fn iteration_dir(&self) -> &Path {
        self.worker_scratchpad_dir.parent().unwrap_or(&self.run_dir)
    }

    /// `{…}/{run_id}/artifacts/`: result artifacts and the coordinator's artifacts.
    pub fn artifacts_dir(&self) -> &Path {
        &self.artifacts_dir
    }

    /// `{…}/{run_id}/iteration-{n}/scratchpad/`: where a worker's intercepted outputs go, and
    /// where its relative read paths start.
    pub fn worker_scratchpad_dir(&self) -> &Path {
        &self.worker_scratchpad_dir
    }

    /// A worker's read root: the session dir, or the run dir without a session.
    pub fn worker_read_root_dir(&self) -> &Path {
        self.worker.read_root_dir()
    }

    /// The coordinator's layout (no scratchpad).
    pub fn coordinator_layout(&self) -> &Layout {
        &self.coordinator
    }

    /// A worker's layout at this iteration.
    pub fn worker_layout(&self) -> &Layout {
        &self.worker
    }

    /// A worker's read root, based at its scratchpad dir so `../../artifacts/x.txt` resolves;
    /// creates the root directory if it is missing.
    ///
    /// # Errors
    /// The root cannot be created or resolved.
    pub fn open_worker_read_root(&self) -> Result<ReadRoot, PathError> {
        self.worker.open_read_root()
    }

    /// The artifacts of this run, newest first (at most [`crate::MAX_LISTED`] names).
    ///
    /// # Errors
    /// [`RunError::List`] when the artifacts directory exists but cannot be read.
    pub fn available(&self) -> Result<Available, RunError> {
        Available::in_dir(&self.artifacts_dir).map_err(|error| RunError::List {
            dir: self.artifacts_dir.clone(),
            error,
        })
    }
}

#[cfg(test)]
mod tests;
