//! `overspill://` references through the proxy: an rmcp client → the proxy (in process) → this
//! test binary re-run as the upstream fixture server (see `support/fixture.rs`), whose
//! `echo_args` tool reports what arrived.

// A test binary without libtest (`harness = false`): clippy.toml's test allowance does not reach it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::{fixture, harness};

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

/// Issue 22, item 1, through the proxy: a racer swaps an in-root file and an in-root directory
/// for symlinks out of the root while `head` calls and `overspill://` references run; no answer
/// and no forwarded call may carry a byte of the outside files.
async fn no_outside_byte_reaches_the_client_or_the_server_while_names_flip_to_symlinks_out() {
    let session = start(None).await;
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("flip.txt"),
        "OUTSIDE-SECRET\n".repeat(4),
    )
    .unwrap();
    std::fs::create_dir(outside.path().join("sub")).unwrap();
    std::fs::write(outside.path().join("sub/in.txt"), "OUTSIDE-SECRET\n").unwrap();
    let root = session.dir.path().to_owned();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let racer = {
        let (root, outside, stop) = (root.clone(), outside.path().to_owned(), stop.clone());
        std::thread::spawn(move || {
            let (file, dir) = (root.join("flip.txt"), root.join("sub"));
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::remove_file(&file);
                let _ = std::fs::write(&file, "inside\n");
                let _ = std::fs::remove_dir_all(&dir);
                let _ = std::fs::create_dir(&dir);
                let _ = std::fs::write(dir.join("in.txt"), "inside\n");
                std::thread::sleep(std::time::Duration::from_micros(200));
                let _ = std::fs::remove_file(&file);
                let _ = std::os::unix::fs::symlink(outside.join("flip.txt"), &file);
                let _ = std::fs::remove_dir_all(&dir);
                let _ = std::os::unix::fs::symlink(outside.join("sub"), &dir);
                std::thread::sleep(std::time::Duration::from_micros(200));
                let _ = std::fs::remove_file(&dir);
            }
        })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    let mut calls = 0;
    while std::time::Instant::now() < deadline {
        for file in ["flip.txt", "sub/in.txt"] {
            let head = call(&session, "head", json!({"file": file})).await;
            let text = only_text(&head);
            assert!(
                !text.contains("OUTSIDE-SECRET"),
                "head served an outside file: {text}"
            );
            let echoed = call(
                &session,
                "echo_args",
                json!({"body": format!("overspill://{file}")}),
            )
            .await;
            let text = only_text(&echoed);
            assert!(
                !text.contains("OUTSIDE-SECRET"),
                "a reference delivered an outside file: {text}"
            );
            calls += 2;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    racer.join().unwrap();
    eprintln!("    {calls} calls while names flipped, no outside byte delivered");
}

cases!(
    no_outside_byte_reaches_the_client_or_the_server_while_names_flip_to_symlinks_out,
    a_reference_to_a_stored_2_mb_json_reaches_the_upstream_tool_byte_for_byte,
    a_json_path_inserts_exactly_that_item,
    a_line_range_inserts_exactly_those_lines,
    paths_outside_the_root_and_planted_symlinks_are_refused,
    a_string_containing_a_reference_inside_other_text_is_left_alone,
    a_reference_over_the_cap_is_an_error_and_nothing_is_forwarded,
);

fn main() {
    main_with("reference", CASES, fixture::run);
}
