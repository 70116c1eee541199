//! Which artifact tools a role gets (docs/artifacts.md): the coordinator both, a worker only
//! `read_artifact`, since workers' results are written by the host, not by the worker. Each
//! tool is its own module's ([`crate::ReadArtifact`], [`crate::WriteArtifact`]); they join the
//! exploration tools in the one [`Registry`], so a host lists, exports and dispatches them alike.

use overspill_explore::Registry;

use crate::read::ReadArtifact;
use crate::run::Run;
use crate::write::WriteArtifact;

/// `registry` with the artifact tools of a coordinator (`coordinator`) or a worker of `run`
/// added after its tools; `run` is `None` when persistence is off, and the tools then say so.
///
/// ```
/// use overspill_explore::Registry;
///
/// let worker = overspill_artifacts::with_artifact_tools(Registry::new(), None, false);
/// assert_eq!(worker.names().last(), Some(&"read_artifact"));
/// let coordinator = overspill_artifacts::with_artifact_tools(Registry::none(), None, true);
/// assert_eq!(coordinator.names(), ["write_artifact", "read_artifact"]);
/// ```
pub fn with_artifact_tools(registry: Registry, run: Option<&Run>, coordinator: bool) -> Registry {
    let registry = if coordinator {
        registry.with(WriteArtifact::new(run.cloned()))
    } else {
        registry
    };
    registry.with(ReadArtifact::new(run.cloned()))
}

#[cfg(test)]
mod tests;
