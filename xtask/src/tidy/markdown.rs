//! The one reading of Markdown in tidy, pulldown-cmark's: the anchors of a page's headings as
//! GitHub makes them, the links a page writes, the command under a heading, and the tables
//! under each heading. A line scan
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

/// A heading and the tables under it, before the next heading of any level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The heading's level.
    pub level: HeadingLevel,
    /// The inline code the heading opens with (`head` for `` ### `head`: the first lines ``),
    /// if it opens with one.
    pub opening_code: Option<String>,
    /// The 1-based line the heading is on.
    pub line: usize,
    /// Each table's rows, its header row first; a cell is its text, inline code kept in
    /// backticks (`` `file` ``).
    pub tables: Vec<Vec<Vec<String>>>,
}

/// Every heading of a page with the tables under it, in order.
pub fn sections(page: &str) -> Vec<Section> {
    let mut found: Vec<Section> = Vec::new();
    // Whether the text read goes to the open heading (and whether it has any yet), or to a cell.
    let mut heading: Option<bool> = None;
    let mut cell: Option<String> = None;
    for (event, at) in Parser::new_ext(page, options()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                found.push(Section {
                    level,
                    opening_code: None,
                    line: page[..at.start].matches('\n').count() + 1,
                    tables: Vec::new(),
                });
                heading = Some(false);
            }
            Event::End(TagEnd::Heading(_)) => heading = None,
            Event::Code(code) if heading == Some(false) => {
                if let Some(section) = found.last_mut() {
                    section.opening_code = Some(code.into_string());
                }
                heading = Some(true);
            }
            Event::Text(_) | Event::Code(_) if heading.is_some() => heading = Some(true),
            Event::Start(Tag::Table(_)) => {
                if let Some(section) = found.last_mut() {
                    section.tables.push(Vec::new());
                }
            }
            Event::Start(Tag::TableHead | Tag::TableRow) => {
                if let Some(table) = found.last_mut().and_then(|s| s.tables.last_mut()) {
                    table.push(Vec::new());
                }
            }
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::Text(text) => {
                if let Some(cell) = &mut cell {
                    cell.push_str(&text);
                }
            }
            Event::Code(code) => {
                if let Some(cell) = &mut cell {
                    cell.push('`');
                    cell.push_str(&code);
                    cell.push('`');
                }
            }
            Event::End(TagEnd::TableCell) => {
                let row = found
                    .last_mut()
                    .and_then(|s| s.tables.last_mut())
                    .and_then(|t| t.last_mut());
                if let (Some(row), Some(text)) = (row, cell.take()) {
                    row.push(text.trim().to_owned());
                }
            }
            _ => {}
        }
    }
    found
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
