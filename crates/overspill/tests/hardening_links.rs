//! Hard links through the facade (issue 28, item 6): an exploration tool and an `overspill://`
//! reference both refuse a file with a second name, and forward nothing of it.
//!
//! Defence guarded: `ReadRoot::open` refuses a regular file with more than one hard link,
//! judged on the open descriptor, and every read of the facade goes through it.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

use std::fs;

use overspill::Scratchpad;
use serde_json::{Value, json};

const SECRET: &str = "OUTSIDE-SECRET-51c0";

#[test]
fn a_tool_call_and_a_reference_to_a_file_with_a_second_hard_link_are_refused_forwarding_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let pad_dir = tmp.path().join("pad");
    let outside = tmp.path().join("outside");
    fs::create_dir_all(&pad_dir).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(
        outside.join("secret.json"),
        format!("{{\"s\": \"{SECRET}\"}}\n"),
    )
    .unwrap();
    fs::hard_link(outside.join("secret.json"), pad_dir.join("linked.json")).unwrap();
    let pad = Scratchpad::builder()
        .scratchpad_dir(&pad_dir)
        .context_window(128_000)
        .build()
        .unwrap();

    for (tool, arguments) in [
        ("head", json!({"file": "linked.json"})),
        ("schema", json!({"file": "linked.json"})),
        ("get_in", json!({"file": "linked.json", "path": "$.s"})),
    ] {
        let answer = pad.call_value(tool, &arguments);
        assert!(!answer.contains(SECRET), "{tool}: {answer}");
        let error: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(error["error"], "invalid_argument", "{tool}: {answer}");
        assert!(
            error["message"].as_str().unwrap().contains("2 hard links"),
            "{tool}: {answer}"
        );
    }

    for reference in ["overspill://linked.json", "overspill://linked.json#$.s"] {
        let error = pad
            .resolve_references(&json!({"text": reference}), None)
            .unwrap_err();
        assert_eq!(error.code(), "invalid_argument", "{reference}: {error}");
        let message = error.to_string();
        assert!(
            message.contains("2 hard links") && !message.contains(SECRET),
            "{reference}: {message}"
        );
    }
}
