use super::*;
use overspill_json::parse;

fn listing(src: &str) -> (String, String) {
    let tape = parse(src.as_bytes()).unwrap();
    let mut shape = Shape::new();
    let root = tape.root(src.as_bytes());
    for (i, item) in root.items().enumerate() {
        shape.merge(item, i as u64, MAX_DEPTH);
    }
    (render(&rows(&shape), root.len()), item_kinds(&shape))
}

#[test]
fn keys_are_dotted_typed_and_counted_per_item() {
    let (text, kinds) = listing(
        r#"[
            {"id": 1, "meta": {"name": "a", "labels": {"app.kubernetes.io/name": "x"}},
             "containers": [{"restarts": 1}, {"restarts": 2}], "tags": ["a"]},
            {"id": 2, "meta": {"name": null}, "containers": [], "tags": [1, null]},
            "not an object"
        ]"#,
    );
    assert_eq!(kinds, "2 objects, 1 string");
    assert_eq!(
        text,
        r#"id: number (2/3 items)
meta: object (2/3 items)
meta.name: string|null (2/3 items)
meta.labels: object (1/3 items)
meta.labels["app.kubernetes.io/name"]: string (1/3 items)
containers: array (2/3 items)
containers[].restarts: number (1/3 items)
tags: array (2/3 items)
tags[]: string|number|null (2/3 items)"#
    );
}

#[test]
fn nested_arrays_and_odd_keys_use_paths_that_read_back() {
    let (text, _) = listing(r#"[{"m": [[{"x": 1}]], "a b": 1, "0": 2}]"#);
    assert_eq!(
        text,
        "m: array (1/1 items)\nm[]: array (1/1 items)\nm[][].x: number (1/1 items)\n[\"a b\"]: number (1/1 items)\n[\"0\"]: number (1/1 items)"
    );
}

#[test]
fn a_100_000_deep_item_is_listed_to_the_cap() {
    let depth = 100_000;
    let src = format!("[{}1{}]", "{\"a\":".repeat(depth), "}".repeat(depth));
    let (text, _) = listing(&src);
    assert_eq!(text.lines().count(), MAX_DEPTH);
    assert!(
        text.lines()
            .last()
            .unwrap()
            .ends_with("…truncated (nested deeper than 64 levels)")
    );
}
