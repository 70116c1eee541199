//! `head`: the first lines of a stored output, numbered (docs/tools.md).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::args;
use crate::call::Call;
use crate::context::ExploreContext;

use crate::error::ToolError;
use crate::fit;
use crate::line_index;
use crate::line_tools::line_window;
use crate::numbered::{Mark, NumberedLines};
use crate::tool::{Extraction, Tool};

/// Lines shown when `lines` is not given.
pub const DEFAULT_LINES: u64 = 50;

/// The `head` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head;

/// Arguments of `head`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub struct Args {
    #[schemars(description = args::FILE)]
    pub file: String,
    /// How many lines to show from the top.
    #[serde(default = "default_lines")]
    pub lines: u64,
}

fn default_lines() -> u64 {
    DEFAULT_LINES
}

impl Tool for Head {
    const NAME: &'static str = "head";
    const BLURB: &'static str = "the first lines";
    const DESCRIPTION: &'static str = "Show the first lines of a stored output, each prefixed with its line number. \
            Use it to see what a text or log file looks like before searching it; for JSON, start \
            with `schema` instead. `lines` defaults to 50. A line too long for one call is cut, and a \
            note says how to read the rest with `slice`. The footer gives the file's total line count \
            and your remaining token budget.";
    type Args = Args;

    fn run(ctx: &ExploreContext, args: Args) -> Result<Extraction, ToolError> {
        let file = ctx.open(&args.file)?;
        let bytes = file.bytes();
        // Rendered from the top without the line index: a window too large to return stops
        // after about the token limit, whatever the file's size, and only a result that fits
        // pays for counting the file's lines (its footer says "of N").
        let mut width_of = args.lines.min(bytes.len() as u64 + 1);
        let (body, notes, last) = loop {
            let mut out = NumberedLines::new(ctx, &args.file, width_of);
            for (number, line) in line_index::lines_from_top(bytes, args.lines) {
                out.push(number, line, Mark::None);
                let covered = line.as_ptr() as usize - bytes.as_ptr() as usize + line.len();
                if out.over_limit() {
                    // The window is at most `lines` lines, and at most the whole file.
                    let estimate = out.estimate(&[
                        (out.pushed(), args.lines),
                        (covered as u64, bytes.len() as u64),
                    ]);
                    let pushed = out.pushed();
                    return Ok(Extraction::unrendered(estimate, String::new(), pushed)
                        .with_rendered_start(out.finish().0));
                }
            }
            let last = out.pushed();
            if last.to_string().len() == width_of.max(1).to_string().len() {
                let (body, notes) = out.finish();
                break (body, notes, last);
            }
            width_of = last;
        };
        let total = file.lines().line_count();
        let summary = if args.lines == 0 && total > 0 {
            line_window(1, 0, total)
        } else {
            line_window(1, last, total)
        };
        Ok(Extraction::new(body, summary, last).with_notes(notes))
    }

    fn smaller(ctx: &ExploreContext, args: &Args, got: &Extraction) -> Option<Call> {
        let lines = fit::units_that_fit(ctx, got, 0).unwrap_or(got.returned / 2);
        (lines > 0).then(|| {
            Call::new(
                "head",
                &Args {
                    file: args.file.clone(),
                    lines,
                },
            )
        })
    }

    fn suggestions(_: &Args) -> Vec<String> {
        vec![
            "Ask for fewer lines, then page on with slice.".to_owned(),
            "Use grep to jump to the lines you need, or schema to see a JSON file's structure."
                .to_owned(),
        ]
    }
}

#[cfg(test)]
mod tests;
