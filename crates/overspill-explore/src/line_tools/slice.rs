//! `slice`: lines `start..=end` of a stored output, numbered, optionally a character window of
//! each line for reading a huge line in pieces (docs/tools.md).

use serde::{Deserialize, Serialize};

use crate::args;
use crate::call::Call;
use crate::context::ExploreContext;
use serde_json::json;

use crate::definitions::{Definition, closed, count_property, file_property};
use crate::error::ToolError;
use crate::line_tools::line_window;
use crate::numbered::{CharWindow, Mark, NumberedLines, thousands};
use crate::tool::{Extraction, Tool};

/// The `slice` tool.
#[derive(Debug)]
pub struct Slice;

/// Arguments of `slice`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The stored file.
    pub file: String,
    /// First line, 1-based.
    #[serde(deserialize_with = "args::count")]
    pub start: u64,
    /// Last line, inclusive; clamped to the end of the file.
    #[serde(deserialize_with = "args::count")]
    pub end: u64,
    /// Within each line, the first character shown (0-based).
    #[serde(
        default,
        deserialize_with = "args::opt_count",
        skip_serializing_if = "Option::is_none"
    )]
    pub start_char: Option<u64>,
    /// Within each line, at most this many characters.
    #[serde(
        default,
        deserialize_with = "args::opt_count",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_chars: Option<u64>,
}

