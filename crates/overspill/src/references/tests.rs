//! Tests of `overspill://` references, kept beside the module in a file of their own.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

fn pad(dir: &std::path::Path) -> Scratchpad {
    Scratchpad::builder()
        .scratchpad_dir(dir)
        .context_window(128_000)
        .intercept_all(100)
        .build()
        .unwrap()
}

fn items_json(n: usize) -> String {
    let items: Vec<Value> = (0..n)
        .map(|i| json!({"id": i, "name": format!("item-{i}"), "tags": ["a", i % 3]}))
        .collect();
    serde_json::to_string_pretty(&json!({"kind": "List", "items": items})).unwrap()
}

#[test]
fn a_whole_file_reference_to_a_2_mb_json_is_inserted_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let text = items_json(30_000);
    assert!(text.len() > 2_000_000, "{}", text.len());
    std::fs::write(dir.path().join("pods.json"), &text).unwrap();
    let pad = pad(dir.path());
    let schema = json!({"type": "object", "properties": {"body": {"type": "string"}}});
    let out = pad
        .resolve_references(&json!({"body": "overspill://pods.json"}), Some(&schema))
        .unwrap();
    assert_eq!(out["body"].as_str().unwrap().as_bytes(), text.as_bytes());
    // Not declared: text too. Declared as an object: the parsed value.
    let out = pad
        .resolve_references(&json!({"body": "overspill://pods.json"}), None)
        .unwrap();
    assert_eq!(out["body"].as_str().unwrap(), text);
    let schema = json!({"properties": {"body": {"type": "object"}}});
    let out = pad
        .resolve_references(&json!({"body": "overspill://pods.json"}), Some(&schema))
        .unwrap();
    assert_eq!(out["body"]["items"][29_999]["id"], 29_999);
}

#[test]
fn a_json_path_inserts_exactly_that_item() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("list.json"), items_json(10)).unwrap();
    let pad = pad(dir.path());
    let expected = json!({"id": 3, "name": "item-3", "tags": ["a", 0]});
    let args = json!({"pod": "overspill://list.json#$.items[3]", "n": 1});
    let out = pad.resolve_references(&args, None).unwrap();
    assert_eq!(out, json!({"pod": expected, "n": 1}));
    // Declared as a string: compact JSON text; a string value as itself.
    let schema = json!({"properties": {"pod": {"type": "string"}}});
    let out = pad.resolve_references(&args, Some(&schema)).unwrap();
    assert_eq!(out["pod"], json!(expected.to_string()));
    let args = json!({"pod": "overspill://list.json#$.items[-1].name"});
    let out = pad.resolve_references(&args, Some(&schema)).unwrap();
    assert_eq!(out["pod"], "item-9");
    // Nested references resolve too.
    let args = json!({"list": ["overspill://list.json#items.3.id", "x"]});
    assert_eq!(
        pad.resolve_references(&args, None).unwrap(),
        json!({"list": [3, "x"]})
    );
    let missing = pad
        .resolve_references(&json!({"p": "overspill://list.json#$.items[99]"}), None)
        .unwrap_err();
    assert_eq!(missing.code(), "path_not_found");
    assert!(
        missing
            .to_string()
            .contains("overspill://list.json#$.items[99]")
    );
}

#[test]
fn a_line_range_inserts_exactly_those_lines() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = (1..=100).map(|i| format!("line {i}\n")).collect();
    std::fs::write(dir.path().join("log.txt"), lines.concat()).unwrap();
    let pad = pad(dir.path());
    let out = pad
        .resolve_references(&json!({"text": "overspill://log.txt#L10-L80"}), None)
        .unwrap();
    assert_eq!(out["text"], json!(lines[9..80].concat()));
    let out = pad
        .resolve_references(&json!({"text": "overspill://log.txt#L100"}), None)
        .unwrap();
    assert_eq!(out["text"], "line 100\n");
    let past = pad
        .resolve_references(&json!({"text": "overspill://log.txt#L90-L101"}), None)
        .unwrap_err();
    assert_eq!(past.code(), "offset_out_of_range");
    for bad in ["#L0-L3", "#L5-L3", "#L1-", "#L1-Lx", "#"] {
        let error = pad
            .resolve_references(&json!({"t": format!("overspill://log.txt{bad}")}), None)
            .unwrap_err();
        assert_eq!(error.code(), "invalid_argument", "{bad}: {error}");
    }
}

#[test]
fn a_path_outside_the_root_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pad = pad(dir.path());
    for reference in ["overspill://../../etc/passwd", "overspill:///etc/passwd"] {
        let error = pad
            .resolve_references(&json!({"f": reference}), None)
            .unwrap_err();
        assert_eq!(error.code(), "path_outside_root", "{error}");
        assert!(error.to_string().contains(reference), "{error}");
        assert!(error.to_string().contains("path_outside_root"), "{error}");
    }
}

