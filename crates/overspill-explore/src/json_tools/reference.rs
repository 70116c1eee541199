//! The value an `overspill://<file>#<path>` reference names, as it goes into another tool's
//! arguments.
//!
//! A reference is found exactly as `get_in` finds its value — the same file cache, the same
//! streaming pass for a file too large to keep parsed, the same path resolution (`ports.8080`
//! finds the key `"8080"`) and the same errors (`path_not_found` with `valid_prefix` and
//! `available_keys`, `not_json`, …) — and hands over the value's own tokens, so a 30-digit
//! integer or `1e400` arrives as the file writes it.

use overspill_json::{JsonPath, Kind, NodeRef};

use super::document;
use crate::context::ExploreContext;
use crate::error::ToolError;

/// A JSON value named by a reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Referenced {
    /// A string value, its escapes decoded.
    String(String),
    /// Any other value.
    Json {
        /// Compact JSON, every token exactly as the file writes it.
        text: String,
        /// Whether a `serde_json::Value` holds every number of it as written: no integer
        /// beyond 64 bits, no number beyond the range of an `f64`.
        exact: bool,
    },
}

/// The value at `path` in `file`.
///
/// # Errors
/// What `get_in` answers for the same file and path: `not_found`, `path_outside_root`,
/// `not_json`, `path_not_found`, …
pub fn referenced_value(
    ctx: &ExploreContext,
    file: &str,
    path: &JsonPath,
) -> Result<Referenced, ToolError> {
    document::with_value(ctx, file, path, |value, _| referenced(value))
}

fn referenced(value: NodeRef<'_>) -> Referenced {
    if value.kind() == Kind::String {
        return Referenced::String(value.str().into_owned());
    }
    Referenced::Json {
        text: value.compact_text(),
        exact: value.numbers().all(fits_a_json_value),
    }
}

/// Whether `serde_json` reads the number token `token` without changing it.
fn fits_a_json_value(token: &str) -> bool {
    if token.contains(['.', 'e', 'E']) {
        token.parse::<f64>().is_ok_and(f64::is_finite)
    } else {
        token.parse::<i64>().is_ok() || token.parse::<u64>().is_ok()
    }
}

#[cfg(test)]
mod tests;
