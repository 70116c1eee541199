//! `read`: a whole stored output, numbered — refused up front when it cannot fit (docs/tools.md).
//!
//! "Up front" means before rendering or counting the file: a file larger than
//! [`SAMPLE_BYTES`] is judged from its first lines, counted and scaled by the file size; one
//! estimated at more than 1.5× the limit is refused without being read further. Files near
//! the limit are rendered and measured exactly by the budget rule.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::args;
use crate::call::Call;
use crate::context::ExploreContext;

use crate::error::ToolError;
use crate::fit;
use crate::line_tools::{head, line_window};
use crate::lossy;
use crate::numbered::{Mark, NumberedLines};
use crate::tool::{Extraction, Tool};

/// Files up to this size are rendered and measured exactly; larger ones are estimated from
/// this many bytes of samples first.
pub const SAMPLE_BYTES: u64 = 64 << 10;

/// Windows the estimate samples.
const SAMPLES: u64 = 4;

/// The `read` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read;

/// Arguments of `read`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub struct Args {
    #[schemars(description = args::FILE)]
    pub file: String,
}

impl Tool for Read {
    const NAME: &'static str = "read";
    const BLURB: &'static str = "a whole file that is small enough";
    const DESCRIPTION: &'static str = "Return a whole stored output, every line numbered. Only for files small enough \
            to fit your per-call limit and remaining budget: a larger file is refused at once with \
            its estimated size and a ready-to-run `head` call that fits. For anything big, prefer \
            `schema`, `grep` or `slice`.";
    type Args = Args;

    fn run(ctx: &ExploreContext, args: Args) -> Result<Extraction, ToolError> {
        let file = ctx.open(&args.file)?;
        let bytes = file.bytes();
        let limit = ctx.token_limit();
        // Judged before the line index is built: refusing a 2 GB file costs four samples.
        if file.size() > SAMPLE_BYTES {
            let (estimated, lines) = estimate(ctx, bytes);
            if estimated > limit.saturating_add(limit / 2) {
                return Ok(Extraction::unrendered(estimated, String::new(), lines));
            }
        }
        let index = file.lines();
        let total = index.line_count();
        let summary = line_window(1, total, total);
        let mut out = NumberedLines::new(ctx, &args.file, total);
        for (number, line) in index.lines(bytes, 1, total) {
            out.push(number, line, Mark::None);
            // `read` returns the whole file or nothing: a line cut to fit means it does not
            // fit, and so does a rendering already over the limit.
            if out.cut_lines() > 0 || out.over_limit() {
                let estimated = out
                    .estimate(&[(out.pushed(), total)])
                    .max(estimate(ctx, bytes).0)
                    .max(limit + 1);
                return Ok(Extraction::unrendered(estimated, summary, total));
            }
        }
        let (body, notes) = out.finish();
        Ok(Extraction::new(body, summary, total).with_notes(notes))
    }

    fn smaller(ctx: &ExploreContext, args: &Args, got: &Extraction) -> Option<Call> {
        let lines = fit::units_that_fit(ctx, got, 0).unwrap_or((got.returned / 2).max(1));
        Some(Call::new(
            "head",
            &head::Args {
                file: args.file.clone(),
                lines,
            },
        ))
    }

    fn suggestions(_: &Args) -> Vec<String> {
        vec![
            "The file is too large to read whole: read it in windows with head and slice."
                .to_owned(),
            "Use schema (JSON, Markdown) or grep to find the part you need first.".to_owned(),
        ]
    }
}

/// Tokens the whole file would cost numbered and uncut, and about how many lines it has,
/// without indexing it: [`SAMPLES`] windows of lines spread over the file by byte offset (its
/// start, quarters and end differ: short numbers, long numbers), rendered the same way with
/// numbers as wide as the file's would be, counted, and scaled by the file size.
fn estimate(ctx: &ExploreContext, bytes: &[u8]) -> (u64, u64) {
    let per_sample = usize::try_from(SAMPLE_BYTES).unwrap_or(usize::MAX) / SAMPLES as usize;
    let mut pieces = Vec::new();
    let mut newlines = 0u64;
    let mut sampled = 0usize;
    for k in 0..SAMPLES as usize {
        let at = bytes.len() / SAMPLES as usize * k;
        // Each window starts at a line start (the first at the top).
        let start = if at == 0 {
            0
        } else {
            memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i + 1)
        };
        let end = start.saturating_add(per_sample).min(bytes.len());
        let window = &bytes[start..end];
        newlines += memchr::memchr_iter(b'\n', window).count() as u64;
        sampled += window.len();
        pieces.push((k, window));
    }
    let lines =
        u64::try_from(u128::from(newlines.max(1)) * bytes.len() as u128 / sampled.max(1) as u128)
            .unwrap_or(u64::MAX)
            .max(1);
    let width = lines.to_string().len();
    let mut tokens = 0u128;
    for (k, window) in pieces {
        let mut sample = String::new();
        let first = 1 + lines / SAMPLES * k as u64;
        let window = window.strip_suffix(b"\n").unwrap_or(window);
        for (number, line) in (first..).zip(window.split(|&b| b == b'\n')) {
            let piece = lossy::prefix(line, per_sample);
            sample.push_str(&format!("{number:>width$}: {}\n", piece.text));
        }
        tokens += ctx.counter().count(&sample) as u128;
    }
    let scaled = tokens * bytes.len() as u128 / sampled.max(1) as u128;
    (u64::try_from(scaled).unwrap_or(u64::MAX), lines)
}

#[cfg(test)]
mod tests;
