//! `schema`: the structure of a stored output without its content (docs/tools.md).
//!
//! JSON files get the tree of [`super::tree`] (kinds, sizes, line ranges, merged array
//! items); Markdown files their heading tree and text files a summary ([`crate::outline`]).
//! The format follows the file's extension: a `.txt` file always gets the text form, and a
//! `.json` file that does not parse gets the text form with a note saying where it breaks.

use overspill_json::MAX_DEPTH;
use overspill_store::Format;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::document;
use super::tree;
use crate::args;
use crate::call::Call;
use crate::context::ExploreContext;
use crate::outline;

use crate::error::ToolError;
use crate::fit;
use crate::numbered::thousands;
use crate::tool::{Extraction, Tool};

/// Levels shown when `max_depth` is not given.
pub const DEFAULT_MAX_DEPTH: u64 = 4;

/// The `schema` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schema;

/// Arguments of `schema`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub struct Args {
    #[schemars(description = args::FILE)]
    pub file: String,
    /// How many levels of the tree to show.
    #[serde(default = "default_max_depth")]
    #[schemars(range(min = 1))]
    pub max_depth: u64,
    /// Where to start, e.g. `$.items`. Default `$` (the whole document).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

fn default_max_depth() -> u64 {
    DEFAULT_MAX_DEPTH
}

impl Tool for Schema {
    const NAME: &'static str = "schema";
    const BLURB: &'static str =
        "the structure: keys, types, array lengths and line ranges. Start here";
    const DESCRIPTION: &'static str = "Describe the structure of a stored output without its content: start here. \
            For JSON it shows the tree of keys with each value's kind and size (object with N keys, \
            array with N items, string length, number, boolean, null) and the line range each part \
            occupies in the file, such as [L10-L80], so you can `slice` straight to it; the items of \
            an array are merged into one shape. For Markdown it shows the heading tree with line \
            ranges; for plain text, the line count, the longest line and a sample. `max_depth` \
            (default 4) limits how deep the tree goes; `path` (default `$`) starts it at a sub-value.";
    type Args = Args;

    fn run(ctx: &ExploreContext, args: Args) -> Result<Extraction, ToolError> {
        if args.max_depth == 0 {
            return Err(ToolError::bad_argument("max_depth", "must be at least 1"));
        }
        let depth = usize::try_from(args.max_depth.min(MAX_DEPTH as u64)).unwrap_or(MAX_DEPTH);
        let file = ctx.open(&args.file)?;
        let format = Format::from_path(file.path());
        let starts_like_json = matches!(
            file.bytes().iter().find(|b| !b.is_ascii_whitespace()),
            Some(b'{' | b'[')
        );
        let json = format == Format::Json
            || (starts_like_json && !matches!(format, Format::Markdown) && !is_txt(file.path()));
        if !json {
            let mut outline = if format == Format::Markdown {
                outline::markdown(file.bytes(), file.lines(), depth)
            } else {
                outline::text(file.bytes(), file.lines())
            };
            // Thousands of headings never fit whatever the depth: the outline is cut to what
            // fits, so the answer (and any retry) is bounded.
            let cut = outline.cut_to_fit(ctx);
            let mut extraction = Extraction::new(outline.text, outline.summary, depth as u64);
            if outline.elided {
                extraction = extraction
                    .with_note("deeper headings are left out: raise max_depth to see them");
            }
            if let Some(cut) = cut {
                extraction = extraction.with_note(cut);
            }
            if args.path.as_deref().is_some_and(|p| p.trim() != "$") {
                extraction = extraction.with_note(format!(
                    "`path` applies to JSON only and was ignored: `{}` is {format}",
                    args.file
                ));
            }
            return Ok(extraction);
        }
        let path = document::parse_path("path", args.path.as_deref().unwrap_or("$"))?;
        let doc = match document::parsed(ctx, &file, &args.file) {
            Ok(doc) => doc,
            Err(ToolError::NotJson { .. }) => {
                // Still worth an outline: show it as text, saying where a .json file breaks.
                let outline = outline::text(file.bytes(), file.lines());
                let mut extraction = Extraction::new(outline.text, outline.summary, 1);
                if format == Format::Json
                    && let Err(error) = overspill_json::parse(file.bytes())
                {
                    extraction = extraction.with_note(format!(
                        "not valid JSON ({error}), so it is summarised as text"
                    ));
                }
                return Ok(extraction);
            }
            Err(other) => return Err(other),
        };
        let root = doc.tape().root(file.bytes());
        let value = document::resolve(root, &path)?;
        let shown = tree::render_with(value, &path.to_string(), depth, &|array| {
            document::items_shape(ctx, &file, array)
        });
        let mut text = shown.text;
        // At depth 1 nothing shallower is left to retry with: a listing still too long (an
        // object with long keys) is cut to what fits.
        let cut = if depth == 1 {
            fit::cut_lines(ctx, &mut text)
        } else {
            None
        };
        let mut extraction = Extraction::new(
            text,
            format!("{path} (json, max_depth {depth})"),
            depth as u64,
        );
        if let Some((kept, total)) = cut {
            extraction = extraction.with_note(format!(
                "listing cut to fit: {} of {} lines shown; pass the path of one member to see it",
                thousands(kept as u64),
                thousands(total as u64)
            ));
        }
        if args.max_depth > MAX_DEPTH as u64 {
            extraction = extraction.with_note("max_depth is capped at 64");
        }
        if shown.elided {
            extraction = extraction.with_note(
                "… marks contents below max_depth: raise max_depth or pass a deeper path",
            );
        }
        if shown.truncated {
            extraction = extraction.with_note(
                "…truncated marks nesting deeper than 64 levels: pass a deeper path to read on",
            );
        }
        Ok(extraction)
    }

    /// Halves the depth: what a level costs depends on the document, not on the levels above
    /// it, so the depth that fits cannot be counted, and the registry runs the halves until one
    /// fits (at depth 1 the tree is cut to fit).
    fn smaller(_: &ExploreContext, args: &Args, got: &Extraction) -> Option<Call> {
        let max_depth = fit::halved(got)?;
        Some(Call::new(
            Self::NAME,
            &Args {
                max_depth,
                ..args.clone()
            },
        ))
    }

    fn suggestions(_: &Args) -> Vec<String> {
        vec![
            "Describe one part at a time: pass `path` (e.g. the array you care about) with a \
             small max_depth."
                .to_owned(),
            "For an array, item_schema lists its keys compactly, one line each.".to_owned(),
        ]
    }
}

fn is_txt(path: &std::path::Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("txt"))
}

#[cfg(test)]
mod tests;
