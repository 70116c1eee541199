//! The one-line shape summary a pointer carries (docs/facade.md#2-intercepting): the top of a JSON document with
//! array lengths and item keys, the top headings of Markdown, the first line of text.
//!
//! The JSON walk is shallow and streaming: [`MAX_DEPTH`] levels are kept, everything below is
//! skipped by `serde::de::IgnoredAny` without building values, and at most [`MAX_KEYS`] keys
//! per object are remembered. It costs one validating pass over the text (about 1 GB/s) and a
//! few kilobytes, whatever the document. Rendering takes a character budget and elides with
//! `…`, so callers can shrink a summary until it fits a token limit.
//!
//! `{"kind": "PodList", "items": [{"metadata": {}, "spec": {}}]}` summarises as
//! `object{kind, items: array[1] of object{metadata, spec}}`, or `object{kind, …}` in 12
//! characters (pinned by `a_pod_list_summary_elides_within_its_budget`).

use crate::markdown::{Blocks, Line};
use crate::numbered::thousands;
use std::fmt::{self, Write as _};

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Levels of nesting the summary looks into.
pub const MAX_DEPTH: usize = 3;
/// Keys remembered per object (and per array's merged item keys).
pub const MAX_KEYS: usize = 64;

/// The top levels of a JSON document.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonShape {
    /// An object: the first [`MAX_KEYS`] keys with their shapes, and how many keys it has.
    Object {
        /// Keys in document order, with the shapes of their values.
        keys: Vec<(String, JsonShape)>,
        /// All keys, including those not remembered.
        total: u64,
    },
    /// An array: its length and the merged shape of its items.
    Array {
        /// Number of items.
        len: u64,
        /// What the items look like.
        items: Items,
    },
    /// A scalar, or a container below [`MAX_DEPTH`]: its kind.
    Kind(&'static str),
}

/// The merged shape of an array's items.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Items {
    /// The kinds seen (`object`, `array`, `string`, …), in order of first appearance.
    pub kinds: Vec<&'static str>,
    /// The union of the keys of object items, in order of first appearance.
    pub keys: Vec<String>,
    /// Whether more keys existed than were remembered.
    pub more_keys: bool,
}

impl JsonShape {
    /// Summarises a JSON text.
    ///
    /// # Errors
    /// The parser's error when `text` is not one JSON value.
    pub fn of(text: &str) -> Result<JsonShape, serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let shape = ShapeSeed { depth: 0 }.deserialize(&mut deserializer)?;
        deserializer.end()?;
        Ok(shape)
    }

    /// Renders the summary in about `max_chars` characters (closing brackets may add a few),
    /// eliding what does not fit with `…`.
    pub fn render(&self, max_chars: usize) -> String {
        let mut out = Budgeted {
            out: String::new(),
            left: max_chars,
            exhausted: false,
        };
        self.write(&mut out, 0);
        out.out
    }

    fn write(&self, out: &mut Budgeted, depth: usize) {
        match self {
            JsonShape::Kind(kind) => out.push(kind),
            JsonShape::Array { len, items } => {
                out.push(&format!("array[{len}]"));
                if *len > 0 {
                    out.push(" of ");
                    items.write(out);
                }
            }
            JsonShape::Object { keys, total } => {
                if keys.len() as u64 != *total {
                    out.push(&format!("object({} keys)", thousands(*total)));
                } else {
                    out.push("object");
                }
                out.push("{");
                for (i, (key, value)) in keys.iter().enumerate() {
                    if !out.push_key(i, key) {
                        break;
                    }
                    if value.worth_expanding(depth + 1) {
                        out.push(": ");
                        value.write(out, depth + 1);
                    }
                    if out.exhausted {
                        break;
                    }
                }
                if !out.exhausted && keys.len() as u64 != *total {
                    out.push_forced(", …");
                }
                out.push_forced("}");
            }
        }
    }

    /// Nested values are named only when they hold an array (the thing a model wants to find);
    /// other objects and scalars show as their key alone.
    fn worth_expanding(&self, depth: usize) -> bool {
        match self {
            JsonShape::Array { .. } => true,
            JsonShape::Object { keys, .. } => {
                depth < MAX_DEPTH && keys.iter().any(|(_, v)| v.worth_expanding(depth + 1))
            }
            JsonShape::Kind(_) => false,
        }
    }
}

