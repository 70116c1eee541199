use super::*;

fn text(json: &str) -> String {
    let document = Document::parse(json.as_bytes()).unwrap();
    document.into_value().to_string()
}

#[test]
fn a_document_reads_as_jaqs_reader_reads_it() {
    for json in [
        r#"{"a": [1, 2.50, -0, 1e400, 123456789012345678901234567890], "b": {"c": null}}"#,
        r#"[true, false, null, "", "x", "é\u00e9\n\"", {}, [], [[{}]]]"#,
        r#"{"k": 1, "j": 2, "k": 3}"#,
        r#""top""#,
        "7",
    ] {
        let ours = text(json);
        let jaqs = jaq_json::read::parse_single(json.as_bytes())
            .unwrap()
            .to_string();
        assert_eq!(ours, jaqs, "{json}");
    }
}

#[test]
fn unescaped_strings_share_the_source_bytes() {
    let src = Bytes::from_static(br#"{"name": "api-1", "esc": "a\nb"}"#);
    let tape = overspill_json::parse(&src).unwrap();
    let (document, _) = Document::from_tape(&tape, &src);
    let Val::Obj(map) = document.into_value() else {
        panic!("an object");
    };
    let Some(Val::TStr(name)) = map.get(&Val::utf8_str("name")) else {
        panic!("a string");
    };
    let within = src.as_ptr_range();
    assert!(within.contains(&name.as_ptr()), "a slice of the source");
    let Some(Val::TStr(escaped)) = map.get(&Val::utf8_str("esc")) else {
        panic!("a string");
    };
    assert_eq!(&escaped[..], b"a\nb");
}

#[test]
fn a_document_nested_10_000_deep_builds_without_recursing() {
    let json = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
    // The test thread's stack is small: a recursive build would overflow it.
    let value = Document::parse(json.as_bytes()).unwrap().into_value();
    let mut depth = 0;
    let mut at = &value;
    while let Val::Arr(items) = at {
        depth += 1;
        at = &items[0];
    }
    assert_eq!(depth, 10_000);
    // jaq drops nested values recursively: on a thread with room, as query does.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || drop(value))
        .unwrap()
        .join()
        .unwrap();
}
