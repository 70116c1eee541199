//! `head`: the first lines of a stored output, numbered (docs/tools.md).

use serde::{Deserialize, Serialize};

use crate::args;
use crate::call::Call;
use crate::context::ExploreContext;
use serde_json::json;

use crate::definitions::{Definition, closed, count_property, file_property};
use crate::error::ToolError;
use crate::line_index;
use crate::line_tools::line_window;
use crate::numbered::{Mark, NumberedLines};
use crate::tool::{Extraction, Tool};

/// Lines shown when `lines` is not given.
pub const DEFAULT_LINES: u64 = 50;

/// The `head` tool.
#[derive(Debug)]
pub struct Head;

/// Arguments of `head`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The stored file.
    pub file: String,
    /// How many lines from the top (default 50).
    #[serde(default = "default_lines", deserialize_with = "args::count")]
    pub lines: u64,
}

fn default_lines() -> u64 {
    DEFAULT_LINES
}

impl Tool for Head {
    const DEFINITION: &'static Definition = &Definition {
        name: "head",
        description: "Show the first lines of a stored output, each prefixed with its line number. \
            Use it to see what a text or log file looks like before searching it; for JSON, start \
            with `schema` instead. `lines` defaults to 50. A line too long for one call is cut, and a \
            note says how to read the rest with `slice`. The footer gives the file's total line count \
            and your remaining token budget.",
        parameters: || {
            closed(
                json!({
                    "file": file_property(),
                    "lines": count_property("How many lines to show from the top.", Some(50), 0),
                }),
                &["file"],
            )
        },
    };
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
                    return Ok(Extraction::unrendered(
                        estimate,
                        String::new(),
                        out.pushed(),
                    ));
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

    fn smaller(_: &ExploreContext, args: &Args, got: &Extraction) -> Option<Call> {
        (got.returned > 1).then(|| {
            Call::new(
                "head",
                &Args {
                    file: args.file.clone(),
                    lines: got.returned / 2,
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
mod tests {
    use serde_json::json;

    use super::Head;
    use crate::args;
    use crate::test_support::{Fixture, counter, footer_summary, numbered_text, split};
    use crate::tool::Tool;

    #[test]
    fn head_shows_the_first_50_lines_numbered_by_default() {
        let fixture = Fixture::new(&[("a.txt", numbered_text(120).as_bytes())]);
        let body = fixture.body("head", json!({"file": "a.txt"}));
        let lines: Vec<&str> = body.lines().collect();
        assert_eq!(lines.len(), 50);
        assert_eq!(lines[0], " 1: line 1");
        assert_eq!(lines[49], "50: line 50");
    }

    #[test]
    fn head_footer_is_pinned() {
        let fixture = Fixture::new(&[("a.txt", numbered_text(120).as_bytes())]);
        assert_eq!(
            fixture.footer("head", json!({"file": "a.txt", "lines": 3})),
            "--- head: lines 1-3 of 120 | ~47 tokens | ~102,353 of 102,400 budget tokens left ---"
        );
        assert_eq!(
            footer_summary(&fixture.footer("head", json!({"file": "a.txt", "lines": 500}))),
            "--- head: lines 1-120 of 120 (whole file)"
        );
    }

    #[test]
    fn head_accepts_lines_as_a_numeric_string() {
        let fixture = Fixture::new(&[("a.txt", numbered_text(120).as_bytes())]);
        let body = fixture.body("head", json!({"file": "a.txt", "lines": "20"}));
        assert_eq!(body.lines().count(), 20);
    }

    #[test]
    fn head_unknown_argument_lines_count_lists_file_and_lines() {
        let fixture = Fixture::new(&[("a.txt", b"x\n")]);
        assert_eq!(
            fixture.call("head", json!({"file": "a.txt", "lines_count": 20})),
            r#"{"error":"invalid_argument","argument":"lines_count","message":"unknown argument `lines_count`; head accepts: file, lines","accepted":["file","lines"]}"#
        );
    }

    #[test]
    fn head_negative_lines_is_an_error_naming_lines() {
        let fixture = Fixture::new(&[("a.txt", b"x\n")]);
        let error = fixture.error("head", json!({"file": "a.txt", "lines": -1}));
        assert_eq!(error["argument"], "lines");
        assert_eq!(
            error["message"],
            "argument `lines`: must not be negative, got -1"
        );
    }

    #[test]
    fn head_on_an_empty_file_says_so() {
        let fixture = Fixture::new(&[("empty.txt", b"")]);
        let text = fixture.call("head", json!({"file": "empty.txt"}));
        assert!(
            text.starts_with("--- head: empty file (0 lines) | ~"),
            "{text}"
        );
    }

    #[test]
    fn head_on_a_1_line_20_mb_file_returns_a_cut_line_and_a_note_within_the_cap() {
        let line: String = "0123456789abcdef".repeat(20 << 16);
        assert_eq!(line.len(), 20 << 20);
        let fixture = Fixture::new(&[("big.json", line.as_bytes())]);
        let text = fixture.call("head", json!({"file": "big.json"}));
        let tokens = counter().count(&text) as u64;
        assert!(tokens <= 10_000, "{tokens} tokens");
        let (body, footer) = split(&text);
        assert!(body.starts_with("1: 0123456789abcdef"));
        assert!(
            body.contains(" … [line 1 cut: chars 0.."),
            "{}",
            &body[body.len() - 300..]
        );
        assert!(body.contains(" of 20,971,520 shown; read on with slice {\"file\":\"big.json\",\"start\":1,\"end\":1,\"start_char\":"));
        assert!(
            footer.contains("; line 1 was cut to fit (see the note at its end) |"),
            "{footer}"
        );
        assert_eq!(fixture.ctx.budget().tokens_extracted(), tokens);
    }

    #[test]
    fn head_too_large_retry_halves_lines_and_fits() {
        let long_lines: String = (1..=400)
            .map(|i| format!("{i} {}\n", "word ".repeat(40)))
            .collect();
        let fixture =
            Fixture::with_budget(&[("log.txt", long_lines.as_bytes())], 128_000, 2_000, 0);
        let error = fixture.error("head", json!({"file": "log.txt", "lines": 200}));
        assert_eq!(error["error"], "head_too_large");
        assert_eq!(error["per_call_limit"], 2_000);
        assert_eq!(
            fixture.ctx.budget().tokens_extracted(),
            0,
            "an error is never charged"
        );
        // Rendering 200 lines stops after 58 (they already cost more than the cap), and
        // halving starts from those: 29 fits, 58 does not.
        assert_eq!(
            error["retry"],
            json!({"tool": "head", "arguments": {"file": "log.txt", "lines": 29}})
        );
        let twice = fixture.error("head", json!({"file": "log.txt", "lines": 58}));
        assert_eq!(twice["error"], "head_too_large");
        let retried = fixture.call("head", error["retry"]["arguments"].clone());
        assert!(
            retried.contains("--- head: lines 1-29 of 400 |"),
            "{retried}"
        );
        assert_eq!(
            fixture.ctx.budget().tokens_extracted(),
            counter().count(&retried) as u64
        );
    }

    #[test]
    fn head_shows_invalid_utf8_lossily_with_a_note() {
        let fixture = Fixture::new(&[(
            "bin.txt",
            b"ok
bad \xff\xfe bytes
",
        )]);
        let text = fixture.call("head", json!({"file": "bin.txt"}));
        let (body, footer) = split(&text);
        assert_eq!(body, "1: ok\n2: bad \u{FFFD}\u{FFFD} bytes");
        assert_eq!(
            footer_summary(footer),
            "--- head: lines 1-2 of 2 (whole file); invalid UTF-8 shown as \u{FFFD}"
        );
    }

    #[test]
    fn head_strips_crlf_line_endings() {
        let fixture = Fixture::new(&[("win.txt", b"one\r\ntwo\r\n")]);
        assert_eq!(
            fixture.body("head", json!({"file": "win.txt"})),
            "1: one\n2: two"
        );
    }

    #[test]
    fn head_of_10_18_lines_stops_rendering_at_the_limit_without_indexing_the_file() {
        // Issue 22, item 5: a window far larger than the limit used to be rendered whole
        // (`read` of 2 GB: 12.7 s and 3 GB through its `head` retries).
        let fixture = Fixture::new(&[("a.txt", numbered_text(300_000).as_bytes())]);
        let arguments = json!({"file": "a.txt", "lines": 1_000_000_000_000_000_000u64});
        let got = Head::run(&fixture.ctx, args::parse("head", &arguments).unwrap()).unwrap();
        let estimated = got.unrendered.expect("refused before rendering it all");
        assert!(got.returned < 5_000, "{}", got.returned);
        assert!(
            estimated > 2_000_000,
            "the whole file is estimated: {estimated}"
        );
        let size = std::fs::metadata(fixture.path().join("a.txt"))
            .unwrap()
            .len();
        assert_eq!(fixture.ctx.cache().cost(), size, "no line index was built");
        let error = fixture.error("head", arguments);
        let retried = fixture.call("head", error["retry"]["arguments"].clone());
        assert!(retried.contains("--- head: lines 1-"), "{retried}");
    }
}
