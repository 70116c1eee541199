use super::*;

fn lines(text: &str, pattern: &str, ignore_case: bool) -> Vec<u64> {
    let pattern = Pattern::new(pattern, ignore_case).unwrap();
    search(text.as_bytes(), &pattern, u64::MAX, Deadline::never()).matching_lines
}

#[test]
fn regex_matches_are_reported_once_per_line_with_absolute_numbers() {
    let text = "alpha\nbeta beta\ngamma\nbeta\n";
    assert_eq!(lines(text, "bet+a", false), [2, 4]);
    assert_eq!(lines(text, "^g", false), [3]);
    assert_eq!(lines(text, "a$", false), [1, 2, 3, 4]);
}

#[test]
fn invalid_regex_falls_back_to_a_literal_search() {
    let pattern = Pattern::new(r#""metric": {"#, false).unwrap();
    assert_eq!(
        pattern.literal_because.as_deref(),
        Some("unclosed counted repetition")
    );
    let text = "{\n  \"metric\": {\n    \"x\": 1\n  },\n  \"metric\": 3\n}\n";
    assert_eq!(
        search(text.as_bytes(), &pattern, 10, Deadline::never()).matching_lines,
        [2]
    );
}

#[test]
fn ignore_case_applies_to_regex_and_literal_patterns() {
    assert_eq!(lines("Error\nerror\nERROR\nok\n", "error", true), [1, 2, 3]);
    assert_eq!(lines("Error\nerror\nERROR\nok\n", "error", false), [2]);
    assert_eq!(lines("A(b\na(B\n", "a(b", true), [1, 2]);
}

#[test]
fn max_matches_keeps_the_first_and_counts_them_all() {
    let text = "x\n".repeat(10);
    let found = search(
        text.as_bytes(),
        &Pattern::new("x", false).unwrap(),
        3,
        Deadline::never(),
    );
    assert_eq!(
        found,
        Found {
            matching_lines: vec![1, 2, 3],
            total_matching_lines: 10,
            stopped_at_line: None,
        }
    );
}

#[test]
fn patterns_that_match_empty_text_or_newlines_stay_on_real_lines() {
    assert_eq!(lines("a\nb\n", "x*", false), [1, 2]);
    assert_eq!(lines("a\nb", "x*", false), [1, 2]);
    assert_eq!(lines("a\n\nb\n", "^$", false), [2]);
    assert_eq!(lines("a\nb\n", r"a\nb", false), [1]);
    assert_eq!(lines("", "x*", false), Vec::<u64>::new());
}

#[test]
fn crlf_lines_match_at_their_end() {
    assert_eq!(lines("one\r\ntwo\r\n", "e$", false), [1]);
}

#[test]
fn pattern_of_1025_bytes_is_refused_and_1024_accepted() {
    assert_eq!(
        Pattern::new(&"a".repeat(1025), false).unwrap_err(),
        PatternError::TooLong(1025)
    );
    assert!(Pattern::new(&"a".repeat(1024), false).is_ok());
    assert_eq!(Pattern::new("", false).unwrap_err(), PatternError::Empty);
}

#[test]
fn oversized_regexes_are_refused_not_compiled() {
    assert_eq!(
        Pattern::new("(a{1000}){1000}", false).unwrap_err(),
        PatternError::TooWide(1_000_000)
    );
    // Defence guarded: our compiled-program cap, below the regex crate's default. This
    // pattern compiles under the default and must not under ours.
    assert!(Regex::new(r"\w{100}").is_ok());
    assert_eq!(
        Pattern::new(r"\w{100}", false).unwrap_err(),
        PatternError::TooComplex
    );
    // Ordinary patterns, Unicode classes included, stay well inside it.
    assert!(Pattern::new(r"\w{60}", false).is_ok());
    assert!(Pattern::new(r"(?i)error|panic|oom\w+", false).is_ok());
}

#[test]
fn counted_repetitions_wider_than_2000_positions_are_refused_before_they_run() {
    // Defence guarded (issue 22, item 5): `a{99999}` compiles within the program cap yet
    // searched 1 MB of `a`s for over two minutes; `[ -~]{50000}` a 1.2 MB line for 19 s.
    for (pattern, width) in [
        ("a{99999}", 99_999),
        ("[ -~]{50000}", 50_000),
        ("(a{100}){21}", 2_100),
        ("(ab){1001}", 2_002),
        ("x.{0,5000}", 5_001),
        ("a{2001,}", 2_002),
    ] {
        assert_eq!(
            Pattern::new(pattern, false).unwrap_err(),
            PatternError::TooWide(width),
            "{pattern}"
        );
    }
    let error = PatternError::TooWide(99_999).to_string();
    assert!(error.contains("99,999 positions"), "{error}");
    for pattern in ["a{2000}", "(ab){1000}", ".{0,1999}", "a+", "(a|b)*c{20}"] {
        assert!(Pattern::new(pattern, false).is_ok(), "{pattern}");
    }
    // A literal 1,024-byte pattern is no repetition: it stays accepted.
    assert!(Pattern::new(&"a".repeat(1024), false).is_ok());
}

#[test]
fn the_widest_accepted_repetition_on_a_megabyte_of_its_letter_finds_its_line() {
    let text = format!("{}\nb\n", "a".repeat(1 << 20));
    let pattern = Pattern::new("a{2000}", false).unwrap();
    let found = search(text.as_bytes(), &pattern, 10, Deadline::never());
    assert_eq!(found.matching_lines, [1]);
}

#[test]
fn a_deadline_already_passed_stops_the_search_before_the_first_line() {
    let text = "x\n".repeat(10);
    let pattern = Pattern::new("x", false).unwrap();
    let found = search(
        text.as_bytes(),
        &pattern,
        10,
        Deadline::after(std::time::Duration::ZERO),
    );
    assert_eq!(found.stopped_at_line, Some(1));
    assert!(found.matching_lines.is_empty());
    assert_eq!(found.total_matching_lines, 0);
}

#[test]
fn searching_in_pieces_finds_every_line_across_piece_boundaries() {
    // Lines of 997 bytes put piece boundaries everywhere within a line; the file spans
    // several pieces.
    let lines: Vec<String> = (0..(3 * CHUNK_BYTES / 997))
        .map(|i| {
            let word = if i % 7 == 0 { "hit" } else { "---" };
            format!("{i:>6} {word}{}", ".".repeat(986))
        })
        .collect();
    let text = lines.join("\n");
    let expected: Vec<u64> = (0..lines.len() as u64)
        .filter(|i| i % 7 == 0)
        .map(|i| i + 1)
        .collect();
    let one_line = Pattern::new("hit", false).unwrap();
    assert_eq!(
        search(text.as_bytes(), &one_line, u64::MAX, Deadline::never()).matching_lines,
        expected
    );
    // A pattern that can match a newline: a match starting on the line before each hit.
    let two_lines = Pattern::new(r"\.\n\s*\d+ hit", false).unwrap();
    let before: Vec<u64> = expected.iter().filter(|&&l| l > 1).map(|l| l - 1).collect();
    assert_eq!(
        search(text.as_bytes(), &two_lines, u64::MAX, Deadline::never()).matching_lines,
        before
    );
}

#[test]
fn overlapping_and_adjacent_regions_merge() {
    // 10 and 13 with context 1: 9..=11 and 12..=14 touch, so they merge.
    assert_eq!(regions(&[10, 13], 1, 100), [9..=14]);
    assert_eq!(regions(&[10, 14], 1, 100), [9..=11, 13..=15]);
    assert_eq!(regions(&[1, 2, 3], 3, 4), [1..=4]);
    assert_eq!(regions(&[5], 0, 9), [5..=5]);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn search_agrees_with_a_line_by_line_scan(text in "[ab\\n]{0,200}", needle in "[ab]{1,3}") {
        let expected: Vec<u64> = text.lines().enumerate()
            .filter(|(_, l)| l.contains(needle.as_str()))
            .map(|(i, _)| i as u64 + 1).collect();
        proptest::prop_assert_eq!(lines(&text, &needle, false), expected);
    }
}
