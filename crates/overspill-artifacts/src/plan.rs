//! Plan validation: a coordinator's plan may hand workers only artifacts that exist (docs/artifacts.md).

use serde_json::{Map, Value, json};

use crate::listing::{Available, is_artifact};
use crate::name::check_file_name;
use crate::run::{Run, RunError};

/// One task of a coordinator's plan, as far as artifacts are concerned: the host maps its own
/// plan type into this.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlanTask {
    /// The task's id or name, used in error messages.
    pub id: String,
    /// The artifact file names the task's worker is to load (`task-1-result.txt`,
    /// `coordinator-runbook.md`).
    pub artifacts: Vec<String>,
}

impl PlanTask {
    /// A task `id` listing `artifacts`.
    pub fn new<S: Into<String>>(
        id: impl Into<String>,
        artifacts: impl IntoIterator<Item = S>,
    ) -> PlanTask {
        PlanTask {
            id: id.into(),
            artifacts: artifacts.into_iter().map(Into::into).collect(),
        }
    }
}

/// A listed artifact that is not in the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingArtifact {
    /// The task that lists it.
    pub task: String,
    /// The file name as listed.
    pub filename: String,
}

/// Why a plan was rejected. [`PlanError::to_json`] is what the coordinator model is shown.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// Tasks list artifacts, but persistence is off.
    #[error(
        "the plan is rejected: {} input artifacts, but persistence is off (no `memory_dir`); \
         set `memory_dir` in the configuration, or put the content in the task descriptions",
        describe_tasks(tasks)
    )]
    PersistenceOff {
        /// The ids of the tasks that list artifacts.
        tasks: Vec<String>,
    },
    /// Listed artifacts do not exist in the run.
    #[error(
        "the plan is rejected: {} not in run `{run_id}`; available artifacts: {}. List only \
         available files, or let a task produce the file first and list it in a later iteration",
        describe_missing(missing),
        available.describe()
    )]
    MissingArtifacts {
        /// The run that was checked.
        run_id: String,
        /// Each missing file with the task that lists it, in plan order.
        missing: Vec<MissingArtifact>,
        /// What the run does hold, newest first.
        available: Available,
    },
    /// The run's artifacts could not be listed.
    #[error(transparent)]
    Run(#[from] RunError),
}

impl PlanError {
    /// The rejection as the JSON object shown to the coordinator:
    /// `{"error": "plan_artifacts_missing", "message", "missing": [{"task", "filename"}],
    /// "available": [...], "available_omitted"?}`, or `{"error":
    /// "artifacts_need_persistence", "message", "tasks": [...]}`.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        let code = match self {
            PlanError::PersistenceOff { .. } => "artifacts_need_persistence",
            PlanError::MissingArtifacts { .. } => "plan_artifacts_missing",
            PlanError::Run(_) => "io_error",
        };
        out.insert("error".to_owned(), json!(code));
        out.insert("message".to_owned(), json!(self.to_string()));
        match self {
            PlanError::PersistenceOff { tasks } => {
                out.insert("tasks".to_owned(), json!(tasks));
            }
            PlanError::MissingArtifacts {
                missing, available, ..
            } => {
                let missing: Vec<Value> = missing
                    .iter()
                    .map(|m| json!({"task": m.task, "filename": m.filename}))
                    .collect();
                out.insert("missing".to_owned(), Value::Array(missing));
                available.insert_into(&mut out);
            }
            PlanError::Run(_) => {}
        }
        Value::Object(out)
    }
}

/// Checks the artifacts a plan's tasks list, before any worker runs.
///
/// `run` is `None` when persistence is off: then a plan is accepted only if no task lists an
/// artifact. Otherwise every listed file must be an artifact of the current run (a regular,
/// non-hidden file directly in its artifacts directory); a name that is not a plain file name
/// (`../x`, `a/b`) can never be one and counts as missing. A plan without artifacts is always
/// accepted.
///
/// ```
/// use overspill_artifacts::{PlanTask, Run, validate_plan_artifacts};
///
/// let memory = tempfile::tempdir()?;
/// let run = Run::new(memory.path(), None, "run-1", 0)?;
/// run.write_artifact("brief.md", "# Brief")?;
/// let plan = [PlanTask::new("t1", ["coordinator-brief.md"]), PlanTask::new("t2", ["b.txt"])];
/// let error = validate_plan_artifacts(Some(&run), &plan).unwrap_err();
/// assert!(error.to_string().contains("`b.txt` (task `t2`)"));
/// assert!(validate_plan_artifacts(Some(&run), &plan[..1]).is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`PlanError::PersistenceOff`], [`PlanError::MissingArtifacts`] (naming each missing file and
/// listing what is available), or [`PlanError::Run`] when the directory cannot be read.
pub fn validate_plan_artifacts(run: Option<&Run>, tasks: &[PlanTask]) -> Result<(), PlanError> {
    let listing: Vec<&PlanTask> = tasks.iter().filter(|t| !t.artifacts.is_empty()).collect();
    if listing.is_empty() {
        return Ok(());
    }
    let Some(run) = run else {
        return Err(PlanError::PersistenceOff {
            tasks: listing.iter().map(|t| t.id.clone()).collect(),
        });
    };
    let dir = run.artifacts_dir();
    let missing: Vec<MissingArtifact> = listing
        .iter()
        .flat_map(|task| task.artifacts.iter().map(move |file| (task, file)))
        .filter(|(_, file)| check_file_name(file).is_err() || !is_artifact(dir, file))
        .map(|(task, file)| MissingArtifact {
            task: task.id.clone(),
            filename: file.clone(),
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(PlanError::MissingArtifacts {
        run_id: run.run_id().to_owned(),
        missing,
        available: run.available()?,
    })
}

/// `` task `a` lists``, `` tasks `a`, `b` list``.
fn describe_tasks(tasks: &[String]) -> String {
    let list: Vec<String> = tasks.iter().map(|t| format!("`{t}`")).collect();
    let (noun, verb) = if tasks.len() == 1 {
        ("task", "lists")
    } else {
        ("tasks", "list")
    };
    format!("{noun} {} {verb}", list.join(", "))
}

/// `` `b.txt` (task `t2`) is``, `` `b.txt` (task `t2`), `c.md` (task `t3`) are``.
fn describe_missing(missing: &[MissingArtifact]) -> String {
    let list: Vec<String> = missing
        .iter()
        .map(|m| format!("`{}` (task `{}`)", m.filename, m.task))
        .collect();
    let verb = if missing.len() == 1 { "is" } else { "are" };
    format!("{} {verb}", list.join(", "))
}

#[cfg(test)]
mod tests;
