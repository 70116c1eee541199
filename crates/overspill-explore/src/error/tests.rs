use super::*;

#[test]
fn too_large_error_shape_is_pinned() {
    let error = ToolError::TooLarge(Box::new(TooLarge {
        tool: "head".into(),
        estimated_tokens: 12_400,
        per_call_limit: 10_000,
        remaining_budget_tokens: 80_000,
        reason: overspill_budget::RefusalReason::OverCallLimit,
        retry: Some(Call {
            tool: "head".into(),
            arguments: json!({"file": "a.txt", "lines": 25}),
        }),
        suggestions: vec!["Ask for fewer lines.".into()],
    }));
    assert_eq!(
        error.render(),
        r#"{"error":"head_too_large","estimated_tokens":12400,"per_call_limit":10000,"remaining_budget_tokens":80000,"retry":{"tool":"head","arguments":{"file":"a.txt","lines":25}},"suggestions":["Ask for fewer lines."]}"#
    );
}

#[test]
fn file_error_shapes_are_pinned() {
    let not_found = ToolError::NotFound {
        file: "x.json".into(),
        message: "no file".into(),
    };
    assert_eq!(
        not_found.render(),
        r#"{"error":"not_found","file":"x.json","message":"no file"}"#
    );
    let outside = ToolError::PathOutsideRoot {
        file: "/etc/passwd".into(),
        message: "out".into(),
    };
    assert_eq!(
        outside.render(),
        r#"{"error":"path_outside_root","file":"/etc/passwd","message":"out"}"#
    );
    let io = ToolError::Io {
        file: "a".into(),
        message: "denied".into(),
    };
    assert_eq!(
        io.render(),
        r#"{"error":"io_error","file":"a","message":"denied"}"#
    );
    let not_json = ToolError::NotJson {
        file: "a.md".into(),
        format: "markdown".into(),
        message: "m".into(),
    };
    assert_eq!(
        not_json.render(),
        r#"{"error":"not_json","file":"a.md","format":"markdown","message":"m"}"#
    );
}

#[test]
fn json_path_error_shapes_are_pinned() {
    let keys = ToolError::PathNotFound(Box::new(PathNotFound {
        path: "$.items[3].nme".into(),
        valid_prefix: "$.items[3]".into(),
        failed_segment: "nme".into(),
        found: FoundInstead::Keys(vec!["name".into(), "id".into()]),
        message: "m".into(),
    }));
    assert_eq!(
        keys.render(),
        r#"{"error":"path_not_found","path":"$.items[3].nme","valid_prefix":"$.items[3]","failed_segment":"nme","available_keys":["name","id"],"message":"m"}"#
    );
    let length = ToolError::PathNotFound(Box::new(PathNotFound {
        path: "$.items[9]".into(),
        valid_prefix: "$.items".into(),
        failed_segment: "[9]".into(),
        found: FoundInstead::ArrayLength(3),
        message: "m".into(),
    }));
    assert!(
        length
            .render()
            .contains(r#""failed_segment":"[9]","array_length":3,"#)
    );
    let kind = ToolError::PathNotFound(Box::new(PathNotFound {
        path: "$.a.b".into(),
        valid_prefix: "$.a".into(),
        failed_segment: "b".into(),
        found: FoundInstead::ValueType("string".into()),
        message: "m".into(),
    }));
    assert!(
        kind.render()
            .contains(r#""failed_segment":"b","value_type":"string","#)
    );
    let not_array = ToolError::NotAnArray {
        path: "$.a".into(),
        value_type: "object".into(),
        message: "m".into(),
    };
    assert_eq!(
        not_array.render(),
        r#"{"error":"not_an_array","path":"$.a","value_type":"object","message":"m"}"#
    );
}

#[test]
fn invalid_argument_shape_is_pinned() {
    let error = ToolError::bad_argument("lines", "must not be negative, got -3");
    assert_eq!(
        error.render(),
        r#"{"error":"invalid_argument","argument":"lines","message":"argument `lines`: must not be negative, got -3"}"#
    );
    let whole_call = ToolError::invalid_argument(None, "bad call");
    assert_eq!(
        whole_call.render(),
        r#"{"error":"invalid_argument","message":"bad call"}"#
    );
}

#[test]
fn an_error_over_the_cap_is_cut_to_fit_with_a_note() {
    // Issue 22, item 6: no answer, error or not, may exceed the per-call cap. A hostile
    // file's 50 keys of 250 characters come back in `available_keys`.
    let counter = overspill_tokens::o200k();
    let keys: Vec<String> = (0..50).map(|i| format!("{i:0>250}")).collect();
    let error = ToolError::PathNotFound(Box::new(PathNotFound {
        path: "$.x".into(),
        valid_prefix: "$".into(),
        failed_segment: "x".into(),
        found: FoundInstead::KeysCut { keys, total: 9_000 },
        message: "$.x does not exist".into(),
    }));
    let full = error.render();
    assert!(counter.count(&full) > 1_000);
    let cut = error.render_within(counter, 1_000);
    assert!(counter.count(&cut) <= 1_000, "{cut}");
    let value: Value = serde_json::from_str(&cut).unwrap();
    assert_eq!(value["error"], "path_not_found");
    assert!(
        value["note"].as_str().unwrap().starts_with(
            "long values in this error were cut to fit the per-call cap of 1,000 tokens"
        ),
        "{cut}"
    );
    assert_eq!(
        value["available_keys"].as_array().unwrap().len(),
        MAX_CUT_ITEMS
    );
    assert!(
        value["available_keys"][0]
            .as_str()
            .unwrap()
            .ends_with("…(186 more chars)")
    );
    assert_eq!(value["key_count"], 9_000);
    // An error that fits is left as it is.
    assert_eq!(error.render_within(counter, 1_000_000), full);
    // A cap too small for anything else leaves the code, the note and the message's start.
    let tiny: Value = serde_json::from_str(&error.render_within(counter, 5)).unwrap();
    assert_eq!(tiny.as_object().unwrap().len(), 3, "{tiny}");
}