impl Items {
    fn write(&self, out: &mut Budgeted) {
        for (i, kind) in self.kinds.iter().enumerate() {
            if i > 0 {
                out.push("|");
            }
            if *kind != "object" {
                out.push(kind);
                continue;
            }
            out.push("object{");
            for (k, key) in self.keys.iter().enumerate() {
                if !out.push_key(k, key) {
                    break;
                }
            }
            if !out.exhausted && self.more_keys {
                out.push_forced(", …");
            }
            out.push_forced("}");
        }
    }
}

/// A string written against a character budget.
struct Budgeted {
    out: String,
    left: usize,
    exhausted: bool,
}

impl Budgeted {
    fn fits(&self, chars: usize) -> bool {
        !self.exhausted && chars <= self.left
    }

    fn push(&mut self, text: &str) {
        if self.exhausted {
            return;
        }
        let chars = text.chars().count();
        if chars > self.left {
            self.out.push('…');
            self.exhausted = true;
            return;
        }
        self.out.push_str(text);
        self.left -= chars;
    }

    /// The key at `index` of a key list, after its separator; when it does not fit, `…`
    /// instead, the budget spent, and `false`.
    fn push_key(&mut self, index: usize, key: &str) -> bool {
        let separator = if index == 0 { "" } else { ", " };
        if !self.fits(separator.len() + key.chars().count().min(40) + 1) {
            self.push_forced(&format!("{separator}…"));
            self.exhausted = true;
            return false;
        }
        self.push(separator);
        self.push(&short_key(key));
        true
    }

    fn push_forced(&mut self, text: &str) {
        self.out.push_str(text);
        self.left = self.left.saturating_sub(text.chars().count());
    }
}

/// Keys are shown as written, cut at 40 characters; a key that is empty or holds separators
/// is quoted so the summary stays unambiguous.
fn short_key(key: &str) -> String {
    let cut: String = key.chars().take(40).collect();
    let cut = if cut.len() < key.len() {
        format!("{cut}…")
    } else {
        cut
    };
    if key.is_empty() || key.contains([',', ':', '{', '}', ' ', '[', ']', '|']) {
        serde_json::Value::String(cut).to_string()
    } else {
        cut
    }
}

/// The headings of a Markdown document, for its summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkdownShape {
    /// `(level, title)` of the first [`MAX_HEADINGS`] ATX headings outside code fences.
    headings: Vec<(usize, String)>,
    /// All headings.
    total: usize,
}

/// Headings remembered per document.
pub const MAX_HEADINGS: usize = 1000;

impl MarkdownShape {
    /// Collects the headings of `text`.
    pub fn of(text: &str) -> MarkdownShape {
        let mut all = headings(text);
        let total = all.len();
        all.truncate(MAX_HEADINGS);
        MarkdownShape {
            headings: all,
            total,
        }
    }

    /// The top-level headings (those of the smallest level; under a single title, the level
    /// below it) in about `max_chars` characters.
    pub fn render(&self, max_chars: usize) -> String {
        let headings = &self.headings;
        let Some(top) = headings.iter().map(|(level, _)| *level).min() else {
            return "markdown without headings".to_owned();
        };
        let at = |level: usize| {
            headings
                .iter()
                .filter(move |(l, _)| *l == level)
                .map(|(_, t)| t.as_str())
        };
        let titles: Vec<&str> = at(top).collect();
        let (lead, listed): (Option<&str>, Vec<&str>) = match titles.as_slice() {
            [only] => {
                let next = headings.iter().map(|(l, _)| *l).filter(|l| *l > top).min();
                (
                    Some(only),
                    next.map(|n| at(n).collect()).unwrap_or_default(),
                )
            }
            _ => (None, titles.clone()),
        };
        let mut out = Budgeted {
            out: String::new(),
            left: max_chars,
            exhausted: false,
        };
        out.push(&format!("{} headings: ", thousands(self.total as u64)));
        if let Some(lead) = lead {
            out.push(&cut_chars(lead, 60));
            if !listed.is_empty() {
                out.push(" › ");
            }
        }
        for (i, title) in listed.iter().enumerate() {
            let separator = if i == 0 { "" } else { " · " };
            let title = cut_chars(title, 60);
            if !out.fits(separator.chars().count() + title.chars().count()) {
                out.push_forced(&format!("{separator}…"));
                break;
            }
            out.push(separator);
            out.push(&title);
        }
        out.out
    }
}

