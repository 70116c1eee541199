//! The one JSON lexer: whitespace, strings, numbers and literals (RFC 8259), with the line and
//! column of every position.
//!
//! The tape parser ([`crate::parse`]) and the re-indenter ([`crate::reindent`]) both read their
//! tokens here, so they accept exactly the same texts and read every token to the same byte.
//! The lexer counts lines as it skips whitespace: a JSON string cannot hold a raw newline, so
//! that count is exact.

use std::fmt;

use crate::tape::{ESCAPED, NON_ASCII};

/// Why a text is not JSON, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line of the problem.
    pub line: u32,
    /// 1-based column (in characters) of the problem.
    pub column: u32,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ParseError {}

/// A position in a JSON text and the tokens from there.
pub(crate) struct Lexer<'s> {
    pub(crate) src: &'s [u8],
    pub(crate) pos: usize,
    /// 1-based line of `pos`.
    pub(crate) line: u32,
    line_start: usize,
}

impl<'s> Lexer<'s> {
    pub(crate) fn new(src: &'s [u8]) -> Lexer<'s> {
        Lexer {
            src,
            pos: 0,
            line: 1,
            line_start: 0,
        }
    }

    /// The byte at the position, if any.
    #[inline]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    /// Whether the position is past the last byte.
    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.src.len()
    }

    /// An error at byte `pos`, which is on the current line (errors are raised where they are
    /// seen).
    pub(crate) fn error_at(&self, pos: usize, message: impl Into<String>) -> ParseError {
        let start = self.line_start.min(pos);
        let column = String::from_utf8_lossy(&self.src[start..pos.min(self.src.len())])
            .chars()
            .count();
        ParseError {
            line: self.line,
            column: u32::try_from(column + 1).unwrap_or(u32::MAX),
            message: message.into(),
        }
    }

    /// An error at the position.
    pub(crate) fn error(&self, message: impl Into<String>) -> ParseError {
        self.error_at(self.pos, message)
    }

    /// Skips JSON whitespace, counting lines.
    #[inline]
    pub(crate) fn skip_ws(&mut self) {
        while let Some(&b) = self.src.get(self.pos) {
            match b {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\n' => {
                    self.pos += 1;
                    self.line = self.line.saturating_add(1);
                    self.line_start = self.pos;
                }
                _ => break,
            }
        }
    }

    /// Reads `word` (`true`, `false` or `null`) at the position; returns its start.
    pub(crate) fn literal(&mut self, word: &[u8]) -> Result<usize, ParseError> {
        if !self.src[self.pos.min(self.src.len())..].starts_with(word) {
            return Err(self.error(format!("expected `{}`", String::from_utf8_lossy(word))));
        }
        let start = self.pos;
        self.pos += word.len();
        Ok(start)
    }

    /// Reads a string token at `"`; returns the content's byte range (between the quotes) and
    /// its flags ([`ESCAPED`], [`NON_ASCII`]).
    pub(crate) fn string(&mut self) -> Result<(usize, usize, u8), ParseError> {
        let start = self.pos + 1;
        let mut at = start;
        let mut flags = 0;
        let end = loop {
            let Some(offset) = memchr::memchr2(b'"', b'\\', self.src.get(at..).unwrap_or(&[]))
            else {
                let newline = memchr::memchr(b'\n', &self.src[start..]).map(|n| start + n);
                return Err(self.error_at(
                    newline.unwrap_or(self.src.len()),
                    "a string is not closed before the end of its line",
                ));
            };
            let found = at + offset;
            if self.src[found] == b'"' {
                break found;
            }
            flags |= ESCAPED;
            match self.src.get(found + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => at = found + 2,
                Some(b'u') => {
                    let hex = self.src.get(found + 2..found + 6);
                    if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                        return Err(self.error_at(found, "`\\u` needs four hex digits"));
                    }
                    at = found + 6;
                }
                _ => return Err(self.error_at(found, "invalid escape sequence in a string")),
            }
        };
        let content = &self.src[start..end];
        // One pass finds both control characters (< 0x20) and non-ASCII bytes (>= 0x80).
        if content.iter().any(|&b| b.wrapping_sub(0x20) >= 0x60) {
            if let Some(bad) = content.iter().position(|&b| b < 0x20) {
                return Err(self.error_at(
                    start + bad,
                    if content[bad] == b'\n' {
                        "a string is not closed before the end of its line"
                    } else {
                        "a control character in a string must be escaped"
                    },
                ));
            }
            if let Err(error) = std::str::from_utf8(content) {
                return Err(self.error_at(start + error.valid_up_to(), "invalid UTF-8 in a string"));
            }
            flags |= NON_ASCII;
        }
        self.pos = end + 1;
        Ok((start, end, flags))
    }

    /// Reads a number token, `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`; returns
    /// its start. The caller checks what follows it.
    pub(crate) fn number(&mut self) -> Result<usize, ParseError> {
        let src = self.src;
        let start = self.pos;
        let mut at = start;
        let digits = |mut at: usize| {
            while src.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            at
        };
        if src.get(at) == Some(&b'-') {
            at += 1;
        }
        match src.get(at) {
            Some(b'0') => at += 1,
            Some(b'1'..=b'9') => at = digits(at + 1),
            _ => return Err(self.error_at(at, "a number needs digits")),
        }
        if src.get(at) == Some(&b'.') {
            if !src.get(at + 1).is_some_and(u8::is_ascii_digit) {
                return Err(self.error_at(at + 1, "a decimal point needs digits after it"));
            }
            at = digits(at + 1);
        }
        if matches!(src.get(at), Some(b'e' | b'E')) {
            at += 1;
            if matches!(src.get(at), Some(b'+' | b'-')) {
                at += 1;
            }
            if !src.get(at).is_some_and(u8::is_ascii_digit) {
                return Err(self.error_at(at, "an exponent needs digits"));
            }
            at = digits(at);
        }
        self.pos = at;
        Ok(start)
    }
}

#[cfg(test)]
mod tests;
