//! Hard links where the binary reads (issue 28, item 6): `overspill tool` refuses a file with a
//! second name, and `overspill ls` still lists such an output, marked with the tools' reason.
//!
//! Defence guarded: the read root refuses a regular file with more than one hard link, judged
//! on the open descriptor (`overspill-store`'s `RootFile`); `ls` opens each listed file as the
//! tools do.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

use std::path::Path;

mod support;

use support::path;

/// Intercepts a 200-line log into `dir`; returns the stored file's name.
fn stored_log(dir: &Path) -> String {
    let log: String = (0..200)
        .map(|i| format!("2026-11-12T10:00:00Z ERROR request {i} failed: timeout\n"))
        .collect();
    let args = [
        "intercept",
        "--dir",
        path(dir),
        "--tool",
        "fetch_logs",
        "--min-tokens",
        "100",
    ];
    let out = support::run(&args, &log);
    assert!(out.status.success(), "{out:?}");
    let listed = support::run(&["ls", "--dir", path(dir), "--json"], "");
    let records: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    records[0]["file"].as_str().unwrap().to_owned()
}

#[test]
fn tool_refuses_a_stored_output_with_a_second_hard_link_saying_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let pad = tmp.path().join("pad");
    let file = stored_log(&pad);
    // What `cp -al pad backup` does to each stored file.
    fs_link(&pad.join(&file), &tmp.path().join("backup.txt"));
    let args = format!(r#"{{"file": "{file}"}}"#);
    let out = support::run(&["tool", "head", "--dir", path(&pad), "--args", &args], "");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(r#"{"error":"invalid_argument""#)
            && text.contains("2 hard links")
            && text.contains("`cp` without `-l`"),
        "{text}"
    );
    assert!(!text.contains("request 0 failed"), "{text}");
}

#[test]
fn ls_lists_an_output_with_a_second_hard_link_marked_with_the_tools_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let pad = tmp.path().join("pad");
    let file = stored_log(&pad);
    let listed = support::run(&["ls", "--dir", path(&pad)], "");
    assert!(!String::from_utf8(listed.stdout).unwrap().contains('!'));
    fs_link(&pad.join(&file), &tmp.path().join("backup.txt"));

    let out = support::run(&["ls", "--dir", path(&pad)], "");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].starts_with(&file), "{text}");
    assert!(
        lines[2].starts_with("  ! the exploration tools refuse it: the file has 2 hard links"),
        "{text}"
    );

    let out = support::run(&["ls", "--dir", path(&pad), "--json"], "");
    let records: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(records[0]["file"], file.as_str());
    let refused = records[0]["refused"].as_str().unwrap();
    assert!(refused.contains("2 hard links"), "{refused}");
}

fn fs_link(from: &Path, to: &Path) {
    std::fs::hard_link(from, to).unwrap();
}
