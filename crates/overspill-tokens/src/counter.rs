//! The counter interface every token count goes through.

/// Counts the tokens a model would see for a text.
///
/// Implementations are process-wide, immutable and cheap to share
/// (`&'static dyn TokenCounter`).
///
/// # Exactness
///
/// Every method gives an exact answer; none estimates from bytes or
/// characters. They differ in what they answer and what that costs:
///
/// | method | answers | cost |
/// |---|---|---|
/// | [`count`](Self::count) | the count | O(text) |
/// | [`count_up_to`](Self::count_up_to) | the count, or that it passes `limit` | O(limit) |
/// | [`fits_within`](Self::fits_within) | whether the count is ≤ `limit` | O(1) when the byte length settles it, else O(limit) |
/// | [`is_below`](Self::is_below) | whether the count is < `threshold` | as `fits_within` |
///
/// `fits_within` and `is_below` are the interception fast path (docs/facade.md#2-intercepting): no
/// token covers less than one byte of text, so a text of at most `limit`
/// bytes has at most `limit` tokens and needs no tokenizing at all to be
/// known to fit.
pub trait TokenCounter: Send + Sync {
    /// The exact number of tokens in `text`.
    fn count(&self, text: &str) -> usize;

    /// The exact count when it is at most `limit`, `None` as soon as it passes
    /// `limit`. Costs O(limit), not O(text).
    ///
    /// `Some(n)` always carries the exact count, so this method tokenizes
    /// even a text that is obviously short; use
    /// [`fits_within`](Self::fits_within) when only the yes/no matters.
    fn count_up_to(&self, text: &str, limit: usize) -> Option<usize>;

    /// The counter's name as shown to users: `o200k_base`, `cl100k_base`,
    /// `gemma3` or `claude≈cl100k×1.1`.
    fn name(&self) -> &'static str;

    /// Whether `text` has at most `limit` tokens, decided exactly and, when
    /// the byte length alone proves it, without tokenizing.
    ///
    /// The provided implementation asks [`count_up_to`](Self::count_up_to);
    /// the counters of this crate override it with their byte-length
    /// shortcut.
    fn fits_within(&self, text: &str, limit: usize) -> bool {
        self.count_up_to(text, limit).is_some()
    }

    /// Whether `text` has fewer than `threshold` tokens: the interception
    /// decision, where an output of exactly `min_tokens` is intercepted
    /// (docs/facade.md#2-intercepting). A threshold of 0 is never undercut.
    ///
    /// ```
    /// use overspill_tokens::{TokenCounter, o200k};
    ///
    /// let counter = o200k();
    /// assert_eq!(counter.count("Hello, world!"), 4);
    /// assert!(counter.is_below("Hello, world!", 5));
    /// assert!(!counter.is_below("Hello, world!", 4));
    /// assert!(!counter.is_below("", 0));
    /// ```
    fn is_below(&self, text: &str, threshold: usize) -> bool {
        threshold
            .checked_sub(1)
            .is_some_and(|limit| self.fits_within(text, limit))
    }

    /// Loads or builds what the counter needs before its first count (a tokenizer's tables,
    /// a model), so that the first count does not wait for it; a host calls it on a thread of
    /// its own at startup. Counting never needs it: a count before the work is done waits for
    /// it (docs/tokens.md#the-first-answer-does-not-wait). The provided implementation does
    /// nothing.
    fn prepare(&self) {}

    /// Whether [`prepare`](Self::prepare)'s work is done, so that a count now waits for
    /// nothing but the counting; never waits itself. The provided implementation says yes (a
    /// counter with nothing to prepare).
    ///
    /// ```
    /// use overspill_tokens::{TokenCounter, o200k};
    ///
    /// o200k().prepare();
    /// assert!(o200k().is_prepared());
    /// ```
    fn is_prepared(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests;
