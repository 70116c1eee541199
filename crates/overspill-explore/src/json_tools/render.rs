//! Writing values back as JSON text: pretty (for `get_in`) and compact (for `iterate_over`
//! rows), straight from the file's own tokens.
//!
//! Numbers and strings are copied as they are written in the file, so nothing is reformatted
//! or lost. Two limits keep a rendering bounded whatever the value:
//! - nesting deeper than the style's depth (at most [`MAX_DEPTH`]) is replaced by a string
//!   saying what was cut and which path reads on (docs/tools.md `…truncated`);
//! - a string longer than the style's [`StringCut`] is shortened to its first lines or
//!   characters, with a note naming the exact `get_in` path that pages the whole string.
//!
//! Pretty output is a list of lines, each with the file line its content comes from (the
//! value's start line, or a container's closing line), so `get_in` can number them with
//! absolute line numbers.

use std::fmt::Write as _;

use overspill_json::{JsonPath, Kind, MAX_DEPTH, NodeRef, Segment};

use super::describe::describe_value;
use crate::numbered::thousands;

/// When a string is too long to show whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StringCut {
    /// Most lines (of the decoded string) shown.
    pub max_lines: u64,
    /// Most characters shown.
    pub max_chars: u64,
}

/// How to render a value.
#[derive(Debug, Clone, Copy)]
pub struct Style<'p> {
    /// The value's own path, for the hints in cut strings and truncation markers.
    pub path: &'p JsonPath,
    /// Levels below the value that are written out (capped at [`MAX_DEPTH`]).
    pub depth: usize,
    /// How long strings are cut, if at all.
    pub cut: Option<StringCut>,
}

/// What a rendering had to shorten.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    /// Strings that were cut.
    pub cut_strings: u64,
    /// The first cut string's path.
    pub first_cut: Option<String>,
    /// Nesting was truncated.
    pub truncated: bool,
}

/// A pretty rendering.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pretty {
    /// `(file line, text)` for each output line.
    pub lines: Vec<(u32, String)>,
    /// What was shortened.
    pub marks: Marks,
    /// Bytes of text produced.
    pub bytes: usize,
    /// The byte cap stopped the rendering before the end.
    pub stopped: bool,
}

/// Renders `value` pretty-printed with two-space indentation, stopping once more than
/// `byte_cap` bytes have been produced.
pub fn pretty(value: NodeRef<'_>, style: Style<'_>, byte_cap: usize) -> Pretty {
    let mut writer = Writer::new(style);
    let mut out = Pretty::default();
    writer.pretty(value, 0, String::new(), "", &mut out, byte_cap);
    out.marks = writer.marks;
    out
}

/// Appends `value` as compact JSON to `out`; returns what was shortened.
pub fn compact(value: NodeRef<'_>, style: Style<'_>, out: &mut String) -> Marks {
    let mut writer = Writer::new(style);
    writer.compact(value, 0, out);
    writer.marks
}

#[derive(Debug, Clone, Copy)]
enum Step<'a> {
    Key(NodeRef<'a>),
    Index(u64),
}

struct Writer<'a, 'p> {
    style: Style<'p>,
    steps: Vec<Step<'a>>,
    marks: Marks,
}

impl<'a, 'p> Writer<'a, 'p> {
    fn new(style: Style<'p>) -> Writer<'a, 'p> {
        Writer {
            style: Style {
                depth: style.depth.min(MAX_DEPTH),
                ..style
            },
            steps: Vec::new(),
            marks: Marks::default(),
        }
    }

    /// The path of the value being written.
    fn path(&self) -> JsonPath {
        let mut path = self.style.path.clone();
        for step in &self.steps {
            path = path.child(match step {
                Step::Key(key) => Segment::Key(key.str().into_owned()),
                Step::Index(i) => Segment::Index(*i),
            });
        }
        path
    }

    fn scalar(&mut self, value: NodeRef<'a>, out: &mut String) {
        match value.kind() {
            Kind::String => self.string(value, out),
            Kind::Object | Kind::Array => {}
            _ => out.push_str(value.raw_str()),
        }
    }

