//! `read`: a whole stored output, numbered — refused up front when it cannot fit (docs/tools.md).
//!
//! "Up front" means before rendering or counting the file: a file larger than
//! [`SAMPLE_BYTES`] is judged from its first lines, counted and scaled by the file size; one
//! estimated at more than 1.5× the limit is refused without being read further. Files near
//! the limit are rendered and measured exactly by the budget rule.

use serde::{Deserialize, Serialize};

use crate::call::Call;
use crate::context::ExploreContext;
use serde_json::json;

use crate::definitions::{Definition, closed, file_property};
use crate::error::ToolError;
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
#[derive(Debug)]
pub struct Read;

/// Arguments of `read`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The stored file.
    pub file: String,
}

impl Tool for Read {
    const DEFINITION: &'static Definition = &Definition {
        name: "read",
        description: "Return a whole stored output, every line numbered. Only for files small enough \
            to fit your per-call limit and remaining budget: a larger file is refused at once with \
            its estimated size and a ready-to-run `head` call that fits. For anything big, prefer \
            `schema`, `grep` or `slice`.",
        parameters: || closed(json!({"file": file_property()}), &["file"]),
    };
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

    fn smaller(_: &ExploreContext, args: &Args, got: &Extraction) -> Option<Call> {
        let lines = (got.returned / 2).max(1);
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
mod tests {
    use serde_json::json;

    use super::Read;
    use crate::test_support::{Fixture, counter, footer_summary, numbered_text, split};
    use crate::tool::Tool;

    #[test]
    fn read_returns_the_whole_file_numbered() {
        let fixture = Fixture::new(&[("a.txt", numbered_text(3).as_bytes())]);
        let text = fixture.call("read", json!({"file": "a.txt"}));
        let (body, footer) = split(&text);
        assert_eq!(body, "1: line 1\n2: line 2\n3: line 3");
        assert_eq!(
            footer,
            "--- read: lines 1-3 of 3 (whole file) | ~51 tokens | ~102,349 of 102,400 budget tokens left ---"
        );
        assert_eq!(
            fixture.ctx.budget().tokens_extracted(),
            counter().count(&text) as u64
        );
    }

    #[test]
    fn read_refuses_a_large_file_up_front_with_a_head_retry_that_fits() {
        let big = numbered_text(200_000);
        let fixture = Fixture::new(&[("big.txt", big.as_bytes())]);
        let error = fixture.error("read", json!({"file": "big.txt"}));
        assert_eq!(error["error"], "read_too_large");
        let estimated = error["estimated_tokens"].as_u64().unwrap();
        let exact = counter().count(&fixture_render(&big)) as u64;
        assert!(
            estimated.abs_diff(exact) * 10 < exact,
            "estimate {estimated} vs {exact}"
        );
        assert_eq!(error["retry"]["tool"], "head");
        let retried = fixture.call("head", error["retry"]["arguments"].clone());
        assert!(!retried.starts_with("{\"error\""), "{retried}");
        assert!(footer_summary(split(&retried).1).starts_with("--- head: lines 1-"));
    }

    #[test]
    fn read_without_head_exposed_offers_no_retry_rather_than_itself() {
        let big = numbered_text(200_000);
        let fixture = Fixture::new(&[("big.txt", big.as_bytes())]);
        let registry = crate::registry::Registry::new().without(&["head"]);
        let text = registry.dispatch_value(&fixture.ctx, "read", &json!({"file": "big.txt"}));
        let error: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(error["error"], "read_too_large");
        // `read` has no smaller form of its own, and the refused call is no retry (issue 28).
        assert!(error.get("retry").is_none(), "{text}");
        assert!(
            error["suggestions"]
                .as_array()
                .unwrap()
                .last()
                .unwrap()
                .as_str()
                .unwrap()
                .starts_with("No smaller call of the tools you have"),
            "{text}"
        );
    }

    #[test]
    fn read_refuses_a_file_whose_long_line_would_have_to_be_cut() {
        let fixture = Fixture::with_budget(
            &[(
                "wide.txt",
                format!("a\n{}\n", "wide ".repeat(4_000)).as_bytes(),
            )],
            128_000,
            2_000,
            0,
        );
        let error = fixture.error("read", json!({"file": "wide.txt"}));
        assert_eq!(error["error"], "read_too_large");
        assert_eq!(
            error["retry"],
            json!({"tool": "head", "arguments": {"file": "wide.txt", "lines": 1}})
        );
    }

    fn fixture_render(text: &str) -> String {
        let width = text.lines().count().to_string().len();
        text.lines()
            .enumerate()
            .map(|(i, l)| format!("{:>width$}: {l}\n", i + 1))
            .collect()
    }

    #[test]
    fn read_refuses_a_large_file_from_samples_before_indexing_it() {
        // Issue 22, item 5: `read` of a 2 GB file indexed and rendered it (12.7 s, 3 GB)
        // before answering; now four samples decide.
        let fixture = Fixture::new(&[("big.txt", numbered_text(300_000).as_bytes())]);
        let got = Read::run(
            &fixture.ctx,
            super::Args {
                file: "big.txt".into(),
            },
        )
        .unwrap();
        let estimated = got.unrendered.expect("refused up front");
        assert!(estimated > 1_000_000, "{estimated}");
        let size = std::fs::metadata(fixture.path().join("big.txt"))
            .unwrap()
            .len();
        assert_eq!(fixture.ctx.cache().cost(), size, "no line index was built");
        // About the file's 300,000 lines.
        assert!(got.returned.abs_diff(300_000) < 30_000, "{}", got.returned);
    }
}
