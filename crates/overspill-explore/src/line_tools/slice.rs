//! `slice`: lines `start..=end` of a stored output, numbered, optionally a character window of
//! each line for reading a huge line in pieces (docs/tools.md).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::args;
use crate::call::Call;
use crate::context::ExploreContext;

use crate::error::ToolError;
use crate::fit;
use crate::line_tools::line_window;
use crate::numbered::{CharWindow, Mark, NumberedLines, thousands};
use crate::tool::{Extraction, Tool};

/// The `slice` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slice;

/// Arguments of `slice`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub struct Args {
    #[schemars(description = args::FILE)]
    pub file: String,
    /// First line to show (1 is the first line of the file).
    #[schemars(range(min = 1))]
    pub start: u64,
    /// Last line to show, inclusive.
    #[schemars(range(min = 1))]
    pub end: u64,
    /// Within each line, the first character to show (0-based). Default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_char: Option<u64>,
    /// Within each line, at most this many characters. Default: the whole line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_chars: Option<u64>,
}

impl Tool for Slice {
    const NAME: &'static str = "slice";
    const BLURB: &'static str = "the lines from `start` to `end`";
    const DESCRIPTION: &'static str = "Show lines `start` to `end` of a stored output (1-based, both inclusive), each \
            prefixed with its line number. Use it to page through a file or to read the lines around \
            a `grep` hit or a `schema` line range such as [L120-L180]. `end` past the last line is \
            clamped; `start` past the last line returns nothing and the footer says how many lines \
            the file has. For a line too long to read at once, add `start_char` and `max_chars` to \
            read it in pieces.";
    type Args = Args;

    fn run(ctx: &ExploreContext, args: Args) -> Result<Extraction, ToolError> {
        validate(&args)?;
        let file = ctx.open(&args.file)?;
        let (bytes, index) = (file.bytes(), file.lines());
        let total = index.line_count();
        if args.start > total {
            let summary = format!(
                "no lines: start {} is past the end; the file has {} lines",
                thousands(args.start),
                thousands(total)
            );
            return Ok(Extraction::new(String::new(), summary, 0));
        }
        let last = args.end.min(total);
        let window = (args.start_char.is_some() || args.max_chars.is_some()).then(|| CharWindow {
            start: args.start_char.unwrap_or(0),
            max: args.max_chars,
        });
        let mut out = NumberedLines::new(ctx, &args.file, last).with_chars(window);
        let mut shown = None;
        for (number, line) in index.lines(bytes, args.start, last) {
            shown = Some(out.push(number, line, Mark::None));
            // A window too large to return stops here, whatever its size.
            if out.over_limit() {
                let estimate = out.estimate(&[(out.pushed(), last - args.start + 1)]);
                let pushed = out.pushed();
                return Ok(Extraction::unrendered(estimate, String::new(), pushed)
                    .with_rendered_start(out.finish().0));
            }
        }
        let (body, mut notes) = out.finish();
        let mut summary = line_window(args.start, last, total);
        if let Some(window) = window {
            let start = window.start;
            match shown {
                Some(shown) if args.start == last => {
                    summary.push_str(&format!(
                        ", chars [{}..{}) of {}",
                        thousands(start),
                        thousands(start + shown.chars),
                        thousands(shown.total_chars.unwrap_or(0))
                    ));
                }
                _ => {
                    let end = window
                        .max
                        .map_or("end".to_owned(), |m| thousands(start.saturating_add(m)));
                    summary.push_str(&format!(
                        ", chars [{}..{end}) of each line",
                        thousands(start)
                    ));
                }
            }
        }
        if args.end > total {
            notes.insert(
                0,
                format!("end {} clamped to the last line", thousands(args.end)),
            );
        }
        let returned = last - args.start + 1;
        Ok(Extraction::new(body, summary, returned).with_notes(notes))
    }

    fn smaller(ctx: &ExploreContext, args: &Args, got: &Extraction) -> Option<Call> {
        let lines = fit::units_that_fit(ctx, got, 0).unwrap_or(got.returned / 2);
        (lines > 0).then(|| {
            let end = args.start + lines - 1;
            Call::new(
                "slice",
                &Args {
                    end,
                    ..args.clone()
                },
            )
        })
    }

    fn suggestions(_: &Args) -> Vec<String> {
        vec![
            "Ask for a narrower range of lines and page through it.".to_owned(),
            "Use grep to find the exact lines you need first.".to_owned(),
        ]
    }
}

fn validate(args: &Args) -> Result<(), ToolError> {
    if args.start == 0 {
        return Err(ToolError::bad_argument(
            "start",
            "lines are numbered from 1; use start 1 for the first line",
        ));
    }
    if args.end < args.start {
        return Err(ToolError::bad_argument(
            "end",
            format!(
                "{} is before start {}; end is the last line to show, inclusive",
                args.end, args.start
            ),
        ));
    }
    if args.max_chars == Some(0) {
        return Err(ToolError::bad_argument(
            "max_chars",
            "must be at least 1; leave it out to show whole lines",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
