//! `o200k_base` and `cl100k_base` counts equal `tiktoken-rs`'s.

use overspill_tokens::{TokenCounter, cl100k, o200k};
use proptest::prelude::*;
use tiktoken_rs::{CoreBPE, cl100k_base_singleton, o200k_base_singleton};

use crate::samples::{hard_cases, shared_data_files};

fn pairs() -> [(&'static dyn TokenCounter, &'static CoreBPE); 2] {
    [
        (o200k(), o200k_base_singleton()),
        (cl100k(), cl100k_base_singleton()),
    ]
}

fn assert_same_count(text: &str, what: &str) {
    for (counter, reference) in pairs() {
        assert_eq!(
            counter.count(text),
            reference.encode_ordinary(text).len(),
            "{} on {what}",
            counter.name()
        );
    }
}

#[test]
fn openai_counts_equal_tiktoken_on_the_sample_files() {
    let Some(files) = shared_data_files() else {
        return;
    };
    assert!(!files.is_empty());
    for (name, text) in files {
        assert_same_count(&text, &name);
    }
}

#[test]
fn openai_counts_equal_tiktoken_on_cjk_emoji_whitespace_and_special_look_alikes() {
    for (what, text) in hard_cases() {
        assert_same_count(&text, what);
    }
}

#[test]
fn endoftext_is_counted_as_plain_text() {
    // As ordinary text it is several tokens, never the single special token.
    for (counter, reference) in pairs() {
        let n = counter.count("<|endoftext|>");
        assert!(n > 1, "{}", counter.name());
        assert_eq!(n, reference.encode_ordinary("<|endoftext|>").len());
    }
}

#[test]
fn openai_counts_equal_tiktoken_on_a_megabyte_of_one_repeated_char() {
    for c in ["a", "\n", "7", "漢"] {
        let text = c.repeat(1_000_000 / c.len());
        assert_same_count(&text, &format!("1 MB of {c:?}"));
    }
}

#[test]
fn openai_counts_equal_tiktoken_on_a_long_run_of_spaces() {
    // 100 KB: on 1 MB of spaces tiktoken-rs's o200k regex overflows its
    // backtracking stack and panics, so it cannot be the reference there.
    assert_same_count(&" ".repeat(100_000), "100 KB of spaces");
}

#[test]
fn a_megabyte_of_spaces_counts_like_its_cl100k_reference() {
    // Where tiktoken-rs gives up on o200k, ours still counts. The two
    // encodings split a space run into the same tokens (they agree on the
    // 100 KB run above), so tiktoken-rs's cl100k count is the reference.
    let text = " ".repeat(1_000_000);
    let expected = cl100k_base_singleton().encode_ordinary(&text).len();
    assert_eq!(o200k().count(&text), expected);
    assert_eq!(cl100k().count(&text), expected);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

    #[test]
    fn openai_counts_equal_tiktoken_on_random_unicode(text in "\\PC{0,40}") {
        for (counter, reference) in pairs() {
            prop_assert_eq!(counter.count(&text), reference.encode_ordinary(&text).len());
        }
    }

    #[test]
    fn openai_counts_equal_tiktoken_on_random_text_with_whitespace_and_punctuation(
        text in "([a-zA-Z0-9]{1,8}|[ \t\n\r]{1,5}|[\\p{P}\\p{S}]{1,3}|\\p{Han}{1,3}|'(s|t|re|ll)){0,16}"
    ) {
        for (counter, reference) in pairs() {
            prop_assert_eq!(counter.count(&text), reference.encode_ordinary(&text).len());
        }
    }
}
