//! `overspill://` references through the proxy: an rmcp client → the proxy (in process) → this
//! test binary re-run as the upstream fixture server (see `support/fixture.rs`), whose
//! `echo_args` tool reports what arrived.

// A test binary without libtest (`harness = false`): clippy.toml's test allowance does not reach it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/fixture.rs"]
mod fixture;
#[path = "support/harness.rs"]
#[allow(dead_code)]
mod harness;
#[path = "support/raw_server.rs"]
#[allow(dead_code)]
mod raw_server;

use std::path::Path;

use overspill::Scratchpad;
use serde_json::{Value, json};

use harness::*;

async fn start(max_reference_bytes: Option<u64>) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let mut builder = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .context_window(128_000)
        .intercept_all(5120);
    if let Some(cap) = max_reference_bytes {
        builder = builder.max_reference_bytes(cap);
    }
    let session = start_with(builder.build().unwrap(), dir, fixture_options()).await;
    // As every MCP client does at connect: the listing gives the proxy the tools' input
    // schemas, by which references are inserted (a string parameter gets the text).
    session.client.list_all_tools().await.unwrap();
    session
}

/// Calls `big` for a stored JSON of about `bytes` bytes; returns the pointer's file name.
async fn store_big(session: &Session, bytes: u64) -> String {
    let result = call(session, "big", json!({"bytes": bytes})).await;
    pointer_file(only_text(&result))
}

/// What `echo_args` answered, parsed.
async fn echo(session: &Session, args: Value) -> Value {
    let result = call(session, "echo_args", args).await;
    assert_ne!(result.is_error, Some(true), "{result:?}");
    serde_json::from_str(only_text(&result)).unwrap()
}

/// Asserts that `tool` called with `args` fails with a message containing every one of
/// `needles`, and that nothing reached the upstream server: `crash` would have killed it, so
/// `small` still answering afterwards proves the call was never forwarded.
async fn refused(session: &Session, args: Value, needles: &[&str]) {
    let result = call(session, "crash", args).await;
    assert_eq!(result.is_error, Some(true), "{result:?}");
    let message = only_text(&result);
    for needle in needles {
        assert!(message.contains(needle), "{needle:?} not in {message}");
    }
    let after = call(session, "small", json!({})).await;
    assert_eq!(only_text(&after), fixture::SMALL);
}

fn stored(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap()
}

async fn a_reference_to_a_stored_2_mb_json_reaches_the_upstream_tool_byte_for_byte() {
    let session = start(None).await;
    let file = store_big(&session, 2_000_000).await;
    let text = stored(session.dir.path(), &file);
    assert!(text.len() >= 2_000_000);
    let reference = format!("overspill://{file}");
    let got = echo(&session, json!({"body": reference})).await;
    assert_eq!(got, json!({"body": fixture::digest(&text)}));
}

async fn a_json_path_inserts_exactly_that_item() {
    let session = start(None).await;
    let file = store_big(&session, 200_000).await;
    let document: Value = serde_json::from_str(&stored(session.dir.path(), &file)).unwrap();
    let reference = format!("overspill://{file}#$.items[3]");
    // `value` has no declared type: the item goes in as a value; `body` is a string: as JSON text.
    let got = echo(&session, json!({"value": reference, "body": reference})).await;
    let item = &document["items"][3];
    assert_eq!(got, json!({"value": item, "body": item.to_string()}));
}

async fn a_line_range_inserts_exactly_those_lines() {
    let session = start(None).await;
    let file = store_big(&session, 200_000).await;
    let text = stored(session.dir.path(), &file);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    assert!(lines.len() >= 80, "{} lines", lines.len());
    let got = echo(
        &session,
        json!({"body": format!("overspill://{file}#L10-L80")}),
    )
    .await;
    let expected = lines[9..80].concat();
    let expected = if expected.len() > fixture::ECHO_DIGEST_OVER {
        fixture::digest(&expected)
    } else {
        Value::String(expected)
    };
    assert_eq!(got, json!({"body": expected}));
}

async fn paths_outside_the_root_and_planted_symlinks_are_refused() {
    let session = start(None).await;
    refused(
        &session,
        json!({"body": "overspill://../../etc/passwd"}),
        &["overspill://../../etc/passwd", "path_outside_root"],
    )
    .await;
    #[cfg(unix)]
    {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.txt"),
            session.dir.path().join("planted.txt"),
        )
        .unwrap();
        refused(
            &session,
            json!({"body": "overspill://planted.txt"}),
            &["overspill://planted.txt", "path_outside_root"],
        )
        .await;
    }
}

async fn a_string_containing_a_reference_inside_other_text_is_left_alone() {
    let session = start(None).await;
    let args =
        json!({"body": "see overspill://x.json#L1-L2 for details", "value": [" overspill://y"]});
    assert_eq!(echo(&session, args.clone()).await, args);
}

async fn a_reference_over_the_cap_is_an_error_and_nothing_is_forwarded() {
    let session = start(Some(100_000)).await;
    let file = store_big(&session, 200_000).await;
    let reference = format!("overspill://{file}");
    refused(
        &session,
        json!({"body": reference}),
        &[&reference, "100000"],
    )
    .await;
}

const CASES: &[(&str, Case)] = &[
    (
        "a_reference_to_a_stored_2_mb_json_reaches_the_upstream_tool_byte_for_byte",
        || Box::pin(a_reference_to_a_stored_2_mb_json_reaches_the_upstream_tool_byte_for_byte()),
    ),
    ("a_json_path_inserts_exactly_that_item", || {
        Box::pin(a_json_path_inserts_exactly_that_item())
    }),
    ("a_line_range_inserts_exactly_those_lines", || {
        Box::pin(a_line_range_inserts_exactly_those_lines())
    }),
    (
        "paths_outside_the_root_and_planted_symlinks_are_refused",
        || Box::pin(paths_outside_the_root_and_planted_symlinks_are_refused()),
    ),
    (
        "a_string_containing_a_reference_inside_other_text_is_left_alone",
        || Box::pin(a_string_containing_a_reference_inside_other_text_is_left_alone()),
    ),
    (
        "a_reference_over_the_cap_is_an_error_and_nothing_is_forwarded",
        || Box::pin(a_reference_over_the_cap_is_an_error_and_nothing_is_forwarded()),
    ),
];

fn main() {
    main_with("reference", CASES, fixture::run);
}
