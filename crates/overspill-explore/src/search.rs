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
mod tests;
