use super::*;
use crate::parse::parse;

const SRC: &[u8] =
    br#"{"items": [{"name": "a", "ports": {"8080": "http"}}, {"name": "b"}], "0": "zero", "n": 3}"#;

fn at(path: &str) -> Result<String, Miss> {
    let tape = parse(SRC).unwrap();
    resolve(tape.root(SRC), &JsonPath::parse(path).unwrap()).map(|v| v.raw_str().to_owned())
}

#[test]
fn paths_resolve_in_every_form() {
    assert_eq!(at("$.items[1].name").unwrap(), "b");
    assert_eq!(at("items.0.name").unwrap(), "a");
    assert_eq!(at("$.items[-1].name").unwrap(), "b");
    assert_eq!(at(r#"$["0"]"#).unwrap(), "zero");
    assert_eq!(at("items.0.ports.8080").unwrap(), "http");
}

#[test]
fn a_missing_key_reports_prefix_segment_and_keys() {
    let miss = at("$.items[0].nme").unwrap_err();
    assert_eq!(miss.valid_prefix.to_string(), "$.items[0]");
    assert_eq!(miss.failed_segment, "nme");
    assert_eq!(
        miss.instead,
        Instead::Keys {
            keys: vec!["name".into(), "ports".into()],
            total: 2
        }
    );
}

#[test]
fn an_index_past_the_end_reports_the_array_length() {
    let miss = at("$.items[9].name").unwrap_err();
    assert_eq!(miss.valid_prefix.to_string(), "$.items");
    assert_eq!(miss.failed_segment, "[9]");
    assert_eq!(miss.instead, Instead::ArrayLength(2));
    assert_eq!(at("$.items[-3]").unwrap_err().failed_segment, "[-3]");
}

#[test]
fn a_path_into_a_scalar_reports_its_type() {
    let miss = at("$.n.x").unwrap_err();
    assert_eq!(
        (miss.valid_prefix.to_string(), miss.instead),
        ("$.n".to_owned(), Instead::ValueType(Kind::Number))
    );
    let miss = at("$.items.name").unwrap_err();
    assert_eq!(miss.instead, Instead::ArrayLength(2));
}

#[test]
fn available_keys_are_cut_at_50_with_the_count() {
    let object: String = (0..120)
        .map(|i| format!("\"k{i}\": {i}"))
        .collect::<Vec<_>>()
        .join(",");
    let src = format!("{{{object}}}");
    let tape = parse(src.as_bytes()).unwrap();
    let miss = resolve(
        tape.root(src.as_bytes()),
        &JsonPath::parse("$.nope").unwrap(),
    )
    .unwrap_err();
    let Instead::Keys { keys, total } = &miss.instead else {
        panic!()
    };
    assert_eq!((keys.len(), *total), (50, 120));
}
