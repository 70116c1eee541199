//! A crash mid-write never leaves a partial file under a final name (docs/security.md).
//!
//! The test runs its own binary again as a child that writes large outputs in a loop, kills
//! it with SIGKILL at a random moment (several times, into the same directory), then checks
//! that every file under a final name is complete — its content hash is the one its name
//! carries — and that the store still opens, writes and lists.
//!
//! Defence guarded: the atomic write (hidden temporary file, flush, then link/rename under the
//! final name) in `atomic::write_if_absent`. Writing straight to the final name fails this.

// Helpers outside #[test] fns panic on fixture failures like the tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use overspill_store::{
    HASH_HEX_CHARS, METADATA_DIR, Output, RESERVED_PREFIX, Store, TextLayout, content_hash,
};

/// Set in the child's environment: the directory to write into.
const CHILD_DIR: &str = "OVERSPILL_HARDENING_CRASH_DIR";

/// The `i`-th output: 1–4 MB, distinct, a third of them JSON (pretty-printed on write).
fn output(seed: u64, i: u64) -> String {
    let rows = 20_000 + (i % 4) * 15_000;
    if i.is_multiple_of(3) {
        let row = format!("{{\"seed\":{seed},\"i\":{i},\"msg\":\"GET /api/items 200 OK\"}}");
        format!("[{}]", vec![row; rows as usize].join(","))
    } else {
        format!(
            "seed {seed} output {i}\n{}",
            "2026-12-02T16:00:00Z INFO request served in 12 ms\n".repeat(rows as usize)
        )
    }
}

/// The child: writes until killed (or for 60 s, so an orphan cannot run on).
#[test]
fn crash_child_writes_outputs_until_killed() {
    let Ok(dir) = std::env::var(CHILD_DIR) else {
        return; // Not the child: nothing to do.
    };
    let store = Store::open(&dir).unwrap();
    let seed = u64::from(std::process::id());
    let started = Instant::now();
    let mut i = 0;
    while started.elapsed() < Duration::from_secs(60) {
        let content = output(seed, i);
        store
            .write_output(&Output {
                tool: "big",
                server: None,
                content: &content,
                tokens: None,
                text_layout: TextLayout::Reindented,
            })
            .unwrap();
        i += 1;
    }
}

fn final_names(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with(RESERVED_PREFIX) && !name.starts_with('.'))
        .collect()
}

/// Temporary files in `dir`: writes in flight, or cut short by a kill.
fn temp_files(dir: &Path) -> usize {
    fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref().is_ok_and(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(&format!("{RESERVED_PREFIX}tmp-"))
            })
        })
        .count()
}

/// The hash a final name carries: `big-<hash>.<ext>`.
fn named_hash(name: &str) -> &str {
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    &stem[stem.len() - HASH_HEX_CHARS..]
}

#[test]
fn a_writer_killed_mid_write_leaves_only_complete_files_under_final_names() {
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut kills = 0;
    for round in 0..4u64 {
        let mut child = Command::new(&exe)
            .args([
                "crash_child_writes_outputs_until_killed",
                "--exact",
                "--test-threads=1",
            ])
            .env(CHILD_DIR, dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Let it write a few files, then kill it the moment a temporary file shows up: in
        // the middle of a write.
        let before = final_names(dir.path()).len();
        let deadline = Instant::now() + Duration::from_secs(20);
        while final_names(dir.path()).len() < before + 2 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
        let known = temp_files(dir.path());
        let deadline = Instant::now() + Duration::from_secs(5);
        while temp_files(dir.path()) <= known && Instant::now() < deadline {
            std::hint::spin_loop();
        }
        std::thread::sleep(Duration::from_micros(300 * round));
        child.kill().unwrap(); // SIGKILL on Unix.
        child.wait().unwrap();
        kills += 1;
    }
    assert_eq!(kills, 4);

    let names = final_names(dir.path());
    let leftovers = temp_files(dir.path());
    eprintln!(
        "{} complete files, {leftovers} temporary files left by the kills",
        names.len()
    );
    assert!(names.len() >= 8, "the child wrote too little: {names:?}");
    // The kills really landed mid-write: they left temporary files behind.
    assert!(leftovers > 0, "no kill interrupted a write");
    for name in &names {
        let bytes = fs::read(dir.path().join(name)).unwrap();
        assert_eq!(
            content_hash(&bytes),
            named_hash(name),
            "{name} is incomplete ({} bytes)",
            bytes.len()
        );
    }

    // The store still works in that directory: it opens, writes and lists.
    let store = Store::open(dir.path()).unwrap();
    let stored = store
        .write_output(&Output {
            tool: "after",
            server: None,
            content: "after the crash\n",
            tokens: None,
            text_layout: TextLayout::Reindented,
        })
        .unwrap();
    assert_eq!(
        fs::read_to_string(&stored.path).unwrap(),
        "after the crash\n"
    );
    let listed = store.list().unwrap();
    assert!(listed.iter().any(|m| m.file_name == stored.file_name));
    assert!(dir.path().join(METADATA_DIR).is_dir());
}
