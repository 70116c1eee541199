//! A streaming JSON validator and re-indenter that keeps every token byte for byte.
//!
//! Stored JSON is pretty-printed (docs/storage.md) by re-indenting the original text rather than by
//! parsing it into a `serde_json::Value` and printing that value again. Going through a value
//! would rewrite numbers (`1.0` → `1`, a 30-digit integer → a float, `1e400` → an error) and
//! escapes (`\u00e9` → `é`); re-indenting changes only the whitespace between tokens, so any
//! JSON parser reads the stored file as exactly the value it would have read from the input.
//! It is also one linear pass with no tree, which is what a 100 MB output needs.
//!
//! It reads tokens with the crate's one lexer, the tape parser's, so a text re-indents exactly
//! when [`parse`](crate::parse) accepts it, and every token is the parser's token.
//!
//! The scanner is iterative (an explicit stack of open brackets), so nesting depth is limited by
//! memory only; a document whose pretty form would balloon (deep nesting makes indentation grow
//! quadratically) is reported as [`Reindent::TooLarge`] and the caller stores it verbatim.

use std::ops::Range;

use crate::lex::{Lexer, ParseError};

/// What re-indenting a text gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Reindent {
    /// The text is JSON; here is its pretty form.
    Pretty(Pretty),
    /// The text is JSON, but its pretty form would exceed the size guard.
    TooLarge,
    /// The text is not JSON.
    Invalid,
}

/// A pretty-printed JSON document and what the companion search needs from it.
#[derive(Debug, PartialEq, Eq)]
pub struct Pretty {
    /// 2-space indented text ending in a newline.
    pub text: String,
    /// For a top-level object: `(key token, value token)` byte ranges into the *input* of each
    /// member whose value is a string, in document order, quotes included.
    pub top_level_strings: Vec<(Range<usize>, Range<usize>)>,
}

/// True iff `text` is one complete JSON value (RFC 8259), surrounded by optional whitespace.
pub fn is_json(text: &str) -> bool {
    scan(text.as_bytes(), &mut Validate).is_ok()
}

/// Re-indents `text` with 2 spaces, keeping every token as it is written.
pub fn reindent(text: &str) -> Reindent {
    // Pretty JSON of ordinary data is 1.2–3× its compact form; past 8× something is hostile.
    let limit = text.len().saturating_mul(8).saturating_add(1 << 20);
    let mut sink = Indent {
        input: text,
        out: String::with_capacity(text.len().saturating_add(text.len() / 2)),
        limit,
        top_level_strings: Vec::new(),
    };
    match scan(text.as_bytes(), &mut sink) {
        Ok(()) => {
            sink.out.push('\n');
            Reindent::Pretty(Pretty {
                text: sink.out,
                top_level_strings: sink.top_level_strings,
            })
        }
        // The indenter stopped early: only a full validation says whether the rest is JSON.
        Err(Stop::TooLarge) if is_json(text) => Reindent::TooLarge,
        Err(Stop::TooLarge | Stop::Invalid) => Reindent::Invalid,
    }
}

/// The first byte of `text` after JSON whitespace, if any.
pub fn first_token_byte(text: &str) -> Option<u8> {
    let mut lexer = Lexer::new(text.as_bytes());
    lexer.skip_ws();
    lexer.peek()
}

/// Why a scan stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Invalid,
    TooLarge,
}

impl From<ParseError> for Stop {
    fn from(_: ParseError) -> Stop {
        Stop::Invalid
    }
}

/// Receives the token stream of a document that is valid so far.
trait Sink {
    /// `{` or `[`.
    fn open(&mut self, bracket: u8) -> Result<(), Stop>;
    /// `}` or `]`; `depth` is the nesting depth after closing, `empty` when nothing was inside.
    fn close(&mut self, bracket: u8, depth: usize, empty: bool) -> Result<(), Stop>;
    /// Before each array element or object member, at nesting `depth`.
    fn item(&mut self, depth: usize, first: bool) -> Result<(), Stop>;
    /// An object key (a string token, quotes included).
    fn key(&mut self, token: Range<usize>) -> Result<(), Stop>;
    /// A string, number or literal token.
    fn scalar(&mut self, token: Range<usize>) -> Result<(), Stop>;
    /// A string value directly inside the top-level object, after its key.
    fn top_level_string(&mut self, _key: Range<usize>, _value: Range<usize>) {}
}

/// Checks the grammar and produces nothing.
struct Validate;

impl Sink for Validate {
    fn open(&mut self, _: u8) -> Result<(), Stop> {
        Ok(())
    }
    fn close(&mut self, _: u8, _: usize, _: bool) -> Result<(), Stop> {
        Ok(())
    }
    fn item(&mut self, _: usize, _: bool) -> Result<(), Stop> {
        Ok(())
    }
    fn key(&mut self, _: Range<usize>) -> Result<(), Stop> {
        Ok(())
    }
    fn scalar(&mut self, _: Range<usize>) -> Result<(), Stop> {
        Ok(())
    }
}

/// Writes the pretty form.
struct Indent<'a> {
    input: &'a str,
    out: String,
    limit: usize,
    top_level_strings: Vec<(Range<usize>, Range<usize>)>,
}

