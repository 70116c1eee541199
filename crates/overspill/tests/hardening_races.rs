//! Races and special files through the facade (issue 22, items 1 to 3), each test running an
//! attacker beside the calls a model makes:
//!
//! - a racer flipping a file and a directory between the real thing and symlinks out of the
//!   read root, while `head` and `overspill://` references run: no outside byte is ever
//!   delivered (defence: `ReadRoot::open` judges and opens in one lookup beneath the root's
//!   handle, so a swap between a check and an open cannot exist);
//! - a racer truncating a large file while `grep`, `schema` and `query` run: nothing crashes
//!   and the next call answers (defence: the file cache reads through the open handle instead
//!   of mapping the file, so a truncation cannot raise `SIGBUS`);
//! - references to a FIFO, a socket and a device: an error at once, never a stall (defence:
//!   the type is checked before and after a non-blocking open).
//!
//! Each racer runs for a bounded time (about two seconds), so the file stays quick.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::{FileExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use overspill::Scratchpad;
use serde_json::{Value, json};

/// What the outside file holds; no answer may ever contain it.
const SECRET: &str = "OUTSIDE-SECRET-7f3a";
/// What the inside files hold.
const INSIDE: &str = "inside-line-2c9e";
/// How long each racer runs.
const RACE: Duration = Duration::from_millis(2_000);

