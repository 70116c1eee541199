use super::*;

#[test]
fn a_pod_list_summary_elides_within_its_budget() {
    let shape =
        JsonShape::of(r#"{"kind": "PodList", "items": [{"metadata": {}, "spec": {}}]}"#).unwrap();
    assert_eq!(
        shape.render(200),
        "object{kind, items: array[1] of object{metadata, spec}}"
    );
    assert_eq!(shape.render(12), "object{kind, …}");
}

#[test]
fn pod_list_summary_names_items_with_their_keys() {
    let text = r#"{"apiVersion": "v1", "items": [
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {}, "status": {}},
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b"}, "spec": {}, "status": {}}
        ], "kind": "List", "metadata": {"resourceVersion": ""}}"#;
    assert_eq!(
        JsonShape::of(text).unwrap().render(400),
        "object{apiVersion, items: array[2] of object{apiVersion, kind, metadata, spec, status}, kind, metadata}"
    );
}

#[test]
fn nested_arrays_are_reached_through_their_objects() {
    let text =
        r#"{"data": {"results": [{"id": 1, "title": "x"}, "stray"], "page": 1}, "ok": true}"#;
    assert_eq!(
        JsonShape::of(text).unwrap().render(400),
        "object{data: object{results: array[2] of object{id, title}|string, page}, ok}"
    );
}

#[test]
fn top_level_arrays_and_empty_containers() {
    assert_eq!(
        JsonShape::of("[1, 2, 3]").unwrap().render(100),
        "array[3] of number"
    );
    assert_eq!(JsonShape::of("[]").unwrap().render(100), "array[0]");
    assert_eq!(JsonShape::of("{}").unwrap().render(100), "object{}");
    assert_eq!(
        JsonShape::of(r#"{"a": []}"#).unwrap().render(100),
        "object{a: array[0]}"
    );
}

#[test]
fn many_keys_are_counted_and_elided() {
    let text: String = format!(
        "{{{}}}",
        (0..50_000)
            .map(|i| format!("\"key{i}\": {i}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let shape = JsonShape::of(&text).unwrap();
    let rendered = shape.render(60);
    assert!(
        rendered.starts_with("object(50,000 keys){key0, key1, "),
        "{rendered}"
    );
    assert!(rendered.ends_with("…}"), "{rendered}");
    assert!(rendered.chars().count() <= 80, "{rendered}");
}

#[test]
fn odd_keys_are_quoted_and_long_keys_cut() {
    let text = format!(r#"{{"a b": 1, "": 2, "{}": 3}}"#, "k".repeat(50));
    let rendered = JsonShape::of(&text).unwrap().render(400);
    assert_eq!(
        rendered,
        format!(r#"object{{"a b", "", {}…}}"#, "k".repeat(40))
    );
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let depth = 100_000;
    let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let shape = JsonShape::of(&text);
    // Either a shape or a clean parser error; never a crash.
    if let Ok(shape) = shape {
        assert!(shape.render(50).starts_with("array[1]"));
    }
    let text = format!(
        "{{\"a\": {}{}}}",
        "{\"b\": ".repeat(depth),
        "1".to_owned() + &"}".repeat(depth)
    );
    let _ = JsonShape::of(&text);
}

#[test]
fn invalid_json_is_an_error() {
    assert!(JsonShape::of("{\"a\": ").is_err());
    assert!(JsonShape::of("{} {}").is_err());
}

#[test]
fn markdown_summary_lists_top_headings() {
    let text = "# Runbook\nintro\n## Install\n```\n# not a heading\n```\n## Usage\n### Flags\n## Rollback\n";
    assert_eq!(
        markdown_summary(text, 200),
        "5 headings: Runbook › Install · Usage · Rollback"
    );
    let flat = "## A\n## B\n## C\n";
    assert_eq!(markdown_summary(flat, 200), "3 headings: A · B · C");
    assert_eq!(markdown_summary(flat, 16), "3 headings: A · …");
    assert_eq!(
        markdown_summary("no headings here", 100),
        "markdown without headings"
    );
}

#[test]
fn text_summary_is_the_first_line_cut_short() {
    assert_eq!(
        text_summary("\n  Package: adduser\nStatus: ok\n", 100),
        "first line: Package: adduser"
    );
    let long = "x".repeat(500);
    let summary = text_summary(&long, 40);
    assert_eq!(summary.chars().count(), 40);
    assert!(summary.ends_with('…'));
    assert_eq!(text_summary("   \n", 40), "blank text");
}
