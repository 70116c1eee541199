use super::*;
use overspill_json::parse;

fn tree(src: &str, depth: usize) -> Tree {
    let tape = parse(src.as_bytes()).unwrap();
    render(tape.root(src.as_bytes()), "$", depth)
}

#[test]
fn a_document_renders_as_a_tree_with_line_ranges_and_merged_items() {
    let src = r#"{
  "kind": "List",
  "items": [
    {"id": 1, "tags": ["a", "b"], "note": "hello"},
    {"id": 2, "tags": [], "note": null, "labels": {"app.kubernetes.io/name": "x"}}
  ],
  "empty": {}
}"#;
    assert_eq!(
        tree(src, 4).text,
        r#"$: object(3 keys) [L1-L8]
  kind: string(4 chars) [L2]
  items: array(2 items) [L3-L6]
    [*]: object(3-4 keys) ×2, first [L4]
      id: number ×2
      tags: array(0-2 items) ×2
        [*]: string(1 char) ×2
      note: string(5 chars) ×1 | null ×1
      labels: object(1 key) ×1
        "app.kubernetes.io/name": string(1 char) ×1
  empty: object(0 keys) [L7]"#
    );
}

#[test]
fn contents_below_max_depth_end_in_an_ellipsis() {
    let src = r#"{"a": {"b": {"c": [1]}}, "l": [{"x": {"y": 1}}]}"#;
    let shown = tree(src, 2);
    assert_eq!(
        shown.text,
        "$: object(2 keys) [L1]\n  a: object(1 key) [L1]\n    b: object(1 key) [L1] …\n  l: array(1 item) [L1]\n    [*]: object(1 key) ×1, first [L1] …"
    );
    assert!(shown.elided && !shown.truncated);
}

#[test]
fn a_100_000_deep_document_stops_at_64_levels_with_truncated() {
    let depth = 100_000;
    let src = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let shown = tree(&src, 1_000);
    assert_eq!(shown.lines, 65);
    assert!(
        shown.text.ends_with("[*]: array(1 item) ×1 …truncated"),
        "{}",
        &shown.text[shown.text.len() - 200..]
    );
    assert!(shown.truncated);
    let objects = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
    let shown = tree(&objects, 64);
    assert_eq!(shown.lines, 65);
    assert!(shown.text.ends_with("a: object(1 key) [L1] …truncated"));
}

#[test]
fn wide_objects_list_50_keys_then_a_count() {
    let object: String = (0..80)
        .map(|i| format!("\"k{i}\": {i}"))
        .collect::<Vec<_>>()
        .join(",");
    let shown = tree(&format!("{{{object}}}"), 4);
    assert_eq!(shown.lines, 52);
    assert!(
        shown
            .text
            .ends_with("  … 30 more keys: k50, k51, k52, k53, k54, …"),
        "{}",
        shown.text
    );
}
