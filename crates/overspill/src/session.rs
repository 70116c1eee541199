//! The state one scratchpad session shares between the clones of its [`Scratchpad`]: the
//! agent's role (with its store, budget and read root), its tools, thresholds and settings.
//! Built by the builder, read by interception, the tools and references.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, PoisonError, RwLock};

use crate::budget::Budget;
use crate::explore::{ExploreContext, Registry};
use crate::observe::{Event, Observer};
use crate::role::Role;
use crate::store::Store;
use crate::thresholds::Thresholds;
use crate::tokens::TokenCounter;

/// The shared state behind a [`Scratchpad`](crate::Scratchpad).
pub(crate) struct Session {
    /// Single agent, worker or coordinator, with what that role has.
    pub(crate) role: Role,
    pub(crate) agent_id: String,
    pub(crate) session_id: Option<String>,
    pub(crate) trace_id: Option<String>,
    pub(crate) counter: &'static dyn TokenCounter,
    pub(crate) registry: Registry,
    pub(crate) thresholds: Thresholds,
    pub(crate) footer: Option<String>,
    pub(crate) prompt: String,
    pub(crate) finished: AtomicBool,
    /// The largest content an `overspill://` reference may insert.
    pub(crate) max_reference_bytes: u64,
    /// What the host puts before the exploration tools' names (`""` for nothing); the MCP
    /// proxy changes it when a server's tool takes an exploration tool's name.
    pub(crate) tool_prefix: RwLock<Arc<str>>,
    /// Told of every result judged and every exploration call answered.
    pub(crate) observer: Option<Arc<dyn Observer>>,
}

impl Session {
    /// Tells the host's observer, if it has one.
    pub(crate) fn observe(&self, event: &Event<'_>) {
        if let Some(observer) = &self.observer {
            observer.observe(event);
        }
    }

    /// The prefix of the exploration tools' names.
    pub(crate) fn tool_prefix(&self) -> Arc<str> {
        Arc::clone(
            &self
                .tool_prefix
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// The agent's budget (`None` for the coordinator).
    pub(crate) fn budget(&self) -> Option<&Arc<Budget>> {
        self.role.explorer().map(|explorer| &explorer.budget)
    }

    /// Where the agent's outputs are stored (`None` for the coordinator).
    pub(crate) fn store(&self) -> Option<&Store> {
        self.role.explorer().map(|explorer| &explorer.store)
    }

    /// What the exploration tools read with (`None` for the coordinator).
    pub(crate) fn ctx(&self) -> Option<&ExploreContext> {
        self.role.explorer().map(|explorer| &explorer.ctx)
    }
}
