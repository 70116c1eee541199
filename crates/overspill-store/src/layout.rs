//! Where each agent's files go under `memory_dir` (docs/storage.md "Layout" and "Read roots").
//!
//! ```text
//! {memory_dir}/scratchpad/                                    single agent (read root)
//! {memory_dir}[/{session_id}]/{run_id}/artifacts/             run result artifacts
//! {memory_dir}[/{session_id}]/{run_id}/iteration-{n}/scratchpad/   worker scratchpad
//! ```
//!
//! A worker reads anywhere under its session dir (its run dir without a session), starting
//! from its scratchpad dir; the coordinator has no scratchpad and starts from the run dir.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::atomic::{RESERVED_PREFIX, create_private_dir_all};
use crate::error::{LayoutError, PathError};
use crate::read_root::ReadRoot;

/// The single agent's directory under `memory_dir`; also why no run may be called this.
pub(crate) const SINGLE_AGENT_DIR: &str = "scratchpad";
/// A run's result artifacts directory.
const ARTIFACTS_DIR: &str = "artifacts";
/// Longest run or session id, in bytes (a safe file-name length everywhere).
const MAX_ID_BYTES: usize = 128;

/// Who the layout is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// One agent, no orchestration.
    SingleAgent,
    /// The coordinator of an orchestration run (no scratchpad, no budget).
    Coordinator,
    /// A worker of an orchestration run, in iteration `n`.
    Worker {
        /// The iteration the worker runs in.
        iteration: u32,
    },
}

/// The directories of one agent: its scratchpad, its run's artifacts, its read root.
///
/// ```
/// use std::path::Path;
/// use overspill_store::Layout;
///
/// let single = Layout::single_agent("/m");
/// assert_eq!(single.scratchpad_dir(), Some(Path::new("/m/scratchpad")));
/// assert_eq!(single.read_root_dir(), Path::new("/m/scratchpad"));
///
/// let worker = Layout::worker("/m", Some("s1"), "run-7", 2)?;
/// assert_eq!(worker.scratchpad_dir(), Some(Path::new("/m/s1/run-7/iteration-2/scratchpad")));
/// assert_eq!(worker.artifacts_dir(), Some(Path::new("/m/s1/run-7/artifacts")));
/// assert_eq!(worker.read_root_dir(), Path::new("/m/s1"));
///
/// let no_session = Layout::worker("/m", None, "run-7", 2)?;
/// assert_eq!(no_session.read_root_dir(), Path::new("/m/run-7"));
/// assert!(Layout::worker("/m", None, "../etc", 0).is_err());
/// # Ok::<(), overspill_store::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    memory_dir: PathBuf,
    role: Role,
    session: Option<(String, PathBuf)>,
    run: Option<(String, PathBuf)>,
    scratchpad: Option<PathBuf>,
    artifacts: Option<PathBuf>,
    read_root: PathBuf,
    read_base: PathBuf,
}

impl Layout {
    /// A single agent: `{memory_dir}/scratchpad/`, which is also its read root.
    pub fn single_agent(memory_dir: impl Into<PathBuf>) -> Layout {
        let memory_dir = memory_dir.into();
        let scratchpad = memory_dir.join(SINGLE_AGENT_DIR);
        Layout {
            role: Role::SingleAgent,
            session: None,
            run: None,
            artifacts: None,
            read_root: scratchpad.clone(),
            read_base: scratchpad.clone(),
            scratchpad: Some(scratchpad),
            memory_dir,
        }
    }

    /// The coordinator of run `run_id`, in session `session_id` if there is one.
    pub fn coordinator(
        memory_dir: impl Into<PathBuf>,
        session_id: Option<&str>,
        run_id: &str,
    ) -> Result<Layout, LayoutError> {
        Layout::orchestration(memory_dir.into(), session_id, run_id, Role::Coordinator)
    }

    /// A worker of run `run_id` in iteration `iteration`, in session `session_id` if there is
    /// one.
    pub fn worker(
        memory_dir: impl Into<PathBuf>,
        session_id: Option<&str>,
        run_id: &str,
        iteration: u32,
    ) -> Result<Layout, LayoutError> {
        Layout::orchestration(
            memory_dir.into(),
            session_id,
            run_id,
            Role::Worker { iteration },
        )
    }

    /// The layout of a worker in `iteration` of this layout's run.
    pub fn for_iteration(&self, iteration: u32) -> Result<Layout, LayoutError> {
        let Some((run_id, _)) = &self.run else {
            return Err(LayoutError::WrongRole(
                "a single agent has no iterations; build a worker layout with Layout::worker",
            ));
        };
        let session = self.session.as_ref().map(|(id, _)| id.as_str());
        Layout::worker(self.memory_dir.clone(), session, run_id, iteration)
    }

