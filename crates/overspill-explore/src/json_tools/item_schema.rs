//! `item_schema`: every key of an array's items, with its types and how many items hold it
//! (docs/tools.md); see [`super::keys`] for the listing.
//!
//! ```text
//! window: items [0..120) of 120 total
//! items: 120 objects
//! metadata.name: string (120/120 items)
//! status.message: string|null (9/120 items)
//! --- item_schema: $.items (120 items, 37 keys) | …
//! ```

use super::document::{self, ArrayWindow};
use super::keys;
use super::window::STREAMED_NOTE;

use crate::args::{Page, PagedAt};
use crate::call::Call;
use crate::context::ExploreContext;
use crate::error::ToolError;
use crate::fit;
use crate::numbered::thousands;
use crate::tool::{Extraction, Tool};

/// The `item_schema` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemSchema;

/// Arguments of `item_schema`: a page of what stands at a path.
pub type Args = PagedAt<ItemSchema>;

impl Tool for ItemSchema {
    const NAME: &'static str = "item_schema";
    const BLURB: &'static str =
        "the keys and types of an array's items, and how many items have each";
    const DESCRIPTION: &'static str = "For a JSON array, list every key that appears in its items (nested keys \
            dotted, like `metadata.name`), with the value types seen and how many items have each \
            key. Use it to learn which fields exist and how consistently before choosing `fields` \
            for `iterate_over`. `offset` and `limit` restrict it to a window of items.";
    const JSON_ONLY: bool = true;
    type Args = Args;
    const PATH_DOC: &'static str = "The array, e.g. `$.items`.";
    const OFFSET_DOC: &'static str = "First item to include (0-based).";
    const LIMIT_DOC: &'static str = "How many items to include. Default: all.";

    fn run(ctx: &ExploreContext, args: Args) -> Result<Extraction, ToolError> {
        let path = document::paged_path(&args.at, &args.page)?;
        let window = ArrayWindow::open(ctx, &args.at.file, &path, &args.page)?;
        let (first, end) = window.shown();
        let shape = window.shape(ctx);
        let rows = keys::rows(&shape);
        let count = window.end - window.start;
        let mut body = format!(
            "window: items [{}..{}) of {} total",
            thousands(first),
            thousands(end),
            thousands(window.total)
        );
        if count == 0 {
            body.push_str("\n(no items in this window)");
        } else {
            body.push_str(&format!("\nitems: {}", keys::item_kinds(&shape)));
            if !rows.is_empty() {
                body.push('\n');
                body.push_str(&keys::render(&rows, count));
            }
        }
        let listed = rows.iter().filter(|r| !r.key.ends_with('…')).count() as u64;
        let extra = format!(
            ", {} key{}",
            thousands(listed),
            if listed == 1 { "" } else { "s" }
        );
        let summary = window.summary(&path, args.page.is_everything(), &extra);
        // A window of one item cannot be halved: its key list is cut to what fits.
        let cut = if count == 1 {
            fit::cut_lines(ctx, &mut body)
        } else {
            None
        };
        let mut extraction = Extraction::new(body, summary, count);
        if let Some((kept, total)) = cut {
            extraction = extraction.with_note(format!(
                "key list cut to fit: {} of {} lines shown; pass a deeper path to list the rest",
                thousands(kept as u64),
                thousands(total as u64)
            ));
        }
        if rows.iter().any(|r| r.truncated) {
            extraction =
                extraction.with_note("keys nested deeper than 64 levels are cut (…truncated)");
        }
        if window.streamed() {
            extraction = extraction.with_note(STREAMED_NOTE);
        }
        Ok(extraction)
    }

    /// Halves the window of items: the keys listed are the union over the items, so how many
    /// items fit cannot be counted on the listing, and the registry runs the halves until one
    /// fits (at one item the listing is cut to fit).
    fn smaller(_: &ExploreContext, args: &Args, got: &Extraction) -> Option<Call> {
        let items = fit::halved(got)?;
        let page = Page::new(args.page.offset, Some(items));
        Some(Call::new(
            Self::NAME,
            &Args {
                page,
                ..args.clone()
            },
        ))
    }

    fn suggestions(_: &Args) -> Vec<String> {
        vec![
            "Look at fewer items: offset and limit choose a window.".to_owned(),
            "Use schema with the array's path and a small max_depth for a shorter merged view."
                .to_owned(),
        ]
    }
}

#[cfg(test)]
mod tests;
