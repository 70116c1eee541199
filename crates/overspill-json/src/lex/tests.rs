use super::*;

#[test]
fn number_tokens_end_where_the_grammar_ends() {
    for (text, end) in [
        ("0", 1),
        ("-0.5e+10,", 8),
        ("12]", 2),
        ("01", 1),
        ("1E400", 5),
    ] {
        let mut lexer = Lexer::new(text.as_bytes());
        assert_eq!(lexer.number(), Ok(0), "{text}");
        assert_eq!(lexer.pos, end, "{text}");
    }
    for bad in ["-", "1.", "1e", "1e+", ".5"] {
        assert!(Lexer::new(bad.as_bytes()).number().is_err(), "{bad}");
    }
}

#[test]
fn string_tokens_report_their_content_and_flags() {
    let mut lexer = Lexer::new(br#""a\"b" "#);
    assert_eq!(lexer.string(), Ok((1, 5, ESCAPED)));
    assert_eq!(lexer.pos, 6);
    let mut lexer = Lexer::new("\"é\"".as_bytes());
    assert_eq!(lexer.string(), Ok((1, 3, NON_ASCII)));
}

#[test]
fn whitespace_is_skipped_counting_lines() {
    let mut lexer = Lexer::new(b" \n\t\r\n x");
    lexer.skip_ws();
    assert_eq!((lexer.peek(), lexer.line), (Some(b'x'), 3));
    assert_eq!(lexer.error("here").column, 2);
}
