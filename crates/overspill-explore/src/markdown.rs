//! The one reading of Markdown structure: ATX headings (as `overspill_store::atx_heading`
//! reads them, the rule format detection uses too) outside fenced code blocks.
//!
//! The pointer's summary ([`crate::shape_summary`]) and `schema`'s outline
//! ([`crate::outline`]) both read a document line by line through [`Blocks`], so they
//! see the same headings: `## Notes on C#` is titled `Notes on C#` (a closing run of `#`
//! counts only after a space, as CommonMark has it), and a fence closes only on a run of its
//! own character at least as long as the one that opened it (a three-backtick line inside a
//! four-backtick fence is code).

/// What one line of a Markdown document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Line<'a> {
    /// An ATX heading: `#` to `######`, indented at most 3 spaces.
    Heading {
        /// 1 to 6.
        level: usize,
        /// The title, trimmed, without a closing run of `#`.
        title: &'a str,
    },
    /// A fence line, or a line inside a fenced code block.
    Code,
    /// Anything else, with its leading whitespace removed.
    Text(&'a str),
}

/// Reads a document's lines in order, remembering the open code fence.
#[derive(Debug, Default)]
pub(crate) struct Blocks {
    /// `(fence char, length)` of the open fence.
    fence: Option<(u8, usize)>,
}

impl Blocks {
    /// What `line` (without its line ending) is, given the lines before it.
    pub(crate) fn line<'a>(&mut self, line: &'a str) -> Line<'a> {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if indent <= 3
            && let Some(marker) = fence_marker(trimmed)
        {
            match self.fence {
                None => self.fence = Some(marker),
                Some((c, n)) if marker.0 == c && marker.1 >= n => self.fence = None,
                Some(_) => {}
            }
            return Line::Code;
        }
        if self.fence.is_some() {
            return Line::Code;
        }
        if let Some((level, title)) = overspill_store::atx_heading(line) {
            return Line::Heading { level, title };
        }
        Line::Text(trimmed)
    }
}

/// `(fence char, length)` of a code fence line.
fn fence_marker(line: &str) -> Option<(u8, usize)> {
    let first = *line.as_bytes().first()?;
    if first != b'`' && first != b'~' {
        return None;
    }
    let n = line.bytes().take_while(|&b| b == first).count();
    (n >= 3).then_some((first, n))
}

#[cfg(test)]
mod tests;
