//! The budget rule (docs/tools.md#1-common-rules): a result is judged on its final text, body plus footer.
//!
//! 1. Over `max_extraction_tokens` → `<tool>_too_large`.
//! 2. Else over what remains of the budget → `<tool>_too_large` with the remaining figure.
//! 3. Else charged, exactly the tokens of the returned text, to the budget and to
//!    `tokens_extracted`. Errors are never charged.
//!
//! **The footer counts itself.** Its token figure is part of the text it measures, and its
//! budget figure (what is left after the charge) depends on that figure. [`measure`] iterates
//! to a fixed point: render the footer with a guess, count the whole text, re-render with the
//! count, until the count equals the figure shown (one or two rounds in practice: changing a
//! number rarely changes the token count). If the count oscillates (a figure crossing a digit
//! boundary can flip by one token), the larger figures are tried directly; should none be
//! self-consistent, the text is charged its exact count and the `~` figure may be off by one.
//! The charge is always the exact count of the returned text.
//!
//! **The figure is the budget after this charge.** [`deliver`] composes the footer with the
//! estimate as the call found it, then charges; when the charge reports another remaining
//! figure (other calls charged since this process last heard: in this process, or in another
//! serving the agent through a shared ledger, whose charge is one request and returns the
//! total), the footer is composed again with that figure. Its text usually counts the same; when
//! the new figure crosses a token boundary (`1,000` is three tokens in `o200k_base`, `999` one)
//! the charge is made the new text's count, topped up or given back in part, so it stays exact.
//! Only if the longer text no longer fits does the first go, its figure as found. So a call
//! with a shared ledger costs one request to it, not a read and then a charge
//! (docs/budget.md#one-agent-served-by-several-machines).
//!
//! Counting is bounded by the limit (`count_up_to`), so judging a huge result costs
//! O(limit), not O(result). The `estimated_tokens` of a refusal is an exact count for results
//! up to [`EXACT_ESTIMATE_BYTES`], and beyond that a count of the first mebibyte scaled by
//! length.

use overspill_budget::{RefusalReason, WindowHint};

use crate::context::ExploreContext;
use crate::footer::Footer;
use crate::tool::Extraction;

/// Results up to this size get an exact `estimated_tokens` when refused.
pub const EXACT_ESTIMATE_BYTES: usize = 4 << 20;

/// Bytes counted to extrapolate the estimate of a larger result.
const SAMPLE_BYTES: usize = 1 << 20;

/// Rounds of the footer fixed-point search before trying figures directly.
const FIXED_POINT_ROUNDS: usize = 6;

/// A result judged against the limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Measured {
    /// It fits: the final text and its exact token count.
    Fits {
        /// Body, newline, footer.
        text: String,
        /// Exact tokens of `text`.
        tokens: u64,
    },
    /// It does not fit.
    TooLarge {
        /// Tokens the result would cost (see the module docs).
        estimated_tokens: u64,
    },
}

/// Why a result was refused, with the figures the error reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused {
    /// Tokens the result would cost.
    pub estimated_tokens: u64,
    /// The per-call cap.
    pub per_call_limit: u64,
    /// What remained of the budget.
    pub remaining_budget_tokens: u64,
    /// Which limit it exceeds: the per-call cap, or (within it) the remaining budget.
    pub reason: RefusalReason,
}

/// Renders `extraction` with its footer and judges it against the current limit, without
/// charging anything.
pub fn measure(ctx: &ExploreContext, tool: &str, extraction: &Extraction) -> Measured {
    let now = ctx.budget().window_hint();
    measure_from(ctx, tool, extraction, now, ctx.token_limit(), 0)
}

/// [`measure`] with the budget as `now` says it stands before the charge, against `limit`,
/// the search starting from the token figure `guess`.
fn measure_from(
    ctx: &ExploreContext,
    tool: &str,
    extraction: &Extraction,
    now: WindowHint,
    limit: u64,
    guess: u64,
) -> Measured {
    if let Some(estimated_tokens) = extraction.unrendered {
        return Measured::TooLarge { estimated_tokens };
    }
    let limit_usize = usize::try_from(limit).unwrap_or(usize::MAX);
    let compose = |tokens: u64| compose(tool, extraction, tokens, after(now, tokens));
    let counter = ctx.counter();
    let mut figure = guess;
    let mut seen = Vec::with_capacity(FIXED_POINT_ROUNDS);
    for _ in 0..FIXED_POINT_ROUNDS {
        let text = compose(figure);
        let Some(count) = counter.count_up_to(&text, limit_usize) else {
            return Measured::TooLarge {
                estimated_tokens: estimate(ctx, &text),
            };
        };
        let count = count as u64;
        if count == figure {
            return Measured::Fits {
                text,
                tokens: count,
            };
        }
        seen.push(figure);
        if seen.contains(&count) {
            break;
        }
        figure = count;
    }
    // An oscillation: try the figures just above the largest seen.
    let top = seen.iter().copied().chain([figure]).max().unwrap_or(figure);
    for candidate in top..top + 4 {
        let text = compose(candidate);
        match counter.count_up_to(&text, limit_usize) {
            Some(count) if count as u64 == candidate => {
                return Measured::Fits {
                    text,
                    tokens: candidate,
                };
            }
            Some(_) => {}
            None => {
                return Measured::TooLarge {
                    estimated_tokens: estimate(ctx, &text),
                };
            }
        }
    }
    let text = compose(top);
    match counter.count_up_to(&text, limit_usize) {
        Some(count) => Measured::Fits {
            text,
            tokens: count as u64,
        },
        None => Measured::TooLarge {
            estimated_tokens: estimate(ctx, &text),
        },
    }
}

