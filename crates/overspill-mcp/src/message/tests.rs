use super::*;

fn one(text: &str) -> Result<Message, Invalid> {
    let mut all = parse(text.to_owned());
    assert_eq!(all.len(), 1);
    all.remove(0)
}

#[test]
fn a_request_keeps_its_text_and_reads_id_and_method() {
    let text = r#"{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"x-vendor":1}}"#;
    let message = one(text).unwrap();
    assert_eq!(message.text, text);
    assert_eq!(
        message.kind,
        Kind::Request {
            id: Id::Text("a-1".into()),
            method: "tools/call".into()
        }
    );
}

#[test]
fn numbers_and_strings_are_different_ids() {
    assert_ne!(Id::of(&json!(1)), Id::of(&json!("1")));
    for id in [
        json!(1),
        json!("1"),
        json!(-2.5),
        json!(9007199254740993u64),
    ] {
        assert_eq!(Id::of(&id).map(|key| key.value()), Some(id));
    }
}

#[test]
fn text_that_is_not_json_is_a_parse_error_with_a_null_id() {
    let error = one("this is not json").unwrap_err();
    assert_eq!((error.code, &error.id), (PARSE_ERROR, &Value::Null));
    assert!(error.response().contains("\"id\":null"));
}

#[test]
fn a_method_that_is_not_a_string_is_an_invalid_request_keeping_the_id() {
    let error = one(r#"{"jsonrpc":"2.0","id":5,"method":42}"#).unwrap_err();
    assert_eq!((error.code, error.id), (INVALID_REQUEST, json!(5)));
}

#[test]
fn json_that_is_not_an_object_is_an_invalid_request() {
    assert_eq!(one("42").unwrap_err().code, INVALID_REQUEST);
    assert_eq!(one("[]").unwrap_err().code, INVALID_REQUEST);
}

#[test]
fn an_object_id_is_an_invalid_request_with_a_null_id() {
    let error = one(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#).unwrap_err();
    assert_eq!((error.code, error.id), (INVALID_REQUEST, Value::Null));
}

#[test]
fn a_missing_version_is_an_invalid_request() {
    let error = one(r#"{"id":3,"method":"ping"}"#).unwrap_err();
    assert_eq!((error.code, error.id), (INVALID_REQUEST, json!(3)));
}

#[test]
fn a_batch_is_routed_element_by_element() {
    let all = parse(
            r#"[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":1,"result":{}}, 7]"#
                .to_owned(),
        );
    assert_eq!(all.len(), 3);
    assert!(
        matches!(&all[0], Ok(m) if m.kind == Kind::Notification { method: "notifications/initialized".into() })
    );
    assert!(
        matches!(&all[1], Ok(m) if m.kind == Kind::Response { id: Some(Id::Number("1".into())), error: false })
    );
    assert!(matches!(&all[2], Err(e) if e.code == INVALID_REQUEST));
}

#[test]
fn an_error_without_an_id_is_a_response() {
    let message =
        one(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#).unwrap();
    assert_eq!(
        message.kind,
        Kind::Response {
            id: None,
            error: true
        }
    );
}

#[test]
fn a_result_without_an_id_is_invalid() {
    assert_eq!(
        one(r#"{"jsonrpc":"2.0","result":{}}"#).unwrap_err().code,
        INVALID_REQUEST
    );
}

#[test]
fn an_id_is_salvaged_from_the_start_of_a_message_cut_short() {
    let head = r#"{"jsonrpc":"2.0","id":41,"result":{"content":[{"type":"text","text":"aaaa"#;
    assert_eq!(
        salvage(head, "aaaa\"}]}}"),
        Salvaged {
            id: Some(json!(41)),
            response: true
        }
    );
}

#[test]
fn an_id_is_salvaged_from_the_end_when_it_is_the_last_member() {
    let head = r#"{"result":{"content":[{"type":"text","text":"aaaa"#;
    let tail = r#"aaaa"}]},"jsonrpc":"2.0","id":"call-7"}"#;
    assert_eq!(
        salvage(head, tail),
        Salvaged {
            id: Some(json!("call-7")),
            response: true
        }
    );
}

#[test]
fn an_id_inside_the_content_is_never_taken_for_the_message_id() {
    let head = r#"{"result":{"content":[{"type":"text","text":"aaaa"#;
    for tail in [
        r#"aa","x":{"id":5}}}"#,
        r#"aa \",\"id\":5}"}]}}"#,
        r#"aa"}],"meta":{"id":5}}}"#,
    ] {
        assert_eq!(salvage(head, tail).id, None, "{tail}");
    }
}

#[test]
fn a_request_cut_short_is_not_a_response() {
    let head = r#"{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"mess"#;
    assert_eq!(
        salvage(head, ""),
        Salvaged {
            id: Some(json!(3)),
            response: false
        }
    );
}

#[test]
fn with_id_replaces_only_the_id_wherever_it_stands() {
    let first = r#"{"id":7, "jsonrpc":"2.0","result":{"n":1e400,"id":"inner"}}"#;
    assert_eq!(
        with_id(first.to_owned(), &json!("c-1")),
        r#"{"id":"c-1", "jsonrpc":"2.0","result":{"n":1e400,"id":"inner"}}"#
    );
    let last = r#"{"jsonrpc":"2.0","result":{"id":3},"id" : "x\"y"}"#;
    assert_eq!(
        with_id(last.to_owned(), &json!(12)),
        r#"{"jsonrpc":"2.0","result":{"id":3},"id" : 12}"#
    );
    let none = r#"{"jsonrpc":"2.0","method":"notifications/x"}"#;
    assert_eq!(with_id(none.to_owned(), &json!(1)), none);
    assert_eq!(with_id("not json".to_owned(), &json!(1)), "not json");
}

#[test]
fn a_results_range_is_where_its_text_is_and_an_error_has_none() {
    let text = r#"{"result" : {"task":{"taskId":"t-1"}} ,"id":"a","jsonrpc":"2.0"}"#;
    let range = result_range(text).unwrap();
    assert_eq!(&text[range.clone()], r#"{"task":{"taskId":"t-1"}}"#);
    assert_eq!(
        overspill::mcp_result::created_task(&text[range]).as_deref(),
        Some("t-1")
    );
    let error = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}"#;
    assert_eq!(result_range(error), None);
    assert_eq!(result_range("not json"), None);
}

#[test]
fn an_error_responses_code_and_a_methods_head_are_read_from_the_envelope() {
    let error = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#;
    assert_eq!(envelope::error_code(error), Some(-32601));
    assert_eq!(
        envelope::error_code(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        None
    );
    let note = r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"uri":"file:///a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let (method, head) = method_head(note).unwrap();
    assert_eq!(method, "notifications/x");
    assert_eq!(head.version.as_deref(), Some("2026-07-28"));
    assert_eq!(head.uri.as_deref(), Some("file:///a"));
    assert_eq!(method_head(r#"{"jsonrpc":"2.0","method":"ping"}"#), None);
}

#[test]
fn a_requests_revision_progress_token_and_target_are_read_with_its_envelope() {
    let call = one(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t\u00e9","arguments":{"name":"inner"},"_meta":{"progressToken":"p-1","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#).unwrap();
    assert_eq!(call.revision, Some(Revision::R2026_07_28));
    assert_eq!(call.head.progress, Some(json!("p-1")));
    assert_eq!(call.head.version.as_deref(), Some("2026-07-28"));
    assert_eq!(call.head.name.as_deref(), Some("té"));
    let read =
        one(r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///a"}}"#)
            .unwrap();
    assert_eq!(
        (read.revision, read.head.uri.as_deref()),
        (None, Some("file:///a"))
    );
    // Params that are not an object, and responses, say nothing.
    let listed = one(r#"{"jsonrpc":"2.0","id":3,"method":"x","params":[1,2]}"#).unwrap();
    assert_eq!(listed.head, RequestHead::default());
    let answer = one(r#"{"jsonrpc":"2.0","id":3,"result":{"name":"n"}}"#).unwrap();
    assert_eq!(answer.head, RequestHead::default());
}

#[test]
fn a_new_id_goes_where_the_old_one_was_and_the_arguments_are_still_found_after_it() {
    let text = r#"{"jsonrpc":"2.0","id":"a-long-client-id","method":"tools/call","params":{"name":"t","arguments":{"q":"x y"}}}"#;
    let message = parse_one(text.to_owned()).unwrap();
    assert_eq!(message.arguments(), Some(r#"{"q":"x y"}"#));
    for id in [
        json!(7),
        json!("a-longer-id-of-the-proxy's-own"),
        json!(123_456_789),
    ] {
        let moved = message.clone().with_id(id.clone());
        let value: Value = serde_json::from_str(&moved.text).unwrap();
        assert_eq!(value["id"], id);
        assert_eq!(value["params"]["arguments"], json!({"q": "x y"}));
        assert_eq!(moved.id, id);
        assert_eq!(
            moved.kind,
            Kind::Request {
                id: Id::of(&id).unwrap(),
                method: "tools/call".to_owned()
            }
        );
        assert_eq!(moved.arguments(), Some(r#"{"q":"x y"}"#));
        // Twice: the place of the new id is known too.
        let again = moved.with_id(json!(1));
        assert_eq!(
            serde_json::from_str::<Value>(&again.text).unwrap()["id"],
            json!(1)
        );
    }
}

#[test]
fn arguments_before_the_id_keep_their_place_and_a_new_text_is_read_again() {
    let text =
        r#"{"params":{"arguments":[1,2],"name":"t"},"method":"tools/call","jsonrpc":"2.0","id":1}"#;
    let mut message = parse_one(text.to_owned()).unwrap();
    let moved = message.clone().with_id(json!("z"));
    assert_eq!(moved.arguments(), Some("[1,2]"));
    assert!(moved.text.ends_with(r#""id":"z"}"#));
    message.set_text(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"u"}}"#.to_owned(),
    );
    assert_eq!(message.arguments(), None);
    message.set_text(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#.to_owned(),
    );
    assert_eq!(message.arguments(), Some("{}"));
}

#[test]
fn a_message_that_cannot_be_read_gives_its_text_back_with_its_answer() {
    let (text, invalid) = read("{not json".to_owned()).unwrap_err();
    assert_eq!(text, "{not json");
    assert_eq!(invalid.code, PARSE_ERROR);
    let answer = read(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#.to_owned()).unwrap();
    assert_eq!(
        answer.kind,
        Kind::Response {
            id: Some(Id::Number("3".to_owned())),
            error: false
        }
    );
}
