//! The relay's fidelity, message by message: a raw JSON-RPC client → the proxy (in process) →
//! this test binary re-run as a raw JSON-lines server (`support/raw_server.rs`), so that every
//! field either side sends can be checked on arrival (an SDK would drop what it does not model).

// A test binary without libtest (`harness = false`): clippy.toml's test allowance does not reach it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::{fixture, harness, raw_server};

use std::time::Duration;

use overspill::Scratchpad;
use overspill_mcp::ProxyError;
use serde_json::{Value, json};

use harness::*;

fn raw(extra: &[&str]) -> RawSession {
    let dir = tempfile::tempdir().unwrap();
    let scratch = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .context_window(128_000)
        .intercept_all(5120)
        .build()
        .unwrap();
    let mut args = vec!["--raw"];
    args.extend_from_slice(extra);
    RawSession::start(scratch, dir, fixture_options_with(&args))
}

fn text_of(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

async fn the_clients_initialize_reaches_the_server_as_sent_and_only_tools_and_one_line_are_added() {
    let mut session = raw(&[]);
    let params = json!({
        "protocolVersion": "2024-11-05",
        "capabilities": {"elicitation": {}, "sampling": {}, "roots": {"listChanged": true},
                         "x-client-capability": {"z": 1}},
        "clientInfo": {"name": "picky-client", "version": "9.9", "x-client-info": true},
        "_meta": {"trace": "t-1"},
    });
    let response = session.initialize(params.clone()).await;
    let result = &response["result"];
    assert_eq!(result["x-received-initialize"], params, "{response}");
    assert_eq!(result["protocolVersion"], "2024-11-05");
    assert_eq!(
        result["capabilities"]["x-vendor-capability"],
        json!({"on": true})
    );
    assert_eq!(
        result["capabilities"]["tasks"],
        json!({"requests": {"tools": {"call": {}}}})
    );
    assert_eq!(
        result["capabilities"]["tools"],
        json!({}),
        "the tools capability is added"
    );
    let instructions = result["instructions"].as_str().unwrap();
    let (server, added) = instructions.split_once("\n\n").unwrap();
    assert_eq!(server, raw_server::INSTRUCTIONS);
    assert!(
        added.contains("`schema`") && !added.contains('\n'),
        "{added}"
    );
    session.proxy.abort();
}

async fn unknown_fields_on_tools_and_results_arrive_intact() {
    let mut session = raw(&[]);
    session.initialize_plain().await;
    let listed = session
        .request(json!("list-1"), "tools/list", json!({}))
        .await;
    let tools = listed["result"]["tools"].as_array().unwrap();
    for tool in raw_server::tools().as_array().unwrap() {
        assert!(
            tools.contains(tool),
            "{tool} changed or missing in {listed}"
        );
    }
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    for exploration in ["schema", "get_in", "grep", "head", "read"] {
        assert!(names.contains(&exploration), "{names:?}");
    }
    let called = session.call(7, "vendor", json!({})).await;
    assert_eq!(called["result"], raw_server::vendor_result(), "{called}");
    let custom = session
        .request(
            json!(8),
            "custom/echo",
            json!({"x-anything": [1, {"b": null}]}),
        )
        .await;
    assert_eq!(custom["result"], json!({"x-anything": [1, {"b": null}]}));
    session.proxy.abort();
}

async fn progress_keeps_the_clients_token_and_none_is_unsolicited_also_after_an_exploration_call() {
    let mut session = raw(&[]);
    session.initialize_plain().await;
    for (round, token) in [(1, "tok-A"), (2, "tok-B")] {
        let with = session
            .request(
                json!(round * 10),
                "tools/call",
                json!({"name": "progress", "arguments": {}, "_meta": {"progressToken": token}}),
            )
            .await;
        assert_eq!(text_of(&with), "done");
        let progress: Vec<&Value> = session
            .seen
            .iter()
            .filter(|m| m["method"] == "notifications/progress")
            .collect();
        assert_eq!(progress.len(), 1, "{:?}", session.seen);
        assert_eq!(progress[0]["params"]["progressToken"], token);
        session.seen.clear();
        let without = session.call(round * 10 + 1, "progress", json!({})).await;
        assert_eq!(text_of(&without), "done");
        assert!(
            session.seen.is_empty(),
            "unsolicited messages: {:?}",
            session.seen
        );
        // An exploration call in between must not change how progress flows.
        let explored = session
            .call(round * 10 + 2, "head", json!({"file": "nothing.json"}))
            .await;
        assert!(explored["result"]["content"].is_array(), "{explored}");
    }
    session.proxy.abort();
}

async fn server_requests_cancellation_and_custom_methods_pass_through_both_ways() {
    let mut session = raw(&[]);
    session.initialize_plain().await;
    session
        .send(json!({"jsonrpc": "2.0", "id": 40, "method": "tools/call",
                     "params": {"name": "ask", "arguments": {}}}))
        .await;
    let asked = session.next().await;
    assert_eq!(
        asked,
        json!({"jsonrpc": "2.0", "id": "srv-1", "method": "elicitation/create",
               "params": {"message": "name?", "x-ext": 1, "requestedSchema": {"type": "object"}}})
    );
    let reply = json!({"jsonrpc": "2.0", "id": "srv-1",
                       "result": {"action": "accept", "content": {"name": "Ada"}, "x-reply": 2}});
    session.send(reply.clone()).await;
    let answered = session.response(&json!(40)).await;
    let echoed: Value = serde_json::from_str(text_of(&answered)).unwrap();
    assert_eq!(
        echoed, reply,
        "the client's answer reaches the server unchanged"
    );

    session
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 41, "reason": "user"}}),
        )
        .await;
    let note = session.next().await;
    assert_eq!(note["method"], "notifications/message");
    assert_eq!(note["params"]["data"], "cancelled 41");
    session.proxy.abort();
}

