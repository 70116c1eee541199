//! `grep`: lines matching a pattern, with merged context regions (docs/tools.md).
//!
//! ```text
//!   97:       "state": {
//! > 98:         "waiting": {"reason": "CrashLoopBackOff"}
//!   99:       },
//! --
//! ```

use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::args;
use crate::cache::CachedFile;
use crate::call::Call;
use crate::context::ExploreContext;

use crate::error::ToolError;
use crate::fit;
use crate::line_tools::plural;
use crate::numbered::{Mark, NumberedLines, thousands};
use crate::search::{self, Deadline, Found, Pattern};
use crate::tool::{Extraction, Tool};

/// Context lines when `context` is not given.
pub const DEFAULT_CONTEXT: u64 = 3;
/// Matching lines shown when `max_matches` is not given.
pub const DEFAULT_MAX_MATCHES: u64 = 200;

/// How long one search may run before it stops and reports how far it got.
pub const TIME_LIMIT: Duration = Duration::from_secs(3);

/// The `grep` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grep;

/// Arguments of `grep`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub struct Args {
    #[schemars(description = args::FILE)]
    pub file: String,
    /// Regex or plain text to search for (at most 1024 bytes).
    #[schemars(length(min = 1, max = 1024))]
    pub pattern: String,
    /// Lines to show before and after each match.
    #[serde(default = "default_context")]
    pub context: u64,
    /// Match regardless of letter case.
    #[serde(default)]
    pub ignore_case: bool,
    /// Show at most this many matching lines.
    #[serde(default = "default_max_matches")]
    #[schemars(range(min = 1))]
    pub max_matches: u64,
}

fn default_context() -> u64 {
    DEFAULT_CONTEXT
}

fn default_max_matches() -> u64 {
    DEFAULT_MAX_MATCHES
}

impl Tool for Grep {
    const NAME: &'static str = "grep";
    const BLURB: &'static str = "the lines matching a regex, with context";
    const DESCRIPTION: &'static str = "Search a stored output for lines matching a pattern (Rust regex syntax; a \
            pattern that is not a valid regex is searched for as plain text, and the footer says \
            so). Matching lines are marked with `>` and shown with `context` lines around them \
            (default 3); nearby hits are merged into one region and regions are separated by `--`. \
            Line numbers are absolute, ready for `slice`. At most `max_matches` matching lines are \
            shown (default 200); the footer reports how many matched in total. Use `ignore_case` for \
            case-insensitive search. Patterns are limited to 1024 bytes.";
    type Args = Args;

    fn run(ctx: &ExploreContext, args: Args) -> Result<Extraction, ToolError> {
        if args.max_matches == 0 {
            return Err(ToolError::bad_argument("max_matches", "must be at least 1"));
        }
        let pattern = Pattern::new(&args.pattern, args.ignore_case)
            .map_err(|error| ToolError::bad_argument("pattern", error))?;
        let file = ctx.open(&args.file)?;
        let (bytes, index) = (file.bytes(), file.lines());
        let total_lines = index.line_count();
        // Every shown line costs at least a token, so more matching lines or context than
        // the token limit can never be returned: keeping more would only cost memory and time.
        let deliverable = ctx.token_limit().saturating_add(1);
        let keep = args.max_matches.min(deliverable);
        let context = args.context.min(deliverable);
        let found = LastSearch::of(ctx, &file).search(bytes, &args, &pattern, keep);
        let shown = found.matching_lines.len() as u64;
        let quoted = quote(&args.pattern, args.ignore_case);
        if let Some(line) = found.stopped_at_line
            && shown == 0
        {
            return Err(time_limit(&quoted, line, total_lines));
        }
        let regions = search::regions(&found.matching_lines, context, total_lines);

        let last_number = regions.last().map_or(1, |r| *r.end());
        let mut out = NumberedLines::new(ctx, &args.file, last_number);
        let mut matches = found.matching_lines.iter().copied().peekable();
        let mut matches_shown = 0u64;
        for region in &regions {
            out.separator();
            for (number, line) in index.lines(bytes, *region.start(), *region.end()) {
                let mark = if matches.peek() == Some(&number) {
                    matches.next();
                    matches_shown += 1;
                    Mark::Match
                } else {
                    Mark::Context
                };
                out.push(number, line, mark);
                // Regions too large to return stop here, whatever their size.
                if out.over_limit() {
                    let lines: u64 = regions
                        .iter()
                        .map(|r| r.end() - r.start() + 1)
                        .fold(0, u64::saturating_add);
                    let estimate = out.estimate(&[(out.pushed(), lines)]);
                    return Ok(
                        Extraction::unrendered(estimate, String::new(), matches_shown)
                            .with_rendered_start(out.finish().0),
                    );
                }
            }
        }
        let (body, notes) = out.finish();

        let summary = if shown == 0 {
            format!(
                "no line matches {quoted} ({} searched)",
                plural(total_lines, "line", "lines")
            )
        } else if found.total_matching_lines > shown {
            format!(
                "first {} of {} matching lines for {quoted}, in {}, context {} (stopped at max_matches {}; \
                 more follow line {})",
                thousands(shown),
                thousands(found.total_matching_lines),
                plural(regions.len() as u64, "region", "regions"),
                args.context,
                thousands(args.max_matches),
                thousands(found.matching_lines.last().copied().unwrap_or(0)),
            )
        } else {
            format!(
                "{} for {quoted}, in {}, context {}",
                plural(shown, "matching line", "matching lines"),
                plural(regions.len() as u64, "region", "regions"),
                args.context
            )
        };
        let mut extraction = Extraction::new(body, summary, shown);
        if let Some(reason) = &pattern.literal_because {
            extraction = extraction.with_note(format!(
                "not a valid regex ({reason}), so searched as literal text"
            ));
        }
        if let Some(line) = found.stopped_at_line {
            extraction = extraction.with_note(format!(
                "the search stopped at line {} of {} (its {} s time limit), so later lines were \
                 not searched or counted",
                thousands(line),
                thousands(total_lines),
                TIME_LIMIT.as_secs()
            ));
        }
        Ok(extraction.with_notes(notes))
    }