#[cfg(unix)]
#[test]
fn a_planted_symlink_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        dir.path().join("planted.txt"),
    )
    .unwrap();
    let pad = pad(dir.path());
    let error = pad
        .resolve_references(&json!({"f": "overspill://planted.txt"}), None)
        .unwrap_err();
    assert_eq!(error.code(), "path_outside_root", "{error}");
    assert!(!error.to_string().contains("secret\""));
}

#[test]
fn a_string_merely_containing_a_reference_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "content").unwrap();
    let pad = pad(dir.path());
    let args = json!({
        "msg": "see overspill://a.txt for details",
        "trailing": " overspill://a.txt",
        "other": "OVERSPILL://a.txt",
        "n": 3,
        "nested": {"x": [null, true, "overspill:/a.txt"]},
    });
    assert!(!has_references(&args));
    assert_eq!(pad.resolve_references(&args, None).unwrap(), args);
    let out = pad
        .resolve_references(&json!({"msg": "overspill://a.txt"}), None)
        .unwrap();
    assert_eq!(out["msg"], "content");
}

#[test]
fn a_file_over_the_cap_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.txt"), "x".repeat(2_000)).unwrap();
    std::fs::write(dir.path().join("ok.txt"), "x".repeat(1_000)).unwrap();
    let pad = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .context_window(128_000)
        .max_reference_bytes(1_000)
        .build()
        .unwrap();
    let error = pad
        .resolve_references(&json!({"f": "overspill://big.txt#L1"}), None)
        .unwrap_err();
    assert_eq!(error.code(), "too_large");
    let message = error.to_string();
    assert!(message.contains("overspill://big.txt#L1") && message.contains("1000"));
    assert!(
        pad.resolve_references(&json!({"f": "overspill://ok.txt"}), None)
            .is_ok()
    );
    assert_eq!(DEFAULT_MAX_REFERENCE_BYTES, 50 * 1024 * 1024);
}

#[test]
fn a_1_mb_malformed_reference_is_quoted_cut_in_its_error() {
    // Issue 22, item 6: the reference (and the path parser's reason, which quotes it) came
    // back whole.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("list.json"), items_json(3)).unwrap();
    let pad = pad(dir.path());
    let megabyte = "a".repeat(1 << 20);
    for reference in [
        format!("overspill://list.json#$[{megabyte}"),
        format!("overspill://list.json#$.items[0].{megabyte}"),
        format!("overspill://{megabyte}.json"),
        format!("overspill://list.json#L{megabyte}"),
    ] {
        let error = pad
            .resolve_references(&json!({ "f": reference }), None)
            .unwrap_err()
            .to_string();
        assert!(
            error.len() < 1_200,
            "{} bytes: {}",
            error.len(),
            &error[..300]
        );
        assert!(error.contains(" more chars)"), "{error}");
        assert!(error.starts_with("cannot resolve `overspill://"), "{error}");
    }
}

#[test]
fn missing_files_and_non_json_files_name_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "not json").unwrap();
    let pad = pad(dir.path());
    let error = pad
        .resolve_references(&json!({"f": "overspill://nope.json"}), None)
        .unwrap_err();
    assert_eq!(error.code(), "not_found");
    let error = pad
        .resolve_references(&json!({"f": "overspill://a.txt#$.x"}), None)
        .unwrap_err();
    assert_eq!(error.code(), "not_json");
    assert!(error.to_string().contains("overspill://a.txt#$.x"));
    let error = pad
        .resolve_references(&json!({"f": "overspill://"}), None)
        .unwrap_err();
    assert_eq!(error.code(), "invalid_argument");
}

/// A file holding the paths the references used to read otherwise than `get_in`.
const AWKWARD: &str = r#"{"ports": {"8080": "http", "9090": {"n": 1}}, "0": "zero", "big": 123456789012345678901234567890, "huge": 1e400, "list": [{"id": 123456789012345678901234567890}, 2]}"#;

/// A scratchpad whose read root holds `awkward.json` ([`AWKWARD`]).
fn awkward_pad() -> (tempfile::TempDir, Scratchpad) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("awkward.json"), AWKWARD).unwrap();
    let pad = pad(dir.path());
    (dir, pad)
}

/// What `get_in` answers for `path`: its rendered value lines, or its error JSON.
fn get_in(pad: &Scratchpad, path: &str) -> Result<String, Value> {
    let answer = pad.call_value("get_in", &json!({"file": "awkward.json", "path": path}));
    match serde_json::from_str::<Value>(&answer) {
        Ok(error) if error.get("error").is_some() => Err(error),
        _ => Ok(answer),
    }
}

