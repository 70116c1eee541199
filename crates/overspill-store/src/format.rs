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
    /// A JSON object or array (stored pretty-printed).
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
mod tests {
    use super::*;

    #[test]
    fn detect_single_line_json_object_and_array() {
        assert_eq!(Format::detect(r#"{"a":1,"b":[1,2]}"#), Format::Json);
        assert_eq!(Format::detect("  \n[1, 2, 3]\n"), Format::Json);
    }

    #[test]
    fn detect_json_scalars_as_text() {
        for scalar in ["42", "\"a string\"", "true", "null", "-1.5e3"] {
            assert_eq!(Format::detect(scalar), Format::Text, "{scalar}");
        }
    }

    #[test]
    fn detect_broken_json_as_text() {
        assert_eq!(Format::detect(r#"{"a": 1,}"#), Format::Text);
        assert_eq!(Format::detect("[1, 2] trailing"), Format::Text);
        assert_eq!(Format::detect("{not json at all"), Format::Text);
    }

    #[test]
    fn detect_json_that_serde_json_would_refuse_as_json() {
        // RFC 8259 grammar decides; the stored file keeps such numbers verbatim.
        assert_eq!(
            Format::detect("[1e400, 123456789012345678901234567890]"),
            Format::Json
        );
    }

    #[test]
    fn detect_markdown_by_atx_heading() {
        assert_eq!(Format::detect("# Title\nbody"), Format::Markdown);
        assert_eq!(Format::detect("intro\n\n###### Six\n"), Format::Markdown);
        assert_eq!(Format::detect("text\n##\tTabbed\n"), Format::Markdown);
        assert_eq!(Format::detect("   ## Indented three\n"), Format::Markdown);
    }

    #[test]
    fn detect_shebang_script_as_text() {
        assert_eq!(
            Format::detect("#!/bin/sh\nset -eu\necho done\n"),
            Format::Text
        );
    }

    #[test]
    fn detect_non_headings_as_text() {
        for text in [
            "#tag\n",
            "####### seven\n",
            "    # four spaces\n",
            "#\n",
            "a # b\n",
        ] {
            assert_eq!(Format::detect(text), Format::Text, "{text:?}");
        }
    }

    #[test]
    fn detect_heading_past_line_50_as_text() {
        let mut text = "plain line\n".repeat(50);
        text.push_str("# Late heading\n");
        assert_eq!(Format::detect(&text), Format::Text);
        let on_line_50 = format!("{}# Heading on line 50\n", "plain line\n".repeat(49));
        assert_eq!(Format::detect(&on_line_50), Format::Markdown);
    }

    #[test]
    fn detect_empty_text_as_text() {
        assert_eq!(Format::detect(""), Format::Text);
    }

    #[test]
    fn extension_and_display_name_each_format() {
        let all = [Format::Json, Format::Markdown, Format::Text];
        let ext: Vec<_> = all.iter().map(|f| f.extension()).collect();
        let shown: Vec<_> = all.iter().map(|f| f.to_string()).collect();
        assert_eq!(ext, ["json", "md", "txt"]);
        assert_eq!(shown, ["json", "markdown", "text"]);
    }

    #[test]
    fn from_path_reads_the_extension_only() {
        assert_eq!(Format::from_path(Path::new("pods-0123.json")), Format::Json);
        assert_eq!(
            Format::from_path(Path::new("a/README.MD")),
            Format::Markdown
        );
        assert_eq!(
            Format::from_path(Path::new("notes.markdown")),
            Format::Markdown
        );
        assert_eq!(Format::from_path(Path::new("log.txt")), Format::Text);
        assert_eq!(Format::from_path(Path::new("Makefile")), Format::Text);
    }

    #[test]
    fn format_serialises_as_its_display_name() {
        assert_eq!(
            serde_json::to_string(&Format::Markdown).unwrap(),
            "\"markdown\""
        );
        let back: Format = serde_json::from_str("\"json\"").unwrap();
        assert_eq!(back, Format::Json);
    }
}
