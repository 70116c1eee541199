//! `get_in`: the value at a path, pretty-printed with the file's line numbers; a string
//! value paged by line (docs/tools.md).
//!
//! ```text
//! 41:     {
//! 42:       "name": "api",
//! 43:       "restartCount": 17
//! 44:     }
//! --- get_in: $.items[3].status.containerStatuses[0] (object(2 keys), lines 41-44) | …
//! ```
//!
//! Each line carries the number of the file line its content comes from, so the numbers
//! match `slice` on the stored file, re-indented or as given. A string value is shown
//! decoded, one of its lines per numbered line, `offset`/`limit` choosing which (default the
//! first [`DEFAULT_STRING_LINES`]): `(string, lines 1-100 of 340)`. Nesting deeper than 64
//! levels, and strings inside a value longer than [`INNER_STRING`], are cut with the path
//! that reads on.

use overspill_json::{JsonPath, Kind, MAX_DEPTH, NodeRef};

use super::describe::describe_value;
use super::document;
use super::render::{self, StringCut, Style};
use super::window::{STREAMED_NOTE, estimate_tokens, render_cap};

use crate::args::{Page, PagedAt};
use crate::call::Call;
use crate::context::ExploreContext;
use crate::error::ToolError;
use crate::fit;
use crate::numbered::{Mark, NumberedLines, thousands};
use crate::tool::{Extraction, Tool};

/// Lines of a string value shown when `limit` is not given.
pub const DEFAULT_STRING_LINES: u64 = 100;

/// How long a string inside a shown value may be before it is cut.
pub const INNER_STRING: StringCut = StringCut {
    max_lines: 50,
    max_chars: 4_000,
};

/// The `get_in` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GetIn;

/// Arguments of `get_in`: a page of what stands at a path.
pub type Args = PagedAt<GetIn>;

impl Tool for GetIn {
    const NAME: &'static str = "get_in";
    const BLURB: &'static str = "the value at a path such as `$.items[3].status`";
    const DESCRIPTION: &'static str = "Return the JSON value at a path, pretty-printed with line numbers. Paths look \
            like `$.items[3].metadata.name`, `$[\"key.with.dots\"]`, or the bare form \
            `items.3.metadata.name`. A long string value (a log, an embedded document) is paged by \
            line with `offset` and `limit`. A path that does not exist returns the longest valid \
            prefix and the keys or array length found there.";
    const JSON_ONLY: bool = true;
    type Args = Args;
    const PATH_DOC: &'static str = "Where the value is, e.g. `$.items[3].status`.";
    const OFFSET_DOC: &'static str = "For a long string value: the first line to return (0-based).";
    const LIMIT_DOC: &'static str = "For a long string value: how many lines to return.";

    fn run(ctx: &ExploreContext, args: Args) -> Result<Extraction, ToolError> {
        let path = document::paged_path(&args.at, &args.page)?;
        document::with_value(ctx, &args.at.file, &path, |value, streamed| {
            let shown = show(ctx, &args, &path, value);
            if streamed {
                shown.map(|e| e.with_note(STREAMED_NOTE))
            } else {
                shown
            }
        })?
    }

    fn smaller(ctx: &ExploreContext, args: &Args, got: &Extraction) -> Option<Call> {
        // The summary starts with the canonical path, then the value's kind.
        let path = JsonPath::parse(&args.at.path).ok()?.to_string();
        let kind = got.summary.strip_prefix(&path)?.strip_prefix(" (");
        match kind {
            Some(rest) if rest.starts_with("string") => (got.returned > 1).then(|| {
                Call::new(
                    "get_in",
                    &Args {
                        page: Page::new(
                            args.page.offset,
                            Some(fit::units_that_fit(ctx, got, 0).unwrap_or(got.returned / 2)),
                        ),
                        ..args.clone()
                    },
                )
            }),
            Some(rest) if rest.starts_with("array") => Some(Call::new(
                "iterate_over",
                &super::iterate_over::Args {
                    at: args.at.for_tool(),
                    fields: None,
                    page: Page::new(0, Some((got.returned / 2).max(1))),
                },
            )),
            Some(rest) if rest.starts_with("object") => Some(Call::new(
                "schema",
                &super::schema::Args {
                    file: args.at.file.clone(),
                    max_depth: 2,
                    path: Some(args.at.path.clone()),
                },
            )),
            _ => None,
        }
    }

    fn suggestions(args: &Args) -> Vec<String> {
        vec![
            format!(
                "Ask for a smaller part: a deeper path under {}, found with schema.",
                args.at.path
            ),
            "For an array, walk its items with iterate_over and a few fields.".to_owned(),
            "For a long string, page it with offset and limit.".to_owned(),
        ]
    }
}

