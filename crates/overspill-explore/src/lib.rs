//! The read-only exploration tools.
//!
//! `overspill-explore` owns the tools a model uses to look into a stored
//! output (`head`, `slice`, `grep`, `schema`, `item_schema`, `get_in`,
//! `iterate_over`, `read`, `query`), their definitions, JSON paths, schema
//! inference, footers, error JSON and the pointer text (SPEC §5, §6).
//!
//! A host builds one [`ExploreContext`] per agent (read root, token counter,
//! budget, file cache) and hands each tool call to a [`Registry`]. What comes
//! back is always the text the model should receive: an extraction with its
//! footer, or an error object.
//!
//! ```
//! use std::sync::Arc;
//! use overspill_budget::{Budget, BudgetSettings};
//! use overspill_explore::{ExploreContext, Registry};
//! use overspill_store::ReadRoot;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("app.log"), "boot\nGET /api 500\nok\n")?;
//!
//! let budget = Arc::new(Budget::new(BudgetSettings::for_window(128_000), 0)?);
//! let ctx = ExploreContext::new(ReadRoot::new(dir.path())?, overspill_tokens::o200k(), budget);
//! let registry = Registry::new();
//!
//! let text = registry.dispatch(&ctx, "grep", r#"{"file": "app.log", "pattern": "5\\d\\d", "context": 1}"#);
//! assert!(text.starts_with(" 1: boot\n>2: GET /api 500\n 3: ok\n--- grep: 1 matching line"));
//!
//! let error = registry.dispatch(&ctx, "head", r#"{"file": "../../etc/passwd"}"#);
//! assert!(error.starts_with(r#"{"error":"path_outside_root""#));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Architecture invariant
//!
//! This crate depends on `overspill-tokens`, `overspill-store` and
//! `overspill-budget` only. Its tools never write, never execute anything and
//! read only through the store's read root; every result is measured and
//! charged before the model sees it.

pub mod args;
pub mod cache;
pub mod context;
pub mod definitions;
pub mod delivery;
pub mod error;
mod fit;
pub mod footer;
pub mod json;
pub mod line_index;
pub mod line_tools;
pub mod lossy;
mod markdown;
pub mod numbered;
pub mod pointer;
pub mod registry;
pub mod search;
pub mod shape_summary;
pub mod tool;

#[cfg(test)]
mod test_support;

pub use context::ExploreContext;
pub use definitions::Definition;
pub use error::ToolError;
pub use pointer::{Pointer, Summary};
pub use registry::{Registry, dispatch, tools};
pub use tool::{Call, Extraction, Tool};
