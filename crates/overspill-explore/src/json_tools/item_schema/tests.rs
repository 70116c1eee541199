//! Tests of `item_schema`, kept beside the module in a file of their own.

use std::collections::BTreeSet;

use serde_json::json;

use crate::json_tools::test_data::{deep_objects, pods, python};
use crate::test_support::{Fixture, footer_summary, split};

const ITEMS: &str = r#"{"items": [
  {"id": 1, "meta": {"name": "a"}, "note": "x"},
  {"id": 2, "meta": {"name": null}},
  "stray",
  {"id": 4, "note": null}
]}"#;

#[test]
fn item_schema_lists_dotted_keys_types_and_presence_with_the_window_header() {
    let fixture = Fixture::new(&[("i.json", ITEMS.as_bytes())]);
    let text = fixture.call("item_schema", json!({"file": "i.json", "path": "$.items"}));
    let (body, footer) = split(&text);
    assert_eq!(
        body,
        "window: items [0..4) of 4 total\nitems: 3 objects, 1 string\nid: number (3/4 items)\nmeta: object (2/4 items)\nmeta.name: string|null (2/4 items)\nnote: string|null (2/4 items)"
    );
    assert_eq!(
        footer_summary(footer),
        "--- item_schema: $.items (4 items, 4 keys)"
    );
}

#[test]
fn item_schema_windowed_footer_is_pinned() {
    let fixture = Fixture::new(&[("i.json", ITEMS.as_bytes())]);
    let text = fixture.call(
        "item_schema",
        json!({"file": "i.json", "path": "items", "offset": 1, "limit": 2}),
    );
    let (body, footer) = split(&text);
    assert!(
        body.starts_with("window: items [1..3) of 4 total\nitems: 1 object, 1 string\n"),
        "{body}"
    );
    assert_eq!(
        footer_summary(footer),
        "--- item_schema: $.items (items [1..3) of 4 total, 3 keys)"
    );
    let past = fixture.call(
        "item_schema",
        json!({"file": "i.json", "path": "items", "offset": 9}),
    );
    let (body, footer) = split(&past);
    assert_eq!(
        body,
        "window: items [9..9) of 4 total\n(no items in this window)"
    );
    assert_eq!(
        footer_summary(footer),
        "--- item_schema: $.items (items [9..9) of 4 total, 0 keys)"
    );
}

#[test]
fn keys_of_cargo_metadata_packages_match_python() {
    let path = std::path::Path::new("/work/shared/data/cargo-metadata.json");
    let Ok(bytes) = std::fs::read(path) else {
        eprintln!("skipping: {} is not available", path.display());
        return;
    };
    let fixture = Fixture::new(&[("cargo.json", &bytes)]);
    let Some(expected) = python(
        &fixture.path().join("cargo.json"),
        "from collections import Counter\n\
         c = Counter(k for p in data['packages'] for k in p)\n\
         print('\\n'.join(f'{k} {n}' for k, n in sorted(c.items())))",
    ) else {
        return;
    };
    let body = fixture.body(
        "item_schema",
        json!({"file": "cargo.json", "path": "$.packages"}),
    );
    let ours: BTreeSet<String> = body
        .lines()
        .skip(2)
        .filter(|l| !l.contains('.') && !l.contains('['))
        .map(|l| {
            let (key, rest) = l.split_once(": ").unwrap();
            let count = rest.rsplit_once(" (").unwrap().1.split('/').next().unwrap();
            format!("{key} {count}")
        })
        .collect();
    let theirs: BTreeSet<String> = expected.lines().map(str::to_owned).collect();
    assert_eq!(ours, theirs);
}

#[test]
fn item_schema_presence_counts_match_python_on_pods() {
    let Some(pods) = pods(120) else { return };
    let fixture = Fixture::new(&[("pods.json", pods.as_bytes())]);
    let Some(expected) = python(
        &fixture.path().join("pods.json"),
        "print(sum(1 for p in data['items'] if 'waiting' in p['status']['containerStatuses'][0]['state']))",
    ) else {
        return;
    };
    let body = fixture.body(
        "item_schema",
        json!({"file": "pods.json", "path": "$.items"}),
    );
    let line = body
        .lines()
        .find(|l| l.starts_with("status.containerStatuses[].state.waiting: "))
        .unwrap();
    assert_eq!(
        line,
        format!("status.containerStatuses[].state.waiting: object ({expected}/120 items)")
    );
}

#[test]
fn item_schema_on_100_000_deep_nesting_returns_with_truncation() {
    let doc = format!("[{}]", deep_objects(100_000));
    let fixture = Fixture::new(&[("deep.json", doc.as_bytes())]);
    let text = fixture.call("item_schema", json!({"file": "deep.json", "path": "$"}));
    let (body, footer) = split(&text);
    assert!(
        body.lines()
            .last()
            .unwrap()
            .ends_with("…truncated (nested deeper than 64 levels)")
    );
    assert!(
        footer.contains("keys nested deeper than 64 levels are cut"),
        "{footer}"
    );
}

#[test]
fn item_schema_on_an_object_is_not_an_array() {
    let fixture = Fixture::new(&[("i.json", ITEMS.as_bytes())]);
    let error = fixture.error("item_schema", json!({"file": "i.json", "path": "$"}));
    assert_eq!(error["error"], "not_an_array");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("$ is an object(1 key)"),
        "{error}"
    );
}
