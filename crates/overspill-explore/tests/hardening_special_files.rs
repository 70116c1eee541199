//! FIFOs, sockets and devices in the read root (issue 22, item 3): every registered tool
//! answers with an error naming what the file is, at once; and a file swapped for a FIFO while
//! calls run never stalls one.
//!
//! Defence guarded: `ReadRoot::open` checks the type before a non-blocking open and again on
//! the open descriptor, so nothing waits for a FIFO's writer or opens a device.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use overspill_budget::{Budget, BudgetSettings};
use overspill_explore::{ExploreContext, Registry};
use overspill_store::ReadRoot;
use serde_json::{Map, Value, json};

fn context(dir: &Path) -> ExploreContext {
    let budget = Arc::new(Budget::new(BudgetSettings::for_window(100_000_000), 0).unwrap());
    ExploreContext::new(
        ReadRoot::new(dir).unwrap(),
        overspill_tokens::o200k(),
        budget,
    )
}

/// Every registered tool's plain call on `file`, with its required arguments.
fn calls(registry: &Registry, file: &str) -> Vec<(&'static str, Value)> {
    registry
        .definitions()
        .into_iter()
        .map(|definition| {
            let schema = definition.input_schema();
            let mut arguments = Map::new();
            for name in schema["required"].as_array().into_iter().flatten() {
                let name = name.as_str().unwrap();
                let value = match name {
                    "file" => json!(file),
                    "pattern" => json!("a"),
                    "filter" => json!("."),
                    "end" => json!(5),
                    _ if schema["properties"][name]["type"] == "integer" => json!(1),
                    _ => json!("$"),
                };
                arguments.insert(name.to_owned(), value);
            }
            (definition.name, Value::Object(arguments))
        })
        .collect()
}

/// Runs `f` on a thread; fails the test if it has not answered within `limit` (a call waiting
/// on a FIFO never does, and its thread is left behind).
fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (send, receive) = mpsc::channel();
    thread::spawn(move || {
        let _ = send.send(f());
    });
    receive
        .recv_timeout(limit)
        .unwrap_or_else(|_| panic!("{what} stalled for more than {limit:?}"))
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

#[test]
fn every_tool_refuses_a_fifo_a_socket_and_a_device_at_once_naming_what_it_is() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    mkfifo(&dir.join("pipe.json"));
    let _socket = std::os::unix::net::UnixListener::bind(dir.join("socket.json")).unwrap();
    symlink("pipe.json", dir.join("pipe-link.json")).unwrap();
    let mut planted = vec![
        ("pipe.json", "FIFO"),
        ("socket.json", "socket"),
        ("pipe-link.json", "FIFO"),
    ];
    // /dev/zero's numbers; root may make one, others skip the case.
    let mknod = Command::new("mknod")
        .arg(dir.join("zero.json"))
        .args(["c", "1", "5"])
        .stderr(Stdio::null())
        .status();
    if mknod.is_ok_and(|s| s.success()) {
        planted.push(("zero.json", "device"));
    } else {
        eprintln!("note: mknod is not permitted here; the device case is not run");
    }
    // The system's own device, through a link: outside the root, refused as such.
    symlink("/dev/zero", dir.join("dev-zero.json")).unwrap();

    let registry = Arc::new(Registry::new());
    let ctx = Arc::new(context(dir));
    let mut checked = 0;
    for (file, kind) in planted {
        for (tool, arguments) in calls(&registry, file) {
            let (registry, ctx) = (Arc::clone(&registry), Arc::clone(&ctx));
            let what = format!("{tool} on {file}");
            let args = arguments.clone();
            let text = within(Duration::from_secs(5), &what, move || {
                registry.dispatch_value(&ctx, tool, &args)
            });
            let error: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{what}: not an error ({e}): {text}"));
            assert_eq!(error["error"], "invalid_argument", "{what}: {text}");
            assert_eq!(error["argument"], "file", "{what}: {text}");
            let message = error["message"].as_str().unwrap();
            assert!(
                message.contains(kind) && message.contains("not a regular file"),
                "{what}: {text}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 3 * registry.definitions().len());
    for (tool, arguments) in calls(&registry, "dev-zero.json") {
        let text = registry.dispatch_value(&ctx, tool, &arguments);
        assert!(
            text.starts_with(r#"{"error":"path_outside_root""#),
            "{tool}: {text}"
        );
    }
}

#[test]
fn a_file_swapped_for_a_fifo_while_calls_run_never_stalls_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_owned();
    fs::write(dir.join("keep-file"), "alpha\nbeta\n").unwrap();
    mkfifo(&dir.join("keep-pipe"));
    fs::hard_link(dir.join("keep-file"), dir.join("log.txt")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let racer = {
        let (dir, stop) = (dir.clone(), Arc::clone(&stop));
        thread::spawn(move || {
            let mut swaps = 0u64;
            // `log.txt` always exists, and is the file or the FIFO: a rename over it replaces
            // it at once, and hard links keep both alive to be renamed in again.
            while !stop.load(Ordering::Relaxed) {
                for keep in ["keep-pipe", "keep-file"] {
                    fs::hard_link(dir.join(keep), dir.join("next")).unwrap();
                    fs::rename(dir.join("next"), dir.join("log.txt")).unwrap();
                    thread::sleep(Duration::from_micros(50));
                }
                swaps += 1;
            }
            swaps
        })
    };
    let ctx = context(&dir);
    // The counter's tables are built on first use (about a second): before the two seconds of
    // calls, not inside them.
    overspill_tokens::TokenCounter::prepare(overspill_tokens::o200k());
    let counts = within(Duration::from_secs(20), "the calls", move || {
        let registry = Registry::new();
        let (mut served, mut refused, mut total) = (0, 0, 0);
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(2) {
            for tool in ["head", "grep", "read"] {
                let arguments = json!({"file": "log.txt", "pattern": "beta"});
                let arguments = if tool == "grep" {
                    arguments
                } else {
                    json!({"file": "log.txt"})
                };
                let text = registry.dispatch_value(&ctx, tool, &arguments);
                total += 1;
                if text.contains("beta") {
                    served += 1;
                } else if text.starts_with(r#"{"error":"#) {
                    refused += 1;
                } else {
                    panic!("{tool}: neither the file nor an error: {text}");
                }
            }
        }
        (served, refused, total)
    });
    stop.store(true, Ordering::Relaxed);
    let swaps = racer.join().unwrap();
    let (served, refused, total) = counts;
    assert!(swaps > 10, "the racer hardly ran: {swaps} swaps");
    assert!(served > 0, "no call of {total} read the file");
    assert_eq!(served + refused, total);
}
