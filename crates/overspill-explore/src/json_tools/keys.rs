//! The key listing of `item_schema`: every key found in an array's items, dotted, with its
//! types and how many items hold it (docs/tools.md).
//!
//! ```text
//! metadata.name: string (120/120 items)
//! metadata.labels["app.kubernetes.io/name"]: string (87/120 items)
//! status.containerStatuses[].restartCount: number (112/120 items)
//! status.message: string|null (9/120 items)
//! ```
//!
//! Keys nest with dots (or brackets, for a key that would not read back as itself); `[]`
//! steps into the items of a nested array, so every listed key can be given as an
//! `iterate_over` field once `[]` is replaced by an index. Presence counts items, not
//! values: an item whose three containers all have `restartCount` counts once.

use std::fmt::Write as _;

use overspill_json::{Kind, MAX_DEPTH, Shape, is_plain_key};

use super::describe::type_names;

/// One listed key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRow {
    /// The dotted key: `metadata.name`, `spec.containers[].image`.
    pub key: String,
    /// The types seen: `string|null`.
    pub types: String,
    /// Items holding the key.
    pub items: u64,
    /// The merge stopped below this key (nesting deeper than [`MAX_DEPTH`]).
    pub truncated: bool,
}

/// Flattens the merged shape of an array's items into key rows, in order of first
/// appearance.
pub fn rows(items: &Shape<'_>) -> Vec<KeyRow> {
    let mut out = Vec::new();
    walk(items, "", 0, &mut out);
    out
}

/// Renders the rows as `key: types (k/N items)` lines, `N` being the items in the window.
pub fn render(rows: &[KeyRow], window_items: u64) -> String {
    let mut text = String::new();
    for row in rows {
        if !text.is_empty() {
            text.push('\n');
        }
        let _ = write!(
            text,
            "{}: {} ({}/{} items)",
            row.key,
            row.types,
            crate::numbered::thousands(row.items),
            crate::numbered::thousands(window_items)
        );
        if row.truncated {
            text.push_str(" …truncated (nested deeper than 64 levels)");
        }
    }
    text
}

/// `118 objects, 2 strings`: what the window's items are.
pub fn item_kinds(items: &Shape<'_>) -> String {
    items
        .kinds()
        .map(|(kind, n)| {
            format!(
                "{} {}{}",
                crate::numbered::thousands(n),
                kind.name(),
                if n == 1 { "" } else { "s" }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn walk(shape: &Shape<'_>, prefix: &str, depth: usize, out: &mut Vec<KeyRow>) {
    if depth >= MAX_DEPTH {
        return;
    }
    for (name, field) in &shape.fields {
        let key = join(prefix, name);
        out.push(KeyRow {
            key: key.clone(),
            types: type_names(field),
            items: field.items_with,
            truncated: field.truncated,
        });
        walk(field, &key, depth + 1, out);
        if let Some(item) = &field.item {
            array_items(item, &format!("{key}[]"), depth + 1, out);
        }
    }
    if shape.untracked_keys > 0 {
        out.push(KeyRow {
            key: join(prefix, "…"),
            types: format!(
                "{} more distinct keys not listed",
                crate::numbered::thousands(shape.untracked_keys)
            ),
            items: shape.items_with,
            truncated: false,
        });
    }
}

/// The items of a nested array at `key[]`: a row when they are not all objects, then
/// their own keys.
fn array_items(item: &Shape<'_>, key: &str, depth: usize, out: &mut Vec<KeyRow>) {
    if depth >= MAX_DEPTH {
        return;
    }
    let only_objects = item.kinds().all(|(kind, _)| kind == Kind::Object);
    if !only_objects {
        out.push(KeyRow {
            key: key.to_owned(),
            types: type_names(item),
            items: item.items_with,
            truncated: item.truncated && item.fields.is_empty() && item.item.is_none(),
        });
    }
    walk(item, key, depth, out);
    if let Some(inner) = &item.item {
        array_items(inner, &format!("{key}[]"), depth + 1, out);
    }
}

fn join(prefix: &str, name: &str) -> String {
    if name == "…" {
        return if prefix.is_empty() {
            "…".to_owned()
        } else {
            format!("{prefix}.…")
        };
    }
    if !is_plain_key(name) || name.len() > super::tree::MAX_KEY_CHARS {
        return format!("{prefix}[{}]", super::tree::quoted_key(name));
    }
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}.{name}")
    }
}

#[cfg(test)]
mod tests;
