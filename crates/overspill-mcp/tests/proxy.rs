//! The proxy end to end, in Rust only: an rmcp client → the proxy (in process) → this test
//! binary re-run as the upstream fixture server (see `support/fixture.rs`).

// A test binary without libtest (`harness = false`): clippy.toml's test allowance does not reach it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::{fixture, harness};

use std::path::Path;
use std::time::{Duration, Instant};

use overspill::Scratchpad;
use overspill_mcp::ProxyError;
use rmcp::model::{CallToolRequestParams, ContentBlock};
use serde_json::json;

use harness::*;

fn scratchpad(dir: &Path, prefix: &str) -> Scratchpad {
    Scratchpad::builder()
        .scratchpad_dir(dir)
        .context_window(128_000)
        .intercept_all(5120)
        .tool_prefix(prefix)
        .build()
        .unwrap()
}

async fn start(prefix: Option<&str>) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let scratch = scratchpad(dir.path(), prefix.unwrap_or_default());
    start_with(scratch, dir, fixture_options()).await
}

async fn listing_shows_upstream_tools_then_exploration_tools_and_keeps_instructions() {
    let session = start(None).await;
    let tools = session.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    for upstream in ["small", "big", "picture", "crash"] {
        assert!(
            names.contains(&upstream),
            "{upstream} missing from {names:?}"
        );
    }
    for exploration in ["grep", "head", "slice", "read"] {
        assert!(
            names.contains(&exploration),
            "{exploration} missing from {names:?}"
        );
    }
    let small = tools.iter().find(|tool| tool.name == "small").unwrap();
    assert!(
        small.output_schema.is_none(),
        "an interceptable tool is listed without its output schema, which a pointer cannot match"
    );
    let info = session.client.peer_info().unwrap();
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(
        instructions.starts_with(fixture::INSTRUCTIONS),
        "{instructions}"
    );
    assert!(instructions.contains("exploration tools"), "{instructions}");
    session.client.cancel().await.unwrap();
    assert!(session.proxy.await.unwrap().is_ok());
}

async fn a_small_result_passes_through_byte_for_byte() {
    let session = start(None).await;
    let result = call(&session, "small", json!({})).await;
    assert_eq!(only_text(&result), fixture::SMALL);
    assert_ne!(result.is_error, Some(true));
    session.client.cancel().await.unwrap();
}

async fn a_big_result_becomes_a_pointer_that_grep_and_head_answer_from() {
    let session = start(None).await;
    let result = call(&session, "big", json!({"bytes": 300_000})).await;
    let pointer = only_text(&result).to_owned();
    assert!(
        pointer.len() < 4_000,
        "the pointer is short: {} bytes",
        pointer.len()
    );
    let file = pointer_file(&pointer);
    assert!(file.starts_with("big"), "{file}");

    let grep = call(
        &session,
        "grep",
        json!({"file": file, "pattern": "\"item-4242\""}),
    )
    .await;
    let grep = only_text(&grep);
    // A marked match line, not the pattern echoed by a "no line matches" footer.
    let marked: Vec<&str> = grep.lines().filter(|l| l.starts_with('>')).collect();
    assert_eq!(marked.len(), 1, "{grep}");
    assert!(marked[0].contains("\"item-4242\""), "{grep}");
    assert!(
        !grep.contains("item-4243\""),
        "only the matching item: {grep}"
    );

    let head = call(&session, "head", json!({"file": file, "lines": 2})).await;
    assert!(
        only_text(&head).contains("\"kind\": \"List\""),
        "{}",
        only_text(&head)
    );

    // The JSON tools, where the facade has them.
    let tools = session.client.list_all_tools().await.unwrap();
    if tools.iter().any(|tool| tool.name == "schema") {
        let schema = call(&session, "schema", json!({"file": file})).await;
        assert!(
            only_text(&schema).contains("items"),
            "{}",
            only_text(&schema)
        );
    } else {
        eprintln!("NOTE: the facade has no `schema` tool yet; schema/iterate_over not checked");
    }
    session.client.cancel().await.unwrap();
}

async fn an_image_result_passes_through_untouched() {
    let session = start(None).await;
    let result = call(&session, "picture", json!({})).await;
    assert_eq!(result.content.len(), 2, "{result:?}");
    assert!(matches!(result.content[0], ContentBlock::Image(_)));
    match &result.content[1] {
        ContentBlock::Text(text) => assert_eq!(text.text, fixture::big_json(200_000)),
        other => panic!("text expected, got {other:?}"),
    }
    session.client.cancel().await.unwrap();
}

async fn a_fifty_megabyte_result_is_intercepted_not_hung() {
    let session = start(None).await;
    let started = Instant::now();
    let result = call(&session, "big", json!({"bytes": 50_000_000})).await;
    let pointer = only_text(&result);
    assert!(
        pointer.len() < 4_000,
        "a pointer, not the payload: {} bytes",
        pointer.len()
    );
    let file = pointer_file(pointer);
    let stored = std::fs::metadata(session.dir.path().join(&file))
        .unwrap()
        .len();
    assert!(
        stored >= 50_000_000,
        "the whole output is stored: {stored} bytes"
    );
    eprintln!("    50 MB through the proxy in {:.1?}", started.elapsed());
    session.client.cancel().await.unwrap();
}

