//! A streaming JSON validator and re-indenter that keeps every token byte for byte.
//!
//! Stored JSON is pretty-printed (SPEC §4) by re-indenting the original text rather than by
//! parsing it into a `serde_json::Value` and printing that value again. Going through a value
//! would rewrite numbers (`1.0` → `1`, a 30-digit integer → a float, `1e400` → an error) and
//! escapes (`\u00e9` → `é`); re-indenting changes only the whitespace between tokens, so any
//! JSON parser reads the stored file as exactly the value it would have read from the input.
//! It is also one linear pass with no tree, which is what a 100 MB output needs.
//!
//! The scanner is iterative (an explicit stack of open brackets), so nesting depth is limited by
//! memory only; a document whose pretty form would balloon (deep nesting makes indentation grow
//! quadratically) is reported as [`Reindent::TooLarge`] and the caller stores it verbatim.

use std::ops::Range;

/// What re-indenting a text gave.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Reindent {
    /// The text is JSON; here is its pretty form.
    Pretty(Pretty),
    /// The text is JSON, but its pretty form would exceed the size guard.
    TooLarge,
    /// The text is not JSON.
    Invalid,
}

/// A pretty-printed JSON document and what the companion search needs from it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Pretty {
    /// 2-space indented text ending in a newline.
    pub(crate) text: String,
    /// For a top-level object: `(key token, value token)` byte ranges into the *input* of each
    /// member whose value is a string, in document order, quotes included.
    pub(crate) top_level_strings: Vec<(Range<usize>, Range<usize>)>,
}

/// True iff `text` is one complete JSON value (RFC 8259), surrounded by optional whitespace.
pub(crate) fn is_json(text: &str) -> bool {
    scan(text.as_bytes(), &mut Validate).is_ok()
}

/// Re-indents `text` with 2 spaces, keeping every token as it is written.
pub(crate) fn reindent(text: &str) -> Reindent {
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
pub(crate) fn first_token_byte(text: &str) -> Option<u8> {
    let bytes = text.as_bytes();
    bytes.get(skip_ws(bytes, 0)).copied()
}

/// Why a scan stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Invalid,
    TooLarge,
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
    // Open brackets, innermost last.
    let mut stack: Vec<u8> = Vec::new();
    // The key of the top-level object member being read.
    let mut top_key: Option<Range<usize>> = None;
    let mut i = skip_ws(bytes, 0);
    'value: loop {
        // A value starts at `i` (whitespace already skipped).
        let start = i;
        match bytes.get(i).copied().ok_or(Stop::Invalid)? {
            open @ (b'{' | b'[') => {
                sink.open(open)?;
                stack.push(open);
                i = skip_ws(bytes, i + 1);
                let close = if open == b'{' { b'}' } else { b']' };
                if bytes.get(i) == Some(&close) {
                    stack.pop();
                    sink.close(close, stack.len(), true)?;
                    i += 1;
                } else {
                    sink.item(stack.len(), true)?;
                    if open == b'{' {
                        i = member_key(bytes, i, &stack, &mut top_key, sink)?;
                    }
                    continue 'value;
                }
            }
            b'"' => {
                i = string_end(bytes, i)?;
                sink.scalar(start..i)?;
                if stack.len() == 1
                    && stack[0] == b'{'
                    && let Some(key) = top_key.take()
                {
                    sink.top_level_string(key, start..i);
                }
            }
            b'-' | b'0'..=b'9' => {
                i = number_end(bytes, i)?;
                sink.scalar(start..i)?;
            }
            b't' => i = literal(bytes, i, b"true", sink)?,
            b'f' => i = literal(bytes, i, b"false", sink)?,
            b'n' => i = literal(bytes, i, b"null", sink)?,
            _ => return Err(Stop::Invalid),
        }
        // After a complete value: a comma, a closing bracket, or the end of the document.
        loop {
            i = skip_ws(bytes, i);
            let Some(&open) = stack.last() else {
                return if i == bytes.len() {
                    Ok(())
                } else {
                    Err(Stop::Invalid)
                };
            };
            match bytes.get(i).copied().ok_or(Stop::Invalid)? {
                b',' => {
                    sink.item(stack.len(), false)?;
                    i = skip_ws(bytes, i + 1);
                    if open == b'{' {
                        i = member_key(bytes, i, &stack, &mut top_key, sink)?;
                    }
                    continue 'value;
                }
                close @ (b'}' | b']') if close == open + 2 => {
                    // `{`+2 = `}` and `[`+2 = `]` in ASCII.
                    stack.pop();
                    sink.close(close, stack.len(), false)?;
                    i += 1;
                }
                _ => return Err(Stop::Invalid),
            }
        }
    }
}

