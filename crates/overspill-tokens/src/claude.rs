//! The Claude approximation: `ceil(cl100k_base × 1.1)`.
//!
//! Anthropic publishes no tokenizer for its current models. Scaling the
//! `cl100k_base` count by 1.1 and rounding up is a calibrated approximation
//! that errs towards more tokens (docs/tokens.md). The formula itself is applied
//! exactly, in integer arithmetic, by every method.

use crate::TokenCounter;
use crate::openai::CL100K;

/// The Claude counter, `claude≈cl100k×1.1`.
///
/// ```
/// use overspill_tokens::{claude, cl100k};
///
/// let text = "What is your name?";
/// assert_eq!(cl100k().count(text), 5);
/// assert_eq!(claude().count(text), 6); // ceil(5 × 1.1)
/// ```
pub fn claude() -> &'static dyn TokenCounter {
    &CLAUDE
}

static CLAUDE: Claude = Claude;

/// Anthropic models, counted as scaled `cl100k_base`.
struct Claude;

impl TokenCounter for Claude {
    fn count(&self, text: &str) -> usize {
        scale_up(CL100K.count(text))
    }

    fn count_up_to(&self, text: &str, limit: usize) -> Option<usize> {
        CL100K
            .count_up_to(text, largest_unscaled_within(limit))
            .map(scale_up)
    }

    fn name(&self) -> &'static str {
        "claude≈cl100k×1.1"
    }

    fn fits_within(&self, text: &str, limit: usize) -> bool {
        CL100K.fits_within(text, largest_unscaled_within(limit))
    }

    fn prepare(&self) {
        CL100K.prepare();
    }

    fn is_prepared(&self) -> bool {
        CL100K.is_prepared()
    }
}

/// `ceil(n × 1.1)`, computed as `n + ceil(n / 10)` so it cannot overflow
/// for any count a text can have.
fn scale_up(n: usize) -> usize {
    n.saturating_add(n.div_ceil(10))
}

/// The largest `n` with `scale_up(n) <= limit`, i.e. `floor(limit × 10 / 11)`,
/// computed as `limit − ceil(limit / 11)` so it cannot overflow.
///
/// `ceil(11n / 10) <= limit` holds exactly when `11n <= 10 × limit`, so a
/// `cl100k_base` count up to this bound is a Claude count within `limit`
/// and any larger one is not.
fn largest_unscaled_within(limit: usize) -> usize {
    limit - limit.div_ceil(11)
}

#[cfg(test)]
mod tests;
