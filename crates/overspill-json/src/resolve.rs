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
mod tests {
    use super::*;
    use crate::parse::parse;

    const SRC: &[u8] = br#"{"items": [{"name": "a", "ports": {"8080": "http"}}, {"name": "b"}], "0": "zero", "n": 3}"#;

    fn at(path: &str) -> Result<String, Miss> {
        let tape = parse(SRC).unwrap();
        resolve(tape.root(SRC), &JsonPath::parse(path).unwrap()).map(|v| v.raw_str().to_owned())
    }

    #[test]
    fn paths_resolve_in_every_form() {
        assert_eq!(at("$.items[1].name").unwrap(), "b");
        assert_eq!(at("items.0.name").unwrap(), "a");
        assert_eq!(at("$.items[-1].name").unwrap(), "b");
        assert_eq!(at(r#"$["0"]"#).unwrap(), "zero");
        assert_eq!(at("items.0.ports.8080").unwrap(), "http");
    }

    #[test]
    fn a_missing_key_reports_prefix_segment_and_keys() {
        let miss = at("$.items[0].nme").unwrap_err();
        assert_eq!(miss.valid_prefix.to_string(), "$.items[0]");
        assert_eq!(miss.failed_segment, "nme");
        assert_eq!(
            miss.instead,
            Instead::Keys {
                keys: vec!["name".into(), "ports".into()],
                total: 2
            }
        );
    }

    #[test]
    fn an_index_past_the_end_reports_the_array_length() {
        let miss = at("$.items[9].name").unwrap_err();
        assert_eq!(miss.valid_prefix.to_string(), "$.items");
        assert_eq!(miss.failed_segment, "[9]");
        assert_eq!(miss.instead, Instead::ArrayLength(2));
        assert_eq!(at("$.items[-3]").unwrap_err().failed_segment, "[-3]");
    }

    #[test]
    fn a_path_into_a_scalar_reports_its_type() {
        let miss = at("$.n.x").unwrap_err();
        assert_eq!(
            (miss.valid_prefix.to_string(), miss.instead),
            ("$.n".to_owned(), Instead::ValueType(Kind::Number))
        );
        let miss = at("$.items.name").unwrap_err();
        assert_eq!(miss.instead, Instead::ArrayLength(2));
    }

    #[test]
    fn available_keys_are_cut_at_50_with_the_count() {
        let object: String = (0..120)
            .map(|i| format!("\"k{i}\": {i}"))
            .collect::<Vec<_>>()
            .join(",");
        let src = format!("{{{object}}}");
        let tape = parse(src.as_bytes()).unwrap();
        let miss = resolve(
            tape.root(src.as_bytes()),
            &JsonPath::parse("$.nope").unwrap(),
        )
        .unwrap_err();
        let Instead::Keys { keys, total } = &miss.instead else {
            panic!()
        };
        assert_eq!((keys.len(), *total), (50, 120));
    }
}
