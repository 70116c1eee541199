//! Orchestration artifacts.
//!
//! `overspill-artifacts` owns how a coordinator and its workers hand large
//! content to each other (docs/artifacts.md): the run layout, `write_artifact`,
//! `read_artifact`, plan artifact validation and the `INPUT ARTIFACTS` prompt
//! section. `docs/artifacts.md` describes the handoff, the naming rules and every JSON
//! shape.
//!
//! A host holds an `Option<Run>` (`None` when persistence is off: no `memory_dir`) and passes
//! it to every entry point, so "no persistence" is answered in one place.
//!
//! ```
//! use std::sync::Arc;
//! use overspill_artifacts::{PlanTask, Reader, Run, input_artifacts_section, read_artifact,
//!     validate_plan_artifacts, write_artifact};
//! use overspill_budget::{Budget, BudgetSettings};
//! use overspill_explore::ExploreContext;
//!
//! let memory = tempfile::tempdir()?;
//! let run = Run::new(memory.path(), Some("session-1"), "run-1", 1)?;
//! run.start(overspill_store::DEFAULT_MAX_SESSION_RUNS)?; // creates the dirs, prunes old runs
//!
//! // The coordinator writes a brief and plans a task that needs it.
//! let written = write_artifact(Some(&run), "brief.md", "# Brief\nRestart the failing pods.\n");
//! assert_eq!(written["filename"], "coordinator-brief.md");
//! let plan = [PlanTask::new("fix-pods", ["coordinator-brief.md"])];
//! validate_plan_artifacts(Some(&run), &plan)?;
//! let prompt = input_artifacts_section(&plan[0].artifacts);
//! assert!(prompt.contains("`coordinator-brief.md`"));
//!
//! // The worker loads it with its own budget; a small artifact comes back inline.
//! let budget = Arc::new(Budget::new(BudgetSettings::for_window(128_000), 0)?);
//! let worker = ExploreContext::new(run.open_worker_read_root()?, overspill_tokens::o200k(), budget);
//! let text = read_artifact(Some(&run), Reader::Worker(&worker), "coordinator-brief.md", None);
//! assert!(text.starts_with("# Brief\nRestart the failing pods.\n--- read_artifact:"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Architecture invariant
//!
//! This crate builds on `overspill-explore` and the layers below it, and on
//! nothing above. Every write stays inside the run's artifacts directory; a
//! large artifact is explored in place, never copied.

mod listing;
mod name;
mod plan;
mod prompt;
mod read;
mod run;
mod tools;
mod write;

pub use listing::{Available, MAX_LISTED};
pub use name::{
    COORDINATOR_PREFIX, DEFAULT_EXTENSION, MAX_EXTENSION_CHARS, MAX_FILE_NAME_BYTES, NameError,
    check_file_name, coordinator_file_name,
};
pub use plan::{MissingArtifact, PlanError, PlanTask, validate_plan_artifacts};
pub use prompt::{INPUT_ARTIFACTS_HEADING, input_artifacts_section};
pub use read::{ReadArtifact, ReadArtifactArgs, Reader, read_artifact};
pub use run::{Run, RunError};
pub use tools::with_artifact_tools;
pub use write::{
    PERSISTENCE_OFF, WriteArtifact, WriteArtifactArgs, WriteError, WrittenArtifact, write_artifact,
};
