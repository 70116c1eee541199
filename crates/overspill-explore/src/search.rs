//! The line search behind `grep`: one bounded regex over the buffer, `memchr` for line
//! numbers, and matches grouped into merged context regions (docs/tools.md).
//!
//! Searching the buffer with `regex-automata`'s meta regex (rather than line by line) runs at
//! memory speed, as fast as `grep-searcher` in `research/deps.md` §5. After a match the search
//! resumes at the next line, so each line counts once and the work stays linear.
//!
//! **Bounded time.** A pattern is refused before it runs when its counted repetitions expand
//! past [`MAX_REPETITION_WIDTH`] positions (`a{99999}` compiles to a small program but makes
//! every engine track 99,999 positions per byte: minutes on a megabyte). The buffer is then
//! searched in [`CHUNK_BYTES`] pieces cut at line ends, and the [`Deadline`] is checked
//! between pieces and every [`CHECK_EVERY`] matches, so a search stops within one piece of
//! its deadline. A pattern that can match a newline sees [`OVERLAP_BYTES`] past each piece,
//! so a match crossing a piece boundary is found when it is at most that long.

use std::ops::RangeInclusive;
use std::time::{Duration, Instant};

use regex_automata::meta::Regex;
use regex_automata::util::syntax;
use regex_automata::{Input, MatchKind};
use regex_syntax::hir::{Class, Hir, HirKind};

/// The longest pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 1024;

/// The most positions counted repetitions may expand a pattern to: `a{2000}` is accepted,
/// `a{2001}`, `(ab){1001}` and `(a{100}){21}` are not. Each position is a state that every
/// engine may have to track at every byte; past about 5,000 the lazy DFA's cache thrashes and
/// the search falls back to an engine that costs tens of microseconds a byte.
pub const MAX_REPETITION_WIDTH: u64 = 2_000;

/// Bytes searched between two deadline checks (cut at the next line end). The slowest
/// engine the meta regex falls back to (Unicode `\b` on non-ASCII text) costs up to about
/// 3 µs a byte: under a second a piece.
pub const CHUNK_BYTES: usize = 256 << 10;

/// How far past a piece a pattern that can match a newline may look: a match crossing a
/// piece boundary is found when it is at most this long.
pub const OVERLAP_BYTES: usize = 64 << 10;

/// Matches counted between two deadline checks.
pub const CHECK_EVERY: u64 = 64;

/// Caps on the compiled program and the lazy DFA cache (user patterns always get limits).
const SIZE_LIMIT: usize = 4 << 20;
const DFA_SIZE_LIMIT: usize = 16 << 20;

/// A compiled search pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    regex: Regex,
    /// Whether a match can contain a line end, so it may cross a piece boundary.
    spans_lines: bool,
    /// Set when the pattern was not a valid regex and is searched for as literal text: the
    /// regex parser's one-line reason.
    pub literal_because: Option<String>,
}

/// Why a pattern cannot be searched for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PatternError {
    /// Longer than [`MAX_PATTERN_BYTES`].
    #[error(
        "the pattern is {0} bytes long; patterns are limited to 1024 bytes, search for a shorter distinctive part"
    )]
    TooLong(usize),
    /// Empty.
    #[error("the pattern is empty; give the text or regex to search for")]
    Empty,
    /// Valid, but its compiled form exceeds the size limits.
    #[error(
        "the regex is too complex to compile within its size limit; simplify it (fewer or smaller repetitions, `[a-z]` instead of `\\w`)"
    )]
    TooComplex,
    /// Valid, but its counted repetitions expand past [`MAX_REPETITION_WIDTH`].
    #[error(
        "the regex's counted repetitions expand to {} positions, over the limit of 2,000 (each one costs time at every byte); use smaller counts such as `a{{100}}`, or `a+`",
        crate::numbered::thousands(*.0)
    )]
    TooWide(u64),
}

