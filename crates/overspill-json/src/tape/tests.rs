use super::*;
use crate::parse::parse;

#[test]
fn navigation_walks_items_entries_and_keys() {
    let src = br#"{"a": [1, {"b": null}, "x"], "c": true, "a": 2}"#;
    let tape = parse(src).unwrap();
    let root = tape.root(src);
    assert_eq!(root.kind(), Kind::Object);
    assert_eq!(root.len(), 3);
    let keys: Vec<_> = root.entries().map(|(k, _)| k.str().into_owned()).collect();
    assert_eq!(keys, ["a", "c", "a"]);
    // The last of a repeated key wins, as in serde_json.
    assert_eq!(root.get("a").unwrap().raw_str(), "2");
    let first_a = root.entries().next().unwrap().1;
    assert_eq!(first_a.items().count(), 3);
    assert_eq!(
        first_a.index(1).unwrap().get("b").unwrap().kind(),
        Kind::Null
    );
    assert_eq!(first_a.index(2).unwrap().str(), "x");
    assert!(first_a.index(3).is_none());
    assert!(root.get("c").unwrap().is_true());
    assert_eq!(root.subtree_nodes() as usize, tape.len());
}

#[test]
fn char_len_and_str_lines_count_the_decoded_string() {
    let src = br#"["ab\ncd\n", "h\u00e9", "plain"]"#;
    let tape = parse(src).unwrap();
    let items: Vec<_> = tape.root(src).items().collect();
    assert_eq!(items[0].char_len(), 6);
    assert_eq!(items[0].str_lines(), 3);
    assert_eq!(items[1].char_len(), 2);
    assert_eq!(items[2].str_lines(), 1);
}

#[test]
fn compact_text_keeps_every_token_and_drops_the_whitespace() {
    let src = "{\n  \"a\": [1.0, 1E400, {}, [], {\"b\": \"\\u00e9\"}],\n  \"n\": 123456789012345678901234567890\n}";
    let tape = parse(src.as_bytes()).unwrap();
    let root = tape.root(src.as_bytes());
    assert_eq!(
        root.compact_text(),
        r#"{"a":[1.0,1E400,{},[],{"b":"\u00e9"}],"n":123456789012345678901234567890}"#
    );
    assert_eq!(
        root.get("a").unwrap().index(4).unwrap().compact_text(),
        r#"{"b":"\u00e9"}"#
    );
    assert_eq!(
        root.numbers().collect::<Vec<_>>(),
        ["1.0", "1E400", "123456789012345678901234567890"]
    );
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let tape = parse(deep.as_bytes()).unwrap();
    assert_eq!(tape.root(deep.as_bytes()).compact_text(), deep);
}
