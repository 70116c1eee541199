//! `write_artifact`: the coordinator stores content for its workers (docs/artifacts.md).

use std::fs;
use std::io;
use std::path::PathBuf;

use overspill_explore::{Caller, HostTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::name::{MAX_FILE_NAME_BYTES, NameError, coordinator_file_name};
use crate::run::Run;

/// What the model is told when there is nowhere to write.
pub const PERSISTENCE_OFF: &str = "artifacts are not available: persistence is off. Set \
    `memory_dir` in the configuration (e.g. `memory_dir = \"./.overspill\"`) so artifacts can be \
    stored; until then, pass content to workers in their task description";

/// The arguments of the `write_artifact` tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WriteArtifactArgs {
    /// The artifact's name with an extension, e.g. `runbook-draft.md`.
    #[schemars(length(min = 1, max = MAX_FILE_NAME_BYTES))]
    pub name: String,
    /// The text to store.
    pub content: String,
}

/// A successful write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenArtifact {
    /// The stored file name, e.g. `coordinator-runbook-draft.md`.
    pub filename: String,
    /// Its full path.
    pub path: PathBuf,
    /// Whether a file of that name was replaced.
    pub replaced: bool,
}

/// Why a write failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// There is no run to write into: `memory_dir` is not set.
    #[error("{PERSISTENCE_OFF}")]
    PersistenceOff,
    /// The name has nothing usable in it.
    #[error(transparent)]
    Name(#[from] NameError),
    /// The artifacts directory could not be created.
    #[error(transparent)]
    Layout(#[from] overspill_store::LayoutError),
    /// The file could not be written.
    #[error(
        "could not store `{filename}`: {error}; check free disk space and the permissions of the run's artifacts directory"
    )]
    Io {
        /// The file name it was to be stored under.
        filename: String,
        /// The operating system's error, stated in the message (not returned by `source()`).
        error: io::Error,
    },
}

/// Stores `content` as the coordinator's artifact `name` in the run's artifacts directory and
/// returns the JSON the model receives:
/// `{"written": true, "filename": "coordinator-runbook-draft.md", "replaced": false}`, or
/// `{"written": false, "error": "..."}` (no persistence, an unusable name, an I/O failure).
///
/// `run` is `None` when persistence is off (no `memory_dir`). The name is sanitised by
/// [`coordinator_file_name`]; the write is atomic (a reader sees the old content or the new,
/// never part of either).
///
/// ```
/// use overspill_artifacts::{Run, write_artifact};
/// use serde_json::json;
///
/// let memory = tempfile::tempdir()?;
/// let run = Run::new(memory.path(), Some("s1"), "run-1", 0)?;
/// assert_eq!(
///     write_artifact(Some(&run), "runbook-draft.md", "# Runbook\n"),
///     json!({"written": true, "filename": "coordinator-runbook-draft.md", "replaced": false})
/// );
/// assert_eq!(write_artifact(None, "notes", "x")["written"], json!(false));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_artifact(run: Option<&Run>, name: &str, content: &str) -> Value {
    let result = match run {
        Some(run) => run.write_artifact(name, content),
        None => Err(WriteError::PersistenceOff),
    };
    match result {
        Ok(written) => {
            json!({"written": true, "filename": written.filename, "replaced": written.replaced})
        }
        Err(error) => {
            if let WriteError::Io { .. } | WriteError::Layout(_) = error {
                tracing::warn!(%error, "write_artifact failed");
            }
            json!({"written": false, "error": error.to_string()})
        }
    }
}

/// The `write_artifact` tool, for the coordinator: [`write_artifact`] in the run it holds
/// (`None` when persistence is off), through the one [`overspill_explore::Registry`].
///
/// ```
/// use overspill_artifacts::WriteArtifact;
/// use overspill_explore::Registry;
///
/// let registry = Registry::none().with(WriteArtifact::new(None));
/// let answer = registry.answer(None, "write_artifact", &serde_json::json!({"name": "notes"}));
/// assert!(answer.starts_with(r#"{"error":"invalid_argument""#));
/// ```
#[derive(Debug, Clone)]
pub struct WriteArtifact {
    run: Option<Run>,
}

impl WriteArtifact {
    /// The tool writing into `run`'s artifacts.
    pub fn new(run: Option<Run>) -> WriteArtifact {
        WriteArtifact { run }
    }
}

impl HostTool for WriteArtifact {
    const NAME: &'static str = "write_artifact";
    const DESCRIPTION: &'static str = "Store text as an artifact of this run so workers can \
        load it with `read_artifact` instead of receiving it in their task description: a \
        runbook draft, a list of findings, data a task needs. The file is stored as \
        `coordinator-{name}`; `name` should be short and carry an extension (`.md`, `.json`, \
        `.txt`; `.txt` is added when it has none); directories and unusual characters are \
        removed. Writing the same name again replaces the artifact. Returns JSON: \
        {\"written\": true, \"filename\": \"coordinator-runbook-draft.md\", \"replaced\": \
        false}; list that `filename` in the artifacts of the tasks that need it.";
    type Args = WriteArtifactArgs;
    // An artifact is content of any size; the answer quotes only the stored file name.
    const LONG_ARGUMENTS: bool = true;

    fn answer(&self, _caller: &Caller<'_>, args: WriteArtifactArgs) -> String {
        write_artifact(self.run.as_ref(), &args.name, &args.content).to_string()
    }
}

impl Run {
    /// Stores `content` as the coordinator's artifact `name`; see [`write_artifact`] for the
    /// rules. Creates the artifacts directory (mode 0700) if needed; the file gets mode 0600.
    ///
    /// # Errors
    /// [`WriteError::Name`] for a name with nothing usable in it, [`WriteError::Layout`] or
    /// [`WriteError::Io`] when the directory or the file cannot be written.
    pub fn write_artifact(&self, name: &str, content: &str) -> Result<WrittenArtifact, WriteError> {
        self.store(coordinator_file_name(name)?, content)
    }

    /// Stores a worker's result for later tasks, as the host does after a task finishes:
    /// `task-{id}-result.txt`, where `id` is sanitised like a tool name (anything outside
    /// `[A-Za-z0-9_-]` becomes `_`, at most 64 characters; docs/storage.md). Same atomic write as
    /// [`Run::write_artifact`]; a second result for the same task replaces the first.
    ///
    /// ```
    /// let memory = tempfile::tempdir()?;
    /// let run = overspill_artifacts::Run::new(memory.path(), None, "run-1", 0)?;
    /// let written = run.write_task_result("3", "42 pods restarted")?;
    /// assert_eq!(written.filename, "task-3-result.txt");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`WriteError::Layout`] or [`WriteError::Io`] when the directory or the file cannot be
    /// written.
    pub fn write_task_result(
        &self,
        task_id: &str,
        content: &str,
    ) -> Result<WrittenArtifact, WriteError> {
        let id = overspill_store::sanitize_name(task_id, "unnamed");
        self.store(format!("task-{id}-result.txt"), content)
    }

    /// Writes `content` under `filename` (a plain name) in the artifacts directory.
    fn store(&self, filename: String, content: &str) -> Result<WrittenArtifact, WriteError> {
        self.coordinator_layout().create_dirs()?;
        let dir = self.artifacts_dir();
        let path = dir.join(&filename);
        let replaced = fs::symlink_metadata(&path).is_ok();
        match overspill_store::write_replacing(dir, &filename, content.as_bytes()) {
            Ok(()) => Ok(WrittenArtifact {
                filename,
                path,
                replaced,
            }),
            Err(error) => Err(WriteError::Io { filename, error }),
        }
    }
}

#[cfg(test)]
mod tests;
