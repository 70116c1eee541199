//! The agent's role: a single agent, an orchestration worker or the coordinator, each with
//! exactly what that role has.
//!
//! [`Kind`] is the role alone, known from the builder's calls before anything is created (the
//! prompt section and the tool list follow from it); [`Role`] is the built role with its parts,
//! so that a coordinator cannot have a budget and a worker cannot lack its run.

use std::sync::Arc;

use crate::artifacts::Run;
use crate::budget::Budget;
use crate::explore::ExploreContext;
use crate::store::{Layout, Store};

/// Which role an agent plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A single agent: pointers and the exploration tools.
    Single,
    /// An orchestration worker: the same, plus `read_artifact`.
    Worker,
    /// The coordinator: `write_artifact` and `read_artifact` only.
    Coordinator,
}

/// What an agent that explores has: where its outputs go, what it may read, its budget.
#[derive(Debug)]
pub(crate) struct Explorer {
    pub(crate) store: Store,
    pub(crate) ctx: ExploreContext,
    pub(crate) budget: Arc<Budget>,
}

/// A built role with its parts.
#[derive(Debug)]
pub(crate) enum Role {
    /// A single agent; `layout` when it lives under `memory_dir` (not a `scratchpad_dir`).
    Single {
        explorer: Explorer,
        layout: Option<Layout>,
    },
    /// A worker of `run`.
    Worker { explorer: Explorer, run: Run },
    /// The coordinator of `run`: no scratchpad, no budget.
    Coordinator { run: Run },
}

impl Role {
    pub(crate) fn kind(&self) -> Kind {
        match self {
            Role::Single { .. } => Kind::Single,
            Role::Worker { .. } => Kind::Worker,
            Role::Coordinator { .. } => Kind::Coordinator,
        }
    }

    /// The exploring parts (`None` for the coordinator).
    pub(crate) fn explorer(&self) -> Option<&Explorer> {
        match self {
            Role::Single { explorer, .. } | Role::Worker { explorer, .. } => Some(explorer),
            Role::Coordinator { .. } => None,
        }
    }

    /// The orchestration run, for a worker or the coordinator.
    pub(crate) fn run(&self) -> Option<&Run> {
        match self {
            Role::Single { .. } => None,
            Role::Worker { run, .. } | Role::Coordinator { run } => Some(run),
        }
    }
}
