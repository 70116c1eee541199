//! The schema tree of a JSON value, as `schema` shows it (docs/tools.md).
//!
//! ```text
//! $: object(3 keys) [L1-L312]
//!   apiVersion: string(2 chars) [L2]
//!   items: array(3 items) [L3-L308]
//!     [*]: object(5 keys) ×3, first [L4-L104]
//!       metadata: object(6 keys) ×3
//!         labels: object(2 keys) ×3 …
//!       status: object(5-7 keys) ×3
//!         message: string(40-52 chars) ×1 | null ×2
//!   kind: string(4 chars) [L309]
//! ```
//!
//! Each line is `key: kind(size)`. A value that exists once shows the lines it occupies in
//! the file (`[L3-L308]`, from the parser's positions) so the model can `slice` straight to
//! it. An array shows one merged shape for all its items, `[*]`, whose lines count how many
//! values were merged (`×3`) and, for the items themselves, where the first one is. A
//! container whose contents lie below `max_depth` ends in `…`; at the hard cap of 64 levels
//! it ends in `…truncated`.

use std::fmt::Write as _;

use overspill_json::{Kind, MAX_DEPTH, NodeRef, Shape, is_plain_key};

use super::describe::{compact, describe, describe_value};

/// Keys listed per object before the rest are summarised in one line.
pub const MAX_KEYS_SHOWN: usize = 50;

/// A rendered schema tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    /// The tree, one line per position, no trailing newline.
    pub text: String,
    /// How many lines it has.
    pub lines: u64,
    /// Some contents lie below the depth shown.
    pub elided: bool,
    /// The hard cap of [`MAX_DEPTH`] levels stopped it.
    pub truncated: bool,
}

/// Renders the tree of `value`, labelled `label` (its path), at most `max_depth` levels
/// below it (capped at [`MAX_DEPTH`]).
#[cfg(test)]
pub fn render(value: NodeRef<'_>, label: &str, max_depth: usize) -> Tree {
    render_with(value, label, max_depth, &|array| {
        std::sync::Arc::new(Shape::of_items(array).into_owned())
    })
}

/// [`render`], taking the merged item shape of each array from `items` (e.g. a cache).
pub fn render_with(
    value: NodeRef<'_>,
    label: &str,
    max_depth: usize,
    items: &dyn Fn(NodeRef<'_>) -> std::sync::Arc<Shape<'static>>,
) -> Tree {
    let depth = max_depth.clamp(1, MAX_DEPTH);
    let mut out = Out {
        text: String::new(),
        lines: 0,
        elided: false,
        truncated: false,
        capped: depth == MAX_DEPTH,
        items,
    };
    out.value(value, label, 0, depth);
    Tree {
        text: out.text,
        lines: out.lines,
        elided: out.elided,
        truncated: out.truncated,
    }
}

struct Out<'f> {
    text: String,
    lines: u64,
    elided: bool,
    truncated: bool,
    capped: bool,
    items: &'f dyn Fn(NodeRef<'_>) -> std::sync::Arc<Shape<'static>>,
}

