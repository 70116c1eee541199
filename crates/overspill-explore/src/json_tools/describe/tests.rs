use overspill_json::{parse, resolve};

use super::*;

#[test]
fn compact_sizes_read_short() {
    let shown: Vec<_> = [
        0,
        999,
        1_000,
        1_234,
        12_345,
        99_999,
        1_200_000,
        3_000_000_000,
    ]
    .into_iter()
    .map(compact)
    .collect();
    assert_eq!(
        shown,
        ["0", "999", "1k", "1.2k", "12k", "99k", "1.2M", "3G"]
    );
}

#[test]
fn shapes_are_described_by_kind_and_size() {
    let src = br#"[{"a": "xy", "b": [1, 2]}, {"a": null, "b": [{"c": 1}]}, 7]"#;
    let tape = parse(src).unwrap();
    let shape = Shape::of_items(tape.root(src));
    assert_eq!(type_names(&shape), "object|number");
    let a = &shape.fields[0].1;
    assert_eq!(type_names(a), "string|null");
    assert_eq!(describe(a, Kind::String), "string(2 chars)");
    assert_eq!(
        describe(&shape.fields[1].1, Kind::Array),
        "array(1-2 items)"
    );
}

const SRC: &[u8] =
    br#"{"items": [{"name": "a", "ports": {"8080": "http"}}, {"name": "b"}], "n": 3}"#;

fn miss(path: &str) -> String {
    let tape = parse(SRC).unwrap();
    let path = JsonPath::parse(path).unwrap();
    explain(&resolve(tape.root(SRC), &path).unwrap_err(), &path)
}

#[test]
fn a_missed_path_is_explained_with_what_is_there_instead() {
    assert_eq!(
        miss("$.items[0].nme"),
        "$.items[0].nme does not exist: $.items[0] has no key `nme`; its keys are in available_keys. Call schema to see the structure."
    );
    assert!(miss("$.items[9].name").contains("indexes run 0 to 1"));
    assert!(miss("$.items.name").contains("index it like $.items[0]"));
}

#[test]
fn a_miss_in_a_large_object_says_how_many_keys_are_listed() {
    let keys = (0..120).map(|i| (format!("k{i}"), serde_json::Value::from(i)));
    let src = serde_json::Value::Object(keys.collect()).to_string();
    let tape = parse(src.as_bytes()).unwrap();
    let path = JsonPath::parse("$.nope").unwrap();
    let miss = resolve(tape.root(src.as_bytes()), &path).unwrap_err();
    assert!(explain(&miss, &path).contains("it has 120 keys, the first 50 are in available_keys"));
}
