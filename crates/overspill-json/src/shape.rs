//! Merged shapes: what many JSON values at the same position look like together.
//!
//! `schema` summarises an array by the merged shape of its items, and `item_schema` lists
//! the keys of that merged shape with how many items hold each (docs/tools.md). A [`Shape`] is
//! built by [`Shape::merge`]-ing values one by one: it counts kinds, keeps size ranges,
//! merges the fields of objects by key and the items of arrays into one item shape, and
//! records how many distinct *top-level items* reached each position (for `k/N items`).
//!
//! Merging walks at most [`MAX_DEPTH`] levels (docs/tools.md depth cap) and remembers where it
//! stopped ([`Shape::truncated`]); keys are compared as borrowed bytes of the file, so a
//! merge allocates only per distinct key.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::tape::{Kind, NodeRef};

/// The deepest any walk over JSON goes (docs/tools.md).
pub const MAX_DEPTH: usize = 64;

/// Distinct keys tracked per position; more are counted in [`Shape::untracked_keys`].
pub const MAX_FIELDS: usize = 2_000;

/// Fields scanned linearly before a position builds a key index.
const LINEAR_FIELDS: usize = 24;

/// The smallest and largest of some sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SizeRange {
    /// The smallest seen (meaningless when nothing was seen).
    pub min: u64,
    /// The largest seen.
    pub max: u64,
    seen: bool,
}

impl SizeRange {
    fn add(&mut self, n: u64) {
        if self.seen {
            self.min = self.min.min(n);
            self.max = self.max.max(n);
        } else {
            *self = SizeRange {
                min: n,
                max: n,
                seen: true,
            };
        }
    }
}

/// What the values merged at one position look like.
#[derive(Debug, Clone, Default)]
pub struct Shape<'a> {
    /// Values merged here.
    pub seen: u64,
    /// Distinct top-level items that had a value here.
    pub items_with: u64,
    last_item: Option<u64>,
    /// Values of each kind, indexed like [`Kind::ALL`].
    pub kinds: [u64; 6],
    /// Characters of the strings.
    pub chars: SizeRange,
    /// Entries of the objects.
    pub keys: SizeRange,
    /// Items of the arrays.
    pub len: SizeRange,
    /// The merged fields of the objects, in order of first appearance.
    pub fields: Vec<(Cow<'a, str>, Shape<'a>)>,
    index: HashMap<Cow<'a, str>, usize>,
    hint: usize,
    /// Distinct keys beyond [`MAX_FIELDS`], not tracked.
    pub untracked_keys: u64,
    /// The merged items of the arrays.
    pub item: Option<Box<Shape<'a>>>,
    /// Line range of the first value merged here.
    pub first_lines: Option<(u32, u32)>,
    /// Some container here had contents below the depth the merge was allowed to reach.
    pub truncated: bool,
}

impl<'a> Shape<'a> {
    /// An empty shape.
    pub fn new() -> Shape<'a> {
        Shape::default()
    }

    /// Merges `value`, which belongs to top-level item `item`, looking at most `depth`
    /// levels below it (capped at [`MAX_DEPTH`]).
    pub fn merge(&mut self, value: NodeRef<'a>, item: u64, depth: usize) {
        self.merge_at(value, item, depth.min(MAX_DEPTH));
    }

    fn merge_at(&mut self, value: NodeRef<'a>, item: u64, depth: usize) {
        self.seen += 1;
        if self.last_item != Some(item) {
            self.last_item = Some(item);
            self.items_with += 1;
        }
        if self.first_lines.is_none() {
            self.first_lines = Some((value.line(), value.end_line()));
        }
        let kind = value.kind();
        self.kinds[kind as usize] += 1;
        match kind {
            Kind::String => self.chars.add(value.char_len()),
            Kind::Object => {
                self.keys.add(value.len());
                if depth == 0 {
                    self.truncated |= !value.is_empty();
                    return;
                }
                for (key, child) in value.entries() {
                    if let Some(field) = self.field(key) {
                        field.merge_at(child, item, depth - 1);
                    }
                }
            }
            Kind::Array => {
                self.len.add(value.len());
                if depth == 0 {
                    self.truncated |= !value.is_empty();
                    return;
                }
                if value.is_empty() {
                    return;
                }
                let shape = self.item.get_or_insert_with(Box::default);
                for child in value.items() {
                    shape.merge_at(child, item, depth - 1);
                }
            }
            Kind::Number | Kind::Bool | Kind::Null => {}
        }
    }

    /// The field for `key`, created on first sight; `None` past [`MAX_FIELDS`].
    fn field(&mut self, key: NodeRef<'a>) -> Option<&mut Shape<'a>> {
        // Objects at one position usually list their keys in the same order.
        if let Some((name, _)) = self.fields.get(self.hint)
            && key.str_eq(name)
        {
            let at = self.hint;
            self.hint += 1;
            return Some(&mut self.fields[at].1);
        }
        let found = if self.fields.len() <= LINEAR_FIELDS {
            self.fields.iter().position(|(name, _)| key.str_eq(name))
        } else {
            self.index.get(key.str().as_ref()).copied()
        };
        let at = match found {
            Some(at) => at,
            None if self.fields.len() >= MAX_FIELDS => {
                self.untracked_keys += 1;
                return None;
            }
            None => {
                let name = key.str();
                self.fields.push((name.clone(), Shape::default()));
                let at = self.fields.len() - 1;
                if self.fields.len() > LINEAR_FIELDS {
                    if self.index.is_empty() {
                        for (i, (name, _)) in self.fields.iter().enumerate() {
                            self.index.insert(name.clone(), i);
                        }
                    } else {
                        self.index.insert(name, at);
                    }
                }
                at
            }
        };
        self.hint = at + 1;
        Some(&mut self.fields[at].1)
    }

    /// The same shape owning its keys, to keep beyond the file bytes' borrow.
    pub fn into_owned(self) -> Shape<'static> {
        let fields: Vec<(Cow<'static, str>, Shape<'static>)> = self
            .fields
            .into_iter()
            .map(|(name, field)| (Cow::Owned(name.into_owned()), field.into_owned()))
            .collect();
        let index = if self.index.is_empty() {
            HashMap::new()
        } else {
            fields
                .iter()
                .enumerate()
                .map(|(i, (name, _))| (name.clone(), i))
                .collect()
        };
        Shape {
            seen: self.seen,
            items_with: self.items_with,
            last_item: self.last_item,
            kinds: self.kinds,
            chars: self.chars,
            keys: self.keys,
            len: self.len,
            fields,
            index,
            hint: self.hint,
            untracked_keys: self.untracked_keys,
            item: self.item.map(|item| Box::new(item.into_owned())),
            first_lines: self.first_lines,
            truncated: self.truncated,
        }
    }

    /// The merged shape of all the items of `array`, [`MAX_DEPTH`] levels deep.
    pub fn of_items(array: NodeRef<'a>) -> Shape<'a> {
        let mut shape = Shape::new();
        for (i, item) in array.items().enumerate() {
            shape.merge(item, i as u64, MAX_DEPTH);
        }
        shape
    }

    /// The kinds seen, in [`Kind::ALL`] order, with their counts.
    pub fn kinds(&self) -> impl Iterator<Item = (Kind, u64)> + '_ {
        Kind::ALL
            .into_iter()
            .zip(self.kinds)
            .filter(|&(_, n)| n > 0)
    }
}

#[cfg(test)]
mod tests;