/// A scratchpad dir with `flip.txt` and `dir/inner.txt`, beside an outside dir holding the
/// secret under the same names.
struct Fixture {
    _tmp: tempfile::TempDir,
    pad_dir: PathBuf,
    outside: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let pad_dir = tmp.path().join("pad");
    let outside = tmp.path().join("outside");
    fs::create_dir_all(pad_dir.join("dir")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(pad_dir.join("flip.txt"), format!("{INSIDE}\n")).unwrap();
    fs::write(pad_dir.join("dir/inner.txt"), format!("{INSIDE}\n")).unwrap();
    fs::write(outside.join("flip.txt"), format!("{SECRET}\n")).unwrap();
    fs::write(outside.join("inner.txt"), format!("{SECRET}\n")).unwrap();
    Fixture {
        _tmp: tmp,
        pad_dir,
        outside,
    }
}

/// A pad reading `dir`, with a window large enough that thousands of small calls never run
/// out of budget.
fn pad(dir: &Path) -> Scratchpad {
    let config = overspill::config::Config::from_toml_str(
        "memory_dir = \"unused\"\n[agent.llm]\ncontext_window = 128000\n[agent.scratchpad]\nenabled = true\n",
    )
    .unwrap();
    Scratchpad::from_config(&config)
        .scratchpad_dir(dir)
        .context_window(1_000_000_000)
        .build()
        .unwrap()
}

/// Flips `flip.txt` between the file and a symlink to the outside one, and `dir` between the
/// directory and a symlink to the outside dir, until `stop`; returns how many flips it made.
fn racer(f: &Fixture, stop: Arc<AtomicBool>) -> thread::JoinHandle<u64> {
    let (dir, outside) = (f.pad_dir.clone(), f.outside.clone());
    thread::spawn(move || {
        let mut flips = 0;
        while !stop.load(Ordering::Relaxed) {
            fs::rename(dir.join("flip.txt"), dir.join("flip.real")).unwrap();
            symlink(outside.join("flip.txt"), dir.join("flip.txt")).unwrap();
            fs::rename(dir.join("dir"), dir.join("dir.real")).unwrap();
            symlink(&outside, dir.join("dir")).unwrap();
            // Each state held a moment, so calls meet both and the switches between them.
            thread::sleep(Duration::from_micros(100));
            fs::remove_file(dir.join("flip.txt")).unwrap();
            fs::rename(dir.join("flip.real"), dir.join("flip.txt")).unwrap();
            fs::remove_file(dir.join("dir")).unwrap();
            fs::rename(dir.join("dir.real"), dir.join("dir")).unwrap();
            thread::sleep(Duration::from_micros(100));
            flips += 1;
        }
        flips
    })
}

/// Runs `calls` (each returning the text delivered) while the racer flips, for [`RACE`].
/// Returns how many answers carried the inside content, so a test can show it is not vacuous.
fn race(f: &Fixture, mut call: impl FnMut(&str) -> String) -> (u64, u64) {
    let stop = Arc::new(AtomicBool::new(false));
    let racer = racer(f, Arc::clone(&stop));
    let (mut inside, mut total) = (0, 0);
    let started = Instant::now();
    let mut leaked = None;
    while started.elapsed() < RACE {
        for file in ["flip.txt", "dir/inner.txt"] {
            let text = call(file);
            total += 1;
            if text.contains(SECRET) {
                leaked = Some(format!("{file}: {text}"));
            }
            if text.contains(INSIDE) {
                inside += 1;
            }
        }
        if leaked.is_some() {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let flips = racer.join().unwrap();
    assert!(
        leaked.is_none(),
        "an outside file was delivered (after {total} calls, {flips} flips): {}",
        leaked.unwrap_or_default()
    );
    assert!(flips > 10, "the racer hardly ran: {flips} flips");
    (inside, total)
}

#[test]
fn head_never_serves_an_outside_file_while_a_file_and_a_directory_flip_to_symlinks_out() {
    let f = fixture();
    let pad = pad(&f.pad_dir);
    let (inside, total) = race(&f, |file| {
        pad.call_value("head", &json!({"file": file, "lines": 5}))
    });
    assert!(inside > 0, "no call of {total} served the inside file");
    // After the race, the files read as they are.
    assert!(
        pad.call("head", r#"{"file": "dir/inner.txt"}"#)
            .contains(INSIDE)
    );
}

#[test]
fn references_never_deliver_an_outside_file_while_a_file_and_a_directory_flip_to_symlinks_out() {
    let f = fixture();
    let pad = pad(&f.pad_dir);
    let (inside, total) = race(&f, |file| {
        let args = json!({"text": format!("overspill://{file}"), "lines": format!("overspill://{file}#L1")});
        match pad.resolve_references(&args, None) {
            Ok(value) => value.to_string(),
            Err(error) => error.to_string(),
        }
    });
    assert!(
        inside > 0,
        "no reference of {total} resolved to the inside file"
    );
}

/// A pretty-printed pod list of about `bytes` bytes, one `"name"` per pod.
fn pod_list(bytes: usize) -> (String, usize) {
    let mut items = Vec::new();
    let mut size = 0;
    while size < bytes {
        let item = json!({
            "name": format!("pod-{}", items.len()),
            "namespace": "default",
            "status": {"phase": if items.len() % 7 == 0 { "Failed" } else { "Running" }},
            "labels": {"app": "web", "tier": "frontend"},
        });
        size += 160;
        items.push(item);
    }
    let count = items.len();
    let text = serde_json::to_string_pretty(&json!({"kind": "PodList", "items": items})).unwrap();
    (text, count)
}

/// Every answer is an error object with a message or a footed result; never a crash.
fn well_formed(tool: &str, text: &str) {
    if text.starts_with('{') {
        let error: Value = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("{tool}: malformed answer ({e}): {text}"));
        assert!(error["error"].is_string(), "{tool}: {text}");
    } else {
        assert!(!text.is_empty(), "{tool}: an empty answer");
    }
}

#[test]
fn truncating_a_file_during_grep_schema_and_query_crashes_nothing_and_the_next_call_answers() {
    // Larger than the 4 MiB above which the file cache used to map files.
    let (content, pods) = pod_list(6 << 20);
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("pods.json");
    fs::write(&path, &content).unwrap();
    let pad = pad(tmp.path());
    let calls = [
        (
            "grep",
            json!({"file": "pods.json", "pattern": "pod-4242\"", "context": 0}),
        ),
        ("schema", json!({"file": "pods.json"})),
        (
            "query",
            json!({"file": "pods.json", "filter": ".items | length"}),
        ),
    ];
    let stop = Arc::new(AtomicBool::new(false));
    let truncator = {
        let (path, stop, content) = (path.clone(), Arc::clone(&stop), content.clone());
        thread::spawn(move || {
            let file = fs::OpenOptions::new().write(true).open(&path).unwrap();
            let mut cuts = 0u64;
            while !stop.load(Ordering::Relaxed) {
                // Cut in place (the same inode, as a host rewriting its artifact does), then
                // put the bytes back.
                file.set_len(4_096).unwrap();
                thread::sleep(Duration::from_millis(3));
                file.write_all_at(content.as_bytes(), 0).unwrap();
                thread::sleep(Duration::from_millis(3));
                cuts += 1;
            }
            cuts
        })
    };
    let started = Instant::now();
    let mut answered = 0;
    while started.elapsed() < RACE {
        for (tool, arguments) in &calls {
            well_formed(tool, &pad.call_value(tool, arguments));
            answered += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let cuts = truncator.join().unwrap();
    assert!(cuts > 10, "the truncator hardly ran: {cuts} cuts");
    assert!(answered >= 3);
    // The file is whole again: the same session answers each tool in full.
    fs::write(&path, &content).unwrap();
    let grep = pad.call_value(calls[0].0, &calls[0].1);
    assert!(grep.contains("\"name\": \"pod-4242\""), "{grep}");
    let schema = pad.call_value(calls[1].0, &calls[1].1);
    assert!(schema.contains("items: array("), "{schema}");
    let query = pad.call_value(calls[2].0, &calls[2].1);
    assert!(query.starts_with(&pods.to_string()), "{query}");
}

/// Runs `f` on a thread and fails the test if it has not answered within `limit`: a call
/// that waits on a FIFO never returns, and the thread is left behind.
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

/// Plants a FIFO, a socket and (when this process may) a character device in `dir`; returns
/// their names and the word each error must name.
fn plant_special_files(dir: &Path) -> Vec<(&'static str, &'static str)> {
    let mut planted = Vec::new();
    let status = std::process::Command::new("mkfifo")
        .arg(dir.join("pipe.txt"))
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo failed");
    planted.push(("pipe.txt", "FIFO"));
    // Leaked on purpose: the socket must stay bound while the test runs.
    std::mem::forget(std::os::unix::net::UnixListener::bind(dir.join("socket.txt")).unwrap());
    planted.push(("socket.txt", "socket"));
    let mknod = std::process::Command::new("mknod")
        .arg(dir.join("zero.txt"))
        .args(["c", "1", "5"])
        .stderr(std::process::Stdio::null())
        .status();
    if mknod.is_ok_and(|s| s.success()) {
        planted.push(("zero.txt", "device"));
    } else {
        eprintln!("note: mknod is not permitted here; the device case is not run");
    }
    // A link inside the root to the FIFO is the FIFO.
    symlink("pipe.txt", dir.join("pipe-link.txt")).unwrap();
    planted.push(("pipe-link.txt", "FIFO"));
    planted
}

#[test]
fn references_to_a_fifo_a_socket_or_a_device_are_errors_at_once_never_a_stall() {
    let tmp = tempfile::tempdir().unwrap();
    let planted = plant_special_files(tmp.path());
    symlink("/dev/zero", tmp.path().join("dev-zero.txt")).unwrap();
    let pad = Arc::new(pad(tmp.path()));
    for (name, kind) in planted {
        let pad = Arc::clone(&pad);
        let error = within(Duration::from_secs(5), name, move || {
            pad.resolve_references(&json!({"text": format!("overspill://{name}")}), None)
        })
        .unwrap_err();
        assert_eq!(error.code(), "invalid_argument", "{name}: {error}");
        assert!(error.to_string().contains(kind), "{name}: {error}");
    }
    let outside = pad
        .resolve_references(&json!({"text": "overspill://dev-zero.txt"}), None)
        .unwrap_err();
    assert_eq!(outside.code(), "path_outside_root", "{outside}");
}
