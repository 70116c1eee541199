//! What the windowed JSON tools share: the window part of their footers, and refusing early a
//! rendering that certainly cannot fit (`limit` is checked by [`crate::args::Page::check`]).
//!
//! Windows are half-open (docs/tools.md#1-common-rules): `items [3..7) of 120 total` holds items 3, 4, 5 and 6.
//! A call with no `offset` and no `limit` reports a full scan instead: `(120 items, …)`.

use crate::context::ExploreContext;
use crate::numbered::thousands;

/// The footer note of a call that read its file in one streaming pass instead of from the
/// cache: the one wording of it.
pub const STREAMED_NOTE: &str = "read in one streaming pass (file too large to cache)";

/// `(items [3..7) of 120 total, fields: [id,title])` or, for a full scan,
/// `(120 items, fields: [id,title])`; `unit` names the items (`items`, `results`) and `extra`
/// follows the window (`, fields: […]`). An offset past the end shows as `[o..o)`.
pub fn window_summary(
    unit: &str,
    offset: u64,
    end: u64,
    total: u64,
    full: bool,
    extra: &str,
) -> String {
    if full {
        return format!("({} {unit}{extra})", thousands(total));
    }
    let end = end.max(offset);
    format!(
        "({unit} [{}..{}) of {} total{extra})",
        thousands(offset),
        thousands(end),
        thousands(total)
    )
}

/// Bytes of rendered text past which a result certainly exceeds what may be returned now
/// (no counter yields fewer than one token per 16 bytes of JSON).
pub fn render_cap(ctx: &ExploreContext) -> usize {
    usize::try_from(ctx.token_limit())
        .unwrap_or(usize::MAX)
        .saturating_mul(16)
        .saturating_add(4096)
}

/// The tokens a rendering would cost in full, from the part rendered before the cap:
/// `units_done` of `units_total` units cost what `rendered` costs.
pub fn estimate_tokens(
    ctx: &ExploreContext,
    rendered: &str,
    units_done: u64,
    units_total: u64,
) -> u64 {
    let counted = ctx.counter().count(rendered) as u128;
    let scaled = counted * u128::from(units_total.max(1)) / u128::from(units_done.max(1));
    u64::try_from(scaled.max(counted)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;
