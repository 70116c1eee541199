use super::*;

fn companions_of(doc: &serde_json::Value) -> Vec<Planned> {
    let input = serde_json::to_string(doc).unwrap();
    let Reindent::Pretty(pretty) = reindent(&input) else {
        panic!("not JSON")
    };
    plan(&input, &pretty.top_level_strings, "tool-0123456789abcdef")
}

fn markdown(lines: usize) -> String {
    let mut md = String::from("# Report\n");
    for i in 1..lines {
        md.push_str(&format!("line {i}\n"));
    }
    md
}

fn big_json() -> String {
    serde_json::to_string(&serde_json::json!({"items": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]})).unwrap()
}

#[test]
fn escaped_json_string_gets_a_pretty_json_companion() {
    let got = companions_of(&serde_json::json!({"status": "ok", "body": big_json()}));
    assert_eq!(got.len(), 1);
    let c = &got[0].companion;
    assert_eq!(
        (c.key.as_str(), c.format, c.file_name.as_str()),
        ("body", Format::Json, "tool-0123456789abcdef.body.json")
    );
    assert!(got[0].content.starts_with("{\n  \"items\": [\n    1,"));
    assert_eq!(c.lines, 14);
}

#[test]
fn markdown_of_ten_lines_gets_a_companion_and_nine_lines_does_not() {
    let got = companions_of(&serde_json::json!({"ten": markdown(10), "nine": markdown(9)}));
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].companion.key, "ten");
    assert_eq!(got[0].companion.format, Format::Markdown);
    assert_eq!(got[0].content, markdown(10));
}

#[test]
fn short_json_and_plain_text_values_get_no_companion() {
    let doc = serde_json::json!({"small": "{\"a\":1}", "text": "plain\n".repeat(30), "num": 3});
    assert!(companions_of(&doc).is_empty());
}

#[test]
fn nested_and_array_strings_get_no_companion() {
    let doc = serde_json::json!({"outer": {"body": big_json()}, "list": [markdown(12)]});
    assert!(companions_of(&doc).is_empty());
}

#[test]
fn colliding_slugs_get_numbered_suffixes() {
    let doc = serde_json::json!({"a b": markdown(10), "a.b": markdown(11), "a/b": big_json(), "a_b-2": markdown(12)});
    let names: Vec<String> = companions_of(&doc)
        .into_iter()
        .map(|p| p.companion.file_name)
        .collect();
    assert_eq!(
        names,
        [
            "tool-0123456789abcdef.a_b.md",
            "tool-0123456789abcdef.a_b-2.md",
            "tool-0123456789abcdef.a_b-3.json",
            "tool-0123456789abcdef.a_b-2-2.md",
        ]
    );
}

#[test]
fn duplicate_keys_each_get_a_companion() {
    let input = format!(
        r#"{{"r":{},"r":{}}}"#,
        serde_json::to_string(&markdown(10)).unwrap(),
        serde_json::to_string(&markdown(11)).unwrap()
    );
    let Reindent::Pretty(pretty) = reindent(&input) else {
        panic!("not JSON")
    };
    let names: Vec<String> = plan(&input, &pretty.top_level_strings, "t-h")
        .into_iter()
        .map(|p| p.companion.file_name)
        .collect();
    assert_eq!(names, ["t-h.r.md", "t-h.r-2.md"]);
}

#[test]
fn companion_count_is_capped() {
    let map: serde_json::Map<String, serde_json::Value> = (0..40)
        .map(|i| (format!("k{i}"), serde_json::Value::String(markdown(10))))
        .collect();
    assert_eq!(
        companions_of(&serde_json::Value::Object(map)).len(),
        MAX_COMPANIONS
    );
}