    fn string(&mut self, value: NodeRef<'a>, out: &mut String) {
        if let Some(cut) = self.style.cut {
            let lines = value.str_lines();
            let chars = value.char_len();
            if lines > cut.max_lines || chars > cut.max_chars {
                let text = value.str();
                let mut kept: String = if lines > cut.max_lines {
                    let lines: Vec<&str> = text.split('\n').take(cut.max_lines as usize).collect();
                    lines.join("\n")
                } else {
                    text.into_owned()
                };
                let shown = if kept.chars().count() as u64 > cut.max_chars {
                    kept = kept.chars().take(cut.max_chars as usize).collect();
                    format!("{} of {} chars", thousands(cut.max_chars), thousands(chars))
                } else {
                    format!("{} of {} lines", cut.max_lines, thousands(lines))
                };
                let path = self.path().to_string();
                let _ = write!(kept, "… [cut: {shown}; get_in {path} reads it whole]");
                self.marks.cut_strings += 1;
                self.marks.first_cut.get_or_insert(path);
                out.push_str(&serde_json::Value::String(kept).to_string());
                return;
            }
        }
        out.push('"');
        out.push_str(value.raw_str());
        out.push('"');
    }

    fn marker(&mut self, value: NodeRef<'a>) -> String {
        self.marks.truncated = true;
        let text = format!(
            "…truncated: {} nested deeper than {} levels; get_in {} reads on",
            describe_value(value),
            self.style.depth,
            self.path()
        );
        serde_json::Value::String(text).to_string()
    }

    fn compact(&mut self, value: NodeRef<'a>, level: usize, out: &mut String) {
        match value.kind() {
            Kind::Object | Kind::Array if value.is_empty() => {
                out.push_str(if value.kind() == Kind::Object {
                    "{}"
                } else {
                    "[]"
                });
            }
            Kind::Object | Kind::Array if level >= self.style.depth => {
                let marker = self.marker(value);
                out.push_str(&marker);
            }
            Kind::Object => {
                out.push('{');
                for (i, (key, child)) in value.entries().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push('"');
                    out.push_str(key.raw_str());
                    out.push_str("\":");
                    self.steps.push(Step::Key(key));
                    self.compact(child, level + 1, out);
                    self.steps.pop();
                }
                out.push('}');
            }
            Kind::Array => {
                out.push('[');
                for (i, child) in value.items().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.steps.push(Step::Index(i as u64));
                    self.compact(child, level + 1, out);
                    self.steps.pop();
                }
                out.push(']');
            }
            _ => self.scalar(value, out),
        }
    }

    /// Writes `value` at indentation `level`, after `prefix` (`"key": ` or nothing) and
    /// before `suffix` (`,` or nothing). Returns false once the byte cap is passed.
    fn pretty(
        &mut self,
        value: NodeRef<'a>,
        level: usize,
        prefix: String,
        suffix: &str,
        out: &mut Pretty,
        cap: usize,
    ) -> bool {
        let indent = "  ".repeat(level);
        let push = |out: &mut Pretty, line: u32, text: String| {
            out.bytes += text.len() + 1;
            out.lines.push((line, text));
            if out.bytes > cap {
                out.stopped = true;
            }
            !out.stopped
        };
        let kind = value.kind();
        if !matches!(kind, Kind::Object | Kind::Array) {
            let mut text = format!("{indent}{prefix}");
            self.scalar(value, &mut text);
            text.push_str(suffix);
            return push(out, value.line(), text);
        }
        if value.is_empty() {
            let empty = if kind == Kind::Object { "{}" } else { "[]" };
            return push(
                out,
                value.line(),
                format!("{indent}{prefix}{empty}{suffix}"),
            );
        }
        if level >= self.style.depth {
            let marker = self.marker(value);
            return push(
                out,
                value.line(),
                format!("{indent}{prefix}{marker}{suffix}"),
            );
        }
        let (open, close) = if kind == Kind::Object {
            ("{", "}")
        } else {
            ("[", "]")
        };
        if !push(out, value.line(), format!("{indent}{prefix}{open}")) {
            return false;
        }
        let total = value.len();
        if kind == Kind::Object {
            for (i, (key, child)) in value.entries().enumerate() {
                let comma = if (i as u64) + 1 < total { "," } else { "" };
                self.steps.push(Step::Key(key));
                let more = self.pretty(
                    child,
                    level + 1,
                    format!("\"{}\": ", key.raw_str()),
                    comma,
                    out,
                    cap,
                );
                self.steps.pop();
                if !more {
                    return false;
                }
            }
        } else {
            for (i, child) in value.items().enumerate() {
                let comma = if (i as u64) + 1 < total { "," } else { "" };
                self.steps.push(Step::Index(i as u64));
                let more = self.pretty(child, level + 1, String::new(), comma, out, cap);
                self.steps.pop();
                if !more {
                    return false;
                }
            }
        }
        push(out, value.end_line(), format!("{indent}{close}{suffix}"))
    }
}

#[cfg(test)]
mod tests;
