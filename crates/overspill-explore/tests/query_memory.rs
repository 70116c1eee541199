//! What `query` holds in memory while a filter runs, counted by the allocator itself
//! (issue 28, item 5; docs/security.md): the memory guard counts what `paths`, `tostring`,
//! `tojson`, `group_by`, `..`, `to_entries`, `sort_by` and `unique_by` allocate, so each
//! either finishes or stops at the limit with about the limit held, never more; and `[]`
//! reads a container without copying it.
//!
//! This binary counts every allocation (a global allocator that keeps the live total and its
//! peak), so its checks run one after the other in one test: a second test running beside it
//! would be counted too.

#![allow(clippy::unwrap_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use overspill_explore::jq::{Document, LimitKind, Limits, QueryError, Tripped, Window, run_with};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// Counting needs the allocator's own interface, which is unsafe to implement; each method
// hands its arguments to the system allocator unchanged.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: the caller's layout is passed on as it came.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` was allocated by `System` with this layout (see `alloc`).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grew(new_size - layout.size());
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: as `alloc` and `dealloc`: the arguments are passed on as they came.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A pod list of `pods` items, compact, about 270 bytes and 20 values an item.
fn pods(pods: usize) -> Vec<u8> {
    let items: Vec<String> = (0..pods)
        .map(|i| {
            format!(
                r#"{{"metadata":{{"name":"api-{i:06}","namespace":"ns-{}","labels":{{"app":"api","tier":"t{}"}}}},"spec":{{"containers":[{{"name":"main","image":"registry.example.com/api:2.{}"}}]}},"status":{{"phase":"Running","restarts":{},"ready":true}}}}"#,
                i % 7,
                i % 3,
                i % 11,
                i % 5
            )
        })
        .collect();
    format!(r#"{{"kind":"List","items":[{}]}}"#, items.join(",")).into_bytes()
}

/// An object of `keys` keys.
fn keys(keys: usize) -> Vec<u8> {
    let entries: Vec<String> = (0..keys).map(|i| format!(r#""key{i:07}":{i}"#)).collect();
    format!("{{{}}}", entries.join(",")).into_bytes()
}

/// `n` distinct numbers, shuffled.
fn numbers(n: usize) -> Vec<u8> {
    let items: Vec<String> = (0..n).map(|i| (i * 7_919 % n).to_string()).collect();
    format!("[{}]", items.join(",")).into_bytes()
}

/// What a run ended with, and the most it held at once beyond the document.
struct Held {
    outcome: Result<Vec<String>, QueryError>,
    peak: usize,
}

fn run_counted(filter: &str, document: &Document, limits: &Limits) -> Held {
    let document = document.clone();
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let outcome = run_with(filter, move || Ok(document), Window::all(), limits);
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before);
    Held {
        outcome: outcome.map(|o| o.results),
        peak,
    }
}

const MB: usize = 1 << 20;

/// The filters of the issue and their kin, each on a document where it would hold far more
/// than the limit.
fn bombs() -> Vec<(&'static str, &'static str, Document)> {
    let pods = Document::parse(&pods(10_000)).unwrap();
    let keys = Document::parse(&keys(100_000)).unwrap();
    let numbers = Document::parse(&numbers(100_000)).unwrap();
    vec![
        ("[paths]", "pods", pods.clone()),
        ("[.. | tostring]", "pods", pods.clone()),
        ("[..] | tojson", "pods", pods.clone()),
        ("[..]", "pods", pods.clone()),
        ("[.items[] | to_entries]", "pods", pods),
        ("to_entries", "keys", keys.clone()),
        ("group_by(.)", "numbers", numbers.clone()),
        ("sort_by(-.)", "numbers", numbers.clone()),
        ("unique_by(. % 50000)", "numbers", numbers),
        ("keys", "keys", keys),
    ]
}

#[test]
fn query_memory_guard_stops_each_bomb_holding_no_more_than_its_limit_and_iterates_without_copying()
{
    let limit = 2 * MB;
    let small = Limits {
        max_produced_bytes: limit as u64,
        ..Limits::default()
    };
    let roomy = Limits {
        max_produced_bytes: 1 << 40,
        max_value_bytes: 1 << 40,
        max_steps: u64::MAX,
        max_results: u64::MAX,
        max_output_bytes: usize::MAX,
        ..Limits::default()
    };
    for (filter, on, document) in bombs() {
        // Unbounded, the filter holds well over the limit: the limit is what stops it.
        let free = run_counted(&format!("{filter} | length"), &document, &roomy);
        assert!(
            free.peak > 2 * limit,
            "{filter} on {on} holds only {} MB when nothing stops it: make the document larger",
            free.peak / MB
        );
        let bounded = run_counted(filter, &document, &small);
        // What any run holds: the compiled filter and jq's standard library, the thread.
        let base = run_counted("length", &document, &small).peak;
        match &bounded.outcome {
            Err(QueryError::Limit {
                limit: LimitKind::Evaluation(Tripped::Produced | Tripped::ValueSize),
                ..
            }) => {}
            other => panic!("{filter} on {on}: {other:?}"),
        }
        // What the guard counted was at least what was held, with room for what jaq holds
        // while it evaluates (paths under construction, the iterators of a walk).
        assert!(
            bounded.peak <= base + limit + limit / 2,
            "{filter} on {on} held {} KB beyond a run's {} KB under a {} MB limit \
             (unbounded: {} MB)",
            (bounded.peak - base.min(bounded.peak)) >> 10,
            base >> 10,
            limit / MB,
            free.peak / MB
        );
    }

    // `[]` reads the shared container: jaq's own copied the 200,000 entries first.
    let keys = Document::parse(&keys(200_000)).unwrap();
    for filter in [
        "first(.[])",
        "[.[] | select(. == 7)]",
        "first(keys_unsorted[])",
    ] {
        let held = run_counted(filter, &keys, &Limits::default());
        assert!(held.outcome.is_ok(), "{filter}: {:?}", held.outcome.err());
        let most = if filter.contains("keys_unsorted") {
            // The list of keys itself: a slot and a box each.
            200_000 * 64 + MB
        } else {
            MB
        };
        assert!(held.peak <= most, "{filter} held {} KB", held.peak >> 10);
    }
}
