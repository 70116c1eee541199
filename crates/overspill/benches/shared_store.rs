//! What a shared store costs (issue 41, docs/performance.md#a-shared-store-issue-41): a 10 MB text
//! result intercepted into the store, its first `grep` on a machine whose cache does not have
//! it, and the calls after that, each beside what it cannot do without.
//!
//! `cargo xtask bench` starts the store (Garage) and Redis and runs this with
//! `OVERSPILL_BENCH_STORE` (an `s3://` URL, with the `AWS_*` variables) and
//! `OVERSPILL_BENCH_REDIS` (a `redis://` URL). Each iteration:
//!
//! - **Intercept**: `Scratchpad::intercept` of a new 10 MB log (its last line makes it new)
//!   into a pad with the shared store, against the sum of the same interception into a local
//!   pad and a plain `object_store` put of the same bytes to the same store.
//! - **First grep**: `grep` through a pad on a fresh cache directory (the result is only in
//!   the store), against the sum of a plain GET of the result and the same `grep` on the local
//!   pad, five times per result (each on a cache of its own), in turn.
//! - **Later grep**: the same `grep` again through that pad, its budget in Redis, against the
//!   local `grep` plus one round trip for the budget (the request a charge makes, on an open
//!   connection), twenty times each, in turn.
//!
//! Prints one line, `shared_store:` and `key_ns=N` fields (the medians in nanoseconds), for
//! xtask to read.

#![allow(missing_docs)]
// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use overspill::store::SharedStore;
use overspill::store::shared::{Redis, open_url};
use overspill::{Scratchpad, ToolOutput};
use overspill_benchdata::{MB, Shape};

/// First `grep`s timed for each result, each on a cache of its own.
const FIRST_CALLS: usize = 5;

/// Later calls timed after each first `grep`.
const LATER_CALLS: usize = 20;

const GREP: &str = r#"{"file": "FILE", "pattern": "ERROR", "max_matches": 20}"#;