async fn an_upstream_crash_mid_call_errors_the_client_and_stops_the_proxy_with_an_error() {
    let session = start(None).await;
    let request = CallToolRequestParams::new("crash");
    let outcome = tokio::time::timeout(Duration::from_secs(30), session.client.call_tool(request))
        .await
        .expect("the crashed call hung");
    assert!(outcome.is_err(), "the client gets an error: {outcome:?}");
    let ended = tokio::time::timeout(Duration::from_secs(30), session.proxy)
        .await
        .expect("the proxy did not stop")
        .unwrap();
    match ended {
        Err(ProxyError::UpstreamExited { status }) => assert_eq!(status.code(), Some(3)),
        other => panic!("UpstreamExited expected, got {other:?}"),
    }
}

async fn a_tool_name_clash_renames_the_exploration_tools_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = scratchpad(dir.path(), "");
    let session = start_with(scratch, dir, fixture_options_with(&["--clash"])).await;
    let tools = session.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(
        names.iter().filter(|name| **name == "grep").count(),
        1,
        "the server's `grep` keeps its name: {names:?}"
    );
    assert!(
        names.contains(&"overspill_grep") && names.contains(&"overspill_head"),
        "the exploration tools are renamed: {names:?}"
    );
    let big = call(&session, "big", json!({"bytes": 100_000})).await;
    let pointer = only_text(&big);
    assert!(
        pointer.contains("overspill_head") && !pointer.contains(" head("),
        "the pointer names the renamed tools: {pointer}"
    );
    let head = call(
        &session,
        "overspill_head",
        json!({"file": pointer_file(pointer), "lines": 2}),
    )
    .await;
    assert!(
        only_text(&head).contains("\"kind\""),
        "{}",
        only_text(&head)
    );
    let upstream = call(&session, "grep", json!({})).await;
    assert_eq!(
        only_text(&upstream),
        "no tool grep",
        "`grep` is the server's tool"
    );
    assert!(!session.proxy.is_finished(), "the session goes on");
}

async fn the_exploration_tools_are_listed_after_the_servers_own() {
    let session = start(None).await;
    let tools = session.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    let first_exploration = names.iter().position(|name| *name == "schema").unwrap();
    let last_upstream = names.iter().rposition(|name| *name == "echo_args").unwrap();
    assert!(
        last_upstream < first_exploration,
        "the server's tools come first: {names:?}"
    );
    assert_eq!(names[0], "small", "in the server's own order: {names:?}");
}

async fn with_a_prefix_the_exploration_tools_are_renamed_and_answer() {
    let session = start(Some("sp_")).await;
    let tools = session.client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert!(
        names.contains(&"sp_grep") && names.contains(&"sp_head"),
        "{names:?}"
    );
    assert!(!names.contains(&"grep"), "{names:?}");
    let result = call(&session, "big", json!({"bytes": 100_000})).await;
    let file = pointer_file(only_text(&result));
    let head = call(&session, "sp_head", json!({"file": file, "lines": 2})).await;
    assert!(
        only_text(&head).contains("\"kind\""),
        "{}",
        only_text(&head)
    );
    session.client.cancel().await.unwrap();
}

async fn with_a_prefix_the_pointer_and_the_instructions_name_the_prefixed_tools() {
    let session = start(Some("sp_")).await;
    let info = session.client.peer_info().unwrap();
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(instructions.contains("`sp_schema`"), "{instructions}");
    let result = call(&session, "big", json!({"bytes": 100_000})).await;
    let pointer = only_text(&result);
    assert!(
        pointer.contains(": sp_schema, sp_item_schema,")
            && pointer.ends_with("Start with sp_schema."),
        "{pointer}"
    );
    assert!(!pointer.contains(" grep,"), "{pointer}");
    session.client.cancel().await.unwrap();
}

cases!(
    listing_shows_upstream_tools_then_exploration_tools_and_keeps_instructions,
    a_small_result_passes_through_byte_for_byte,
    a_big_result_becomes_a_pointer_that_grep_and_head_answer_from,
    an_image_result_passes_through_untouched,
    a_fifty_megabyte_result_is_intercepted_not_hung,
    an_upstream_crash_mid_call_errors_the_client_and_stops_the_proxy_with_an_error,
    a_tool_name_clash_renames_the_exploration_tools_and_the_session_goes_on,
    the_exploration_tools_are_listed_after_the_servers_own,
    with_a_prefix_the_exploration_tools_are_renamed_and_answer,
    resources_and_prompts_pass_through_unchanged,
    with_a_prefix_the_pointer_and_the_instructions_name_the_prefixed_tools,
);

async fn resources_and_prompts_pass_through_unchanged() {
    let session = start(None).await;
    let resources = session.client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, [fixture::NOTES_URI]);
    let read = session
        .client
        .read_resource(serde_json::from_value(json!({"uri": fixture::NOTES_URI})).unwrap())
        .await
        .unwrap();
    let read = serde_json::to_value(read).unwrap();
    assert_eq!(read["contents"][0]["text"], fixture::NOTES, "{read}");
    let missing = session
        .client
        .read_resource(serde_json::from_value(json!({"uri": "fixture://nothing"})).unwrap())
        .await
        .unwrap_err();
    assert!(
        missing.to_string().contains("fixture://nothing"),
        "{missing}"
    );

    let prompts = session.client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["triage"]);
    let request = json!({"name": "triage", "arguments": {"service": "payments"}});
    let prompt = session
        .client
        .get_prompt(serde_json::from_value(request).unwrap())
        .await
        .unwrap();
    let prompt = serde_json::to_value(prompt).unwrap();
    assert_eq!(
        prompt["messages"][0]["content"]["text"], "Triage payments.",
        "{prompt}"
    );
    session.client.cancel().await.unwrap();
}

fn main() {
    main_with("proxy", CASES, fixture::run);
}
