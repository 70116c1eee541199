//! Cutting a listing (a schema tree, an `item_schema` key list, a Markdown outline) to what
//! the token limit allows, for the case where its window cannot be narrowed any further: a
//! `schema` at depth 1, an `item_schema` of one item, a Markdown outline with thousands of
//! headings. The listing keeps its first entries whole and the tool says, in a footer note,
//! how many were left out; so the answer fits, and so does every retry that leads to it.

use crate::context::{ExploreContext, LINE_RESERVE_TOKENS};
use crate::tool::Extraction;

/// Tokens a cut listing may cost: the limit, less room for the footer and its note.
pub fn listing_budget(ctx: &ExploreContext) -> usize {
    usize::try_from(ctx.token_limit().saturating_sub(LINE_RESERVE_TOKENS)).unwrap_or(usize::MAX)
}

/// Whether `text` costs at most [`listing_budget`] tokens (counting stops past it).
pub fn fits(ctx: &ExploreContext, text: &str) -> bool {
    ctx.counter()
        .count_up_to(text, listing_budget(ctx))
        .is_some()
}

/// How many entries of `text` fit whole, when entry `i` starts at byte `starts[i]`
/// (ascending; whatever precedes `starts[0]` is a header that is always kept). Binary search:
/// O(log entries) counts, each stopping at the budget.
pub fn entries_that_fit(ctx: &ExploreContext, text: &str, starts: &[usize]) -> usize {
    if fits(ctx, text) {
        return starts.len();
    }
    // `lo` entries fit (the header alone is taken to), `hi` do not.
    let (mut lo, mut hi) = (0usize, starts.len());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        // `mid` entries end where entry `mid` starts.
        if fits(ctx, &text[..starts[mid]]) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// About the longest run of whole lines at the start of a rendered `body` that fits one call
/// with its footer (by the sum of the lines' own counts); `None` for an empty body (a result
/// the tool did not render). A refused result's retry is counted from it: how many lines,
/// rows, results or matches fit is arithmetic on what was already rendered, where halving the
/// window would run the tool again and again.
pub fn fitting_prefix<'a>(ctx: &ExploreContext, body: &'a str) -> Option<&'a str> {
    if body.is_empty() {
        return None;
    }
    // The lines' own counts add up to about what their run costs as one text (tokens seldom
    // span a line break), so one pass, counting no further than the budget, finds the run.
    // Whoever offers it runs it before offering it (the registry measures every retry), so a
    // run that the sum underestimated is caught there, not counted twice here.
    let budget = listing_budget(ctx);
    let counter = ctx.counter();
    let (mut spent, mut end) = (0usize, 0usize);
    for line in body.split_inclusive('\n') {
        match counter.count_up_to(line, budget - spent) {
            Some(cost) if spent + cost <= budget => {
                spent += cost;
                end += line.len();
            }
            _ => break,
        }
    }
    Some(&body[..end])
}

/// How many of the units (lines, rows, results) a refused result holds fit one call, when that
/// is fewer than it holds and at least one: counted on the rendered body (or the start a tool
/// rendered before it stopped, [`Extraction::with_rendered_start`]), one unit a line after
/// `header` lines ([`fitting_prefix`]); for a result estimated without rendering anything
/// (`read` of a large file), the share of its estimated tokens the limit allows. `None` when
/// neither can say (the caller halves).
pub fn units_that_fit(ctx: &ExploreContext, got: &Extraction, header: u64) -> Option<u64> {
    let units = match (got.body.is_empty(), got.unrendered) {
        (false, _) => {
            let lines = fitting_prefix(ctx, &got.body)?.lines().count() as u64;
            lines.saturating_sub(header)
        }
        (true, Some(estimated)) => {
            let budget = u64::try_from(listing_budget(ctx)).unwrap_or(u64::MAX);
            u64::try_from(
                u128::from(got.returned) * u128::from(budget) / u128::from(estimated.max(1)),
            )
            .unwrap_or(u64::MAX)
        }
        (true, None) => return None,
    };
    (1..got.returned).contains(&units).then_some(units)
}

/// Half the units (items, levels) a refused result held, for a tool whose retry cannot be
/// counted on what it rendered and so halves its window; `None` when it held one or none.
pub fn halved(got: &Extraction) -> Option<u64> {
    (got.returned > 1).then_some(got.returned / 2)
}

/// Cuts `text` before its first line that would not fit, keeping at least one line; returns
/// `(kept, total)` lines when it cut anything.
pub fn cut_lines(ctx: &ExploreContext, text: &mut String) -> Option<(usize, usize)> {
    // Every line but the first starts an entry; the first is the header.
    let starts: Vec<usize> = memchr::memchr_iter(b'\n', text.as_bytes())
        .map(|at| at + 1)
        .collect();
    let total = starts.len() + 1;
    let kept = entries_that_fit(ctx, text, &starts);
    if kept == starts.len() {
        return None;
    }
    // The header line and `kept` more, without the newline before the first cut line.
    text.truncate(starts[kept] - 1);
    Some((kept + 1, total))
}

#[cfg(test)]
mod tests;