async fn a_cancelled_call_reaches_the_server_and_its_late_answer_is_dropped() {
    let mut session = raw(&[]);
    session.initialize_plain().await;
    session
        .send(json!({"jsonrpc": "2.0", "id": 70, "method": "tools/call",
                     "params": {"name": "late", "arguments": {}}}))
        .await;
    session
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 70, "reason": "user"}}),
        )
        .await;
    let note = session.next().await;
    assert_eq!(note["params"]["data"], "cancelled 70", "{note}");
    let ping = session.request(json!(71), "ping", json!({})).await;
    assert_eq!(ping["result"], json!({}));
    assert!(
        session.seen.iter().all(|m| m["id"] != 70),
        "the late answer to a cancelled call is dropped: {:?}",
        session.seen
    );
    session.proxy.abort();
}

async fn a_task_augmented_call_passes_through_and_its_result_is_intercepted() {
    let mut session = raw(&[]);
    session.initialize_plain().await;
    let created = session
        .request(
            json!(50),
            "tools/call",
            json!({"name": "big", "arguments": {}, "task": {"ttl": 60000}}),
        )
        .await;
    assert_eq!(created["result"]["task"]["taskId"], "task-1", "{created}");
    let result = session
        .request(json!(51), "tasks/result", json!({"taskId": "task-1"}))
        .await;
    let pointer = text_of(&result);
    assert!(
        pointer.starts_with("[overspill] The result of `big`"),
        "{result}"
    );
    assert_eq!(result["result"]["_meta"], json!({"m": 3}));
    assert_eq!(result["result"]["x-vendor-result"], "kept");
    session.proxy.abort();
}

/// The `_meta` of a 2026-07-28 request: the revision, the client and its capabilities.
fn modern_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientInfo": {"name": "modern", "version": "1"},
           "io.modelcontextprotocol/clientCapabilities": {}})
}

async fn in_2026_07_28_every_result_the_proxy_writes_says_complete_and_in_2025_none_does() {
    let mut session = raw(&[]);
    let discovered = session
        .request(json!(1), "server/discover", json!({"_meta": modern_meta()}))
        .await;
    assert_eq!(
        discovered["result"]["supportedVersions"],
        json!(["2026-07-28"])
    );
    let modern = |name: &str, arguments: Value| json!({"name": name, "arguments": arguments, "_meta": modern_meta()});
    let big = session
        .request(json!(2), "tools/call", modern("big", json!({})))
        .await;
    let pointer = text_of(&big).to_owned();
    assert!(pointer.starts_with("[overspill]"), "{big}");
    let file = pointer_file(&pointer);
    let explored = session
        .request(
            json!(3),
            "tools/call",
            modern("head", json!({"file": file})),
        )
        .await;
    assert_eq!(explored["result"]["resultType"], "complete", "{explored}");
    assert!(explored["result"].get("isError").is_none(), "{explored}");
    let refused = session
        .request(
            json!(4),
            "tools/call",
            modern("head", json!({"file": "nothing.json"})),
        )
        .await;
    assert_eq!(refused["result"]["resultType"], "complete", "{refused}");
    let bad_reference = session
        .request(
            json!(5),
            "tools/call",
            modern("echo", json!({"x": "overspill://nothing.json"})),
        )
        .await;
    assert_eq!(bad_reference["result"]["isError"], true, "{bad_reference}");
    assert_eq!(bad_reference["result"]["resultType"], "complete");
    // The same calls in a session of a 2025 revision: no such field.
    let old = session
        .request(
            json!(6),
            "tools/call",
            json!({"name": "head", "arguments": {"file": file}}),
        )
        .await;
    assert!(old["result"].get("resultType").is_none(), "{old}");
    session.proxy.abort();
}

