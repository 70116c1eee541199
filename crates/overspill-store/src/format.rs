//! The three formats a stored output can have, and how to tell them apart (docs/storage.md).

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use overspill_json::{first_token_byte, is_json};

/// How many leading lines are searched for a Markdown heading.
const MARKDOWN_PROBE_LINES: usize = 50;

/// The format of a stored output, which decides its extension and which tools make sense on it.
///
/// ```
/// use overspill_store::Format;
///
/// assert_eq!(Format::detect(r#"{"items": []}"#), Format::Json);
/// assert_eq!(Format::detect("42"), Format::Text); // a JSON scalar is not worth structure
/// assert_eq!(Format::detect("intro\n## Usage\n"), Format::Markdown);
/// assert_eq!(Format::detect("#!/bin/sh\necho hi\n"), Format::Text);
/// assert_eq!(Format::Markdown.to_string(), "markdown");
/// assert_eq!(Format::Markdown.extension(), "md");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// A JSON object or array (stored re-indented, unless laid out
    /// [`AsGiven`](crate::TextLayout::AsGiven)).
    Json,
    /// Text with an ATX heading among its first 50 lines.
    Markdown,
    /// Anything else.
    Text,
}

impl Format {
    /// Detects the format of `text`.
    ///
    /// JSON iff the text, trimmed of JSON whitespace, starts with `{` or `[` and is one valid
    /// JSON document (RFC 8259; any nesting depth, any number magnitude). Markdown iff one of
    /// the first 50 lines is an ATX heading: up to 3 spaces of indentation, 1–6 `#`, then a
    /// space or a tab. Everything else is text.
    pub fn detect(text: &str) -> Format {
        if matches!(first_token_byte(text), Some(b'{' | b'[')) && is_json(text) {
            Format::Json
        } else if is_markdown(text) {
            Format::Markdown
        } else {
            Format::Text
        }
    }

    /// The file extension for this format: `json`, `md` or `txt`.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Markdown => "md",
            Format::Text => "txt",
        }
    }

    /// The format a file's extension claims: `.json` → JSON, `.md`/`.markdown` → Markdown,
    /// anything else (or none) → text. Case-insensitive; the content is not read.
    pub fn from_path(path: &Path) -> Format {
        let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
            return Format::Text;
        };
        if ext.eq_ignore_ascii_case("json") {
            Format::Json
        } else if ext.eq_ignore_ascii_case("md") || ext.eq_ignore_ascii_case("markdown") {
            Format::Markdown
        } else {
            Format::Text
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Json => "json",
            Format::Markdown => "markdown",
            Format::Text => "text",
        })
    }
}

/// True iff one of the first 50 lines is an ATX heading with a title (a bare `#`, as a
/// script's comment line might be, does not make a file Markdown).
pub(crate) fn is_markdown(text: &str) -> bool {
    text.split('\n')
        .take(MARKDOWN_PROBE_LINES)
        .any(|line| atx_heading(line).is_some_and(|(_, title)| !title.is_empty()))
}

/// The one reading of an ATX heading in the workspace (format detection here, the pointer and
/// `schema`'s outline in the exploration tools): `(level, title)` of `   ## Title ##`, as
/// CommonMark reads it — at most 3 spaces of indentation, 1 to 6 `#`, then a space, a tab or
/// the end of the line (so `#!/bin/sh` and `#tag` are not headings); the title trimmed and
/// without a closing run of `#`, which counts only after a space (`## Notes on C#` is titled
/// `Notes on C#`).
///
/// ```
/// use overspill_store::atx_heading;
///
/// assert_eq!(atx_heading("## Notes on C#"), Some((2, "Notes on C#")));
/// assert_eq!(atx_heading("   # Title ##"), Some((1, "Title")));
/// assert_eq!(atx_heading("#!/bin/sh"), None);
/// assert_eq!(atx_heading("    # code"), None);
/// ```
pub fn atx_heading(line: &str) -> Option<(usize, &str)> {
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let line = &line[indent..];
    let level = line.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &line[level..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    let title = rest.trim();
    let title = match title.trim_end_matches('#') {
        stripped if stripped.is_empty() || stripped.ends_with([' ', '\t']) => stripped.trim_end(),
        _ => title,
    };
    Some((level, title))
}

#[cfg(test)]
mod tests;
