use super::*;
use crate::path::JsonPath;

fn error(src: &str) -> String {
    parse(src.as_bytes()).unwrap_err().to_string()
}

#[test]
fn accepts_what_serde_json_accepts_on_a_corpus() {
    for src in [
        "0",
        "-0.5e+10",
        "\"s\"",
        "[]",
        "{}",
        "[1, [2, [3]], {\"a\": {}}]",
        "{\"a\\u00e9\\n\": [true, false, null]}",
        " \n\t\r[1]\n",
        "\"\u{1F600} é\"",
        "1E5",
    ] {
        assert!(
            serde_json::from_str::<serde_json::Value>(src).is_ok(),
            "{src}"
        );
        assert!(parse(src.as_bytes()).is_ok(), "{src}");
    }
}

#[test]
fn rejects_what_serde_json_rejects_with_a_position() {
    for (src, message) in [
        (
            "",
            "line 1, column 1: the file is empty or holds only whitespace",
        ),
        (
            "[1,]",
            "line 1, column 4: a trailing comma or a missing value before the bracket",
        ),
        (
            "{\"a\": 1,}",
            "line 1, column 9: a trailing comma before `}` is not allowed in JSON",
        ),
        (
            "[01]",
            "line 1, column 3: expected `,` or `]` after an array item",
        ),
        (
            "[1.]",
            "line 1, column 4: a decimal point needs digits after it",
        ),
        (
            "{\"a\" 1}",
            "line 1, column 6: expected `:` after an object key",
        ),
        (
            "[1] 2",
            "line 1, column 5: unexpected text after the JSON value",
        ),
        (
            "[\n  1,\n  2",
            "line 3, column 4: the document ends inside the array opened on line 1",
        ),
        (
            "[\"a\nb\"]",
            "line 1, column 4: a string is not closed before the end of its line",
        ),
        (
            "[\"\\x\"]",
            "line 1, column 3: invalid escape sequence in a string",
        ),
        (
            "['a']",
            "line 1, column 2: strings take double quotes in JSON",
        ),
        ("{1: 2}", "line 1, column 2: expected a quoted object key"),
        ("[-]", "line 1, column 3: a number needs digits"),
        (
            "[\"\t\"]",
            "line 1, column 3: a control character in a string must be escaped",
        ),
    ] {
        assert!(
            serde_json::from_str::<serde_json::Value>(src).is_err(),
            "{src}"
        );
        assert_eq!(error(src), message, "{src:?}");
    }
    assert_eq!(
        parse(b"[\"\xff\"]").unwrap_err().to_string(),
        "line 1, column 3: invalid UTF-8 in a string"
    );
}

#[test]
fn line_ranges_come_from_the_parser_positions() {
    let src = "{\n  \"kind\": \"List\",\n  \"items\": [\n    {\n      \"id\": 1\n    },\n    {\"id\": 2}\n  ]\n}\n";
    let tape = parse(src.as_bytes()).unwrap();
    let root = tape.root(src.as_bytes());
    assert_eq!((root.line(), root.end_line()), (1, 9));
    assert_eq!(root.get("kind").unwrap().line(), 2);
    let items = root.get("items").unwrap();
    assert_eq!((items.line(), items.end_line()), (3, 8));
    let first = items.index(0).unwrap();
    assert_eq!((first.line(), first.end_line()), (4, 6));
    assert_eq!(first.get("id").unwrap().line(), 5);
    let second = items.index(1).unwrap();
    assert_eq!((second.line(), second.end_line()), (7, 7));
    assert_eq!(tape.max_depth(), 3);
}

#[test]
fn nesting_100_000_deep_parses_without_recursion() {
    let depth = 100_000;
    let src = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let tape = parse(src.as_bytes()).unwrap();
    assert_eq!(tape.max_depth(), depth as u32);
    assert_eq!(tape.len(), depth);
    let unclosed = format!("{}1", "{\"a\":".repeat(depth));
    assert!(parse(unclosed.as_bytes()).is_err());
}

