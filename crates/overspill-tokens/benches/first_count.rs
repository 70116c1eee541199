//! The first count in a fresh process (docs/performance.md, docs/tokens.md#where-the-tables-come-from):
//! with the OpenAI tables built from the embedded vocabulary (the first process on a machine),
//! loaded from the cache directory (every process after it), and, as the baseline, with
//! `bpe-openai`'s prebuilt tables, which the binary embedded before (47 MB).
//!
//! Each figure is the median over fresh processes (this bench runs itself again with
//! `OVERSPILL_FIRST_COUNT=<mode>`), from the start of the count to its answer, so the first
//! touch of the embedded data is inside it. Prints one line for `cargo xtask bench`:
//! `first_count: prebuilt_ns=… built_ns=… cached_ns=…`.

#![allow(missing_docs)]
// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::time::Instant;

use overspill_tokens::{keep_tables_in, o200k};

const MODE: &str = "OVERSPILL_FIRST_COUNT";
const CACHE: &str = "OVERSPILL_FIRST_COUNT_CACHE";
const TEXT: &str = r#"{"kind": "PodList", "items": [{"name": "api-7d9f", "phase": "Running"}]}"#;

fn main() {
    if let Ok(mode) = std::env::var(MODE) {
        println!("{}", first_count(&mode));
        return;
    }
    // cargo bench passes `--bench`; nothing else is taken.
    let runs = if std::env::var_os("OVERSPILL_BENCH_QUICK").is_some() {
        3
    } else {
        7
    };
    let cache = tempfile::tempdir().unwrap();
    let median = |mode: &str| {
        let mut times: Vec<u64> = (0..runs).map(|_| run(mode, cache.path())).collect();
        times.sort_unstable();
        times[times.len() / 2]
    };
    // The first cached run finds no copy and writes one; the cached figures come after it.
    run("cached", cache.path());
    let prebuilt = median("prebuilt");
    let built = median("built");
    let cached = median("cached");
    println!("first_count: prebuilt_ns={prebuilt} built_ns={built} cached_ns={cached}");
}

/// Runs this bench once more, in `mode`, and returns the nanoseconds it measured.
fn run(mode: &str, cache: &std::path::Path) -> u64 {
    let output = Command::new(std::env::current_exe().unwrap())
        .env(MODE, mode)
        .env(CACHE, cache)
        // Only the directory this bench names counts as a cache (`cargo` sets one for tests).
        .env_remove("OVERSPILL_CACHE_DIR")
        .output()
        .unwrap();
    assert!(output.status.success(), "{mode}: {output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// The nanoseconds of this process's first `o200k_base` count in `mode`.
fn first_count(mode: &str) -> u128 {
    match mode {
        "cached" => {
            keep_tables_in(std::env::var_os(CACHE).expect("cache dir").into());
        }
        "built" | "prebuilt" => {}
        other => panic!("unknown mode {other}"),
    }
    let started = Instant::now();
    let count = if mode == "prebuilt" {
        bpe_openai::o200k_base().count(TEXT)
    } else {
        o200k().count(TEXT)
    };
    let elapsed = started.elapsed().as_nanos();
    assert_eq!(count, 28, "{mode}");
    elapsed
}
