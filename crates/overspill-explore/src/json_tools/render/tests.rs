use super::*;
use overspill_json::parse;

fn style(path: &JsonPath, cut: Option<StringCut>) -> Style<'_> {
    Style {
        path,
        depth: MAX_DEPTH,
        cut,
    }
}

#[test]
fn pretty_output_matches_serde_json_and_carries_file_lines() {
    let src = "{\n  \"a\": [\n    1,\n    {\"b\": \"x\\ny\"}\n  ],\n  \"e\": {},\n  \"n\": -2.5\n}";
    let tape = parse(src.as_bytes()).unwrap();
    let root = JsonPath::root();
    let shown = pretty(tape.root(src.as_bytes()), style(&root, None), usize::MAX);
    let text: Vec<&str> = shown.lines.iter().map(|(_, t)| t.as_str()).collect();
    let value: serde_json::Value = serde_json::from_str(src).unwrap();
    assert_eq!(
        text.join("\n"),
        serde_json::to_string_pretty(&value).unwrap()
    );
    let numbers: Vec<u32> = shown.lines.iter().map(|(n, _)| *n).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 4, 4, 5, 6, 7, 8]);
    assert!(!shown.stopped);
}

#[test]
fn compact_output_matches_serde_json() {
    let src = r#"{"a": [1, {"b": "x\ny", "c": null}], "u": "\u00e9", "t": true}"#;
    let tape = parse(src.as_bytes()).unwrap();
    let root = JsonPath::root();
    let mut out = String::new();
    let marks = compact(tape.root(src.as_bytes()), style(&root, None), &mut out);
    let value: serde_json::Value = serde_json::from_str(src).unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap(),
        value
    );
    assert_eq!(
        out,
        r#"{"a":[1,{"b":"x\ny","c":null}],"u":"\u00e9","t":true}"#
    );
    assert_eq!(marks, Marks::default());
}

#[test]
fn long_strings_are_cut_with_a_get_in_hint_naming_their_path() {
    let src = r#"{"log": "1\n2\n3\n4\n5\n6\n7", "short": "a\nb", "wide": "abcdefghij"}"#;
    let tape = parse(src.as_bytes()).unwrap();
    let path = JsonPath::parse("$.items[4]").unwrap();
    let mut out = String::new();
    let cut = StringCut {
        max_lines: 5,
        max_chars: 9,
    };
    let marks = compact(tape.root(src.as_bytes()), style(&path, Some(cut)), &mut out);
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        value["log"],
        "1\n2\n3\n4\n5… [cut: 5 of 7 lines; get_in $.items[4].log reads it whole]"
    );
    assert_eq!(value["short"], "a\nb");
    assert_eq!(
        value["wide"],
        "abcdefghi… [cut: 9 of 10 chars; get_in $.items[4].wide reads it whole]"
    );
    assert_eq!(marks.cut_strings, 2);
    assert_eq!(marks.first_cut.as_deref(), Some("$.items[4].log"));
}

#[test]
fn deep_nesting_is_replaced_by_a_truncation_marker() {
    let depth = 100_000;
    let src = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let tape = parse(src.as_bytes()).unwrap();
    let root = JsonPath::root();
    let shown = pretty(tape.root(src.as_bytes()), style(&root, None), usize::MAX);
    assert!(shown.marks.truncated);
    assert_eq!(shown.lines.len(), 2 * MAX_DEPTH + 1);
    let marker = &shown.lines[MAX_DEPTH].1;
    assert!(
        marker.trim_start().starts_with(
            "\"…truncated: array(1 item) nested deeper than 64 levels; get_in $[0][0]"
        ),
        "{marker}"
    );
    let mut out = String::new();
    assert!(compact(tape.root(src.as_bytes()), style(&root, None), &mut out).truncated);
    assert!(out.len() < 2_000);
}

#[test]
fn pretty_stops_at_the_byte_cap() {
    let src = format!("[{}]", vec!["12345"; 1_000].join(","));
    let tape = parse(src.as_bytes()).unwrap();
    let root = JsonPath::root();
    let shown = pretty(tape.root(src.as_bytes()), style(&root, None), 100);
    assert!(shown.stopped);
    assert!(shown.lines.len() < 20);
}