fn show(
    ctx: &ExploreContext,
    args: &Args,
    path: &JsonPath,
    value: NodeRef<'_>,
) -> Result<Extraction, ToolError> {
    if value.kind() == Kind::String {
        return string_page(ctx, &args.page, path, value);
    }
    if args.page.offset > 0 || args.page.limit.is_some() {
        let described = describe_value(value);
        let advice = if value.kind() == Kind::Array {
            format!(
                "use iterate_over with path {path} and offset/limit for its items, or get_in \
                 {path}[i] for one"
            )
        } else {
            format!("leave them out to read {path} whole, or ask for a deeper path")
        };
        return Err(ToolError::invalid_argument(
            Some(if args.page.offset > 0 {
                "offset"
            } else {
                "limit"
            }),
            format!(
                "offset and limit page the lines of a string value, but {path} is {}; {advice}",
                document::with_article(value.kind(), &described)
            ),
        ));
    }
    let style = Style {
        path,
        depth: MAX_DEPTH,
        cut: Some(INNER_STRING),
    };
    // A scalar is one line, which is cut to fit like any long line (a hostile number of a
    // million digits must not leave its value unreadable); containers stop at the cap.
    let cap = if matches!(value.kind(), Kind::Object | Kind::Array) {
        render_cap(ctx)
    } else {
        usize::MAX
    };
    let pretty = render::pretty(value, style, cap);
    let units = value.len().max(1);
    let summary = format!(
        "{path} ({}, {})",
        describe_value(value),
        file_lines(value.line(), value.end_line())
    );
    if pretty.stopped {
        let text: String = pretty
            .lines
            .iter()
            .map(|(_, l)| l.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        // The share of the value rendered, judged by its lines.
        let span = u64::from(value.end_line() - value.line()) + 1;
        let done_lines = pretty
            .lines
            .last()
            .map_or(1, |(n, _)| u64::from(*n - value.line()) + 1);
        let estimate = estimate_tokens(ctx, &text, done_lines.min(span), span);
        return Ok(Extraction::unrendered(estimate, summary, units));
    }
    let last = pretty
        .lines
        .iter()
        .map(|(n, _)| u64::from(*n))
        .max()
        .unwrap_or(1);
    let mut out = NumberedLines::new(ctx, &args.at.file, last);
    let mut repeated = false;
    let mut previous = 0u32;
    for (number, text) in &pretty.lines {
        repeated |= *number == previous;
        previous = *number;
        out.push(u64::from(*number), text.as_bytes(), Mark::None);
    }
    let (body, notes) = out.finish();
    let mut extraction = Extraction::new(body, summary, units).with_notes(notes);
    if repeated && value.line() == value.end_line() {
        extraction = extraction.with_note(format!(
            "the file holds this value on one line (L{}), so every line shows that number",
            value.line()
        ));
    } else if repeated {
        extraction = extraction
            .with_note("the file is not laid out one value per line, so some line numbers repeat");
    }
    if pretty.marks.cut_strings > 0 {
        extraction = extraction.with_note(format!(
            "{} long string{} cut (each names the get_in path that reads it whole)",
            thousands(pretty.marks.cut_strings),
            if pretty.marks.cut_strings == 1 {
                " was"
            } else {
                "s were"
            }
        ));
    }
    if pretty.marks.truncated {
        extraction = extraction.with_note(
            "nesting deeper than 64 levels is cut (…truncated names the path to read on)",
        );
    }
    Ok(extraction)
}

/// One page of the lines of a string value.
fn string_page(
    ctx: &ExploreContext,
    page: &Page<GetIn>,
    path: &JsonPath,
    value: NodeRef<'_>,
) -> Result<Extraction, ToolError> {
    let text = value.str();
    let total = value.str_lines();
    if page.offset >= total {
        return Err(ToolError::OffsetOutOfRange {
            argument: "offset".to_owned(),
            offset: page.offset,
            total,
            message: format!(
                "offset {} is past the end: the string at {path} has {} line{} (offsets 0 to \
                 {}); ask for a smaller offset",
                thousands(page.offset),
                thousands(total),
                if total == 1 { "" } else { "s" },
                thousands(total - 1)
            ),
        });
    }
    let limit = page.limit.unwrap_or(DEFAULT_STRING_LINES);
    let last = page.offset.saturating_add(limit).min(total);
    let width = last.to_string().len();
    let cap = usize::try_from(ctx.line_cap()).unwrap_or(usize::MAX);
    let mut body = String::new();
    let mut cut = Vec::new();
    for (i, line) in text
        .split('\n')
        .enumerate()
        .skip(usize::try_from(page.offset).unwrap_or(usize::MAX))
        .take(usize::try_from(last - page.offset).unwrap_or(usize::MAX))
    {
        let number = i as u64 + 1;
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(&format!("{number:>width$}: "));
        let kept = crate::numbered::fit_prefix(ctx, line, cap);
        body.push_str(&line[..kept]);
        if kept < line.len() {
            cut.push(number);
            body.push_str(&format!(
                " … [line {number} of the string cut at {} of {} chars]",
                thousands(line[..kept].chars().count() as u64),
                thousands(line.chars().count() as u64)
            ));
        }
    }
    let summary = format!(
        "{path} (string, lines {}-{} of {})",
        thousands(page.offset + 1),
        thousands(last),
        thousands(total)
    );
    let mut extraction = Extraction::new(body, summary, last - page.offset);
    if !cut.is_empty() {
        extraction = extraction.with_note(format!(
            "{} very long line{} cut; the string sits on file line {}: read its raw text with \
             slice start_char/max_chars",
            cut.len(),
            if cut.len() == 1 { " was" } else { "s were" },
            value.line()
        ));
    }
    Ok(extraction)
}

/// `lines 40-80`, or `line 12`.
fn file_lines(first: u32, last: u32) -> String {
    if first == last {
        format!("line {first}")
    } else {
        format!("lines {first}-{last}")
    }
}

#[cfg(test)]
mod tests;