impl Indent<'_> {
    fn newline(&mut self, depth: usize) -> Result<(), Stop> {
        const SPACES: &str = "                                                                ";
        if self.out.len().saturating_add(1 + 2 * depth) > self.limit {
            return Err(Stop::TooLarge);
        }
        self.out.push('\n');
        let mut left = 2 * depth;
        while left > 0 {
            let n = left.min(SPACES.len());
            self.out.push_str(&SPACES[..n]);
            left -= n;
        }
        Ok(())
    }

    fn token(&mut self, token: Range<usize>) -> Result<(), Stop> {
        if self.out.len().saturating_add(token.len()) > self.limit {
            return Err(Stop::TooLarge);
        }
        // Token boundaries are ASCII bytes, so they are char boundaries of the input.
        self.out
            .push_str(self.input.get(token).ok_or(Stop::Invalid)?);
        Ok(())
    }
}

impl Sink for Indent<'_> {
    fn open(&mut self, bracket: u8) -> Result<(), Stop> {
        self.out.push(char::from(bracket));
        Ok(())
    }
    fn close(&mut self, bracket: u8, depth: usize, empty: bool) -> Result<(), Stop> {
        if !empty {
            self.newline(depth)?;
        }
        self.out.push(char::from(bracket));
        Ok(())
    }
    fn item(&mut self, depth: usize, first: bool) -> Result<(), Stop> {
        if !first {
            self.out.push(',');
        }
        self.newline(depth)
    }
    fn key(&mut self, token: Range<usize>) -> Result<(), Stop> {
        self.token(token)?;
        self.out.push_str(": ");
        Ok(())
    }
    fn scalar(&mut self, token: Range<usize>) -> Result<(), Stop> {
        self.token(token)
    }
    fn top_level_string(&mut self, key: Range<usize>, value: Range<usize>) {
        self.top_level_strings.push((key, value));
    }
}

/// Walks one JSON document, reporting tokens to `sink`.
fn scan<S: Sink>(bytes: &[u8], sink: &mut S) -> Result<(), Stop> {
    let mut lx = Lexer::new(bytes);
    // Open brackets, innermost last.
    let mut stack: Vec<u8> = Vec::new();
    // The key of the top-level object member being read.
    let mut top_key: Option<Range<usize>> = None;
    lx.skip_ws();
    'value: loop {
        // A value starts here (whitespace already skipped).
        match lx.peek().ok_or(Stop::Invalid)? {
            open @ (b'{' | b'[') => {
                sink.open(open)?;
                stack.push(open);
                lx.pos += 1;
                lx.skip_ws();
                let close = if open == b'{' { b'}' } else { b']' };
                if lx.peek() == Some(close) {
                    stack.pop();
                    sink.close(close, stack.len(), true)?;
                    lx.pos += 1;
                } else {
                    sink.item(stack.len(), true)?;
                    if open == b'{' {
                        member_key(&mut lx, &stack, &mut top_key, sink)?;
                    }
                    continue 'value;
                }
            }
            b'"' => {
                let token = string_token(&mut lx)?;
                sink.scalar(token.clone())?;
                if stack.len() == 1
                    && stack[0] == b'{'
                    && let Some(key) = top_key.take()
                {
                    sink.top_level_string(key, token);
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = lx.number()?;
                sink.scalar(start..lx.pos)?;
            }
            byte => {
                let word: &[u8] = match byte {
                    b't' => b"true",
                    b'f' => b"false",
                    b'n' => b"null",
                    _ => return Err(Stop::Invalid),
                };
                let start = lx.literal(word)?;
                sink.scalar(start..lx.pos)?;
            }
        }
        // After a complete value: a comma, a closing bracket, or the end of the document.
        loop {
            lx.skip_ws();
            let Some(&open) = stack.last() else {
                return if lx.at_end() {
                    Ok(())
                } else {
                    Err(Stop::Invalid)
                };
            };
            match lx.peek().ok_or(Stop::Invalid)? {
                b',' => {
                    sink.item(stack.len(), false)?;
                    lx.pos += 1;
                    lx.skip_ws();
                    if open == b'{' {
                        member_key(&mut lx, &stack, &mut top_key, sink)?;
                    }
                    continue 'value;
                }
                close @ (b'}' | b']') if close == open + 2 => {
                    // `{`+2 = `}` and `[`+2 = `]` in ASCII.
                    stack.pop();
                    sink.close(close, stack.len(), false)?;
                    lx.pos += 1;
                }
                _ => return Err(Stop::Invalid),
            }
        }
    }
}

/// Reads `"key" :` at the position and the whitespace after it.
fn member_key<S: Sink>(
    lx: &mut Lexer<'_>,
    stack: &[u8],
    top_key: &mut Option<Range<usize>>,
    sink: &mut S,
) -> Result<(), Stop> {
    if lx.peek() != Some(b'"') {
        return Err(Stop::Invalid);
    }
    let token = string_token(lx)?;
    sink.key(token.clone())?;
    if stack.len() == 1 {
        *top_key = Some(token);
    }
    lx.skip_ws();
    if lx.peek() != Some(b':') {
        return Err(Stop::Invalid);
    }
    lx.pos += 1;
    lx.skip_ws();
    Ok(())
}

/// A string token at `"`, quotes included.
fn string_token(lx: &mut Lexer<'_>) -> Result<Range<usize>, Stop> {
    let (start, end, _) = lx.string()?;
    Ok(start - 1..end + 1)
}

#[cfg(test)]
mod tests;