/// Reads `"key" :` at `i`; returns the index of the member's value.
fn member_key<S: Sink>(
    bytes: &[u8],
    i: usize,
    stack: &[u8],
    top_key: &mut Option<Range<usize>>,
    sink: &mut S,
) -> Result<usize, Stop> {
    if bytes.get(i) != Some(&b'"') {
        return Err(Stop::Invalid);
    }
    let end = string_end(bytes, i)?;
    sink.key(i..end)?;
    if stack.len() == 1 {
        *top_key = Some(i..end);
    }
    let colon = skip_ws(bytes, end);
    if bytes.get(colon) != Some(&b':') {
        return Err(Stop::Invalid);
    }
    Ok(skip_ws(bytes, colon + 1))
}

fn literal<S: Sink>(bytes: &[u8], i: usize, word: &[u8], sink: &mut S) -> Result<usize, Stop> {
    let end = i + word.len();
    if bytes.get(i..end) != Some(word) {
        return Err(Stop::Invalid);
    }
    sink.scalar(i..end)?;
    Ok(end)
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(i) {
        i += 1;
    }
    i
}

/// `i` is at the opening quote; returns the index just past the closing quote.
fn string_end(bytes: &[u8], i: usize) -> Result<usize, Stop> {
    let mut i = i + 1;
    loop {
        // Jump to the next quote or backslash; raw control characters are checked on the run.
        let rest = bytes.get(i..).ok_or(Stop::Invalid)?;
        let run = memchr::memchr2(b'"', b'\\', rest).ok_or(Stop::Invalid)?;
        if rest[..run].iter().any(|&b| b < 0x20) {
            return Err(Stop::Invalid);
        }
        i += run;
        if bytes[i] == b'"' {
            return Ok(i + 1);
        }
        // A backslash escape.
        match bytes.get(i + 1).copied().ok_or(Stop::Invalid)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
            b'u' => {
                let hex = bytes.get(i + 2..i + 6).ok_or(Stop::Invalid)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return Err(Stop::Invalid);
                }
                i += 6;
            }
            _ => return Err(Stop::Invalid),
        }
    }
}