    fn smaller(ctx: &ExploreContext, args: &Args, got: &Extraction) -> Option<Call> {
        if got.returned > 1 {
            // On what was rendered (all of it, or the start rendered before it stopped), the
            // matches in the part that fits (`>` marks a matching line; context lines are not
            // matches); on a result it estimated without rendering, the share the limit allows.
            let fitting = match fit::fitting_prefix(ctx, &got.body) {
                Some(prefix) => {
                    Some(prefix.lines().filter(|line| line.starts_with('>')).count() as u64)
                }
                None => fit::units_that_fit(ctx, got, 0),
            }
            .filter(|matches| (1..got.returned).contains(matches));
            return Some(Call::new(
                "grep",
                &Args {
                    max_matches: fitting.unwrap_or(got.returned / 2),
                    ..args.clone()
                },
            ));
        }
        // Context past the token limit is never shown, so halving starts from there.
        let context = args.context.min(ctx.token_limit());
        (context > 0).then(|| {
            Call::new(
                "grep",
                &Args {
                    max_matches: 1,
                    context: context / 2,
                    ..args.clone()
                },
            )
        })
    }

    fn suggestions(_: &Args) -> Vec<String> {
        vec![
            "Make the pattern more specific so fewer lines match.".to_owned(),
            "Lower max_matches or context, then page through the hits with slice.".to_owned(),
        ]
    }
}

/// The last search run on a file, kept with it in the file cache, so that the retry search
/// of a refused result (the same pattern with fewer matches or less context) and a model
/// paging through the hits do not search the file again.
#[derive(Debug, Default)]
struct LastSearch(Mutex<Option<(SearchKey, Found)>>);

#[derive(Debug, PartialEq, Eq)]
struct SearchKey {
    pattern: String,
    ignore_case: bool,
    keep: u64,
}

impl LastSearch {
    fn of(ctx: &ExploreContext, file: &Arc<CachedFile>) -> Arc<LastSearch> {
        let slot = ctx.cache().derived::<LastSearch, Infallible>(file, |_| {
            // A key and at most `token_limit + 1` line numbers.
            let bytes = ctx.token_limit().saturating_add(1).saturating_mul(8);
            Ok((LastSearch::default(), bytes.saturating_add(1024)))
        });
        match slot {
            Ok(slot) => slot,
            Err(never) => match never {},
        }
    }

    /// The lines of `bytes` matching `args.pattern`, the first `keep` kept: from the last
    /// search when it kept at least as many, else searched now (and remembered). The lock is
    /// not held while searching, so concurrent searches of one file do not wait in turn.
    fn search(&self, bytes: &[u8], args: &Args, pattern: &Pattern, keep: u64) -> Found {
        let key = SearchKey {
            pattern: args.pattern.clone(),
            ignore_case: args.ignore_case,
            keep,
        };
        if let Some((last, found)) = self.lock().as_ref()
            && last.pattern == key.pattern
            && last.ignore_case == key.ignore_case
            && last.keep >= keep
        {
            let mut found = found.clone();
            found
                .matching_lines
                .truncate(usize::try_from(keep).unwrap_or(usize::MAX));
            return found;
        }
        let found = search::search(bytes, pattern, keep, Deadline::after(TIME_LIMIT));
        *self.lock() = Some((key, found.clone()));
        found
    }

    fn lock(&self) -> MutexGuard<'_, Option<(SearchKey, Found)>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The `grep_limit` error of a search that found nothing before its time limit.
fn time_limit(quoted: &str, line: u64, total: u64) -> ToolError {
    ToolError::Limit {
        tool: "grep".to_owned(),
        limit: "time".to_owned(),
        message: format!(
            "the search for {quoted} found no match in lines 1-{} of {} before its {} s time \
             limit; simplify the pattern (fewer alternatives and repetitions, no `\\b` around \
             non-ASCII text) or make it more specific",
            thousands(line.saturating_sub(1)),
            thousands(total),
            TIME_LIMIT.as_secs()
        ),
    }
}

/// The pattern as the footer shows it: JSON-quoted, cut at 60 characters, `(ignoring case)`.
fn quote(pattern: &str, ignore_case: bool) -> String {
    let mut shown: String = pattern.chars().take(60).collect();
    if shown.len() < pattern.len() {
        shown.push('…');
    }
    let quoted = Value::String(shown).to_string();
    if ignore_case {
        format!("{quoted} (ignoring case)")
    } else {
        quoted
    }
}

#[cfg(test)]
mod tests;