/// A delivered result: the text the model receives and the tokens charged for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivered {
    /// Body, newline, footer.
    pub text: String,
    /// The tokens charged to the budget (0 for a host tool's answer, which is not charged).
    pub tokens: u64,
}

/// Measures `extraction` and charges it: the returned text on success, what to report on
/// refusal. Check and charge are one atomic step of the budget, so concurrent calls cannot
/// overspend it.
///
/// # Errors
/// [`Refused`] when the result exceeds the per-call cap or the remaining budget.
pub fn deliver(
    ctx: &ExploreContext,
    tool: &str,
    extraction: &Extraction,
) -> Result<Delivered, Refused> {
    let budget = ctx.budget();
    let now = budget.window_hint();
    match measure_from(ctx, tool, extraction, now, ctx.token_limit(), 0) {
        Measured::Fits { text, tokens } => match budget.try_charge(tokens) {
            Ok(charged) if charged.remaining == after(now, tokens).remaining => {
                Ok(Delivered { text, tokens })
            }
            Ok(charged) => Ok(settle(ctx, tool, extraction, now, text, charged)),
            Err(refusal) => Err(Refused {
                estimated_tokens: refusal.estimated_tokens,
                per_call_limit: refusal.per_call_limit,
                remaining_budget_tokens: refusal.remaining_budget_tokens,
                reason: refusal.reason,
            }),
        },
        Measured::TooLarge { estimated_tokens } => {
            let per_call_limit = budget.max_extraction_tokens();
            if estimated_tokens <= per_call_limit {
                // Refused for the budget, as this process last knew it: the figures of the
                // error (and the retry made from them) count what other processes charged.
                budget.refresh();
            }
            Err(Refused {
                estimated_tokens,
                per_call_limit,
                remaining_budget_tokens: budget.remaining(),
                reason: if estimated_tokens > per_call_limit {
                    RefusalReason::OverCallLimit
                } else {
                    RefusalReason::OverBudget
                },
            })
        }
    }
}

/// The text to send for `extraction`, charged `charged` for `text` (composed with the budget as
/// `now` had it) when the charge found less left than `now` said: other calls charged
/// meanwhile. The text is composed again, its budget figure counting them, and the charge is
/// made its exact count: topped up, or given back in part, when the new figure changes the
/// text's token count (module docs). `text` itself, figure as found, only when the longer text
/// no longer fits.
fn settle(
    ctx: &ExploreContext,
    tool: &str,
    extraction: &Extraction,
    now: WindowHint,
    text: String,
    charged: overspill_budget::Charged,
) -> Delivered {
    let budget = ctx.budget();
    let tokens = charged.tokens;
    // The budget just before this charge, as the charge found it.
    let room = charged.remaining.saturating_add(tokens);
    let before = WindowHint {
        remaining: room,
        used: now.usable.saturating_sub(room).max(now.used),
        ..now
    };
    let limit = budget.max_extraction_tokens().min(room);
    let Measured::Fits {
        text: settled,
        tokens: count,
    } = measure_from(ctx, tool, extraction, before, limit, tokens)
    else {
        return Delivered { text, tokens };
    };
    if count < tokens {
        budget.refund(tokens - count);
    } else if count > tokens && budget.try_charge(count - tokens).is_err() {
        return Delivered { text, tokens };
    }
    Delivered {
        text: settled,
        tokens: count,
    }
}

/// The budget as it stands once `tokens` more are charged to `now`.
fn after(now: WindowHint, tokens: u64) -> WindowHint {
    WindowHint {
        remaining: now.remaining.saturating_sub(tokens),
        used: now.used.saturating_add(tokens),
        ..now
    }
}

/// The returned text: `extraction`'s body, then its footer stating `tokens` and `budget` (the
/// budget once the text is charged).
fn compose(tool: &str, extraction: &Extraction, tokens: u64, budget: WindowHint) -> String {
    let footer = Footer {
        tool,
        summary: &extraction.summary,
        notes: &extraction.notes,
        tokens,
        budget,
    };
    if extraction.body.is_empty() {
        footer.to_string()
    } else {
        format!("{}\n{footer}", extraction.body)
    }
}

/// The token count of `text`: exact up to [`EXACT_ESTIMATE_BYTES`], else extrapolated from
/// the first [`SAMPLE_BYTES`].
fn estimate(ctx: &ExploreContext, text: &str) -> u64 {
    let counter = ctx.counter();
    if text.len() <= EXACT_ESTIMATE_BYTES {
        return counter.count(text) as u64;
    }
    let sample = &text[..text.floor_char_boundary(SAMPLE_BYTES)];
    let sampled = counter.count(sample) as u128;
    let scaled = sampled * text.len() as u128 / sample.len().max(1) as u128;
    u64::try_from(scaled).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;
