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

    /// The text of every number token, in document order, as the tape parser reads it.
    fn numbers(src: &str) -> Option<Vec<String>> {
        let tape = crate::parse(src.as_bytes()).ok()?;
        Some(
            tape.nodes
                .iter()
                .filter(|node| node.kind == crate::Kind::Number)
                .map(|node| src[node.a as usize..node.b as usize].to_owned())
                .collect(),
        )
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        #[test]
        fn reindent_succeeds_exactly_when_the_tape_parser_accepts_and_keeps_every_number(
            chars in proptest::collection::vec(proptest::sample::select(
                "{}[]:,\"\\ \n\t0123456789-+.eEtrufalsn\u{1}éab".chars().collect::<Vec<_>>()), 0..48)
        ) {
            let text: String = chars.into_iter().collect();
            let parsed = numbers(&text);
            match reindent(&text) {
                Reindent::Pretty(pretty) => {
                    proptest::prop_assert!(parsed.is_some(), "re-indented, not parsed: {:?}", text);
                    proptest::prop_assert_eq!(numbers(&pretty.text), parsed.clone(), "{:?}", text);
                }
                Reindent::TooLarge => proptest::prop_assert!(parsed.is_some(), "{:?}", text),
                Reindent::Invalid => proptest::prop_assert!(parsed.is_none(), "parsed, not re-indented: {:?}", text),
            }
            proptest::prop_assert_eq!(is_json(&text), parsed.is_some(), "{:?}", text);
        }
    }

    /// JSON texts with numbers written every way the grammar allows, and random spacing.
    fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let number = "-?(0|[1-9][0-9]{0,30})(\\.[0-9]{1,5})?([eE][+-]?[0-9]{1,4})?";
        let leaf = prop_oneof![
            proptest::string::string_regex(number).expect("a valid regex"),
            Just("true".to_owned()),
            Just("null".to_owned()),
            "\"[a-zé\\\\n]{0,4}\"".prop_map(|s| s.replace('\\', "\\\\")),
        ];
        leaf.prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                (proptest::collection::vec(inner.clone(), 0..5), " ?\n?")
                    .prop_map(|(items, ws)| format!("[{ws}{}]", items.join(&format!(",{ws}")))),
                proptest::collection::vec(("[a-z]{0,3}", inner), 0..5).prop_map(|members| {
                    let members: Vec<String> = members
                        .iter()
                        .map(|(k, v)| format!("\"{k}\" : {v}"))
                        .collect();
                    format!("{{{}}}", members.join(","))
                }),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        #[test]
        fn reindent_keeps_every_number_of_a_valid_document(text in json_text()) {
            let parsed = numbers(&text);
            proptest::prop_assert!(parsed.is_some(), "{:?}", text);
            let Reindent::Pretty(pretty) = reindent(&text) else {
                return Err(proptest::test_runner::TestCaseError::fail(format!("{text:?}")));
            };
            proptest::prop_assert_eq!(numbers(&pretty.text), parsed);
        }
    }

    #[test]
    fn reindent_and_the_tape_parser_agree_on_structured_documents() {
        for text in [
            r#"{"a": [1.5e-3, -0, 123456789012345678901234567890, 1E400], "b": {"c": [true, null]}}"#,
            "[[[[]]], {}, \"\\u00e9\", 0.000]",
        ] {
            let Reindent::Pretty(pretty) = reindent(text) else {
                panic!("{text} did not re-indent")
            };
            assert_eq!(numbers(&pretty.text), numbers(text));
        }
    }
}
