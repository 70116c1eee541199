//! `iterate_over`: one compact row per array item, holding only the fields asked for
//! (docs/tools.md).
//!
//! ```text
//! [
//!   {"_index":40,"metadata.name":"api-7c9f…","status.phase":"Running"},
//!   {"_index":41,"metadata.name":"worker-1b2…","status.phase":"Failed"}
//! ]
//! --- iterate_over: $.items (items [40..42) of 120 total, fields: [metadata.name,status.phase]) | …
//! ```
//!
//! `_index` is the item's absolute position, so `$.items[_index]` is a valid `get_in` path
//! whichever window produced the row. A field is a path relative to the item; a field the
//! item lacks is `null`. A string longer than [`MAX_STRING_LINES`] lines (or
//! [`MAX_STRING_CHARS`] characters) is cut, with a note naming the `get_in` path that reads
//! it whole. Without `fields`, rows hold whole items.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::document::{self, ArrayWindow};
use super::render::{self, StringCut, Style};
use overspill_json::{JsonPath, Kind, MAX_DEPTH, NodeRef, Segment};

use super::window::{STREAMED_NOTE, estimate_tokens, render_cap};

use crate::args::{Located, Page};
use crate::call::Call;
use crate::context::ExploreContext;
use crate::error::ToolError;
use crate::fit;
use crate::numbered::thousands;
use crate::tool::{Extraction, Tool};

/// Lines of a string shown in a row before it is cut.
pub const MAX_STRING_LINES: u64 = 5;

/// Characters of a string shown in a row before it is cut.
pub const MAX_STRING_CHARS: u64 = 2_000;

/// Fields one call may ask for.
pub const MAX_FIELDS: usize = 64;

/// The `iterate_over` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IterateOver;

/// Arguments of `iterate_over`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub struct Args {
    #[serde(flatten)]
    pub at: Located<IterateOver>,
    /// Comma-separated sub-paths to keep in each row, e.g. `metadata.name,status.phase`.
    /// Default: whole items.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<String>,
    #[serde(flatten)]
    pub page: Page<IterateOver>,
}

impl Tool for IterateOver {
    const NAME: &'static str = "iterate_over";
    const BLURB: &'static str = "chosen fields of each item of an array, a window at a time";
    const DESCRIPTION: &'static str = "Walk the items of a JSON array and return one compact row per item holding \
            only the `fields` you name (a comma-separated list of sub-paths, e.g. \
            `metadata.name,status.phase`). Each row carries `_index`, the item's absolute position, \
            so `$.items[_index]` stays a valid `get_in` path whichever window produced it. Page with \
            `offset` and `limit`; the footer shows the window as a half-open range and the total. \
            Strings longer than 5 lines are cut with a hint.";
    const JSON_ONLY: bool = true;
    type Args = Args;
    const PATH_DOC: &'static str = "The array, e.g. `$.items`.";
    const OFFSET_DOC: &'static str = "First item (0-based).";
    const LIMIT_DOC: &'static str = "How many items.";

    fn run(ctx: &ExploreContext, args: Args) -> Result<Extraction, ToolError> {
        let path = document::paged_path(&args.at, &args.page)?;
        let fields = parse_fields(args.fields.as_deref())?;
        let window = ArrayWindow::open(ctx, &args.at.file, &path, &args.page)?;
        let names: Vec<&str> = fields.iter().map(|(name, _)| name.as_str()).collect();
        let shown_fields = if fields.is_empty() {
            ", fields: whole items".to_owned()
        } else {
            format!(", fields: [{}]", names.join(","))
        };
        let summary = window.summary(&path, args.page.is_everything(), &shown_fields);
        let wanted = window.count();
        let cap = render_cap(ctx);
        let mut body = String::from("[");
        let mut cut_strings = 0u64;
        let mut truncated = false;
        for (n, (index, item)) in window.items().enumerate() {
            let item_path = path.child(Segment::Index(index));
            body.push_str(if n == 0 { "\n  " } else { ",\n  " });
            let marks = row(&mut body, index, item, &item_path, &fields);
            cut_strings += marks.cut_strings;
            truncated |= marks.truncated;
            if body.len() > cap {
                let estimate = estimate_tokens(ctx, &body, n as u64 + 1, wanted);
                // Halving starts from the rows rendered before the cap, not the whole window: a
                // file streamed for each retry candidate must not be streamed a dozen times.
                return Ok(Extraction::unrendered(estimate, summary, n as u64 + 1)
                    .with_rendered_start(body));
            }
        }
        body.push_str(if wanted == 0 { "]" } else { "\n]" });
        let mut extraction = Extraction::new(body, summary, wanted);
        if cut_strings > 0 {
            extraction = extraction.with_note(format!(
                "{} long string{} cut (each names the get_in path that reads it whole)",
                thousands(cut_strings),
                if cut_strings == 1 { " was" } else { "s were" }
            ));
        }
        if truncated {
            extraction = extraction.with_note(
                "values nested deeper than 64 levels are cut (…truncated names the path to read on)",
            );
        }
        if window.streamed() {
            extraction = extraction.with_note(STREAMED_NOTE);
        }
        Ok(extraction)
    }

