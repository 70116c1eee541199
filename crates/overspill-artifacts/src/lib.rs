//! Orchestration artifacts.
//!
//! `overspill-artifacts` owns how a coordinator and its workers hand large
//! content to each other (SPEC §8): the run layout, `write_artifact`,
//! `read_artifact`, plan artifact validation and the `INPUT ARTIFACTS` prompt
//! section.
//!
//! # Architecture invariant
//!
//! This crate builds on `overspill-explore` and the layers below it, and on
//! nothing above. Every write stays inside the run's artifacts directory; a
//! large artifact is explored in place, never copied.

mod definitions;
mod listing;
mod name;
mod plan;
mod prompt;
mod read;
mod run;
mod write;

pub use definitions::{ARTIFACT_TOOLS, READ_ARTIFACT, WRITE_ARTIFACT, artifact_tools};
pub use listing::{Available, MAX_LISTED};
pub use name::{
    COORDINATOR_PREFIX, DEFAULT_EXTENSION, MAX_EXTENSION_CHARS, MAX_FILE_NAME_BYTES, NameError,
    check_file_name, coordinator_file_name,
};
pub use plan::{MissingArtifact, PlanError, PlanTask, validate_plan_artifacts};
pub use prompt::{INPUT_ARTIFACTS_HEADING, input_artifacts_section};
pub use read::{ReadArtifactArgs, Reader, read_artifact, read_artifact_call};
pub use run::{Run, RunError};
pub use write::{
    PERSISTENCE_OFF, WriteArtifactArgs, WriteError, WrittenArtifact, write_artifact,
    write_artifact_call,
};
