//! What `schema` shows for files that are not JSON (docs/tools.md): the heading tree of a
//! Markdown file, and a summary of a text file.
//!
//! ```text
//! markdown: 120 lines, 5 headings
//! # Release notes [L1-L120]
//!   ## 2.14.1 [L3-L40]
//!     - keys: date, author, status (3 list items)
//!   ## 2.14.0 [L41-L120]
//! ```
//!
//! ```text
//! text: 1,204 lines, 88,120 bytes
//! longest line: L77 (1,422 chars)
//! sample (lines 1-5):
//! 1: 2026-11-12T00:00:01Z INFO  [payments] …
//! ```

use std::fmt::Write as _;

use crate::context::ExploreContext;
use crate::fit;
use crate::line_index::LineIndex;
use crate::lossy;
use crate::markdown::{Blocks, Line};
use crate::numbered::thousands;

/// Characters of a heading title or sample line shown.
const MAX_CHARS: usize = 120;

/// Lines in a text sample.
const SAMPLE_LINES: u64 = 5;

/// Distinct `- key:` names listed per section.
const MAX_LIST_KEYS: usize = 12;

/// An outline, ready to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outline {
    /// The outline text, no trailing newline.
    pub text: String,
    /// What it covers, for the footer: `markdown outline, 5 headings`.
    pub summary: String,
    /// Headings below `max_depth` were left out.
    pub elided: bool,
    /// Where each shown heading starts in `text`, with its line in the file: the places the
    /// outline may be cut.
    entries: Vec<(usize, u64)>,
}

impl Outline {
    /// Cuts the outline before the first heading that no longer fits the listing budget
    /// (`crate::fit`); returns the note saying what was left out, or `None` when it fits
    /// whole.
    pub fn cut_to_fit(&mut self, ctx: &ExploreContext) -> Option<String> {
        let starts: Vec<usize> = self.entries.iter().map(|(at, _)| *at).collect();
        let kept = fit::entries_that_fit(ctx, &self.text, &starts);
        let (at, line) = *self.entries.get(kept)?;
        let total = self.entries.len();
        self.text.truncate(at);
        self.entries.truncate(kept);
        Some(format!(
            "outline cut to fit: {} of {} headings shown; the next starts at line {}: \
             slice from there, or grep `^#` for the heading lines",
            thousands(kept as u64),
            thousands(total as u64),
            thousands(line)
        ))
    }
}

struct Heading {
    level: usize,
    title: String,
    line: u64,
    end: u64,
    keys: Vec<String>,
    list_items: u64,
}