#[test]
fn references_resolve_every_path_as_get_in_does() {
    let (_dir, pad) = awkward_pad();
    let text = json!({"properties": {"v": {"type": "string"}}});
    for (path, inserted) in [
        ("ports.8080", "http"),
        ("$.ports.9090", r#"{"n":1}"#),
        (r#"$["0"]"#, "zero"),
        ("big", "123456789012345678901234567890"),
        ("huge", "1e400"),
        ("list.0", r#"{"id":123456789012345678901234567890}"#),
    ] {
        let shown = get_in(&pad, path).unwrap_or_else(|e| panic!("get_in {path}: {e}"));
        let got = pad
            .resolve_references(
                &json!({"v": format!("overspill://awkward.json#{path}")}),
                Some(&text),
            )
            .unwrap_or_else(|e| panic!("reference {path}: {e}"));
        assert_eq!(got["v"], inserted, "{path}");
        let last_token = inserted
            .trim_end_matches(['}', ']'])
            .rsplit([':', '"'])
            .find(|t| !t.is_empty())
            .unwrap();
        assert!(shown.contains(last_token), "get_in {path} shows {shown}");
    }
}

#[test]
fn a_reference_to_a_key_named_by_digits_finds_it_as_get_in_does() {
    let (_dir, pad) = awkward_pad();
    let out = pad
        .resolve_references(
            &json!({"port": "overspill://awkward.json#ports.8080"}),
            None,
        )
        .unwrap();
    assert_eq!(out["port"], "http");
    let out = pad
        .resolve_references(&json!({"zero": r#"overspill://awkward.json#$["0"]"#}), None)
        .unwrap();
    assert_eq!(out["zero"], "zero");
}

#[test]
fn numbers_a_json_value_cannot_hold_go_in_as_their_exact_text() {
    let (_dir, pad) = awkward_pad();
    let out = pad
        .resolve_references(
            &json!({
                "big": "overspill://awkward.json#big",
                "huge": "overspill://awkward.json#huge",
                "small": "overspill://awkward.json#ports.9090",
            }),
            None,
        )
        .unwrap();
    assert_eq!(out["big"], "123456789012345678901234567890");
    assert_eq!(out["huge"], "1e400");
    assert_eq!(out["small"], json!({"n": 1}));
}

#[test]
fn a_1e400_elsewhere_in_the_file_does_not_stop_a_reference() {
    let (_dir, pad) = awkward_pad();
    let out = pad
        .resolve_references(&json!({"n": "overspill://awkward.json#list[1]"}), None)
        .unwrap();
    assert_eq!(out["n"], 2);
}

#[test]
fn reference_errors_are_get_in_errors_with_their_details() {
    let (dir, pad) = awkward_pad();
    std::fs::write(dir.path().join("notes.md"), "# Notes\n").unwrap();
    for path in ["ports.80", "$.nope", "list[5]", "big.x", "ports.9090.n.m"] {
        let tool = get_in(&pad, path).expect_err(path);
        let error = pad
            .resolve_references(
                &json!({"v": format!("overspill://awkward.json#{path}")}),
                None,
            )
            .expect_err(path);
        assert_eq!(error.code(), "path_not_found", "{path}");
        assert_eq!(
            error.tool_error().map(|e| e.to_json()),
            Some(tool.clone()),
            "{path}"
        );
        for detail in ["valid_prefix", "failed_segment"] {
            assert!(
                error.to_string().contains(tool[detail].as_str().unwrap()),
                "{path}: {error}"
            );
        }
    }
    let error = pad
        .resolve_references(&json!({"v": "overspill://awkward.json#ports.80"}), None)
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains(r#""available_keys":["8080","9090"]"#),
        "{error}"
    );
    let error = pad
        .resolve_references(&json!({"v": "overspill://notes.md#$.x"}), None)
        .unwrap_err();
    assert_eq!(error.code(), "not_json");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_strings_never_panic_the_resolver(tail in ".{0,40}", plain in "\\PC{0,40}") {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.json"), r#"{"items": [1, 2, 3]}"#).unwrap();
        let pad = pad(dir.path());
        let args = json!({
            "r": format!("overspill://{tail}"),
            "j": format!("overspill://a.json#{tail}"),
            "l": format!("overspill://a.json#L{tail}"),
            "p": plain,
        });
        let _ = pad.resolve_references(&args, None);
        let _ = pad.resolve_references(&Value::String(plain.clone()), None);
    }
}
