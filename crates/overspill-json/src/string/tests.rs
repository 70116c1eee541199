use proptest::prelude::*;

use super::*;

#[test]
fn unescape_decodes_every_json_escape() {
    assert_eq!(
        unescape(r#"a\"b\\c\/d\n\t\r\b\fé\u00e9\ud83d\ude00"#),
        "a\"b\\c/d\n\t\r\u{8}\u{c}éé😀"
    );
    assert_eq!(unescape(r"\ud800x"), "\u{FFFD}x");
    assert_eq!(unescape(r"plain"), "plain");
}

#[test]
fn lone_surrogates_and_unknown_letters_do_not_decode() {
    for body in [r"\ud800x", r"\udc00", r"\q", r"\u12", r"\ud800\u0041"] {
        assert!(!escapes_decode(body.as_bytes()), "{body}");
    }
    assert!(escapes_decode(br#"\ud83d\ude00 \u00e9 \n \""#));
}

proptest! {
    #[test]
    fn both_decoders_agree_with_serde_json(text in "(?s).{0,200}") {
        let quoted = serde_json::to_string(&text).unwrap();
        let body = &quoted[1..quoted.len() - 1];
        prop_assert!(escapes_decode(body.as_bytes()));
        prop_assert_eq!(&unescape(body), &text);
        let mut bytes = body.as_bytes().to_vec();
        let length = unescape_in_place(&mut bytes);
        prop_assert_eq!(&bytes[..length], text.as_bytes());
    }
}