/// The heading tree of a Markdown file: ATX headings (`#` to `######`, outside code
/// fences) with the lines each section spans, and the keys of `- key: value` lists in
/// each section; headings deeper than `max_depth` levels are left out.
pub fn markdown(bytes: &[u8], index: &LineIndex, max_depth: usize) -> Outline {
    let total = index.line_count();
    let mut headings: Vec<Heading> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut blocks = Blocks::default();
    for (number, raw) in index.lines(bytes, 1, total) {
        let line = String::from_utf8_lossy(raw);
        let trimmed = match blocks.line(&line) {
            Line::Code => continue,
            Line::Text(trimmed) => trimmed,
            Line::Heading { level, title } => {
                // The open sections rise in level from the bottom of the stack: a heading
                // closes the ones at its level or deeper, which are on top (once each, so
                // the whole walk stays linear).
                while let Some(&top) = open.last()
                    && headings[top].level >= level
                {
                    headings[top].end = number - 1;
                    open.pop();
                }
                open.push(headings.len());
                let mut shown: String = title.chars().take(MAX_CHARS).collect();
                if shown.len() < title.len() {
                    shown.push('…');
                }
                headings.push(Heading {
                    level,
                    title: shown,
                    line: number,
                    end: 0,
                    keys: Vec::new(),
                    list_items: 0,
                });
                continue;
            }
        };
        if let Some(key) = list_key(trimmed)
            && let Some(section) = headings.last_mut()
        {
            section.list_items += 1;
            if section.keys.len() < MAX_LIST_KEYS && !section.keys.contains(&key) {
                section.keys.push(key);
            }
        }
    }
    for open in &mut headings {
        if open.end == 0 {
            open.end = total;
        }
    }
    let top = headings.iter().map(|h| h.level).min().unwrap_or(1);
    let deepest = headings.iter().map(|h| h.level).max().unwrap_or(1);
    let shown_depth = max_depth.max(1);
    let mut text = format!(
        "markdown: {} lines, {} heading{}",
        thousands(total),
        thousands(headings.len() as u64),
        if headings.len() == 1 { "" } else { "s" }
    );
    let mut elided = false;
    let mut entries = Vec::new();
    for heading in &headings {
        let depth = heading.level - top;
        if depth >= shown_depth {
            elided = true;
            continue;
        }
        entries.push((text.len(), heading.line));
        let indent = "  ".repeat(depth);
        let range = if heading.line == heading.end {
            format!("[L{}]", heading.line)
        } else {
            format!("[L{}-L{}]", heading.line, heading.end)
        };
        let _ = write!(
            text,
            "\n{indent}{} {} {range}",
            "#".repeat(heading.level),
            heading.title
        );
        if !heading.keys.is_empty() {
            let more = if heading.keys.len() == MAX_LIST_KEYS {
                ", …"
            } else {
                ""
            };
            let _ = write!(
                text,
                "\n{indent}  - keys: {}{more} ({} list item{})",
                heading.keys.join(", "),
                thousands(heading.list_items),
                if heading.list_items == 1 { "" } else { "s" }
            );
        }
    }
    if headings.is_empty() {
        text.push('\n');
        text.push_str(&text_outline(bytes, index).text);
    }
    let levels = deepest - top + 1;
    Outline {
        text,
        summary: format!(
            "markdown outline, {} heading{} in {levels} level{}",
            thousands(headings.len() as u64),
            if headings.len() == 1 { "" } else { "s" },
            if levels == 1 { "" } else { "s" }
        ),
        elided,
        entries,
    }
}

/// A text file in brief: its size, its longest line and its first lines.
pub fn text(bytes: &[u8], index: &LineIndex) -> Outline {
    text_outline(bytes, index)
}

fn text_outline(bytes: &[u8], index: &LineIndex) -> Outline {
    let total = index.line_count();
    let mut longest = (0u64, 0u64);
    for (number, line) in index.lines(bytes, 1, total) {
        // A line's characters never exceed its bytes: count only lines that could win.
        if line.len() as u64 > longest.1 {
            let chars = lossy::char_count(line) as u64;
            if chars > longest.1 {
                longest = (number, chars);
            }
        }
    }
    let mut text = format!(
        "text: {} line{}, {} bytes",
        thousands(total),
        if total == 1 { "" } else { "s" },
        thousands(bytes.len() as u64)
    );
    if total > 0 {
        let _ = write!(
            text,
            "\nlongest line: L{} ({} chars)",
            longest.0,
            thousands(longest.1)
        );
        let last = total.min(SAMPLE_LINES);
        let _ = write!(text, "\nsample (lines 1-{last}):");
        let width = last.to_string().len();
        for (number, line) in index.lines(bytes, 1, last) {
            let piece = lossy::prefix(line, MAX_CHARS * 4);
            let mut shown: String = piece.text.chars().take(MAX_CHARS).collect();
            if shown.len() < piece.text.len() || piece.truncated {
                shown.push_str(" …");
            }
            let _ = write!(text, "\n{number:>width$}: {shown}");
        }
    }
    Outline {
        text,
        summary: "text summary".to_owned(),
        elided: false,
        entries: Vec::new(),
    }
}

/// The key of a `- key: value` (or `* **Key**: value`) list item.
fn list_key(line: &str) -> Option<String> {
    let rest = line.strip_prefix(['-', '*', '+'])?;
    let rest = rest.strip_prefix([' ', '\t'])?.trim_start();
    let (key, after) = rest.split_once(':')?;
    if !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return None;
    }
    let key = key.trim().trim_matches('*').trim_matches('`').trim();
    let plausible = !key.is_empty()
        && key.chars().count() <= 40
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-' | '.' | '/'));
    plausible.then(|| key.to_owned())
}

#[cfg(test)]
mod tests;
