use super::*;

fn all_lines(bytes: &[u8]) -> Vec<(u64, String)> {
    let index = LineIndex::build(bytes);
    index
        .lines(bytes, 1, u64::MAX)
        .map(|(n, l)| (n, String::from_utf8_lossy(l).into_owned()))
        .collect()
}

#[test]
fn lines_from_the_top_agree_with_the_index() {
    for text in ["", "a", "a\n", "a\nb", "\n\n", "a\r\nb\r\n", "x\ny\nz"] {
        let bytes = text.as_bytes();
        let indexed: Vec<_> = LineIndex::build(bytes).lines(bytes, 1, 2).collect();
        let scanned: Vec<_> = lines_from_top(bytes, 2).collect();
        assert_eq!(scanned, indexed, "{text:?}");
    }
    assert_eq!(lines_from_top(b"a\nb\n", 0).count(), 0);
}

#[test]
fn counts_lines_like_a_text_editor() {
    assert_eq!(LineIndex::build(b"").line_count(), 0);
    assert_eq!(LineIndex::build(b"a").line_count(), 1);
    assert_eq!(LineIndex::build(b"a\n").line_count(), 1);
    assert_eq!(LineIndex::build(b"a\nb").line_count(), 2);
    assert_eq!(LineIndex::build(b"\n\n").line_count(), 2);
}

#[test]
fn line_bytes_exclude_lf_and_crlf_endings() {
    assert_eq!(
        all_lines(b"one\r\ntwo\n\nfour"),
        [
            (1, "one".to_owned()),
            (2, "two".to_owned()),
            (3, String::new()),
            (4, "four".to_owned()),
        ]
    );
}

#[test]
fn every_line_is_found_across_checkpoints() {
    let text: String = (1..=300).map(|i| format!("line {i}\n")).collect();
    let bytes = text.as_bytes();
    let index = LineIndex::build(bytes);
    assert_eq!(index.line_count(), 300);
    for n in [1, 63, 64, 65, 128, 129, 299, 300] {
        let range = index.line(bytes, n).unwrap();
        assert_eq!(&bytes[range], format!("line {n}").as_bytes());
    }
    assert_eq!(index.line(bytes, 301), None);
    assert_eq!(index.line(bytes, 0), None);
    let window: Vec<u64> = index.lines(bytes, 120, 130).map(|(n, _)| n).collect();
    assert_eq!(window, (120..=130).collect::<Vec<_>>());
}

#[test]
fn windows_past_the_end_are_empty_and_ends_are_clamped() {
    let bytes = b"a\nb\nc\n";
    let index = LineIndex::build(bytes);
    assert_eq!(index.lines(bytes, 4, 10).count(), 0);
    assert_eq!(index.lines(bytes, 2, 10).count(), 2);
    assert_eq!(index.lines(bytes, 0, 10).count(), 0);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn index_agrees_with_split_lines(text in "[a\\n\\r]{0,400}") {
        let bytes = text.as_bytes();
        let expected: Vec<String> = text.lines().map(str::to_owned).collect();
        let got: Vec<String> = all_lines(bytes).into_iter().map(|(_, l)| l).collect();
        proptest::prop_assert_eq!(got, expected);
    }
}