    fn smaller(ctx: &ExploreContext, args: &Args, got: &Extraction) -> Option<Call> {
        if got.returned > 1 {
            // Rows are one a line after the opening `[`.
            let rows = fit::units_that_fit(ctx, got, 1);
            return Some(Call::new(
                "iterate_over",
                &Args {
                    page: Page::new(args.page.offset, Some(rows.unwrap_or(got.returned / 2))),
                    ..args.clone()
                },
            ));
        }
        // One row is still too much: describe that item instead, as get_in does an object.
        let item = JsonPath::parse(&args.at.path)
            .ok()?
            .child(Segment::Index(args.page.offset));
        Some(Call::new(
            "schema",
            &super::schema::Args {
                file: args.at.file.clone(),
                max_depth: 2,
                path: Some(item.to_string()),
            },
        ))
    }

    fn suggestions(args: &Args) -> Vec<String> {
        let path =
            JsonPath::parse(&args.at.path).map_or_else(|_| args.at.path.clone(), |p| p.to_string());
        vec![
            "Run the `retry` call (the same walk over half the window), then page on with \
             offset."
                .to_owned(),
            "Ask for fewer fields: name only the sub-paths you need, e.g. `metadata.name,status.phase`."
                .to_owned(),
            format!("Read one item in full with get_in {path}[i], where i is a row's _index."),
            "Use grep to find the items that mention what you are looking for.".to_owned(),
        ]
    }
}

/// Appends one row.
fn row(
    out: &mut String,
    index: u64,
    item: NodeRef<'_>,
    item_path: &JsonPath,
    fields: &[(String, JsonPath)],
) -> render::Marks {
    let cut = Some(StringCut {
        max_lines: MAX_STRING_LINES,
        max_chars: MAX_STRING_CHARS,
    });
    let mut marks = render::Marks::default();
    out.push_str(&format!("{{\"_index\":{index}"));
    if fields.is_empty() {
        if item.kind() == Kind::Object {
            let mut whole = String::new();
            let style = Style {
                path: item_path,
                depth: MAX_DEPTH,
                cut,
            };
            marks = render::compact(item, style, &mut whole);
            // `{…}` without its brace, after `_index`.
            if whole.len() > 2 {
                out.push(',');
                out.push_str(&whole[1..whole.len() - 1]);
            }
        } else {
            out.push_str(",\"value\":");
            let style = Style {
                path: item_path,
                depth: MAX_DEPTH,
                cut,
            };
            marks = render::compact(item, style, out);
        }
        out.push('}');
        return marks;
    }
    for (name, field) in fields {
        out.push(',');
        out.push_str(&serde_json::Value::String(name.clone()).to_string());
        out.push(':');
        match overspill_json::resolve(item, field) {
            Ok(value) => {
                let value_path = item_path.join(field);
                let style = Style {
                    path: &value_path,
                    depth: MAX_DEPTH,
                    cut,
                };
                let got = render::compact(value, style, out);
                marks.cut_strings += got.cut_strings;
                marks.truncated |= got.truncated;
            }
            Err(_) => out.push_str("null"),
        }
    }
    out.push('}');
    marks
}

/// Splits `fields` at commas outside brackets and quotes and parses each as a path
/// relative to an item; keeps the first of repeated names.
fn parse_fields(fields: Option<&str>) -> Result<Vec<(String, JsonPath)>, ToolError> {
    let Some(text) = fields else {
        return Ok(Vec::new());
    };
    let mut out: Vec<(String, JsonPath)> = Vec::new();
    for piece in split_fields(text) {
        let name = piece.trim();
        if name.is_empty() {
            continue;
        }
        let path = JsonPath::parse_relative(name)
            .map_err(|error| ToolError::bad_argument("fields", error))?;
        if !out.iter().any(|(n, _)| n == name) {
            out.push((name.to_owned(), path));
        }
    }
    if out.len() > MAX_FIELDS {
        return Err(ToolError::bad_argument(
            "fields",
            format!(
                "{} fields named, at most {MAX_FIELDS}; ask for fewer, or \
                 leave `fields` out for whole items",
                out.len()
            ),
        ));
    }
    Ok(out)
}

fn split_fields(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let (mut depth, mut quote, mut escaped, mut start) = (0usize, None::<char>, false, 0usize);
    for (at, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' if depth > 0 => quote = Some(c),
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                pieces.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    pieces.push(&text[start..]);
    pieces
}

#[cfg(test)]
mod tests;