    fn orchestration(
        memory_dir: PathBuf,
        session_id: Option<&str>,
        run_id: &str,
        role: Role,
    ) -> Result<Layout, LayoutError> {
        validate_id("run id", run_id)?;
        let session = match session_id {
            Some(id) => {
                validate_id("session id", id)?;
                Some((id.to_owned(), memory_dir.join(id)))
            }
            None => None,
        };
        let parent = session.as_ref().map_or(&memory_dir, |(_, dir)| dir);
        let run_dir = parent.join(run_id);
        let scratchpad = match role {
            Role::Worker { iteration } => Some(
                run_dir
                    .join(format!("iteration-{iteration}"))
                    .join(SINGLE_AGENT_DIR),
            ),
            Role::Coordinator | Role::SingleAgent => None,
        };
        let read_root = session
            .as_ref()
            .map_or_else(|| run_dir.clone(), |(_, dir)| dir.clone());
        Ok(Layout {
            role,
            artifacts: Some(run_dir.join(ARTIFACTS_DIR)),
            read_base: scratchpad.clone().unwrap_or_else(|| run_dir.clone()),
            scratchpad,
            read_root,
            run: Some((run_id.to_owned(), run_dir)),
            session,
            memory_dir,
        })
    }

    /// The persistence root this layout lives under.
    pub fn memory_dir(&self) -> &Path {
        &self.memory_dir
    }

    /// Who the layout is for.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The session id, for an orchestration layout in a session.
    pub fn session_id(&self) -> Option<&str> {
        self.session.as_ref().map(|(id, _)| id.as_str())
    }

    /// The run id, for an orchestration layout.
    pub fn run_id(&self) -> Option<&str> {
        self.run.as_ref().map(|(id, _)| id.as_str())
    }

    /// Where intercepted outputs are written: `None` for the coordinator, which has none.
    pub fn scratchpad_dir(&self) -> Option<&Path> {
        self.scratchpad.as_deref()
    }

    /// The run's result artifacts directory: `None` for a single agent.
    pub fn artifacts_dir(&self) -> Option<&Path> {
        self.artifacts.as_deref()
    }

    /// The run directory: `None` for a single agent.
    pub fn run_dir(&self) -> Option<&Path> {
        self.run.as_ref().map(|(_, dir)| dir.as_path())
    }

    /// The session directory: `None` without a session.
    pub fn session_dir(&self) -> Option<&Path> {
        self.session.as_ref().map(|(_, dir)| dir.as_path())
    }

    /// The directory exploration reads are confined to: the scratchpad dir for a single
    /// agent; the session dir (or the run dir, without a session) in orchestration.
    pub fn read_root_dir(&self) -> &Path {
        &self.read_root
    }

    /// Where relative read paths start: the scratchpad dir, or the run dir for the coordinator.
    pub fn read_base_dir(&self) -> &Path {
        &self.read_base
    }

    /// Creates this layout's directories that exist by design (scratchpad, artifacts, read
    /// root) with mode 0700, leaving existing ones as they are.
    pub fn create_dirs(&self) -> Result<(), LayoutError> {
        for dir in [
            Some(&self.read_root),
            self.scratchpad.as_ref(),
            self.artifacts.as_ref(),
        ]
        .into_iter()
        .flatten()
        {
            create_private_dir_all(dir).map_err(|error| LayoutError::Io {
                action: "create",
                dir: dir.clone(),
                error,
            })?;
        }
        Ok(())
    }

    /// The read root of this agent, based at [`Layout::read_base_dir`]; creates the read
    /// root directory (0700) if it is missing.
    pub fn open_read_root(&self) -> Result<ReadRoot, PathError> {
        create_private_dir_all(&self.read_root).map_err(|error| PathError::Io {
            path: self.read_root.display().to_string(),
            error,
        })?;
        ReadRoot::new(&self.read_root)?.with_base(&self.read_base)
    }

    /// Removes a single agent's scratchpad dir and everything in it. Returns whether there
    /// was anything to remove. Orchestration runs are pruned by [`Layout::start_run`] instead.
    pub fn cleanup(&self) -> Result<bool, LayoutError> {
        let (Role::SingleAgent, Some(dir)) = (self.role, &self.scratchpad) else {
            return Err(LayoutError::WrongRole(
                "cleanup() removes a single agent's scratchpad; orchestration runs are pruned by start_run()",
            ));
        };
        match fs::remove_dir_all(dir) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(error) => Err(LayoutError::Io {
                action: "remove",
                dir: dir.clone(),
                error,
            }),
        }
    }
}

/// Checks that `id` can name one directory level: non-empty, at most 128 bytes, no `/`, `\`,
/// NUL or other control characters, no `..`, not hidden, and not a name the layout uses.
pub fn validate_id(what: &'static str, id: &str) -> Result<(), LayoutError> {
    let reason = if id.is_empty() {
        Some("it is empty; use a non-empty name such as a UUID")
    } else if id.len() > MAX_ID_BYTES {
        Some("it is longer than 128 bytes; use a shorter name")
    } else if id.contains(['/', '\\']) {
        Some("it contains a path separator; use a single name without `/` or `\\`")
    } else if id.chars().any(char::is_control) {
        Some("it contains a control character; use printable characters only")
    } else if id.contains("..") {
        Some("it contains `..`; use a name without `..`")
    } else if id.starts_with('.') {
        Some("it starts with `.`; hidden names are reserved")
    } else if id == SINGLE_AGENT_DIR || id.starts_with(RESERVED_PREFIX) {
        Some("it is a name the layout itself uses; pick another")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(LayoutError::InvalidId {
            what,
            id: id.to_owned(),
            reason,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests;
