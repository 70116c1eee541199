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
mod tests {
    use super::*;
    use std::fs;

    fn run_with(memory: &std::path::Path, files: &[&str]) -> Run {
        let run = Run::new(memory, Some("s"), "r", 1).unwrap();
        fs::create_dir_all(run.artifacts_dir()).unwrap();
        for file in files {
            fs::write(run.artifacts_dir().join(file), "x").unwrap();
        }
        run
    }

    #[test]
    fn plan_listing_an_existing_and_a_missing_artifact_is_rejected_naming_the_missing_one() {
        let memory = tempfile::tempdir().unwrap();
        let run = run_with(memory.path(), &["a.txt"]);
        let plan = [
            PlanTask::new("collect", ["a.txt"]),
            PlanTask::new("analyse", ["a.txt", "b.txt"]),
        ];
        let error = validate_plan_artifacts(Some(&run), &plan).unwrap_err();
        let PlanError::MissingArtifacts {
            missing, available, ..
        } = &error
        else {
            panic!("{error}")
        };
        assert_eq!(
            missing,
            &[MissingArtifact {
                task: "analyse".into(),
                filename: "b.txt".into()
            }]
        );
        assert_eq!(available.names, ["a.txt"]);
        assert_eq!(
            error.to_string(),
            "the plan is rejected: `b.txt` (task `analyse`) is not in run `r`; available \
             artifacts: a.txt. List only available files, or let a task produce the file first \
             and list it in a later iteration"
        );
        assert_eq!(
            error.to_json(),
            json!({
                "error": "plan_artifacts_missing",
                "message": error.to_string(),
                "missing": [{"task": "analyse", "filename": "b.txt"}],
                "available": ["a.txt"],
            })
        );
    }

    #[test]
    fn plan_with_artifacts_is_rejected_when_persistence_is_off() {
        let plan = [
            PlanTask::new("t1", Vec::<String>::new()),
            PlanTask::new("t2", ["a.txt"]),
        ];
        let error = validate_plan_artifacts(None, &plan).unwrap_err();
        assert!(matches!(&error, PlanError::PersistenceOff { tasks } if tasks == &["t2"]));
        assert_eq!(
            error.to_string(),
            "the plan is rejected: task `t2` lists input artifacts, but persistence is off (no \
             `memory_dir`); set `memory_dir` in the configuration, or put the content in the task \
             descriptions"
        );
        assert_eq!(
            error.to_json()["error"],
            json!("artifacts_need_persistence")
        );
    }

    #[test]
    fn valid_plan_is_accepted() {
        let memory = tempfile::tempdir().unwrap();
        let run = run_with(memory.path(), &["a.txt", "task-1-result.txt"]);
        let plan = [
            PlanTask::new("t1", ["a.txt"]),
            PlanTask::new("t2", ["task-1-result.txt", "a.txt"]),
        ];
        assert!(validate_plan_artifacts(Some(&run), &plan).is_ok());
    }

    #[test]
    fn plan_without_artifacts_is_accepted_even_without_persistence() {
        assert!(
            validate_plan_artifacts(None, &[PlanTask::new("t1", Vec::<String>::new())]).is_ok()
        );
        assert!(validate_plan_artifacts(None, &[]).is_ok());
    }

    #[test]
    fn path_like_and_hidden_names_count_as_missing() {
        let memory = tempfile::tempdir().unwrap();
        let run = run_with(memory.path(), &["a.txt"]);
        fs::write(run.run_dir().join("outside.txt"), "x").unwrap();
        fs::create_dir_all(run.artifacts_dir().join("sub")).unwrap();
        let plan = [PlanTask::new(
            "t",
            ["../outside.txt", ".hidden", "sub", "a.txt"],
        )];
        let PlanError::MissingArtifacts { missing, .. } =
            validate_plan_artifacts(Some(&run), &plan).unwrap_err()
        else {
            panic!("expected missing artifacts")
        };
        let names: Vec<&str> = missing.iter().map(|m| m.filename.as_str()).collect();
        assert_eq!(names, ["../outside.txt", ".hidden", "sub"]);
    }

    #[test]
    fn rejection_lists_forty_available_and_counts_the_rest() {
        let memory = tempfile::tempdir().unwrap();
        let run = Run::new(memory.path(), Some("s"), "r", 1).unwrap();
        crate::listing::tests::write_numbered(run.artifacts_dir(), 45);
        let error =
            validate_plan_artifacts(Some(&run), &[PlanTask::new("t", ["nope.txt"])]).unwrap_err();
        let json = error.to_json();
        assert_eq!(json["available"].as_array().unwrap().len(), 40);
        assert_eq!(json["available_omitted"], json!(5));
        assert!(error.to_string().contains("(and 5 more)"));
    }
}
