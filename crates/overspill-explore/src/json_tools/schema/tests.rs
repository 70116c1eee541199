//! Tests of `schema`, kept beside the module in a file of their own.

use serde_json::json;

use crate::json_tools::test_data::{deep_arrays, deep_objects, pods};
use crate::test_support::{Fixture, footer_summary, split};

#[test]
fn schema_of_a_pod_list_shows_kinds_line_ranges_and_merged_items() {
    let fixture = Fixture::new(&[(
        "pods3.json",
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/pods3.json"
        ))
        .as_slice(),
    )]);
    let text = fixture.call("schema", json!({"file": "pods3.json", "max_depth": 3}));
    let (body, footer) = split(&text);
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines[0], "$: object(4 keys) [L1-L312]");
    assert_eq!(lines[1], "  apiVersion: string(2 chars) [L2]");
    assert!(
        lines[2].starts_with("  items: array(3 items) [L3-L"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].starts_with("    [*]: object(5 keys) ×3, first [L4-L"),
        "{}",
        lines[3]
    );
    assert!(
        body.contains("\n      metadata: object(6 keys) ×3 …\n"),
        "{body}"
    );
    assert_eq!(
        footer_summary(footer),
        "--- schema: $ (json, max_depth 3); … marks contents below max_depth: raise max_depth or pass a deeper path"
    );
}

#[test]
fn schema_line_ranges_point_at_the_lines_slice_shows() {
    let fixture = Fixture::new(&[(
        "pods3.json",
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/pods3.json"
        ))
        .as_slice(),
    )]);
    let body = fixture.body(
        "schema",
        json!({"file": "pods3.json", "path": "$.items[1].status", "max_depth": 1}),
    );
    let first = body.lines().next().unwrap();
    let range = first.rsplit_once(" [L").unwrap().1.trim_end_matches(']');
    let (start, end) = range.split_once("-L").unwrap();
    let (start, end): (u64, u64) = (start.parse().unwrap(), end.parse().unwrap());
    let start_line = fixture.body(
        "slice",
        json!({"file": "pods3.json", "start": start, "end": start}),
    );
    let end_line = fixture.body(
        "slice",
        json!({"file": "pods3.json", "start": end, "end": end}),
    );
    assert!(start_line.ends_with("\"status\": {"), "{start_line}");
    assert!(end_line.trim_end_matches(',').ends_with('}'), "{end_line}");
}

#[test]
fn schema_of_markdown_is_its_heading_tree() {
    let fixture = Fixture::new(&[(
        "r.md",
        b"# Report\n## Impact\n- checkout: 5xx\n- payments: slow\n## Root cause\ntext\n",
    )]);
    let text = fixture.call("schema", json!({"file": "r.md"}));
    let (body, footer) = split(&text);
    assert_eq!(
        body,
        "markdown: 6 lines, 3 headings\n# Report [L1-L6]\n  ## Impact [L2-L4]\n    - keys: checkout, payments (2 list items)\n  ## Root cause [L5-L6]"
    );
    assert_eq!(
        footer_summary(footer),
        "--- schema: markdown outline, 3 headings in 2 levels"
    );
}

#[test]
fn a_txt_file_gets_the_text_form_never_not_json() {
    let fixture = Fixture::new(&[("out.txt", b"{\"looks\": \"like json\"}\nbut is text\n")]);
    let text = fixture.call("schema", json!({"file": "out.txt"}));
    let (body, footer) = split(&text);
    assert!(body.starts_with("text: 2 lines, "), "{body}");
    assert!(body.contains("longest line: L1 (22 chars)"), "{body}");
    assert_eq!(footer_summary(footer), "--- schema: text summary");
    let footer = fixture.footer("schema", json!({"file": "out.txt", "path": "$.a"}));
    assert!(
        footer.contains("`path` applies to JSON only and was ignored: `out.txt` is text"),
        "{footer}"
    );
}

#[test]
fn a_broken_json_file_is_summarised_as_text_with_where_it_breaks() {
    let fixture = Fixture::new(&[("b.json", b"{\n  \"a\": 1,\n}\n")]);
    let footer = fixture.footer("schema", json!({"file": "b.json"}));
    assert!(
        footer.contains(
            "not valid JSON (line 3, column 1: a trailing comma before `}` is not allowed in JSON)"
        ),
        "{footer}"
    );
}

#[test]
fn schema_on_100_000_deep_nesting_returns_with_truncation() {
    for (name, doc) in [
        ("arrays.json", deep_arrays(100_000)),
        ("objects.json", deep_objects(100_000)),
    ] {
        let fixture = Fixture::new(&[(name, doc.as_bytes())]);
        let text = fixture.call("schema", json!({"file": name, "max_depth": 100}));
        let (body, footer) = split(&text);
        assert_eq!(body.lines().count(), 65, "{name}");
        assert!(body.ends_with("…truncated"), "{name}");
        assert!(footer.contains("max_depth is capped at 64"), "{footer}");
        assert!(
            footer.contains("…truncated marks nesting deeper than 64 levels"),
            "{footer}"
        );
        let shallow = fixture.body("schema", json!({"file": name}));
        assert_eq!(shallow.lines().count(), 5);
    }
}

#[test]
fn schema_errors_are_clear() {
    let fixture = Fixture::new(&[("a.json", b"{\"a\": 1}")]);
    assert_eq!(
        fixture.error("schema", json!({"file": "a.json", "max_depth": 0}))["argument"],
        "max_depth"
    );
    assert_eq!(
        fixture.error("schema", json!({"file": "a.json", "path": "$.b"}))["error"],
        "path_not_found"
    );
}

#[test]
fn schema_too_large_retries_with_half_the_depth() {
    let Some(pods) = pods(20) else { return };
    let fixture = Fixture::with_budget(&[("pods.json", pods.as_bytes())], 128_000, 300, 0);
    let error = fixture.error("schema", json!({"file": "pods.json", "max_depth": 8}));
    assert_eq!(error["error"], "schema_too_large");
    assert_eq!(error["retry"]["tool"], "schema");
    assert!(error["retry"]["arguments"]["max_depth"].as_u64().unwrap() < 8);
}

#[test]
fn schema_of_markdown_with_120_000_headings_is_cut_to_fit_at_any_depth() {
    // Issue 22, item 5: each heading rescanned every earlier one (80,000 headings: 32 s;
    // 120,000: over a minute at max_depth 64), and no retry fitted: the outline is now one
    // linear pass, cut to what fits with a note saying where the rest starts.
    let text: String = (0..120_000)
        .map(|i| format!("# heading {i}\ntext\n"))
        .collect();
    let fixture = Fixture::new(&[("notes.md", text.as_bytes())]);
    let answer = fixture.call("schema", json!({"file": "notes.md", "max_depth": 64}));
    let (body, footer) = split(&answer);
    assert!(body.starts_with("markdown: 240,000 lines, 120,000 headings\n# heading 0 [L1-L2]\n"));
    let shown = body.lines().count() as u64 - 1;
    assert!(shown > 100 && shown < 120_000, "{shown}");
    assert!(
        footer.contains(&format!(
            "outline cut to fit: {} of 120,000 headings shown; the next starts at line {}",
            crate::numbered::thousands(shown),
            crate::numbered::thousands(2 * shown + 1)
        )),
        "{footer}"
    );
}