impl Pattern {
    /// Compiles `pattern`; an invalid regex falls back to a literal search.
    ///
    /// # Errors
    /// [`PatternError`] for an empty, too long, too wide or too complex pattern.
    pub fn new(pattern: &str, ignore_case: bool) -> Result<Pattern, PatternError> {
        if pattern.len() > MAX_PATTERN_BYTES {
            return Err(PatternError::TooLong(pattern.len()));
        }
        if pattern.is_empty() {
            return Err(PatternError::Empty);
        }
        let (hir, literal_because) = match parse(pattern, ignore_case) {
            Ok(hir) => (hir, None),
            Err(message) => {
                let hir = parse(&regex_syntax::escape(pattern), ignore_case)
                    .map_err(|_| PatternError::TooComplex)?;
                (hir, Some(last_line(&message)))
            }
        };
        let width = width(&hir);
        if width > MAX_REPETITION_WIDTH {
            return Err(PatternError::TooWide(width));
        }
        let regex = Regex::builder()
            .configure(
                Regex::config()
                    .match_kind(MatchKind::LeftmostFirst)
                    .utf8_empty(false)
                    .nfa_size_limit(Some(SIZE_LIMIT))
                    .hybrid_cache_capacity(DFA_SIZE_LIMIT),
            )
            .build_from_hir(&hir)
            .map_err(|_| PatternError::TooComplex)?;
        Ok(Pattern {
            regex,
            spans_lines: can_match_newline(&hir),
            literal_because,
        })
    }
}

/// When a search must stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline(Option<Instant>);

impl Deadline {
    /// A deadline `limit` from now.
    pub fn after(limit: Duration) -> Deadline {
        Deadline(Instant::now().checked_add(limit))
    }

    /// No deadline.
    #[cfg(test)]
    pub fn never() -> Deadline {
        Deadline(None)
    }

    fn passed(self) -> bool {
        self.0.is_some_and(|at| Instant::now() >= at)
    }
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Matching lines kept (at most `keep`), 1-based, ascending.
    pub matching_lines: Vec<u64>,
    /// The matching lines found, including those past `keep`: all of them unless the search
    /// stopped at its deadline.
    pub total_matching_lines: u64,
    /// Set when the deadline stopped the search: the first line not searched.
    pub stopped_at_line: Option<u64>,
}

/// Finds the lines of `bytes` that `pattern` matches, keeping the first `keep` and counting
/// the rest, until `deadline`.
pub fn search(bytes: &[u8], pattern: &Pattern, keep: u64, deadline: Deadline) -> Found {
    let mut found = Found {
        matching_lines: Vec::new(),
        total_matching_lines: 0,
        stopped_at_line: None,
    };
    // Where the search goes on, and the line number of a byte offset already counted to:
    // lines are counted only up to each match (and where the search stops), so a piece
    // without a match costs no counting.
    let mut pos = 0usize;
    let mut counted = Counted { at: 0, line: 1 };
    loop {
        if deadline.passed() {
            found.stopped_at_line = Some(counted.line_at(bytes, pos));
            return found;
        }
        let piece_end = line_boundary_after(bytes, pos.saturating_add(CHUNK_BYTES));
        let search_end = if pattern.spans_lines {
            line_boundary_after(bytes, piece_end.saturating_add(OVERLAP_BYTES))
        } else {
            piece_end
        };
        while pos <= search_end {
            let input = Input::new(bytes).span(pos..search_end);
            let Some(hit) = pattern.regex.search(&input) else {
                break;
            };
            let start = hit.start();
            // An empty match at the very end of a file ending in '\n' is on no line.
            if start == bytes.len() && (bytes.is_empty() || bytes[start - 1] == b'\n') {
                return found;
            }
            let line = counted.line_at(bytes, start);
            found.total_matching_lines += 1;
            if found.total_matching_lines <= keep {
                found.matching_lines.push(line);
            }
            let line_end =
                memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            pos = line_end + 1;
            // `pos` starts the next line (or lies past the end).
            counted = Counted {
                at: pos.min(bytes.len()),
                line: line + 1,
            };
            if found.total_matching_lines.is_multiple_of(CHECK_EVERY) && deadline.passed() {
                found.stopped_at_line = Some(line + 1);
                return found;
            }
        }
        // No match lies inside `pos..search_end`: the next one starts at `piece_end` or
        // later (or is longer than the overlap).
        if search_end >= bytes.len() {
            return found;
        }
        pos = pos.max(piece_end);
    }
}

