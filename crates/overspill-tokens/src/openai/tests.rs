use super::*;

#[test]
fn names_are_the_encoding_names() {
    assert_eq!(o200k().name(), "o200k_base");
    assert_eq!(cl100k().name(), "cl100k_base");
}

#[test]
fn empty_text_has_no_tokens() {
    for counter in [o200k(), cl100k()] {
        assert_eq!(counter.count(""), 0);
        assert_eq!(counter.count_up_to("", 0), Some(0));
        assert!(counter.fits_within("", 0));
    }
}

#[test]
fn count_up_to_stops_at_the_limit_on_a_large_text() {
    let text = "{\"name\": \"pod-1\", \"ready\": true}\n".repeat(50_000);
    for counter in [o200k(), cl100k()] {
        let n = counter.count(&text);
        assert_eq!(counter.count_up_to(&text, 100), None);
        assert_eq!(counter.count_up_to(&text, n - 1), None);
        assert_eq!(counter.count_up_to(&text, n), Some(n));
    }
}

#[test]
fn count_up_to_refuses_one_huge_word_from_its_length_alone() {
    // bpe-openai's pre-tokenizer would walk all 10 MB of a single word; the longest-token
    // bound answers first, and still exactly at the edges.
    for counter in [&O200K, &CL100K] {
        let longest = counter.longest_token_bytes();
        assert!((16..=1024).contains(&longest), "{longest}");
        let word = "a".repeat(10_000_000);
        assert_eq!(counter.count_up_to(&word, 5120), None);
        let short = "a".repeat(longest * 3);
        let n = counter.count(&short);
        assert_eq!(counter.count_up_to(&short, n), Some(n));
        assert_eq!(counter.count_up_to(&short, n - 1), None);
    }
}

#[test]
fn remembering_pieces_gives_the_same_count_as_counting_each() {
    let text = "{\"name\": \"pod-1\", \"ready\": true}\n".repeat(500) + &"x".repeat(100);
    assert!(text.len() >= REMEMBER_FROM_BYTES);
    for (counter, tokenizer) in [
        (o200k(), bpe_openai::o200k_base()),
        (cl100k(), bpe_openai::cl100k_base()),
    ] {
        assert_eq!(
            counter.count(&text),
            tokenizer.count(text.as_str()),
            "{}",
            counter.name()
        );
    }
}

#[test]
fn fits_within_takes_the_byte_shortcut_and_falls_back_to_counting() {
    // 13 bytes, 4 tokens: the byte length decides limits of 13 and up;
    // below that the count does.
    let text = "Hello, world!";
    for counter in [o200k(), cl100k()] {
        assert!(counter.fits_within(text, 13));
        assert!(counter.fits_within(text, 4));
        assert!(!counter.fits_within(text, 3));
    }
}