/// The Markdown summary of `text` in about `max_chars` characters; see [`MarkdownShape`].
#[cfg(test)]
fn markdown_summary(text: &str, max_chars: usize) -> String {
    MarkdownShape::of(text).render(max_chars)
}

/// The text summary: the first non-blank line, cut short.
pub fn text_summary(text: &str, max_chars: usize) -> String {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if first.is_empty() {
        return "blank text".to_owned();
    }
    let mut out = String::from("first line: ");
    let _ = write!(
        out,
        "{}",
        cut_chars(first, max_chars.saturating_sub(12).max(8))
    );
    out
}

/// `(level, title)` of every ATX heading outside fenced code blocks, read as `schema` reads
/// them ([`crate::markdown`]).
fn headings(text: &str) -> Vec<(usize, String)> {
    let mut blocks = Blocks::default();
    text.lines()
        .filter_map(|line| match blocks.line(line) {
            Line::Heading { level, title } => Some((level, title.to_owned())),
            Line::Code | Line::Text(_) => None,
        })
        .collect()
}

fn cut_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

struct ShapeSeed {
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for ShapeSeed {
    type Value = JsonShape;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<JsonShape, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ShapeSeed {
    type Value = JsonShape;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<JsonShape, E> {
        Ok(JsonShape::Kind("boolean"))
    }
    fn visit_i64<E>(self, _: i64) -> Result<JsonShape, E> {
        Ok(JsonShape::Kind("number"))
    }
    fn visit_u64<E>(self, _: u64) -> Result<JsonShape, E> {
        Ok(JsonShape::Kind("number"))
    }
    fn visit_f64<E>(self, _: f64) -> Result<JsonShape, E> {
        Ok(JsonShape::Kind("number"))
    }
    fn visit_str<E>(self, _: &str) -> Result<JsonShape, E> {
        Ok(JsonShape::Kind("string"))
    }
    fn visit_unit<E>(self) -> Result<JsonShape, E> {
        Ok(JsonShape::Kind("null"))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonShape, A::Error> {
        let mut keys = Vec::new();
        let mut total = 0u64;
        while let Some(key) = map.next_key::<String>()? {
            total += 1;
            if keys.len() < MAX_KEYS && self.depth < MAX_DEPTH {
                let value = map.next_value_seed(ShapeSeed {
                    depth: self.depth + 1,
                })?;
                keys.push((key, value));
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        if self.depth >= MAX_DEPTH {
            return Ok(JsonShape::Kind("object"));
        }
        Ok(JsonShape::Object { keys, total })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JsonShape, A::Error> {
        let mut items = Items::default();
        let mut len = 0u64;
        if self.depth >= MAX_DEPTH {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(JsonShape::Kind("array"));
        }
        while seq
            .next_element_seed(ItemSeed { items: &mut items })?
            .is_some()
        {
            len += 1;
        }
        Ok(JsonShape::Array { len, items })
    }
}

/// Merges one array item into [`Items`], skipping everything below its keys.
struct ItemSeed<'a> {
    items: &'a mut Items,
}

impl ItemSeed<'_> {
    fn saw(&mut self, kind: &'static str) {
        if !self.items.kinds.contains(&kind) {
            self.items.kinds.push(kind);
        }
    }
}

impl<'de> DeserializeSeed<'de> for ItemSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// The visits of scalar items, each of which only notes the item's kind: `visit_bool(bool) =>
/// "boolean"` is serde's `visit_bool` noting a boolean.
macro_rules! visit_scalars {
    ($($visit:ident($($value:ty)?) => $kind:literal,)*) => {
        $(
            fn $visit<E>(mut self $(, _: $value)?) -> Result<(), E> {
                self.saw($kind);
                Ok(())
            }
        )*
    };
}

impl<'de> Visitor<'de> for ItemSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    visit_scalars! {
        visit_bool(bool) => "boolean",
        visit_i64(i64) => "number",
        visit_u64(u64) => "number",
        visit_f64(f64) => "number",
        visit_str(&str) => "string",
        visit_unit() => "null",
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        self.saw("array");
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        self.saw("object");
        while let Some(key) = map.next_key::<String>()? {
            map.next_value::<IgnoredAny>()?;
            if self.items.keys.contains(&key) {
                continue;
            }
            if self.items.keys.len() < MAX_KEYS {
                self.items.keys.push(key);
            } else {
                self.items.more_keys = true;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
