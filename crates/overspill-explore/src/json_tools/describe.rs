//! What the JSON tools say about values, shapes and missed paths: the words around
//! `overspill-json`'s data (`object(5 keys)`, `1.2k`, "… does not exist: …").

use overspill_json::{Instead, JsonPath, Kind, MAX_KEYS_LISTED, Miss, NodeRef, Shape, SizeRange};

use crate::numbered::thousands;

/// `string|null`: the kinds a shape saw, joined.
pub fn type_names(shape: &Shape<'_>) -> String {
    shape
        .kinds()
        .map(|(kind, _)| kind.name())
        .collect::<Vec<_>>()
        .join("|")
}

/// One kind of a shape with its size: `object(5 keys)`, `array(0-3 items)`,
/// `string(1.2k chars)`, `number`, …
pub fn describe(shape: &Shape<'_>, kind: Kind) -> String {
    match kind {
        Kind::Object => format!(
            "object({} {})",
            sizes(shape.keys),
            plural(shape.keys, "key")
        ),
        Kind::Array => format!("array({} {})", sizes(shape.len), plural(shape.len, "item")),
        Kind::String => format!(
            "string({} {})",
            sizes(shape.chars),
            plural(shape.chars, "char")
        ),
        other => other.name().to_owned(),
    }
}

/// `12` or `3-40`.
fn sizes(range: SizeRange) -> String {
    if range.min == range.max {
        compact(range.min)
    } else {
        format!("{}-{}", compact(range.min), compact(range.max))
    }
}

fn plural(range: SizeRange, unit: &str) -> String {
    if range.min == 1 && range.max == 1 {
        unit.to_owned()
    } else {
        format!("{unit}s")
    }
}

/// A size in few characters: `999`, `1.2k`, `12k`, `3.4M`, `1.1G`.
pub fn compact(n: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")];
    for (unit, suffix) in UNITS {
        if n >= unit {
            let tenths = n * 10 / unit;
            return if tenths < 100 && !tenths.is_multiple_of(10) {
                format!("{}.{}{suffix}", tenths / 10, tenths % 10)
            } else {
                format!("{}{suffix}", n / unit)
            };
        }
    }
    n.to_string()
}

/// The description of a single value: `object(5 keys)`, `string(12 chars)`, `null`.
pub fn describe_value(value: NodeRef<'_>) -> String {
    let mut shape = Shape::new();
    shape.merge(value, 0, 0);
    describe(&shape, value.kind())
}

/// A sentence saying where `path` stops leading to a value and what to do next.
pub fn explain(miss: &Miss, path: &JsonPath) -> String {
    let prefix = &miss.valid_prefix;
    let segment = &miss.failed_segment;
    let what = match &miss.instead {
        Instead::Keys { keys, total } if keys.is_empty() && *total == 0 => {
            format!("{prefix} is an empty object, so it has no key `{segment}`")
        }
        Instead::Keys { total, .. } => {
            let listed = if *total > MAX_KEYS_LISTED as u64 {
                format!(
                    "; it has {} keys, the first {MAX_KEYS_LISTED} are in available_keys",
                    thousands(*total)
                )
            } else {
                "; its keys are in available_keys".to_owned()
            };
            if segment.starts_with('[') && !segment.starts_with("[\"") {
                format!(
                    "{prefix} is an object, not an array, so `{segment}` does not apply{listed}"
                )
            } else {
                format!("{prefix} has no key `{segment}`{listed}")
            }
        }
        Instead::ArrayLength(n) => {
            if segment.starts_with('[') {
                format!(
                    "{prefix} has {} items, so `{segment}` is past its end (indexes run 0 to {})",
                    thousands(*n),
                    n.saturating_sub(1)
                )
            } else {
                format!(
                    "{prefix} is an array of {} items, not an object: index it like {prefix}[0]",
                    thousands(*n)
                )
            }
        }
        Instead::ValueType(kind) => {
            format!(
                "{prefix} is a {}, so it has nothing at `{segment}`",
                kind.name()
            )
        }
    };
    format!("{path} does not exist: {what}. Call schema to see the structure.")
}

#[cfg(test)]
mod tests;
