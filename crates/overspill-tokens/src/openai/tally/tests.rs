use proptest::prelude::*;

use super::*;

fn segments(text: &str) -> Vec<&str> {
    LineCuts::new(text).collect()
}

#[test]
fn pretty_json_lines_become_segments() {
    let text = "{\n    \"a\": 1,\n    \"b\": [\n        true\n    ]\n}\n";
    assert_eq!(
        segments(text),
        [
            "{\n",
            "    \"a\": 1,\n",
            "    \"b\": [\n",
            "        true\n",
            "    ]\n",
            "}\n"
        ]
    );
}

#[test]
fn cuts_only_after_the_last_newline_of_a_run_and_never_before_a_slash() {
    assert_eq!(segments("a\n\nb"), ["a\n\n", "b"]);
    assert_eq!(segments("a\n  \n b"), ["a\n  \n", " b"]);
    assert_eq!(segments("a\n   "), ["a\n   "]);
    assert_eq!(segments("}\n/usr"), ["}\n/usr"]);
    assert_eq!(segments("}\n  /usr"), ["}\n", "  /usr"]);
    assert_eq!(segments("x\n\u{a0}y"), ["x\n\u{a0}y"]);
    assert_eq!(segments("x\n\ty"), ["x\n", "\ty"]);
}

#[test]
fn segments_reassemble_the_text() {
    let text = "2026-11-12 INFO a\n2026-11-12 WARN b\r\n\n  c\n";
    assert_eq!(segments(text).concat(), text);
    assert!(segments("").is_empty());
}

fn both() -> [&'static Tokenizer; 2] {
    [bpe_openai::o200k_base(), bpe_openai::cl100k_base()]
}

#[test]
fn remembered_count_equals_the_plain_count_on_repetitive_text() {
    let text =
        "{\n    \"name\": \"pod-1\",\n    \"ready\": true\n},\n".repeat(300) + "}\n/x\n\n  \n";
    for tokenizer in both() {
        assert_eq!(count(tokenizer, &text), tokenizer.count(text.as_str()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// Every segment boundary is a piece boundary of the whole text.
    #[test]
    fn segments_count_like_the_whole_text(
        text in "([a-zA-Z]{1,4}|[0-9]{1,4}|[ \t]{1,3}|\n|\r\n|\r|[{}\\[\\]\",:/.!'-]{1,2}|\u{a0}|\u{3000}|漢|🙂){0,24}"
    ) {
        for tokenizer in both() {
            let whole = tokenizer.count(text.as_str());
            let parts: usize = LineCuts::new(&text).map(|s| tokenizer.count(s)).sum();
            prop_assert_eq!(parts, whole);
            prop_assert_eq!(count(tokenizer, &text), whole);
        }
    }
}