async fn input_required_and_error_results_are_never_intercepted() {
    let mut session = raw(&[]);
    session.initialize_plain().await;
    let needs = session.call(60, "needs_input", json!({})).await;
    assert_eq!(needs["result"]["resultType"], "input_required");
    assert_eq!(text_of(&needs), raw_server::big_text());
    let failing = session.call(61, "failing", json!({})).await;
    assert_eq!(failing["result"]["isError"], true);
    assert_eq!(text_of(&failing), raw_server::big_text());
    let big = session.call(62, "big", json!({})).await;
    assert!(
        text_of(&big).starts_with("[overspill]"),
        "a final result is"
    );
    session.proxy.abort();
}

async fn a_line_that_is_not_json_gets_a_parse_error_with_a_null_id() {
    let mut session = raw(&[]);
    session.initialize_plain().await;
    session.send_text("this is { not json").await;
    let error = session.next().await;
    assert_eq!(error["id"], Value::Null, "{error}");
    assert_eq!(error["error"]["code"], -32700, "{error}");
    let ping = session.request(json!(2), "ping", json!({})).await;
    assert_eq!(ping["result"], json!({}), "the session goes on");
    session.proxy.abort();
}

async fn a_method_that_is_not_a_string_gets_an_invalid_request_with_its_id() {
    let mut session = raw(&[]);
    session.initialize_plain().await;
    session
        .send_text(r#"{"jsonrpc":"2.0","id":5,"method":42}"#)
        .await;
    let error = session.next().await;
    assert_eq!(error["id"], 5, "{error}");
    assert_eq!(error["error"]["code"], -32600, "{error}");
    let ping = session.request(json!(6), "ping", json!({})).await;
    assert_eq!(ping["result"], json!({}), "the session goes on");
    session.proxy.abort();
}

async fn a_call_with_a_name_that_is_not_a_string_or_bad_arguments_gets_invalid_params() {
    let mut session = raw(&[]);
    session.initialize_plain().await;
    let bad_name = session
        .request(json!(7), "tools/call", json!({"name": 7}))
        .await;
    assert_eq!(bad_name["error"]["code"], -32602, "{bad_name}");
    let bad_arguments = session
        .request(
            json!(8),
            "tools/call",
            json!({"name": "grep", "arguments": "pattern=x"}),
        )
        .await;
    assert_eq!(bad_arguments["error"]["code"], -32602, "{bad_arguments}");
    let no_params = session
        .request(json!(9), "tools/call", json!("not an object"))
        .await;
    assert_eq!(no_params["error"]["code"], -32602, "{no_params}");
    let ping = session.request(json!(10), "ping", json!({})).await;
    assert_eq!(ping["result"], json!({}), "the session goes on");
    session.proxy.abort();
}

async fn a_server_that_never_answers_initialize_gets_an_error_within_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .context_window(128_000)
        .build()
        .unwrap();
    let options =
        fixture_options_with(&["--raw", "--silent"]).with_init_timeout(Duration::from_secs(1));
    let mut session = RawSession::start(scratch, dir, options);
    let response = session
        .request(
            json!("init"),
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}),
        )
        .await;
    assert_eq!(response["error"]["code"], -32001, "{response}");
    let message = response["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("--overspill-mcp-fixture --raw --silent") && message.contains("stderr"),
        "names the server and where its stderr went: {message}"
    );
    let ended = tokio::time::timeout(Duration::from_secs(10), session.proxy)
        .await
        .expect("the proxy did not stop")
        .unwrap();
    assert!(
        matches!(ended, Err(ProxyError::InitTimeout { .. })),
        "{ended:?}"
    );
}

async fn an_upstream_answer_that_is_not_utf8_gets_the_client_an_error_naming_the_server() {
    let mut session = raw(&[]);
    session.initialize_plain().await;
    let answer = session.call(4, "not_utf8", json!({})).await;
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("not UTF-8") && message.contains("--overspill-mcp-fixture --raw"),
        "says what and which server: {message}"
    );
    let ping = session.request(json!(5), "ping", json!({})).await;
    assert_eq!(ping["result"], json!({}), "the session goes on");
    session.proxy.abort();
}

