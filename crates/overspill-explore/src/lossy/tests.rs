use super::*;

#[test]
fn invalid_bytes_count_as_one_character_each_run() {
    assert_eq!(char_count(b"ab"), 2);
    assert_eq!(char_count("héllo".as_bytes()), 5);
    assert_eq!(
        char_count(b"a\xff\xfeb"),
        String::from_utf8_lossy(b"a\xff\xfeb").chars().count()
    );
    assert_eq!(char_count(b""), 0);
}

#[test]
fn pieces_are_windows_over_the_lossy_text() {
    assert_eq!(
        piece(b"abcdef", 2, Some(3), usize::MAX),
        Piece {
            text: "cde".into(),
            lossy: false,
            truncated: false
        }
    );
    assert_eq!(
        piece(b"abcdef", 2, Some(3), 2),
        Piece {
            text: "cd".into(),
            lossy: false,
            truncated: true
        }
    );
    assert_eq!(piece(b"abc", 5, Some(3), usize::MAX).text, "");
    assert_eq!(piece(b"abc", 1, None, usize::MAX).text, "bc");
    let p = piece(b"a\xffb", 0, None, usize::MAX);
    assert_eq!(
        p,
        Piece {
            text: "a\u{FFFD}b".into(),
            lossy: true,
            truncated: false
        }
    );
    let literal = piece("a\u{FFFD}b".as_bytes(), 0, None, usize::MAX);
    assert!(!literal.lossy);
}

#[test]
fn prefix_does_not_split_a_character_into_replacement_chars() {
    let text = "ééé".as_bytes();
    let p = prefix(text, 3);
    assert_eq!(
        p,
        Piece {
            text: "é".into(),
            lossy: false,
            truncated: true
        }
    );
    assert!(!prefix(text, 6).truncated);
    assert!(prefix(b"a\xff", 10).lossy);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn piece_matches_std_lossy_decoding(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64), start in 0u64..70, max in 0u64..70) {
        let std_text: Vec<char> = String::from_utf8_lossy(&bytes).chars().collect();
        let expected: String = std_text.iter().skip(start as usize).take(max as usize).collect();
        proptest::prop_assert_eq!(piece(&bytes, start, Some(max), usize::MAX).text, expected);
        proptest::prop_assert_eq!(char_count(&bytes), std_text.len());
    }
}
