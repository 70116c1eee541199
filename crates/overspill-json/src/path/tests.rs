use super::*;

fn key(k: &str) -> Segment {
    Segment::Key(k.to_owned())
}

fn segments(text: &str) -> Vec<Segment> {
    JsonPath::parse(text).unwrap().segments().to_vec()
}

#[test]
fn every_spec_form_parses() {
    assert!(segments("$").is_empty());
    assert_eq!(segments("$.a.b"), [key("a"), key("b")]);
    assert_eq!(
        segments("$.items[3].name"),
        [key("items"), Segment::Index(3), key("name")]
    );
    assert_eq!(segments(r#"$["key.with.dots"]"#), [key("key.with.dots")]);
    assert_eq!(
        segments("items.3.name"),
        [key("items"), Segment::Index(3), key("name")]
    );
    assert_eq!(segments("$[0][1]"), [Segment::Index(0), Segment::Index(1)]);
    assert_eq!(segments("$.items[-1]"), [key("items"), Segment::FromEnd(1)]);
    assert_eq!(segments("['single.quoted']"), [key("single.quoted")]);
    assert_eq!(segments(" $.a "), [key("a")]);
}

#[test]
fn a_key_named_0_is_reachable_with_brackets_and_prints_back_with_them() {
    let path = JsonPath::parse(r#"$["0"]"#).unwrap();
    assert_eq!(path.segments(), [key("0")]);
    assert_eq!(path.to_string(), r#"$["0"]"#);
    assert_eq!(segments("$.0"), [Segment::Index(0)]);
}

#[test]
fn display_is_the_canonical_dollar_dot_form() {
    for (given, canonical) in [
        ("items.3.name", "$.items[3].name"),
        ("$", "$"),
        (r#"$["plain"]"#, "$.plain"),
        (r#"$["a b"]["x\"y"]"#, r#"$["a b"]["x\"y"]"#),
        (
            "$.labels['app.kubernetes.io/name']",
            r#"$.labels["app.kubernetes.io/name"]"#,
        ),
        ("$.a[-2]", "$.a[-2]"),
        ("metadata.pod-template-hash", "$.metadata.pod-template-hash"),
    ] {
        let path = JsonPath::parse(given).unwrap();
        assert_eq!(path.to_string(), canonical, "{given}");
        assert_eq!(
            JsonPath::parse(canonical).unwrap(),
            path,
            "{canonical} reads back"
        );
    }
}

#[test]
fn parse_errors_name_the_failing_segment() {
    for (given, segment) in [
        ("$.items[3x]", "[3x]"),
        ("$.a..b", "."),
        ("$.a.", "."),
        ("$.a[*]", "[*]"),
        ("$.a[", "["),
        (r#"$["unclosed]"#, r#"["unclosed]"#),
        ("$.a.[0]", "."),
        ("$x", "x"),
        ("", ""),
        ("$.a[-0]", "[-0]"),
        ("$.my key", ".my key"),
        (".a", ".a"),
    ] {
        let error = JsonPath::parse(given).unwrap_err();
        assert_eq!(error.segment, segment, "{given}: {error}");
        assert!(error.to_string().contains("paths look like"), "{error}");
    }
}

#[test]
fn relative_fields_accept_a_leading_dot() {
    let path = JsonPath::parse_relative(".metadata.name").unwrap();
    assert_eq!(path.segments(), [key("metadata"), key("name")]);
    let path = JsonPath::parse_relative("status.containerStatuses[0].restartCount").unwrap();
    assert_eq!(
        path.relative_text(),
        ".status.containerStatuses[0].restartCount"
    );
    assert_eq!(
        JsonPath::parse_relative("$.a").unwrap().segments(),
        [key("a")]
    );
    assert!(JsonPath::parse_relative("..a").is_err());
}

#[test]
fn describe_gives_failed_segment_text() {
    assert_eq!(key("name").describe(), "name");
    assert_eq!(Segment::Index(9).describe(), "[9]");
    assert_eq!(key("a.b").describe(), r#"["a.b"]"#);
}

#[test]
fn parse_relative_with_trailing_whitespace_after_a_multibyte_key_does_not_panic() {
    let parsed = JsonPath::parse_relative(".é ");
    let again = JsonPath::parse_relative(".é");
    assert_eq!(parsed.is_ok(), again.is_ok(), "{parsed:?} vs {again:?}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
    #[test]
    fn arbitrary_text_never_panics_and_parsed_paths_print_back(text in "\\PC{0,24}") {
        if let Ok(path) = JsonPath::parse(&text) {
            let printed = path.to_string();
            proptest::prop_assert_eq!(JsonPath::parse(&printed).unwrap(), path);
        }
        let _ = JsonPath::parse_relative(&text);
    }

    #[test]
    fn path_like_text_never_panics(text in "[$.\\[\\]\"'a0-9\\\\ \téß中😀\u{301}-]{0,16}") {
        // Non-ASCII and trailing whitespace are in the alphabet: together they once made
        // `parse_relative` slice inside a character.
        if let Ok(path) = JsonPath::parse(&text) {
            proptest::prop_assert_eq!(JsonPath::parse(&path.to_string()).unwrap(), path);
        }
        let _ = JsonPath::parse_relative(&text);
    }

    #[test]
    fn any_key_round_trips_through_display(key in "\\PC{0,12}") {
        let path = JsonPath::from_segments(vec![Segment::Key(key.clone())]);
        let back = JsonPath::parse(&path.to_string()).unwrap();
        proptest::prop_assert_eq!(back.segments(), &[Segment::Key(key)][..]);
    }
}