async fn an_upstream_answer_over_the_line_limit_gets_the_client_an_error_with_its_id_first_or_last()
{
    let mut session = raw(&[]);
    session.initialize_plain().await;
    for (id, tool) in [(6, "too_long"), (7, "too_long_id_first")] {
        let answer = session.call(id, tool, json!({})).await;
        assert_eq!(answer["error"]["code"], -32603, "{tool}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("longer than 256 MiB") && message.contains("--raw"),
            "{tool}: {message}"
        );
    }
    let ping = session.request(json!(8), "ping", json!({})).await;
    assert_eq!(ping["result"], json!({}), "the session goes on");
    session.proxy.abort();
}

async fn a_client_line_that_is_not_utf8_keeps_getting_a_parse_error() {
    use tokio::io::AsyncWriteExt;
    let mut session = raw(&[]);
    session.initialize_plain().await;
    for _ in 0..2 {
        session
            .write
            .write_all(b"{\"a\":\"\xff\xfe\"}\n")
            .await
            .unwrap();
        let error = session.next().await;
        assert_eq!(error["error"]["code"], -32700, "{error}");
        assert_eq!(error["id"], Value::Null, "{error}");
    }
    let ping = session.request(json!(9), "ping", json!({})).await;
    assert_eq!(ping["result"], json!({}), "the session goes on");
    session.proxy.abort();
}

/// The next line from the proxy, as text (these hold numbers a `Value` cannot).
async fn next_line(session: &mut RawSession) -> String {
    tokio::time::timeout(Duration::from_secs(20), session.lines.next_line())
        .await
        .expect("no message within 20 s")
        .unwrap()
        .expect("the proxy closed the connection")
}

async fn numbers_beyond_f64_pass_byte_identical_below_the_threshold_and_keep_their_text_when_stored()
 {
    let mut session = raw(&[]);
    session.initialize_plain().await;
    let call = |id: i64, pad: usize| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "numbers", "arguments": {"pad": pad}}})
    };
    session.send(call(11, 0)).await;
    let small = next_line(&mut session).await;
    assert_eq!(
        small,
        format!(
            r#"{{"jsonrpc":"2.0","id":11,"result":{}}}"#,
            raw_server::numbers_result(0)
        ),
        "below the threshold the answer is the server's, byte for byte"
    );
    session.send(call(12, 200_000)).await;
    let large: Value = serde_json::from_str(&next_line(&mut session).await).unwrap();
    let pointer = large["result"]["content"][0]["text"].as_str().unwrap();
    assert!(pointer.starts_with("[overspill]"), "intercepted: {pointer}");
    assert!(large["result"].get("structuredContent").is_none());
    let stored = std::fs::read_to_string(session.dir.path().join(pointer_file(pointer))).unwrap();
    for number in raw_server::awkward_numbers() {
        assert!(
            stored.contains(&number),
            "the stored file keeps {}",
            &number[..number.len().min(12)]
        );
    }
    session.proxy.abort();
}

cases!(
    the_clients_initialize_reaches_the_server_as_sent_and_only_tools_and_one_line_are_added,
    unknown_fields_on_tools_and_results_arrive_intact,
    progress_keeps_the_clients_token_and_none_is_unsolicited_also_after_an_exploration_call,
    server_requests_cancellation_and_custom_methods_pass_through_both_ways,
    a_cancelled_call_reaches_the_server_and_its_late_answer_is_dropped,
    a_task_augmented_call_passes_through_and_its_result_is_intercepted,
    input_required_and_error_results_are_never_intercepted,
    in_2026_07_28_every_result_the_proxy_writes_says_complete_and_in_2025_none_does,
    a_line_that_is_not_json_gets_a_parse_error_with_a_null_id,
    a_method_that_is_not_a_string_gets_an_invalid_request_with_its_id,
    a_call_with_a_name_that_is_not_a_string_or_bad_arguments_gets_invalid_params,
    a_server_that_never_answers_initialize_gets_an_error_within_the_timeout,
    an_upstream_answer_that_is_not_utf8_gets_the_client_an_error_naming_the_server,
    an_upstream_answer_over_the_line_limit_gets_the_client_an_error_with_its_id_first_or_last,
    a_client_line_that_is_not_utf8_keeps_getting_a_parse_error,
    numbers_beyond_f64_pass_byte_identical_below_the_threshold_and_keep_their_text_when_stored,
);

fn main() {
    main_with("relay", CASES, fixture::run);
}
