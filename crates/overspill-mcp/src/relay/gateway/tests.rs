use serde_json::json;

use super::*;

fn template_matches(template: &str, uri: &str) -> bool {
    template_pattern(template).is_some_and(|pattern| pattern.is_match(uri))
}

#[test]
fn a_template_matches_the_uris_it_makes_and_no_others() {
    assert!(template_matches(
        "test://static/resource/{id}",
        "test://static/resource/7"
    ));
    assert!(!template_matches(
        "test://static/resource/{id}",
        "test://static/other/7"
    ));
    assert!(!template_matches("file:///{name}", "file:///a/b"));
    assert!(template_matches("file:///{+path}", "file:///a/b"));
    assert!(template_matches(
        "repo://{owner}/{name}/issues",
        "repo://me/x/issues"
    ));
    assert!(!template_matches(
        "repo://{owner}/{name}/issues",
        "repo://me/x/pulls"
    ));
    assert!(!template_matches("broken://{id", "broken://{id"));
    assert!(
        !template_matches("a.b/{x}", "aXb/1"),
        "literal dots are literal"
    );
}

#[test]
fn a_template_of_many_expressions_matches_a_long_uri_at_once() {
    let template = "x://{+a}{+b}{+c}{+d}{+e}{+f}{+g}{+h}/end";
    let uri = format!("x://{}", "y".repeat(20_000));
    assert!(!template_matches(template, &uri));
}

#[test]
fn a_cursor_names_its_server_and_round_trips() {
    let cursor = encode_cursor("k8s", &json!("page-2"));
    assert_eq!(
        decode_cursor(&cursor),
        Some(("k8s".to_owned(), json!("page-2")))
    );
    let first = encode_cursor("docs", &Value::Null);
    assert_eq!(
        decode_cursor(&first),
        Some(("docs".to_owned(), Value::Null))
    );
    assert_eq!(decode_cursor("page-2"), None);
    assert_eq!(decode_cursor("[1, 2]"), None);
}

#[test]
fn capabilities_are_the_union_of_the_servers() {
    let mut ours = json!({"resources": {"subscribe": false}, "prompts": {}});
    union(
        &mut ours,
        &json!({"resources": {"subscribe": true, "listChanged": false}, "completions": {}}),
    );
    assert_eq!(
        ours,
        json!({
            "resources": {"subscribe": true, "listChanged": false},
            "prompts": {},
            "completions": {}
        })
    );
}

#[test]
fn a_log_message_says_which_server_logged_it() {
    let plain = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#;
    let tagged: Value = serde_json::from_str(&tagged_log(plain.to_owned(), "git")).unwrap();
    assert_eq!(tagged["params"]["logger"], "git");
    let named = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"db","data":"x"}}"#;
    let tagged: Value = serde_json::from_str(&tagged_log(named.to_owned(), "git")).unwrap();
    assert_eq!(tagged["params"]["logger"], "git/db");
}

#[test]
fn restarts_wait_longer_each_time_up_to_a_minute() {
    assert_eq!(backoff(0), Duration::from_secs(1));
    assert_eq!(backoff(1), Duration::from_secs(2));
    assert_eq!(backoff(5), Duration::from_secs(32));
    assert_eq!(backoff(6), Duration::from_secs(60));
    assert_eq!(backoff(u32::MAX), Duration::from_secs(60));
}

#[test]
fn a_routed_request_carries_the_servers_own_name() {
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"git__status","arguments":{}}}"#;
    let routed: Value = serde_json::from_str(&renamed(call.to_owned(), "status")).unwrap();
    assert_eq!(routed["params"]["name"], "status");
    assert_eq!(routed["params"]["arguments"], json!({}));
}

#[test]
fn only_a_refusal_a_stateless_server_gives_makes_the_gateway_ask_server_discover() {
    assert!(refuses_sessions(
        &json!({"code": -32601, "message": "no initialize"})
    ));
    assert!(refuses_sessions(
        &json!({"code": -32022, "message": "unsupported"})
    ));
    assert!(!refuses_sessions(
        &json!({"code": -32603, "message": "not today"})
    ));
    assert!(!refuses_sessions(&json!({"message": "no code"})));
}