/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` starting at `i`.
fn number_end(bytes: &[u8], mut i: usize) -> Result<usize, Stop> {
    let digits = |from: usize| {
        from + bytes[from.min(bytes.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    if bytes.get(i) == Some(&b'-') {
        i += 1;
    }
    match bytes.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(i),
        _ => return Err(Stop::Invalid),
    }
    if bytes.get(i) == Some(&b'.') {
        let end = digits(i + 1);
        if end == i + 1 {
            return Err(Stop::Invalid);
        }
        i = end;
    }
    if let Some(b'e' | b'E') = bytes.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = bytes.get(i) {
            i += 1;
        }
        let end = digits(i);
        if end == i {
            return Err(Stop::Invalid);
        }
        i = end;
    }
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pretty(text: &str) -> String {
        match reindent(text) {
            Reindent::Pretty(p) => p.text,
            other => panic!("{text:?} did not re-indent: {other:?}"),
        }
    }

    #[test]
    fn reindent_matches_the_usual_two_space_layout() {
        let got = pretty(r#"{"b":1,"a":[true,null,{}],"c":{"d":[]},"e":"x"}"#);
        let want = "{\n  \"b\": 1,\n  \"a\": [\n    true,\n    null,\n    {}\n  ],\n  \"c\": {\n    \"d\": []\n  },\n  \"e\": \"x\"\n}\n";
        assert_eq!(got, want);
    }

    #[test]
    fn reindent_agrees_with_serde_json_pretty_printing_on_ordinary_documents() {
        let text = r#" { "kind":"PodList", "items":[ {"name":"a","ports":[80,443],"labels":{}} , {"name":"b"} ], "n":-12.5 } "#;
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            pretty(text),
            serde_json::to_string_pretty(&value).unwrap() + "\n"
        );
    }

    #[test]
    fn reindent_keeps_numbers_and_escapes_exactly_as_written() {
        let text = r#"[1.0,1E400,-0,123456789012345678901234567890,"\u00e9\n\/"]"#;
        let got = pretty(text);
        for token in [
            "1.0",
            "1E400",
            "-0",
            "123456789012345678901234567890",
            r#""\u00e9\n\/""#,
        ] {
            assert!(got.contains(&format!("  {token}")), "{token} lost in {got}");
        }
    }

    #[test]
    fn reindent_is_idempotent() {
        let once = pretty(r#"{"a":[1,[2,[3]],{"b":{"c":[]}}],"d":"e"}"#);
        assert_eq!(pretty(&once), once);
    }

    #[test]
    fn reindent_reports_top_level_string_members_only() {
        let text = r#"{"a":"x","b":{"c":"deep"},"d":[ "in array" ],"e" : "y"}"#;
        let Reindent::Pretty(p) = reindent(text) else {
            panic!("not JSON")
        };
        let found: Vec<(&str, &str)> = p
            .top_level_strings
            .iter()
            .map(|(k, v)| (&text[k.clone()], &text[v.clone()]))
            .collect();
        assert_eq!(found, [(r#""a""#, r#""x""#), (r#""e""#, r#""y""#)]);
    }

    #[test]
    fn grammar_errors_are_rejected() {
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\"}",
            "{\"a\":}",
            "{a:1}",
            "[01]",
            "[1.]",
            "[.5]",
            "[1e]",
            "[-]",
            "[tru]",
            "[\"\\x\"]",
            "[\"\\u12g4\"]",
            "[\"raw\ttab\"]",
            "[1] [2]",
            "[1}",
            "{\"a\":1]",
            "[\"unterminated]",
            "['single']",
            "[NaN]",
            "[+1]",
        ] {
            assert!(!is_json(bad), "{bad:?} accepted");
            assert_eq!(reindent(bad), Reindent::Invalid, "{bad:?}");
        }
    }

    #[test]
    fn scalars_and_surrounding_whitespace_are_valid_json_values() {
        for good in [
            "1",
            " \"s\" ",
            "null",
            "\n[ ]\r\n",
            "{\"\":\"\"}",
            "-0.5E+2",
        ] {
            assert!(is_json(good), "{good:?} rejected");
        }
    }

    #[test]
    fn nesting_100_000_deep_neither_crashes_nor_balloons() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(is_json(&deep));
        assert_eq!(reindent(&deep), Reindent::TooLarge);
    }

    #[test]
    fn deep_invalid_json_is_invalid_even_when_the_indenter_gives_up_first() {
        // The size guard trips before the scanner reaches the garbage at the end.
        let deep = format!("{}x", "[".repeat(100_000));
        assert!(!is_json(&deep));
        assert_eq!(reindent(&deep), Reindent::Invalid);
    }

    #[test]
    fn first_token_byte_skips_json_whitespace_only() {
        assert_eq!(first_token_byte(" \n\t{"), Some(b'{'));
        assert_eq!(first_token_byte("   "), None);
    }
}