fn main() {
    let (Ok(store), Ok(redis)) = (
        std::env::var("OVERSPILL_BENCH_STORE"),
        std::env::var("OVERSPILL_BENCH_REDIS"),
    ) else {
        eprintln!(
            "shared_store: OVERSPILL_BENCH_STORE and OVERSPILL_BENCH_REDIS are not set; \
             `cargo xtask bench` sets them"
        );
        return;
    };
    let quick = std::env::var_os("OVERSPILL_BENCH_QUICK").is_some();
    let iterations = if quick { 5 } else { 15 };
    let path = overspill_benchdata::ensure(Shape::Log, 10 * MB).unwrap();
    let log = std::fs::read_to_string(path).unwrap();
    let objects = open_url(&store).unwrap();
    objects.check().unwrap();
    let redis = Redis::open(&redis).unwrap();
    redis.check().unwrap();
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let scratch = tempfile::tempdir().unwrap();

    let mut figures: [Vec<Duration>; 6] = Default::default();
    let [
        shared_intercept,
        put_and_local,
        first_grep,
        get_and_grep,
        later_grep,
        grep_and_round_trip,
    ] = &mut figures;
    // Every result first (the store settles its writes before any read is timed), then the
    // reads, the baseline and ours in turn first.
    // One round trip for the budget: the request a charge makes (the atomic add, on an open
    // connection), to a counter of its own.
    let round_trip = redis.counter(format!("overspill-bench/{nonce}/round-trip"));
    let mut results = Vec::new();
    for i in 0..iterations {
        let content = format!("{log}run {nonce} {i}\n");
        let local = pad(&scratch.path().join(format!("local-{i}")), None, None);
        let (stored, local_time) =
            timed(|| local.intercept("logs", "fetch", ToolOutput::text(content.clone())));
        let file = file_of(stored.replacement().unwrap_or_default());
        let (_, put_time) = timed(|| {
            objects
                .put_new(&format!("bench-put/{nonce}-{i}"), content.as_bytes())
                .unwrap()
        });
        let cache_a = scratch.path().join(format!("a-{i}"));
        let shared_a = SharedStore::new(Arc::clone(&objects), &cache_a, 1 << 30).unwrap();
        let a = pad(&cache_a.join("principals/bench"), Some(shared_a), None);
        let (pointer, shared_time) =
            timed(|| a.intercept("logs", "fetch", ToolOutput::text(content.clone())));
        assert_eq!(file_of(pointer.replacement().unwrap_or_default()), file);
        shared_intercept.push(shared_time);
        put_and_local.push(put_time + local_time);
        results.push((local, file));
    }
    for (i, (local, file)) in results.iter().enumerate() {
        let grep = GREP.replace("FILE", file);
        let key = format!("principals/bench/{file}");
        let local_dir = scratch.path().join(format!("local-{i}"));
        let baseline = || {
            // A first `grep` here too: a pad that has not read the file yet.
            let local = pad(&local_dir, None, None);
            let (_, local_grep) = timed(|| local.call("grep", &grep));
            let (_, get_time) = timed(|| objects.get(&key).unwrap().expect("stored"));
            local_grep + get_time
        };
        // A first call waits on one GET, whose time varies by tens of milliseconds: several
        // machines that have not cached the result, each against the baseline, in turn.
        let mut b = None;
        for k in 0..FIRST_CALLS {
            let cache_b = scratch.path().join(format!("b-{i}-{k}"));
            let shared_b = SharedStore::new(Arc::clone(&objects), &cache_b, 1 << 30).unwrap();
            let counter = redis.counter(format!("overspill-bench/{nonce}/{i}"));
            let fresh = pad(
                &cache_b.join("principals/bench"),
                Some(shared_b),
                Some(counter),
            );
            let ours = || {
                let (answer, first) = timed(|| fresh.call("grep", &grep));
                assert!(answer.contains("ERROR"), "{answer}");
                first
            };
            let (first, base) = in_turn((i + k) % 2 == 1, ours, baseline);
            first_grep.push(first);
            get_and_grep.push(base);
            b = Some(fresh);
        }
        let b = b.expect("at least one first call");

        // A later call is a millisecond or two: several of each, in turn.
        for k in 0..LATER_CALLS {
            let (later, base) = in_turn(
                k % 2 == 0,
                || timed(|| b.call("grep", &grep)).1,
                || {
                    let (_, local_again) = timed(|| local.call("grep", &grep));
                    let (_, round) = timed(|| round_trip.add_within(1, u64::MAX).unwrap());
                    local_again + round
                },
            );
            later_grep.push(later);
            grep_and_round_trip.push(base);
        }
    }
    let names = [
        "shared_intercept_ns",
        "put_and_local_intercept_ns",
        "first_grep_ns",
        "get_and_local_grep_ns",
        "later_grep_ns",
        "local_grep_and_round_trip_ns",
    ];
    let fields: Vec<String> = names
        .iter()
        .zip(figures)
        .map(|(name, times)| format!("{name}={}", median(times).as_nanos()))
        .collect();
    println!("shared_store: {}", fields.join(" "));
}

/// A pad writing in `dir`, with the shared store and the Redis budget when given.
fn pad(
    dir: &Path,
    shared: Option<SharedStore>,
    budget: Option<overspill::store::shared::RedisCounter>,
) -> Scratchpad {
    let mut builder = Scratchpad::builder()
        .scratchpad_dir(dir)
        .counter(overspill_tokens::o200k())
        .context_window(1_000_000)
        .intercept_all(5_120);
    if let Some(shared) = shared {
        builder = builder.shared_store(shared);
    }
    if let Some(counter) = budget {
        builder = builder.redis_budget(counter);
    }
    builder.build().unwrap()
}

/// Runs `ours` and `baseline`, `ours` first when `ours_first`: their times, in that order.
fn in_turn(
    ours_first: bool,
    ours: impl FnOnce() -> Duration,
    baseline: impl FnOnce() -> Duration,
) -> (Duration, Duration) {
    if ours_first {
        let first = ours();
        (first, baseline())
    } else {
        let base = baseline();
        (ours(), base)
    }
}

fn timed<T>(work: impl FnOnce() -> T) -> (T, Duration) {
    let started = Instant::now();
    let out = work();
    (out, started.elapsed())
}

/// The `file:` of a pointer.
fn file_of(pointer: &str) -> String {
    overspill::explore::stored_file(pointer)
        .unwrap_or_else(|| panic!("not a pointer: {pointer}"))
        .to_owned()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}
