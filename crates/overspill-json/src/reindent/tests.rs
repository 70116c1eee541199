use super::*;

fn pretty(text: &str) -> String {
    match reindent(text) {
        Reindent::Pretty(p) => p.text,
        other => panic!("{text:?} did not re-indent: {other:?}"),
    }
}

#[test]
fn reindent_matches_the_usual_two_space_layout() {
    let got = pretty(r#"{"b":1,"a":[true,null,{}],"c":{"d":[]},"e":"x"}"#);
    let want = "{\n  \"b\": 1,\n  \"a\": [\n    true,\n    null,\n    {}\n  ],\n  \"c\": {\n    \"d\": []\n  },\n  \"e\": \"x\"\n}\n";
    assert_eq!(got, want);
}

#[test]
fn reindent_agrees_with_serde_json_pretty_printing_on_ordinary_documents() {
    let text = r#" { "kind":"PodList", "items":[ {"name":"a","ports":[80,443],"labels":{}} , {"name":"b"} ], "n":-12.5 } "#;
    let value: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        pretty(text),
        serde_json::to_string_pretty(&value).unwrap() + "\n"
    );
}

#[test]
fn reindent_keeps_numbers_and_escapes_exactly_as_written() {
    let text = r#"[1.0,1E400,-0,123456789012345678901234567890,"\u00e9\n\/"]"#;
    let got = pretty(text);
    for token in [
        "1.0",
        "1E400",
        "-0",
        "123456789012345678901234567890",
        r#""\u00e9\n\/""#,
    ] {
        assert!(got.contains(&format!("  {token}")), "{token} lost in {got}");
    }
}

#[test]
fn reindent_is_idempotent() {
    let once = pretty(r#"{"a":[1,[2,[3]],{"b":{"c":[]}}],"d":"e"}"#);
    assert_eq!(pretty(&once), once);
}

#[test]
fn reindent_reports_top_level_string_members_only() {
    let text = r#"{"a":"x","b":{"c":"deep"},"d":[ "in array" ],"e" : "y"}"#;
    let Reindent::Pretty(p) = reindent(text) else {
        panic!("not JSON")
    };
    let found: Vec<(&str, &str)> = p
        .top_level_strings
        .iter()
        .map(|(k, v)| (&text[k.clone()], &text[v.clone()]))
        .collect();
    assert_eq!(found, [(r#""a""#, r#""x""#), (r#""e""#, r#""y""#)]);
}

#[test]
fn grammar_errors_are_rejected() {
    for bad in [
        "",
        "{",
        "[1,]",
        "{\"a\"}",
        "{\"a\":}",
        "{a:1}",
        "[01]",
        "[1.]",
        "[.5]",
        "[1e]",
        "[-]",
        "[tru]",
        "[\"\\x\"]",
        "[\"\\u12g4\"]",
        "[\"raw\ttab\"]",
        "[1] [2]",
        "[1}",
        "{\"a\":1]",
        "[\"unterminated]",
        "['single']",
        "[NaN]",
        "[+1]",
    ] {
        assert!(!is_json(bad), "{bad:?} accepted");
        assert_eq!(reindent(bad), Reindent::Invalid, "{bad:?}");
    }
}

#[test]
fn scalars_and_surrounding_whitespace_are_valid_json_values() {
    for good in [
        "1",
        " \"s\" ",
        "null",
        "\n[ ]\r\n",
        "{\"\":\"\"}",
        "-0.5E+2",
    ] {
        assert!(is_json(good), "{good:?} rejected");
    }
}

#[test]
fn nesting_100_000_deep_neither_crashes_nor_balloons() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(is_json(&deep));
    assert_eq!(reindent(&deep), Reindent::TooLarge);
}

#[test]
fn deep_invalid_json_is_invalid_even_when_the_indenter_gives_up_first() {
    // The size guard trips before the scanner reaches the garbage at the end.
    let deep = format!("{}x", "[".repeat(100_000));
    assert!(!is_json(&deep));
    assert_eq!(reindent(&deep), Reindent::Invalid);
}

#[test]
fn first_token_byte_skips_json_whitespace_only() {
    assert_eq!(first_token_byte(" \n\t{"), Some(b'{'));
    assert_eq!(first_token_byte("   "), None);
}

/// The text of every number token, in document order, as the tape parser reads it.
fn numbers(src: &str) -> Option<Vec<String>> {
    let tape = crate::parse(src.as_bytes()).ok()?;
    Some(
        tape.nodes
            .iter()
            .filter(|node| node.kind == crate::Kind::Number)
            .map(|node| src[node.a as usize..node.b as usize].to_owned())
            .collect(),
    )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
    #[test]
    fn reindent_succeeds_exactly_when_the_tape_parser_accepts_and_keeps_every_number(
        chars in proptest::collection::vec(proptest::sample::select(
            "{}[]:,\"\\ \n\t0123456789-+.eEtrufalsn\u{1}éab".chars().collect::<Vec<_>>()), 0..48)
    ) {
        let text: String = chars.into_iter().collect();
        let parsed = numbers(&text);
        match reindent(&text) {
            Reindent::Pretty(pretty) => {
                proptest::prop_assert!(parsed.is_some(), "re-indented, not parsed: {:?}", text);
                proptest::prop_assert_eq!(numbers(&pretty.text), parsed.clone(), "{:?}", text);
            }
            Reindent::TooLarge => proptest::prop_assert!(parsed.is_some(), "{:?}", text),
            Reindent::Invalid => proptest::prop_assert!(parsed.is_none(), "parsed, not re-indented: {:?}", text),
        }
        proptest::prop_assert_eq!(is_json(&text), parsed.is_some(), "{:?}", text);
    }
}

/// JSON texts with numbers written every way the grammar allows, and random spacing.
fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let number = "-?(0|[1-9][0-9]{0,30})(\\.[0-9]{1,5})?([eE][+-]?[0-9]{1,4})?";
    let leaf = prop_oneof![
        proptest::string::string_regex(number).expect("a valid regex"),
        Just("true".to_owned()),
        Just("null".to_owned()),
        "\"[a-zé\\\\n]{0,4}\"".prop_map(|s| s.replace('\\', "\\\\")),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            (proptest::collection::vec(inner.clone(), 0..5), " ?\n?")
                .prop_map(|(items, ws)| format!("[{ws}{}]", items.join(&format!(",{ws}")))),
            proptest::collection::vec(("[a-z]{0,3}", inner), 0..5).prop_map(|members| {
                let members: Vec<String> = members
                    .iter()
                    .map(|(k, v)| format!("\"{k}\" : {v}"))
                    .collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
    #[test]
    fn reindent_keeps_every_number_of_a_valid_document(text in json_text()) {
        let parsed = numbers(&text);
        proptest::prop_assert!(parsed.is_some(), "{:?}", text);
        let Reindent::Pretty(pretty) = reindent(&text) else {
            return Err(proptest::test_runner::TestCaseError::fail(format!("{text:?}")));
        };
        proptest::prop_assert_eq!(numbers(&pretty.text), parsed);
    }
}

#[test]
fn reindent_and_the_tape_parser_agree_on_structured_documents() {
    for text in [
        r#"{"a": [1.5e-3, -0, 123456789012345678901234567890, 1E400], "b": {"c": [true, null]}}"#,
        "[[[[]]], {}, \"\\u00e9\", 0.000]",
    ] {
        let Reindent::Pretty(pretty) = reindent(text) else {
            panic!("{text} did not re-indent")
        };
        assert_eq!(numbers(&pretty.text), numbers(text));
    }
}
