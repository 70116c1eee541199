use super::*;

fn table(pieces: &[&str]) -> CutTable {
    CutTable::from_pieces(pieces.iter().map(|p| p.as_bytes()))
}

#[test]
fn pairs_inside_pieces_join_and_others_do_not() {
    let t = table(&["abc", "▁x", "漢字"]);
    assert!(t.joins('a', 'b'));
    assert!(t.joins('b', 'c'));
    assert!(!t.joins('a', 'c'));
    assert!(t.joins(' ', 'x'), "a space is matched as ▁");
    assert!(t.joins('▁', 'x'), "a literal ▁ is the same symbol");
    assert!(t.joins('漢', '字'));
    assert!(!t.joins('字', '漢'));
    assert_eq!(t.len(), 4);
}

#[test]
fn lone_bytes_are_ignored_and_other_invalid_utf8_forbids_all_cuts() {
    let lone = CutTable::from_pieces([&[0xE6u8][..], b"ab"]);
    assert!(!lone.opaque);
    let opaque = CutTable::from_pieces([&[0xE6u8, 0x97][..]]);
    assert!(opaque.opaque);
    let text = "xy".repeat(100);
    assert_eq!(opaque.chunks(&text, 4).count(), 1);
}

#[test]
fn chunks_cut_only_between_pairs_no_piece_contains() {
    let t = table(&["aa", "bb"]);
    let chunks: Vec<&str> = t.chunks("aaaabbbbaaaa", 2).collect();
    assert_eq!(chunks, ["aaaa", "bbbb", "aaaa"]);
}

#[test]
fn chunks_reassemble_the_text_and_respect_char_boundaries() {
    let t = table(&["ab"]);
    let text = "ab漢ab字ab🙂ab ab\u{3000}ab".repeat(7);
    for target in 1..20 {
        let chunks: Vec<&str> = t.chunks(&text, target).collect();
        assert_eq!(chunks.concat(), text, "target = {target}");
        assert!(chunks.iter().all(|c| !c.is_empty()));
        for pair in chunks.windows(2) {
            let left = pair[0].chars().next_back();
            let right = pair[1].chars().next();
            assert!(
                !matches!((left, right), (Some('a'), Some('b'))),
                "cut inside a piece at target {target}"
            );
        }
    }
}

#[test]
fn a_text_without_safe_boundaries_stays_whole() {
    let t = table(&["aa"]);
    let text = "a".repeat(1000);
    assert_eq!(t.chunks(&text, 10).collect::<Vec<_>>(), [text.as_str()]);
}

#[test]
fn empty_text_has_no_chunks() {
    assert_eq!(table(&["ab"]).chunks("", 4).count(), 0);
}
