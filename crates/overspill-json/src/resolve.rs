//! Following a [`JsonPath`] through a parsed document, and saying precisely where it fails.
//!
//! On a miss the caller learns the longest prefix that exists, the first segment that does
//! not, and what the prefix holds instead: its keys (the first [`MAX_KEYS_LISTED`], with the
//! total), its length, or its kind (docs/tools.md#1-common-rules `path_not_found`). Saying so to the model is the
//! tools' business.

use crate::path::{JsonPath, Segment};
use crate::tape::{Kind, NodeRef};

/// Keys listed in a miss.
pub const MAX_KEYS_LISTED: usize = 50;

/// What the valid prefix of a failed path holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Instead {
    /// An object: its first keys and how many it has.
    Keys {
        /// Up to [`MAX_KEYS_LISTED`] keys, in document order.
        keys: Vec<String>,
        /// All its keys.
        total: u64,
    },
    /// An array, of this length.
    ArrayLength(u64),
    /// A scalar of this kind.
    ValueType(Kind),
}

/// Where and why a path does not lead to a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Miss {
    /// The longest prefix of the path that exists.
    pub valid_prefix: JsonPath,
    /// The first segment that does not, as `failed_segment` reports it.
    pub failed_segment: String,
    /// What the prefix holds.
    pub instead: Instead,
}

/// The value at `path` under `root`.
///
/// An index into an object falls back to the key with that decimal name, so the bare form
/// `ports.8080` finds a key `"8080"`; `[-1]` counts from the end of an array.
///
/// # Errors
/// [`Miss`] at the first segment that leads nowhere.
pub fn resolve<'a>(root: NodeRef<'a>, path: &JsonPath) -> Result<NodeRef<'a>, Miss> {
    let mut at = root;
    for (depth, segment) in path.segments().iter().enumerate() {
        let next = match (at.kind(), segment) {
            (Kind::Object, Segment::Key(key)) => at.get(key),
            (Kind::Object, Segment::Index(i)) => at.get(&i.to_string()),
            (Kind::Array, Segment::Index(i)) => at.index(*i),
            (Kind::Array, Segment::FromEnd(n)) => {
                at.len().checked_sub(*n).and_then(|i| at.index(i))
            }
            _ => None,
        };
        match next {
            Some(next) => at = next,
            None => {
                return Err(Miss {
                    valid_prefix: path.prefix(depth),
                    failed_segment: segment.describe(),
                    instead: instead(at),
                });
            }
        }
    }
    Ok(at)
}

fn instead(value: NodeRef<'_>) -> Instead {
    match value.kind() {
        Kind::Object => Instead::Keys {
            keys: value
                .entries()
                .take(MAX_KEYS_LISTED)
                .map(|(k, _)| k.str().into_owned())
                .collect(),
            total: value.len(),
        },
        Kind::Array => Instead::ArrayLength(value.len()),
        kind => Instead::ValueType(kind),
    }
}

#[cfg(test)]
mod tests;