impl Tool for Slice {
    const DEFINITION: &'static Definition = &Definition {
        name: "slice",
        description: "Show lines `start` to `end` of a stored output (1-based, both inclusive), each \
            prefixed with its line number. Use it to page through a file or to read the lines around \
            a `grep` hit or a `schema` line range such as [L120-L180]. `end` past the last line is \
            clamped; `start` past the last line returns nothing and the footer says how many lines \
            the file has. For a line too long to read at once, add `start_char` and `max_chars` to \
            read it in pieces.",
        parameters: || {
            closed(
                json!({
                    "file": file_property(),
                    "start": count_property("First line to show (1 is the first line of the file).", None, 1),
                    "end": count_property("Last line to show, inclusive.", None, 1),
                    "start_char": count_property("Within each line, the first character to show (0-based). Default 0.", None, 0),
                    "max_chars": count_property("Within each line, at most this many characters. Default: the whole line.", None, 1),
                }),
                &["file", "start", "end"],
            )
        },
    };
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
                return Ok(Extraction::unrendered(
                    estimate,
                    String::new(),
                    out.pushed(),
                ));
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

    fn smaller(_: &ExploreContext, args: &Args, got: &Extraction) -> Option<Call> {
        (got.returned > 1).then(|| {
            let end = args.start + got.returned / 2 - 1;
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
mod tests {
    use serde_json::json;

    use super::Slice;
    use crate::args;
    use crate::test_support::{Fixture, footer_summary, numbered_text, split};
    use crate::tool::Tool;

    #[test]
    fn slice_returns_the_inclusive_range_with_absolute_line_numbers() {
        let fixture = Fixture::new(&[("a.txt", numbered_text(1_500).as_bytes())]);
        let body = fixture.body(
            "slice",
            json!({"file": "a.txt", "start": 998, "end": 1_001}),
        );
        assert_eq!(
            body,
            " 998: line 998\n 999: line 999\n1000: line 1000\n1001: line 1001"
        );
    }

    #[test]
    fn slice_footer_is_pinned() {
        let fixture = Fixture::new(&[("a.txt", numbered_text(1_500).as_bytes())]);
        assert_eq!(
            fixture.footer("slice", json!({"file": "a.txt", "start": 10, "end": 12})),
            "--- slice: lines 10-12 of 1,500 | ~49 tokens | ~102,351 of 102,400 budget tokens left ---"
        );
    }

    #[test]
    fn slice_clamps_end_to_the_last_line_and_says_so() {
        let fixture = Fixture::new(&[("a.txt", numbered_text(5).as_bytes())]);
        let text = fixture.call("slice", json!({"file": "a.txt", "start": 4, "end": 99}));
        let (body, footer) = split(&text);
        assert_eq!(body, "4: line 4\n5: line 5");
        assert_eq!(
            footer_summary(footer),
            "--- slice: lines 4-5 of 5; end 99 clamped to the last line"
        );
    }

    #[test]
    fn slice_start_past_the_end_returns_an_empty_body_and_the_line_count() {
        let fixture = Fixture::new(&[("a.txt", numbered_text(1_204).as_bytes())]);
        let text = fixture.call(
            "slice",
            json!({"file": "a.txt", "start": 2_000, "end": 2_050}),
        );
        assert!(
            text.starts_with(
                "--- slice: no lines: start 2,000 is past the end; the file has 1,204 lines | ~"
            ),
            "{text}"
        );
    }

    #[test]
    fn slice_rejects_start_zero_and_end_before_start() {
        let fixture = Fixture::new(&[("a.txt", b"x\n")]);
        assert_eq!(
            fixture.call("slice", json!({"file": "a.txt", "start": 0, "end": 1})),
            r#"{"error":"invalid_argument","argument":"start","message":"argument `start`: lines are numbered from 1; use start 1 for the first line"}"#
        );
        assert_eq!(
            fixture.error("slice", json!({"file": "a.txt", "start": 5, "end": 3}))["message"],
            "argument `end`: 3 is before start 5; end is the last line to show, inclusive"
        );
        assert_eq!(
            fixture.error("slice", json!({"file": "a.txt", "start": 1}))["message"],
            "slice needs the argument `end`"
        );
    }

    #[test]
    fn slice_chars_reads_a_huge_line_in_pieces() {
        let mut seed = 7u32;
        let line: String = (0..200_000)
            .map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                char::from(b"abcdefghijklmnopqrstuvwxyz0123456789 "[(seed >> 16) as usize % 37])
            })
            .collect();
        let fixture = Fixture::new(&[("one.txt", line.as_bytes())]);
        let text = fixture.call(
            "slice",
            json!({"file": "one.txt", "start": 1, "end": 1, "start_char": 26, "max_chars": 10}),
        );
        let (body, footer) = split(&text);
        assert_eq!(body, format!("1: {}", &line[26..36]));
        assert_eq!(
            footer_summary(footer),
            "--- slice: line 1 of 1, chars [26..36) of 200,000"
        );

        // Without a window the line is cut; the note's call continues exactly where it stopped.
        let head = fixture.body("head", json!({"file": "one.txt"}));
        let note_at = head.find(" … [line 1 cut").unwrap();
        let shown = &head["1: ".len()..note_at];
        let call: serde_json::Value =
            serde_json::from_str(&head[head.find("slice {").unwrap() + 6..head.len() - 1]).unwrap();
        assert_eq!(call["start_char"], shown.chars().count());
        let next = fixture.body("slice", call.clone());
        let next_text = next["1: ".len()..].split(" … [").next().unwrap();
        let offset = shown.chars().count();
        assert!(
            line[offset..].starts_with(next_text),
            "the next piece continues the line"
        );
    }

    #[test]
    fn slice_chars_past_the_end_of_a_line_show_nothing_of_it() {
        let fixture = Fixture::new(&[("a.txt", b"short\n")]);
        let text = fixture.call(
            "slice",
            json!({"file": "a.txt", "start": 1, "end": 1, "start_char": 50}),
        );
        assert!(
            text.starts_with("1: \n--- slice: line 1 of 1, chars [50..50) of 5 |"),
            "{text}"
        );
    }

    #[test]
    fn slice_too_large_retry_halves_the_range_and_fits() {
        let text: String = (1..=1_000)
            .map(|i| format!("{i} {}\n", "word ".repeat(30)))
            .collect();
        let fixture = Fixture::with_budget(&[("log.txt", text.as_bytes())], 128_000, 3_000, 0);
        let error = fixture.error(
            "slice",
            json!({"file": "log.txt", "start": 101, "end": 900}),
        );
        assert_eq!(error["error"], "slice_too_large");
        let retry = &error["retry"];
        assert_eq!(retry["tool"], "slice");
        let end = retry["arguments"]["end"].as_u64().unwrap();
        assert_eq!(retry["arguments"]["start"], 101);
        // A halving of the 800-line window: 400, 200, 100, 50, …
        let len = end - 100;
        assert!(
            len.is_power_of_two() || (800 % len == 0),
            "window of {len} lines"
        );
        let retried = fixture.call("slice", retry["arguments"].clone());
        assert!(
            retried.contains(&format!("--- slice: lines 101-{end} of 1,000 |")),
            "{retried}"
        );
        let doubled = fixture.error(
            "slice",
            json!({"file": "log.txt", "start": 101, "end": 100 + 2 * len}),
        );
        assert_eq!(
            doubled["error"], "slice_too_large",
            "the retry is the first halving that fits"
        );
    }

    #[test]
    fn slice_of_a_huge_range_stops_rendering_at_the_limit() {
        let fixture = Fixture::new(&[("a.txt", numbered_text(300_000).as_bytes())]);
        let arguments = json!({"file": "a.txt", "start": 2, "end": u64::MAX});
        let got = Slice::run(&fixture.ctx, args::parse("slice", &arguments).unwrap()).unwrap();
        assert!(got.unrendered.is_some());
        assert!(got.returned < 5_000, "{}", got.returned);
        let error = fixture.error("slice", arguments);
        let retried = fixture.call("slice", error["retry"]["arguments"].clone());
        assert!(retried.contains("--- slice: lines 2-"), "{retried}");
    }
}