/// A byte offset at the start of a line, and that line's number.
#[derive(Debug, Clone, Copy)]
struct Counted {
    at: usize,
    line: u64,
}

impl Counted {
    /// The number of the line holding byte `to` (at or after `self.at`), remembered.
    fn line_at(&mut self, bytes: &[u8], to: usize) -> u64 {
        let to = to.min(bytes.len());
        if to > self.at {
            self.line += memchr::memchr_iter(b'\n', &bytes[self.at..to]).count() as u64;
            self.at = to;
        }
        self.line
    }
}

/// Groups matching lines into regions of `context` lines around each, merging regions that
/// overlap or touch; `last_line` clamps the end.
pub fn regions(matching_lines: &[u64], context: u64, last_line: u64) -> Vec<RangeInclusive<u64>> {
    let mut out: Vec<RangeInclusive<u64>> = Vec::new();
    for &line in matching_lines {
        let start = line.saturating_sub(context).max(1);
        let end = line.saturating_add(context).min(last_line);
        match out.last_mut() {
            Some(last) if start <= last.end().saturating_add(1) => {
                *last = *last.start()..=end.max(*last.end());
            }
            _ => out.push(start..=end),
        }
    }
    out
}

/// The start of the line after the one holding byte `at` (`bytes.len()` when none).
fn line_boundary_after(bytes: &[u8], at: usize) -> usize {
    if at >= bytes.len() {
        return bytes.len();
    }
    memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i + 1)
}

/// The pattern's syntax tree, with `grep`'s flags; the parser's message when it is invalid.
fn parse(pattern: &str, ignore_case: bool) -> Result<Hir, String> {
    let config = syntax::Config::new()
        .case_insensitive(ignore_case)
        .multi_line(true)
        .crlf(true)
        .utf8(false);
    syntax::parse_with(pattern, &config).map_err(|error| error.to_string())
}

/// How many positions the pattern expands to: literals count their bytes, a class one, a
/// counted repetition its count times its body (the bound, or the minimum plus one when
/// unbounded).
fn width(hir: &Hir) -> u64 {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 0,
        HirKind::Literal(literal) => literal.0.len() as u64,
        HirKind::Class(_) => 1,
        HirKind::Repetition(repetition) => {
            let copies = repetition
                .max
                .unwrap_or_else(|| repetition.min.saturating_add(1))
                .max(1);
            width(&repetition.sub).saturating_mul(u64::from(copies))
        }
        HirKind::Capture(capture) => width(&capture.sub),
        HirKind::Concat(parts) | HirKind::Alternation(parts) => {
            parts.iter().map(width).fold(0, u64::saturating_add)
        }
    }
}

/// Whether some match of the pattern can contain `\n`.
fn can_match_newline(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(literal) => literal.0.contains(&b'\n'),
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .any(|r| r.start() <= '\n' && '\n' <= r.end()),
        HirKind::Class(Class::Bytes(class)) => class
            .ranges()
            .iter()
            .any(|r| r.start() <= b'\n' && b'\n' <= r.end()),
        HirKind::Repetition(repetition) => can_match_newline(&repetition.sub),
        HirKind::Capture(capture) => can_match_newline(&capture.sub),
        HirKind::Concat(parts) | HirKind::Alternation(parts) => parts.iter().any(can_match_newline),
    }
}

/// The regex parser's errors are multi-line drawings; the last line is the reason.
fn last_line(message: &str) -> String {
    let reason = message
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(message);
    reason.trim().trim_start_matches("error: ").to_owned()
}

#[cfg(test)]
mod tests {
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
}
