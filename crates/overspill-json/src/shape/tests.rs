use super::*;
use crate::parse::parse;

#[test]
fn merging_counts_kinds_sizes_and_distinct_items() {
    let src = br#"[{"a": "xy", "b": [1, 2]}, {"a": null, "b": [{"c": 1}]}, 7]"#;
    let tape = parse(src).unwrap();
    let mut shape = Shape::new();
    for (i, item) in tape.root(src).items().enumerate() {
        shape.merge(item, i as u64, MAX_DEPTH);
    }
    assert_eq!(shape.seen, 3);
    assert_eq!(
        shape.kinds().collect::<Vec<_>>(),
        [(Kind::Object, 2), (Kind::Number, 1)]
    );
    let (name, a) = &shape.fields[0];
    assert_eq!(
        (name.as_ref(), a.kinds[2], a.kinds[5], a.items_with),
        ("a", 1, 1, 2)
    );
    assert_eq!((a.chars.min, a.chars.max), (2, 2));
    let b = &shape.fields[1].1;
    assert_eq!((b.len.min, b.len.max), (1, 2));
    let b_items = b.item.as_ref().unwrap();
    assert_eq!((b_items.seen, b_items.items_with), (3, 2));
    assert_eq!(b_items.fields[0].1.items_with, 1);
}

#[test]
fn merging_stops_at_the_depth_and_says_so() {
    let src = br#"{"a": {"b": {"c": 1}}}"#;
    let tape = parse(src).unwrap();
    let mut shape = Shape::new();
    shape.merge(tape.root(src), 0, 1);
    let a = &shape.fields[0].1;
    assert!(a.truncated && a.fields.is_empty());
    assert!(!shape.truncated);
}

#[test]
fn many_distinct_keys_are_indexed_then_capped() {
    let object: String = (0..MAX_FIELDS + 10)
        .map(|i| format!("\"k{i}\": {i}"))
        .collect::<Vec<_>>()
        .join(",");
    let src = format!("[{{{object}}}, {{{object}}}]");
    let tape = parse(src.as_bytes()).unwrap();
    let mut shape = Shape::new();
    for (i, item) in tape.root(src.as_bytes()).items().enumerate() {
        shape.merge(item, i as u64, 4);
    }
    assert_eq!(shape.fields.len(), MAX_FIELDS);
    assert_eq!(shape.untracked_keys, 20);
    assert!(shape.fields.iter().all(|(_, f)| f.items_with == 2));
}

#[test]
fn a_100_000_deep_array_merges_within_the_cap() {
    let depth = 100_000;
    let src = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let tape = parse(src.as_bytes()).unwrap();
    let mut shape = Shape::new();
    shape.merge(tape.root(src.as_bytes()), 0, usize::MAX);
    let mut levels = 0;
    let mut at = &shape;
    while let Some(item) = &at.item {
        levels += 1;
        at = item;
    }
    assert_eq!(levels, MAX_DEPTH);
    assert!(at.truncated);
}
