//! Where a setting lives: its TOML key path and its line and column.
//!
//! Every validation error names both, so a reader can jump to the line and
//! see which table the key belongs to (docs/configuration.md: "validation errors name the
//! exact key path").

use std::fmt;
use std::path::{Path, PathBuf};

/// A key path inside the configuration, displayed the way TOML addresses it:
/// `mcp.servers.k8s.scratchpad."k8s_[list"`, `agent.mcp_filter[2]`.
///
/// Segments that are valid bare keys (`A-Z a-z 0-9 _ -`) are written bare;
/// every other segment is quoted as a TOML basic string.
///
/// ```
/// use overspill_config::KeyPath;
///
/// let path = KeyPath::root().key("mcp").key("servers").key("k8s").key("k8s_[list");
/// assert_eq!(path.to_string(), r#"mcp.servers.k8s."k8s_[list""#);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct KeyPath {
    segments: Vec<Segment>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Segment {
    Key(String),
    Index(usize),
}

impl KeyPath {
    /// The document root (displays as an empty string).
    pub fn root() -> Self {
        Self::default()
    }

    /// This path extended by a table key.
    #[must_use]
    pub fn key(&self, key: &str) -> Self {
        let mut segments = self.segments.clone();
        segments.push(Segment::Key(key.to_owned()));
        Self { segments }
    }

    /// This path extended by an array index.
    #[must_use]
    pub fn index(&self, index: usize) -> Self {
        let mut segments = self.segments.clone();
        segments.push(Segment::Index(index));
        Self { segments }
    }

    /// The last table key of the path, if it ends in one.
    pub fn last_key(&self) -> Option<&str> {
        match self.segments.last() {
            Some(Segment::Key(key)) => Some(key),
            _ => None,
        }
    }

    /// The path without its last segment (the root stays the root).
    #[must_use]
    pub fn parent(&self) -> Self {
        let mut segments = self.segments.clone();
        segments.pop();
        Self { segments }
    }

    /// Whether this is the document root.
    pub fn is_root(&self) -> bool {
        self.segments.is_empty()
    }
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.segments.iter().enumerate() {
            match segment {
                Segment::Key(key) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    write_key(f, key)?;
                }
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// Writes `key` bare when TOML allows it, quoted otherwise.
pub(crate) fn write_key(out: &mut impl fmt::Write, key: &str) -> fmt::Result {
    let bare = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare {
        out.write_str(key)
    } else {
        write_quoted(out, key)
    }
}

/// Writes `text` as a TOML basic string: `"…"` with `"`, `\` and control
/// characters escaped.
pub(crate) fn write_quoted(out: &mut impl fmt::Write, text: &str) -> fmt::Result {
    out.write_char('"')?;
    for c in text.chars() {
        match c {
            '"' => out.write_str("\\\"")?,
            '\\' => out.write_str("\\\\")?,
            '\n' => out.write_str("\\n")?,
            '\t' => out.write_str("\\t")?,
            '\r' => out.write_str("\\r")?,
            c if c.is_control() => write!(out, "\\u{:04X}", u32::from(c))?,
            c => out.write_char(c)?,
        }
    }
    out.write_char('"')
}

/// `text` as a TOML basic string (see [`write_quoted`]).
pub(crate) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    // Writing into a String cannot fail.
    let _ = write_quoted(&mut out, text);
    out
}

/// A position in the configuration text: 1-based line and column (columns
/// count characters), and the file when the text came from one.
///
/// Displays as `overspill.toml:12:5` when the file is known, else as
/// `line 12, column 5`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// The file the configuration was read from, if any.
    pub file: Option<PathBuf>,
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

impl Location {
    /// The location of byte `offset` in `source` (clamped to its length and
    /// to a character boundary).
    pub fn in_text(source: &str, offset: usize, file: Option<&Path>) -> Self {
        let mut offset = offset.min(source.len());
        while !source.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &source[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Self {
            file: file.map(Path::to_path_buf),
            line: saturating_u32(before.matches('\n').count() + 1),
            column: saturating_u32(before[line_start..].chars().count() + 1),
        }
    }
}

fn saturating_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{}:{}:{}", file.display(), self.line, self.column),
            None => write!(f, "line {}, column {}", self.line, self.column),
        }
    }
}

#[cfg(test)]
mod tests;
