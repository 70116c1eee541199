//! The one-line footer under every extraction (docs/tools.md#1-common-rules) — the only place it is formatted.
//!
//! ```text
//! --- head: lines 1-50 of 1,204 | ~412 tokens | ~93,210 of 102,400 budget tokens left ---
//! ```
//!
//! The token figure is the count of the whole returned text, footer included, and the budget
//! figure is what remains *after* this result is charged; [`crate::delivery`] finds the
//! figure that makes the text true of itself.

use std::fmt;

use overspill_budget::{WindowHint, thousands};

/// A footer, ready to display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footer<'a> {
    /// The tool that produced the result.
    pub tool: &'a str,
    /// What was returned: `lines 1-50 of 1,204`.
    pub summary: &'a str,
    /// Extra facts, each appended after `; `.
    pub notes: &'a [String],
    /// Tokens of the whole returned text.
    pub tokens: u64,
    /// The budget as it stands once this result is charged.
    pub budget: WindowHint,
}

impl fmt::Display for Footer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "--- {}: {}", self.tool, self.summary)?;
        for note in self.notes {
            write!(f, "; {note}")?;
        }
        write!(
            f,
            " | ~{} tokens | {} ---",
            thousands(self.tokens),
            self.budget
        )
    }
}

#[cfg(test)]
mod tests;