impl Out<'_> {
    fn line(&mut self, level: usize, label: &str, rest: &str) {
        if self.lines > 0 {
            self.text.push('\n');
        }
        self.lines += 1;
        for _ in 0..level {
            self.text.push_str("  ");
        }
        self.text.push_str(label);
        self.text.push_str(": ");
        self.text.push_str(rest);
    }

    fn elide_marker(&mut self) -> &'static str {
        if self.capped {
            self.truncated = true;
            " …truncated"
        } else {
            self.elided = true;
            " …"
        }
    }

    /// A value that occurs once, at `level`.
    fn value(&mut self, value: NodeRef<'_>, label: &str, level: usize, depth: usize) {
        let mut rest = describe_value(value);
        let _ = write!(rest, " {}", lines(value.line(), value.end_line()));
        let has_children = !value.is_empty();
        if has_children && level >= depth {
            rest.push_str(self.elide_marker());
        }
        self.line(level, label, &rest);
        if !has_children || level >= depth {
            return;
        }
        match value.kind() {
            Kind::Object => {
                let total = value.len() as usize;
                for (key, child) in value.entries().take(MAX_KEYS_SHOWN) {
                    self.value(child, &key_label(&key.str()), level + 1, depth);
                }
                if total > MAX_KEYS_SHOWN {
                    let more: Vec<String> = value
                        .entries()
                        .skip(MAX_KEYS_SHOWN)
                        .take(5)
                        .map(|(k, _)| key_label(&k.str()))
                        .collect();
                    self.more_keys(level + 1, (total - MAX_KEYS_SHOWN) as u64, &more);
                }
            }
            Kind::Array => {
                let shape = (self.items)(value);
                self.shape(&shape, "[*]", level + 1, depth, true);
            }
            _ => {}
        }
    }

    /// A merged shape at `level`.
    fn shape(&mut self, shape: &Shape<'_>, label: &str, level: usize, depth: usize, items: bool) {
        let kinds: Vec<(Kind, u64)> = shape.kinds().collect();
        let mut rest = if let [(kind, n)] = kinds.as_slice() {
            format!("{} ×{}", describe(shape, *kind), compact(*n))
        } else {
            kinds
                .iter()
                .map(|&(kind, n)| format!("{} ×{}", describe(shape, kind), compact(n)))
                .collect::<Vec<_>>()
                .join(" | ")
        };
        if items && let Some((first, last)) = shape.first_lines {
            let _ = write!(rest, ", first {}", lines(first, last));
        }
        let has_children = !shape.fields.is_empty() || shape.item.is_some() || shape.truncated;
        if has_children && (level >= depth || shape.truncated) {
            rest.push_str(self.elide_marker());
        }
        self.line(level, label, &rest);
        if level >= depth {
            return;
        }
        for (name, field) in shape.fields.iter().take(MAX_KEYS_SHOWN) {
            self.shape(field, &key_label(name), level + 1, depth, false);
        }
        let hidden =
            shape.fields.len().saturating_sub(MAX_KEYS_SHOWN) as u64 + shape.untracked_keys;
        if hidden > 0 {
            let more: Vec<String> = shape
                .fields
                .iter()
                .skip(MAX_KEYS_SHOWN)
                .take(5)
                .map(|(name, _)| key_label(name))
                .collect();
            self.more_keys(level + 1, hidden, &more);
        }
        if let Some(item) = &shape.item {
            self.shape(item, "[*]", level + 1, depth, false);
        }
    }

    fn more_keys(&mut self, level: usize, count: u64, names: &[String]) {
        let mut rest = names.join(", ");
        if count > names.len() as u64 {
            rest.push_str(", …");
        }
        self.line(
            level,
            &format!("… {} more keys", crate::numbered::thousands(count)),
            &rest,
        );
    }
}

/// `[L3-L308]`, or `[L2]` for one line.
pub fn lines(first: u32, last: u32) -> String {
    if first == last {
        format!("[L{first}]")
    } else {
        format!("[L{first}-L{last}]")
    }
}

/// Characters of a key shown in a listing; a longer key is cut, quoted, and marked `…`.
pub const MAX_KEY_CHARS: usize = 80;

/// A key as a tree label: bare when it reads back as itself, else JSON-quoted; a key over
/// [`MAX_KEY_CHARS`] is cut (a hostile file's 100 KB key must not fill the listing).
pub fn key_label(key: &str) -> String {
    if is_plain_key(key) && key.len() <= MAX_KEY_CHARS {
        key.to_owned()
    } else {
        quoted_key(key)
    }
}

/// `key` JSON-quoted, cut to [`MAX_KEY_CHARS`] characters with `…` after the quote when cut.
pub fn quoted_key(key: &str) -> String {
    let Some((end, _)) = key.char_indices().nth(MAX_KEY_CHARS) else {
        return serde_json::Value::String(key.to_owned()).to_string();
    };
    let quoted = serde_json::Value::String(key[..end].to_owned()).to_string();
    format!("{quoted}…")
}

#[cfg(test)]
mod tests;
