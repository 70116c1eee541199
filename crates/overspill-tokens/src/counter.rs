//! The counter interface every token count goes through.

/// Counts the tokens a model would see for a text.
///
/// Implementations are process-wide, immutable and cheap to share
/// (`&'static dyn TokenCounter`).
pub trait TokenCounter: Send + Sync {
    /// The exact number of tokens in `text`.
    fn count(&self, text: &str) -> usize;

    /// The exact count when it is at most `limit`, `None` as soon as it passes
    /// `limit`. Costs O(limit), not O(text).
    fn count_up_to(&self, text: &str, limit: usize) -> Option<usize>;

    /// The counter's name as shown to users: `o200k_base`, `cl100k_base`,
    /// `gemma3` or `claude≈cl100k×1.1`.
    fn name(&self) -> &'static str;
}
