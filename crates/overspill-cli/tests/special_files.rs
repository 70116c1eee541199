//! FIFOs, sockets and devices where the binary reads (issue 22, item 3): `overspill ls` with
//! such files planted as metadata records, and `overspill tool` pointed at them, both answer
//! at once. Before the fix, `ls` waited forever on a FIFO record.
//!
//! Defence guarded: every read opens a regular file only, checked before and after a
//! non-blocking open (`overspill-store`'s `RootFile`).

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod support;

use support::path;

/// Runs the binary; fails the test (and kills the child) if it has not exited within `limit`.
fn overspill_within(limit: Duration, args: &[&str], stdin: &str) -> Output {
    let mut child = support::spawn(args, stdin);
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            panic!("overspill {args:?} was still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Plants a FIFO, a socket and (when permitted) a device named `<stem><suffix>` in `dir`;
/// returns the stems and the word an error about each must name.
fn plant_special_files(dir: &Path, suffix: &str) -> Vec<(String, &'static str)> {
    let name = |stem: &str| format!("{stem}{suffix}");
    let status = Command::new("mkfifo")
        .arg(dir.join(name("pipe")))
        .status()
        .unwrap();
    assert!(status.success());
    let mut planted = vec![(name("pipe"), "FIFO")];
    // Leaked on purpose: the socket stays bound while the test runs.
    std::mem::forget(std::os::unix::net::UnixListener::bind(dir.join(name("socket"))).unwrap());
    planted.push((name("socket"), "socket"));
    let mknod = Command::new("mknod")
        .arg(dir.join(name("zero")))
        .args(["c", "1", "5"])
        .stderr(Stdio::null())
        .status();
    if mknod.is_ok_and(|s| s.success()) {
        planted.push((name("zero"), "device"));
    } else {
        eprintln!("note: mknod is not permitted here; the device case is not run");
    }
    planted
}

#[test]
fn ls_lists_past_a_fifo_a_socket_and_a_device_planted_as_metadata_records_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let log: String = (0..200)
        .map(|i| format!("2026-11-12T10:00:00Z ERROR request {i} failed: timeout\n"))
        .collect();
    let args = [
        "intercept",
        "--dir",
        path(dir.path()),
        "--tool",
        "fetch_logs",
        "--min-tokens",
        "100",
    ];
    let out = overspill_within(Duration::from_secs(30), &args, &log);
    assert!(out.status.success(), "{out:?}");
    plant_special_files(&dir.path().join(".overspill-meta"), ".json");

    for json in [false, true] {
        let mut args = vec!["ls", "--dir", path(dir.path())];
        if json {
            args.push("--json");
        }
        let out = overspill_within(Duration::from_secs(10), &args, "");
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("fetch_logs"), "{text}");
        for planted in ["pipe", "socket", "zero"] {
            assert!(!text.contains(planted), "{planted} listed: {text}");
        }
    }
}

#[test]
fn tool_on_a_fifo_a_socket_or_a_device_is_an_error_at_once() {
    let dir = tempfile::tempdir().unwrap();
    for (file, kind) in plant_special_files(dir.path(), ".log") {
        for (tool, args) in [
            ("head", format!(r#"{{"file": "{file}"}}"#)),
            ("grep", format!(r#"{{"file": "{file}", "pattern": "x"}}"#)),
        ] {
            let out = overspill_within(
                Duration::from_secs(10),
                &["tool", tool, "--dir", path(dir.path()), "--args", &args],
                "",
            );
            let text = String::from_utf8(out.stdout).unwrap();
            assert!(
                text.starts_with(r#"{"error":"invalid_argument""#) && text.contains(kind),
                "{tool} on {file}: {text}"
            );
        }
    }
}
