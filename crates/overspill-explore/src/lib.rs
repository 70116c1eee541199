//! The read-only exploration tools.
//!
//! `overspill-explore` owns the tools a model uses to look into a stored
//! output (windows of lines, regex search, JSON structure, paths and jq
//! queries: the [`Registry`]'s list, each tool in docs/tools.md), their
//! definitions, schema inference, footers, error JSON and the pointer text
//! (docs/facade.md#2-intercepting).
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
//! This crate depends on `overspill-tokens`, `overspill-json`, `overspill-store`
//! and `overspill-budget` only, and reads JSON only through `overspill-json`
//! (no lexer or path walker of its own). Its tools never write, never execute
//! anything and read only through the store's read root; every result is
//! measured and charged before the model sees it. Its modules are private: the
//! public surface is the `pub use` list below (docs/architecture.md).

pub mod args;
mod cache;
mod call;
mod context;
mod definitions;
pub mod delivery;
mod error;
mod fit;
mod footer;
pub mod jq;
mod json_tools;
mod line_index;
mod line_tools;
mod lossy;
mod markdown;
mod numbered;
mod outline;
mod pointer;
mod registry;
mod search;
mod shape_summary;
mod tool;

#[cfg(test)]
mod test_support;

pub use cache::{CachedFile, FileCache};
pub use call::Call;
pub use context::ExploreContext;
pub use definitions::Definition;
pub use error::{
    FoundInstead, MAX_ECHO_CHARS, MAX_MESSAGE_CHARS, PathNotFound, TooLarge, ToolError,
};
pub use json_tools::reference::{Referenced, referenced_value};
pub use pointer::{MAX_POINTER_TOKENS, Pointer, Summary, stored_file, tool_label};
pub use registry::{Answer, Outcome, Registry, dispatch, reads_format, tools};
pub use tool::{Caller, Extraction, HostTool, Tool};
