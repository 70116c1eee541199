//! Why a [`Scratchpad`](crate::Scratchpad) could not be built.

use std::path::PathBuf;

use crate::artifacts::RunError;
use crate::budget::BudgetError;
use crate::store::{LayoutError, PathError, StoreError};

/// Why [`ScratchpadBuilder::build`](crate::ScratchpadBuilder::build) failed. Each message
/// names the setting to change.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Nowhere to write: neither a scratchpad dir nor a `memory_dir` was given.
    #[error(
        "no directory for {agent}'s scratchpad: set `memory_dir` in the configuration, or call \
         .memory_dir(dir) or .scratchpad_dir(dir) on the builder"
    )]
    NoDirectory {
        /// The agent (`main` or the worker's name).
        agent: String,
    },
    /// The agent has a budget but no context window to size it by.
    #[error(
        "no context window for {agent}: set `context_window` under [agent.llm] (or the worker's \
         [orchestration.worker.<name>.llm]), or call .context_window(tokens) on the builder"
    )]
    NoContextWindow {
        /// The agent (`main` or the worker's name).
        agent: String,
    },
    /// The configuration does not turn this agent's scratchpad on (nor does the builder).
    #[error(
        "the scratchpad of {agent} is not enabled in the configuration (its `enabled` is false, \
         or not written: false is the default); set `enabled = true` in [agent.scratchpad] or \
         the worker's table, call .enabled(true) on the builder, or build no Scratchpad and \
         pass tool outputs through unchanged"
    )]
    Disabled {
        /// The agent (`main` or the worker's name).
        agent: String,
    },
    /// Worker or coordinator mode without a run, or a run without a role.
    #[error("{0}")]
    Mode(&'static str),
    /// A worker name that cannot identify an agent.
    #[error("invalid worker name {name:?}: {reason}")]
    InvalidWorker {
        /// The name as given.
        name: String,
        /// What is wrong and what to use instead.
        reason: &'static str,
    },
    /// An empty persistence-footer marker, which would strip every output.
    #[error(
        "the persistence footer marker is empty; pass the text your host appends, e.g. \
         \"\\n\\n[Tool output saved to artifact: \""
    )]
    EmptyFooterMarker,
    /// The budget settings are out of range.
    #[error(transparent)]
    Budget(#[from] BudgetError),
    /// The run or session id is unusable, or the run's directories cannot be made.
    #[error(transparent)]
    Run(#[from] RunError),
    /// A directory of the layout cannot be created.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// The scratchpad directory cannot be created.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The read root cannot be opened.
    #[error("cannot open the read root {}: {error}", dir.display())]
    ReadRoot {
        /// The directory.
        dir: PathBuf,
        /// Why, stated in the message (not returned by `source()`).
        error: PathError,
    },
}
