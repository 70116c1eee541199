use serde::Serialize;
use serde_json::json;

use super::*;

#[derive(Debug, Deserialize, Serialize, PartialEq, JsonSchema)]
struct Sample {
    file: String,
    #[serde(default = "fifty")]
    lines: u64,
    #[serde(default)]
    offset: Option<u64>,
    #[serde(default)]
    ignore_case: bool,
}

fn fifty() -> u64 {
    50
}

fn message(arguments: Value) -> String {
    match parse::<Sample>("demo", &arguments) {
        Err(error) => error.to_string(),
        Ok(args) => panic!("expected an error, got {args:?}"),
    }
}

#[test]
fn unknown_argument_lists_the_accepted_ones() {
    let error = parse::<Sample>("demo", &json!({"file": "a", "lines_count": 3})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown argument `lines_count`; demo accepts: file, lines, offset, ignore_case"
    );
    assert_eq!(
        error.to_json(),
        json!({
            "error": "invalid_argument",
            "argument": "lines_count",
            "message": "unknown argument `lines_count`; demo accepts: file, lines, offset, ignore_case",
            "accepted": ["file", "lines", "offset", "ignore_case"],
        })
    );
}

#[test]
fn numeric_strings_and_whole_floats_are_accepted_as_integers() {
    let args: Sample = parse("demo", &json!({"file": "a", "lines": "20", "offset": 7.0})).unwrap();
    assert_eq!((args.lines, args.offset), (20, Some(7)));
    let args: Sample = parse("demo", &json!({"file": "a", "lines": " 3 "})).unwrap();
    assert_eq!(args.lines, 3);
}

#[test]
fn defaults_apply_and_null_means_not_given() {
    let args: Sample = parse("demo", &json!({"file": "a", "offset": null})).unwrap();
    assert_eq!(
        args,
        Sample {
            file: "a".into(),
            lines: 50,
            offset: None,
            ignore_case: false
        }
    );
}

#[test]
fn negative_values_name_the_argument() {
    assert_eq!(
        message(json!({"file": "a", "lines": -3})),
        "argument `lines`: must not be negative, got -3"
    );
    assert_eq!(
        message(json!({"file": "a", "offset": "-2"})),
        "argument `offset`: must not be negative, got -2"
    );
}

#[test]
fn wrong_types_name_the_argument_and_what_was_expected() {
    assert_eq!(
        message(json!({"file": "a", "lines": true})),
        "argument `lines`: invalid type: boolean `true`, expected a non-negative integer such \
             as 50 (a numeric string like \"50\" also works)"
    );
    assert_eq!(
        message(json!({"file": "a", "lines": "many"})),
        "argument `lines`: expected a non-negative integer such as 50, got the text \"many\""
    );
    assert_eq!(
        message(json!({"file": "a", "lines": 2.5})),
        "argument `lines`: expected a whole number, got 2.5"
    );
    assert_eq!(
        message(json!({"file": 7})),
        "argument `file`: invalid type: integer `7`, expected a string"
    );
    assert_eq!(
        message(json!({"file": "a", "ignore_case": "yes"})),
        "argument `ignore_case`: expected true or false, got the text \"yes\""
    );
}

#[test]
fn missing_required_argument_is_named() {
    assert_eq!(
        message(json!({"lines": 3})),
        "demo needs the argument `file`"
    );
}

#[test]
fn non_object_arguments_are_refused_and_null_means_empty() {
    assert!(
        message(json!([1, 2]))
            .starts_with("demo takes a JSON object of named arguments, not an array")
    );
    assert_eq!(message(Value::Null), "demo needs the argument `file`");
}

#[test]
fn huge_numeric_strings_are_refused_as_too_large() {
    assert_eq!(
        message(json!({"file": "a", "lines": "99999999999999999999999"})),
        "argument `lines`: 99999999999999999999999 is too large"
    );
}

#[test]
fn accepted_reads_the_field_list_from_the_schema() {
    assert_eq!(
        accepted::<Sample>(),
        ["file", "lines", "offset", "ignore_case"]
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn arbitrary_argument_objects_never_panic(key in "\\PC{0,12}", n in proptest::num::i64::ANY, s in "\\PC{0,20}") {
        let _ = parse::<Sample>("demo", &json!({key.clone(): n, "file": s.clone()}));
        let _ = parse::<Sample>("demo", &json!({"file": s, "lines": key}));
    }
}
