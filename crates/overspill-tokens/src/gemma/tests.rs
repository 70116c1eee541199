use proptest::prelude::*;

use super::*;

#[test]
fn what_is_your_name_is_five_tokens() {
    assert_eq!(gemma3().count("What is your name?"), 5);
}

#[test]
fn hello_world_is_four_tokens() {
    assert_eq!(gemma3().count("Hello, world!"), 4);
}

#[test]
fn empty_text_is_zero_tokens() {
    assert_eq!(gemma3().count(""), 0);
    assert_eq!(gemma3().count_up_to("", 0), Some(0));
}

#[test]
fn tag_gap_is_one_piece_as_in_sentencepiece() {
    // C++ SentencePiece gives [107068]; kitoken's own whitespace split
    // would give two tokens.
    assert_eq!(gemma3_token_ids("> </"), [107_068]);
}

#[test]
fn user_defined_pieces_match_and_control_pieces_are_text() {
    assert_eq!(gemma3_token_ids("<start_of_turn>user"), [105, 2364]);
    assert_eq!(gemma3_token_ids("<bos>").len(), 3);
}

#[test]
fn embedded_model_is_the_gemma3_release() {
    assert_eq!(MODEL.len(), 4_689_074);
    let model = &*GEMMA3;
    assert_eq!(model.longest_token_bytes, 48);
    // Pairs found in some piece: enough to matter, few enough that most
    // boundaries in real text are safe cuts.
    assert!(
        (30_000..40_000).contains(&model.cuts.len()),
        "{}",
        model.cuts.len()
    );
}

#[test]
fn every_byte_has_a_fallback_piece_so_encoding_never_skips_or_fails() {
    let definition = Definition::from_sentencepiece_slice(MODEL).unwrap();
    let Model::BytePair { vocab, .. } = &definition.model else {
        panic!("Gemma 3 is a BPE model");
    };
    let single: std::collections::HashSet<u8> = vocab
        .iter()
        .filter(|t| t.bytes.len() == 1)
        .map(|t| t.bytes[0])
        .collect();
    assert_eq!(single.len(), 256);
}

#[test]
fn text_bytes_counts_a_space_mark_as_one_byte() {
    assert_eq!(text_bytes("▁▁ab".as_bytes()), 4);
    assert_eq!(text_bytes(b"abc"), 3);
    assert_eq!(text_bytes(&[0xE6]), 1);
}

#[test]
fn count_up_to_gives_up_at_once_when_bytes_prove_the_text_too_long() {
    let text = "x".repeat(48 * 10 + 1);
    assert_eq!(GEMMA3.count_up_to_with(&text, BATCH_BYTES, 10), None);
}

#[test]
fn chunked_count_equals_whole_text_count_on_json_and_logs() {
    let text = concat!(
            "{\"items\": [{\"name\": \"api-7d9f\", \"labels\": {\"app\": \"api\"}}, ",
            "{\"name\": \"worker-1\", \"phase\": \"Running\"}]}\n",
            "2026-11-12T00:00:01.696Z INFO  [inventory] request_id=c17149d GET /api/v1/cart 204 2312ms\n",
            "<div> </div>    \t\t\n\n\n漢字かな🙂‍↔️ ▁▁ x\u{a0}y\u{3000}z",
        )
        .repeat(20);
    let whole = GEMMA3
        .tokenizer
        .encode(&text, USER_DEFINED)
        .unwrap_or_default();
    for chunk_bytes in [1, 2, 3, 7, 64, 1000] {
        let mut ids = Vec::new();
        for chunk in GEMMA3.cuts.chunks(&text, chunk_bytes) {
            ids.extend(GEMMA3.encode_chunk(chunk));
        }
        assert_eq!(ids, whole, "chunk target {chunk_bytes}");
    }
}

#[test]
fn remembered_chunk_counts_give_the_whole_text_count_on_repetitive_text() {
    let line =
        "{\"name\": \"api-7d9f\", \"ready\": true, \"restarts\": 17}, > </ x \u{3000}▁ 漢字\n";
    let text = line.repeat(300);
    let whole = GEMMA3
        .tokenizer
        .encode(&text, USER_DEFINED)
        .unwrap_or_default()
        .len();
    for batch_bytes in [1, 5, 64, BATCH_BYTES] {
        assert_eq!(
            tally::count_up_to(&GEMMA3, &text, batch_bytes, usize::MAX),
            Some(whole),
            "batch {batch_bytes}"
        );
    }
    assert_eq!(gemma3().count(&text), whole);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    /// Cutting at every safe boundary gives the same ids as encoding the
    /// text whole.
    #[test]
    fn cutting_anywhere_safe_never_changes_the_ids(text in gemma_text()) {
        let whole = GEMMA3.tokenizer.encode(&text, USER_DEFINED).unwrap_or_default();
        let mut ids = Vec::new();
        for chunk in GEMMA3.cuts.chunks(&text, 1) {
            ids.extend(GEMMA3.encode_chunk(chunk));
        }
        prop_assert_eq!(ids, whole);
    }

    /// Counting by remembered chunks, with any batch size and limit,
    /// agrees with encoding the text whole.
    #[test]
    fn tally_agrees_with_the_whole_text_count(text in gemma_text(), repeats in 1..4usize) {
        let text = text.repeat(repeats);
        let n = GEMMA3.tokenizer.encode(&text, USER_DEFINED).unwrap_or_default().len();
        for batch_bytes in [1, 3, BATCH_BYTES] {
            for limit in [n.saturating_sub(1), n, n + 1] {
                let expected = (n <= limit).then_some(n);
                prop_assert_eq!(GEMMA3.count_up_to_with(&text, batch_bytes, limit), expected);
            }
        }
    }
}

/// Short strings over an alphabet that exercises merges across spaces,
/// tags, user-defined pieces and multi-byte characters.
fn gemma_text() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        " ",
        "  ",
        "\t",
        "\n",
        "\n\n",
        "\r\n",
        "\u{a0}",
        "\u{3000}",
        "▁",
        "a",
        "e",
        "th",
        "ing",
        "The",
        "<",
        ">",
        "</",
        "> </",
        "<div>",
        "{\"",
        "\":",
        "\",",
        "}",
        "[",
        "]",
        "0",
        "42",
        "2026-11-12",
        "漢",
        "字",
        "かな",
        "한국",
        "Ж",
        "ω",
        "ن",
        "क",
        "ก",
        "🙂",
        "👩‍💻",
        "\u{200d}",
        "\u{fe0f}",
        "\u{0301}",
        "\u{0}",
        "\u{7f}",
        "<start_of_turn>",
        "<end_of_turn>",
        "<bos>",
        "<mask>",
        "...",
        "……",
        "====",
    ]);
    prop::collection::vec(atoms, 0..24).prop_map(|atoms| atoms.concat())
}
