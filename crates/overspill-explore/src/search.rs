//! The line search behind `grep`: one bounded regex over the whole buffer, `memchr` for line
//! numbers, and matches grouped into merged context regions (SPEC §6.2).
//!
//! Searching the whole buffer with `regex::bytes` (rather than line by line) runs at memory
//! speed, as fast as `grep-searcher` in `research/deps.md` §5. After a match the search
//! resumes at the next line, so each line counts once and the work stays linear.

use std::ops::RangeInclusive;

use regex::bytes::{Regex, RegexBuilder};

/// The longest pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 1024;

/// Caps on the compiled program and the lazy DFA cache (user patterns always get limits).
const SIZE_LIMIT: usize = 4 << 20;
const DFA_SIZE_LIMIT: usize = 16 << 20;

/// A compiled search pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    regex: Regex,
    /// Set when the pattern was not a valid regex and is searched for as literal text: the
    /// regex parser's one-line reason.
    pub literal_because: Option<String>,
}

/// Why a pattern cannot be searched for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
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
}

impl Pattern {
    /// Compiles `pattern`; an invalid regex falls back to a literal search.
    ///
    /// # Errors
    /// [`PatternError`] for an empty, too long or too complex pattern.
    pub fn new(pattern: &str, ignore_case: bool) -> Result<Pattern, PatternError> {
        if pattern.len() > MAX_PATTERN_BYTES {
            return Err(PatternError::TooLong(pattern.len()));
        }
        if pattern.is_empty() {
            return Err(PatternError::Empty);
        }
        match build(pattern, ignore_case) {
            Ok(regex) => Ok(Pattern {
                regex,
                literal_because: None,
            }),
            Err(regex::Error::Syntax(message)) => {
                let regex = build(&regex::escape(pattern), ignore_case)
                    .map_err(|_| PatternError::TooComplex)?;
                Ok(Pattern {
                    regex,
                    literal_because: Some(last_line(&message)),
                })
            }
            Err(_) => Err(PatternError::TooComplex),
        }
    }
}

/// The result of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Matching lines kept (at most `max_matches`), 1-based, ascending.
    pub matching_lines: Vec<u64>,
    /// All matching lines in the file, including those past `max_matches`.
    pub total_matching_lines: u64,
}

/// Finds the lines of `bytes` that `pattern` matches, keeping the first `max_matches` and
/// counting the rest.
pub fn search(bytes: &[u8], pattern: &Pattern, max_matches: u64) -> Found {
    let mut matching_lines = Vec::new();
    let mut total = 0u64;
    // `pos` is the start of line `line`: each match moves both to the line after it.
    let mut line = 1u64;
    let mut pos = 0usize;
    while pos <= bytes.len() {
        let Some(found) = pattern.regex.find_at(bytes, pos) else {
            break;
        };
        let start = found.start();
        // An empty match at the very end of a file ending in '\n' is on no line.
        if start == bytes.len() && (bytes.is_empty() || bytes[start - 1] == b'\n') {
            break;
        }
        let between = &bytes[pos..start];
        line += memchr::memchr_iter(b'\n', between).count() as u64;
        total += 1;
        if total <= max_matches {
            matching_lines.push(line);
        }
        let line_end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        pos = line_end + 1;
        line += 1;
    }
    Found {
        matching_lines,
        total_matching_lines: total,
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

fn build(pattern: &str, ignore_case: bool) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .case_insensitive(ignore_case)
        .multi_line(true)
        .crlf(true)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .build()
}

/// The regex crate's syntax errors are multi-line drawings; the last line is the reason.
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
        search(text.as_bytes(), &pattern, u64::MAX).matching_lines
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
        assert_eq!(search(text.as_bytes(), &pattern, 10).matching_lines, [2]);
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
        let found = search(text.as_bytes(), &Pattern::new("x", false).unwrap(), 3);
        assert_eq!(
            found,
            Found {
                matching_lines: vec![1, 2, 3],
                total_matching_lines: 10
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
            PatternError::TooComplex
        );
        // Defence guarded: our compiled-program cap, below the regex crate's default. This
        // pattern compiles under the default and must not under ours.
        assert!(regex::RegexBuilder::new(r"\w{100}").build().is_ok());
        assert_eq!(
            Pattern::new(r"\w{100}", false).unwrap_err(),
            PatternError::TooComplex
        );
        // Ordinary patterns, Unicode classes included, stay well inside it.
        assert!(Pattern::new(r"\w{60}", false).is_ok());
        assert!(Pattern::new(r"(?i)error|panic|oom\w+", false).is_ok());
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