fn window(src: &str, path: &str, target: Target) -> Found {
    let path = JsonPath::parse(path).unwrap();
    parse_window(src.as_bytes(), path.segments(), target).unwrap()
}

#[test]
fn a_window_keeps_only_its_items_and_counts_them_all() {
    let src = "{\"a\": {\"items\": [0, {\"x\": 1}, 2, [3], 4]}, \"b\": 5}";
    let Found::Tape { tape, total } = window(
        src,
        "$.a.items",
        Target::Window {
            offset: 1,
            limit: 2,
        },
    ) else {
        panic!("not found")
    };
    assert_eq!(total, 5);
    let root = tape.root(src.as_bytes());
    assert_eq!(root.len(), 2);
    let kept: Vec<_> = root.items().map(|i| i.kind()).collect();
    assert_eq!(kept, [Kind::Object, Kind::Number]);
    assert_eq!(root.index(0).unwrap().get("x").unwrap().raw_str(), "1");
    assert_eq!(tape.len(), 5);
}

#[test]
fn a_window_past_the_end_keeps_nothing() {
    let src = "[[1, 2, 3]]";
    let Found::Tape { tape, total } = window(
        src,
        "$[0]",
        Target::Window {
            offset: 7,
            limit: 2,
        },
    ) else {
        panic!("not found")
    };
    assert_eq!((total, tape.root(src.as_bytes()).len()), (3, 0));
}

#[test]
fn a_streamed_value_matches_the_full_parse() {
    let src = "{\n \"a\": [\n  {\"k\": \"v\"},\n  {\"k\": [1, 2]}\n ],\n \"a.b\": 1\n}";
    let full = parse(src.as_bytes()).unwrap();
    let Found::Tape { tape, total } = window(src, "$.a[1].k", Target::Value) else {
        panic!("not found")
    };
    let streamed = tape.root(src.as_bytes());
    let direct = full
        .root(src.as_bytes())
        .get("a")
        .unwrap()
        .index(1)
        .unwrap()
        .get("k")
        .unwrap();
    assert_eq!(
        (streamed.line(), streamed.len(), total),
        (direct.line(), 2, 2)
    );
    let Found::Tape { tape, .. } = window(src, "$[\"a.b\"]", Target::Value) else {
        panic!("a dotted key is not found")
    };
    assert_eq!(tape.root(src.as_bytes()).raw_str(), "1");
    assert_eq!(window(src, "$.zz", Target::Value), Found::Missing);
    assert_eq!(window(src, "$.a[-1]", Target::Value), Found::Missing);
    assert_eq!(
        window(
            src,
            "$.a[0]",
            Target::Window {
                offset: 0,
                limit: 1
            }
        ),
        Found::NotAnArray(Kind::Object)
    );
}

#[test]
fn a_repeated_key_streams_its_last_value() {
    let src = "{\"a\": [1], \"a\": [7, 8, 9]}";
    let Found::Tape { tape, total } = window(
        src,
        "$.a",
        Target::Window {
            offset: 0,
            limit: 10,
        },
    ) else {
        panic!("not found")
    };
    assert_eq!(total, 3);
    assert_eq!(tape.root(src.as_bytes()).index(0).unwrap().raw_str(), "7");
}

#[test]
fn a_streamed_window_still_validates_the_rest() {
    let src = "{\"a\": [1, 2], \"b\": [1,]}";
    let path = JsonPath::parse("$.a").unwrap();
    assert!(parse_window(src.as_bytes(), path.segments(), Target::Value).is_err());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
    #[test]
    fn agrees_with_serde_json_on_arbitrary_bytes(src in proptest::collection::vec(
        proptest::sample::select(b"{}[]:,\"\\ \n0123456789-+.eEtrufalsn\x01\xc3\xa9ab".to_vec()), 0..40)
    ) {
        let ours = parse(&src).is_ok();
        let theirs = serde_json::from_slice::<serde_json::Value>(&src).is_ok();
        proptest::prop_assert_eq!(ours, theirs, "{:?}", String::from_utf8_lossy(&src));
    }
}
