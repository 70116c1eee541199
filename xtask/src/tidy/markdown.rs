//! The one reading of Markdown in tidy, pulldown-cmark's: the anchors of a page's headings as
//! GitHub makes them, the links a page writes, and the command under a heading. A line scan
//! takes `#` in a code block for a heading and a link's text for part of its title; a CommonMark
//! parser does not.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Result, bail};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// A link (or image) a page writes, where it writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The 1-based line its `[` is on.
    pub line: usize,
    /// The destination as written (`tokens.md#where-the-tables-come-from`, `#logs`).
    pub destination: String,
}

/// The anchors of a page's headings, as GitHub makes them from a heading's text: lowercase,
/// punctuation dropped (but `-` and `_`), spaces as `-`, a repeated one numbered (`-1`, `-2`).
pub fn anchors(page: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut anchors = BTreeSet::new();
    for block in blocks(page) {
        let Block::Heading(_, title) = block else {
            continue;
        };
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let count = seen.entry(slug.clone()).or_default();
        let anchor = match *count {
            0 => slug,
            n => format!("{slug}-{n}"),
        };
        *count += 1;
        anchors.insert(anchor);
    }
    anchors
}

/// Every link and image destination a page writes, in order.
pub fn links(page: &str) -> Vec<Link> {
    Parser::new_ext(page, options())
        .into_offset_iter()
        .filter_map(|(event, at)| match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => Some(Link {
                line: page[..at.start].matches('\n').count() + 1,
                destination: dest_url.into_string(),
            }),
            _ => None,
        })
        .collect()
}

/// The first line of the first code block under the level-2 heading `title`, before the next
/// heading of that level or above.
pub fn first_code_line(page: &str, title: &str) -> Result<String> {
    let mut section = blocks(page).into_iter().skip_while(
        |block| !matches!(block, Block::Heading(HeadingLevel::H2, text) if text.trim() == title),
    );
    if section.next().is_none() {
        bail!("there is no `## {title}` section");
    }
    for block in section {
        match block {
            Block::Heading(level, _) if level <= HeadingLevel::H2 => break,
            Block::Code(code) => {
                if let Some(line) = code.lines().map(str::trim).find(|line| !line.is_empty()) {
                    return Ok(line.to_owned());
                }
            }
            Block::Heading(..) => {}
        }
    }
    bail!("the `## {title}` section has no code block with the command")
}

/// What tidy reads of a page's blocks.
enum Block {
    /// A heading's level and text (inline code as its text, a link as its text).
    Heading(HeadingLevel, String),
    /// A code block's text.
    Code(String),
}

/// The headings and code blocks of a page, in order.
fn blocks(page: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<Block> = None;
    for event in Parser::new_ext(page, options()) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                open = Some(Block::Heading(level, String::new()));
            }
            Event::Start(Tag::CodeBlock(_)) => open = Some(Block::Code(String::new())),
            Event::Text(text) | Event::Code(text) => {
                if let Some(Block::Heading(_, read) | Block::Code(read)) = &mut open {
                    read.push_str(&text);
                }
            }
            Event::End(TagEnd::Heading(_) | TagEnd::CodeBlock) => found.extend(open.take()),
            _ => {}
        }
    }
    found
}

/// GitHub's flavour as far as it changes what is a heading or a link: tables, strikethrough,
/// task lists, footnotes.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
}

#[cfg(test)]
mod tests;
