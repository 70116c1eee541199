//! The order `cargo publish` must upload the crates in: every crate after the
//! crates it may depend on, read from tidy's [`LAYERS`](crate::tidy::LAYERS)
//! table, the one statement of the layer graph (docs/architecture.md#allowed-dependency-graph).

use std::collections::BTreeSet;

use anyhow::{Result, bail};

/// The layered crates in publish order: each after every crate it may depend
/// on; crates with no order between them keep their order in `layers`.
/// `publishable` must hold exactly the crates of `layers`.
pub fn publish_order(
    layers: &[(&str, &[&str])],
    publishable: &BTreeSet<&str>,
) -> Result<Vec<String>> {
    let layered: BTreeSet<&str> = layers.iter().map(|(name, _)| *name).collect();
    let unlayered: Vec<&str> = publishable.difference(&layered).copied().collect();
    if !unlayered.is_empty() {
        bail!(
            "{} can be published but {} not in the layer graph: add {} to LAYERS in \
             xtask/src/tidy.rs (and docs/architecture.md), or set `publish = false`",
            unlayered.join(", "),
            if unlayered.len() == 1 { "is" } else { "are" },
            if unlayered.len() == 1 { "it" } else { "them" },
        );
    }
    let unpublishable: Vec<&str> = layered.difference(publishable).copied().collect();
    if !unpublishable.is_empty() {
        bail!(
            "{} in the layer graph but not publishable (missing from the workspace or \
             `publish = false`): the crates above it could not be published",
            unpublishable.join(", ")
        );
    }

    let mut placed: Vec<&str> = Vec::with_capacity(layers.len());
    while placed.len() < layers.len() {
        let next = layers.iter().find(|(name, deps)| {
            !placed.contains(name)
                && deps
                    .iter()
                    .all(|d| placed.contains(d) || !layered.contains(d))
        });
        match next {
            Some((name, _)) => placed.push(name),
            None => {
                let stuck: Vec<&str> = layers
                    .iter()
                    .map(|(name, _)| *name)
                    .filter(|name| !placed.contains(name))
                    .collect();
                bail!(
                    "the layer graph has a cycle among {}: fix LAYERS in xtask/src/tidy.rs",
                    stuck.join(", ")
                );
            }
        }
    }
    Ok(placed.into_iter().map(str::to_owned).collect())
}

#[cfg(test)]
mod tests;
