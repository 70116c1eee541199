//! `query` (beyond the reference tools): a jq filter over a stored JSON file, one compact
//! result per line, windowed like `iterate_over` (docs/tools.md). The evaluation and its bounds
//! are [`crate::jq`]'s.
//!
//! ```text
//! "worker-1b2c3d4e5f-a1b2c"
//! "api-9f8e7d6c5b-c3d4e"
//! --- query: .items[] | select(.status.phase == "Failed") | .metadata.name (2 results) | …
//! ```

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod retry;

use super::document;
use super::window::{render_cap, window_summary};
use crate::args;
use crate::args::Page;
use crate::call::Call;
use crate::context::ExploreContext;
use crate::error::ToolError;
use crate::jq::{self, Document, Limits, QueryError, Window};
use crate::numbered::thousands;
use crate::tool::{Extraction, Tool};

/// The deepest document `query` evaluates (jaq's reader and printer recurse).
pub const MAX_DOCUMENT_DEPTH: u32 = 10_000;

/// The file's document as jq sees it: built from the file's tape on the first query, then
/// from the file cache (which drops it with the file, or when the file changes).
fn cached_document(ctx: &ExploreContext, json: &document::Json) -> Result<Document, QueryError> {
    let document = ctx.cache().derived(&json.file, |f| {
        Ok::<_, QueryError>(Document::from_tape(json.tape(), &f.shared_bytes()))
    })?;
    Ok(Document::clone(&document))
}

/// Characters of the filter echoed in the footer.
const FILTER_ECHO_CHARS: usize = 80;

/// The `query` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Query;

/// Arguments of `query`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub struct Args {
    #[schemars(description = args::FILE)]
    pub file: String,
    /// A jq filter, e.g. `.items | length`.
    pub filter: String,
    #[serde(flatten)]
    pub page: Page<Query>,
}

impl Tool for Query {
    const NAME: &'static str = "query";
    const BLURB: &'static str = "a jq filter over the file, results a window at a time";
    const DESCRIPTION: &'static str = "Run a jq filter over a stored JSON output and return its results, one per \
            line, for questions the other tools answer only in several steps: counting \
            (`[.items[] | select(.status.phase == \"Failed\")] | length`), grouping, or projecting. \
            The filter sees only this file: no environment, no other input, no clock. Results are \
            paged with `offset` and `limit`; evaluation is bounded in time and output.";
    const JSON_ONLY: bool = true;
    type Args = Args;
    const OFFSET_DOC: &'static str = "First result to return (0-based).";
    const LIMIT_DOC: &'static str = "How many results to return.";

    fn run(ctx: &ExploreContext, args: Args) -> Result<Extraction, ToolError> {
        args.page.check()?;
        let json = document::open(ctx, &args.file)?;
        if json.max_depth() > MAX_DOCUMENT_DEPTH {
            return Err(ToolError::invalid_argument(
                Some("file"),
                format!(
                    "`{}` nests {} levels deep, more than the {} query evaluates; explore it \
                     with schema and get_in instead",
                    args.file,
                    thousands(u64::from(json.max_depth())),
                    thousands(u64::from(MAX_DOCUMENT_DEPTH))
                ),
            ));
        }
        let limits = Limits {
            max_output_bytes: render_cap(ctx).min(Limits::default().max_output_bytes),
            ..Limits::default()
        };
        let window = Window {
            offset: args.page.offset,
            limit: args.page.limit,
        };
        let echo = echo(&args.filter);
        let load = || cached_document(ctx, &json);
        let outcome = match jq::run_with(&args.filter, load, window, &limits) {
            Ok(outcome) => outcome,
            Err(QueryError::TooLarge { bytes, results }) => {
                let summary = format!("{echo} (results from {})", thousands(args.page.offset));
                // At least what was rendered before the cap; about 4 bytes per token.
                return Ok(Extraction::unrendered((bytes / 4) as u64, summary, results));
            }
            Err(error) => return Err(to_tool_error(error)),
        };
        let shown = outcome.results.len() as u64;
        let end = args.page.offset.saturating_add(shown);
        let summary = match outcome.total {
            Some(total) => {
                let full = args.page.offset == 0 && args.page.limit.is_none();
                let past_end = args.page.offset > total;
                let (first, end) = if past_end {
                    (args.page.offset, args.page.offset)
                } else {
                    (args.page.offset, end)
                };
                format!(
                    "{echo} {}",
                    window_summary("results", first, end, total, full, "")
                )
            }
            None => format!(
                "{echo} (results [{}..{}) of more than {})",
                thousands(args.page.offset),
                thousands(end),
                thousands(outcome.counted)
            ),
        };
        let mut extraction = Extraction::new(outcome.results.join("\n"), summary, shown);
        if let Some(reason) = outcome.count_stopped {
            extraction = extraction.with_note(reason);
        }
        if outcome.halted {
            extraction = extraction.with_note("the filter called halt: results end there");
        }
        Ok(extraction)
    }

    fn smaller(ctx: &ExploreContext, args: &Args, got: &Extraction) -> Option<Call> {
        retry::smaller(ctx, args, got)
    }

    fn suggestions(_: &Args) -> Vec<String> {
        vec![
            "Return less per result: project the fields you need, e.g. `.items[] | \
             {name: .metadata.name, phase: .status.phase}`."
                .to_owned(),
            "Aggregate instead of listing: `length`, `group_by(…) | map({key: .[0].x, n: length})`."
                .to_owned(),
            "Page the results with offset and limit.".to_owned(),
        ]
    }
}

fn to_tool_error(error: QueryError) -> ToolError {
    match error {
        QueryError::Invalid(message) => ToolError::bad_argument("filter", message),
        QueryError::Unavailable { message, .. } => ToolError::bad_argument("filter", message),
        QueryError::Runtime { results, message } => ToolError::bad_argument(
            "filter",
            format!(
                "the filter failed after {} result{}: {message}; skip values \
                 that do not fit with `?`, `// empty` or select(…)",
                thousands(results),
                if results == 1 { "" } else { "s" }
            ),
        ),
        QueryError::Limit { limit, message } => ToolError::QueryLimit {
            limit: limit.name().to_owned(),
            message,
        },
        QueryError::Internal(message) => ToolError::bad_argument("filter", message),
        QueryError::TooLarge { .. } => ToolError::bad_argument(
            "filter",
            "the results are too large to show; project fewer fields",
        ),
    }
}

/// The filter as the footer shows it: on one line, cut short.
fn echo(filter: &str) -> String {
    let one_line: String = filter.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= FILTER_ECHO_CHARS {
        one_line
    } else {
        let cut: String = one_line.chars().take(FILTER_ECHO_CHARS).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests;
