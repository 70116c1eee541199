//! Line tools over service logs from `overspill-benchdata` (docs/performance.md).
//!
//! - `grep/<input>/<pattern>`: `GNU grep -n -C3` (the baseline: the same file and pattern, its
//!   output read through a pipe) beside overspill's `grep` on a fresh file cache, which counts
//!   every matching line and builds the line index on the way. Target: ≤ 1.5× on 100 MB.
//! - `line_tools/<input>`: `head` and `slice` with the file cached (the cost of a call), and
//!   `head` on a fresh cache (the first call on a file, which builds the line index once).
//!   Target: a cached call on 100 MB within 2× the same call on 1 MB.
//!
//! `cargo bench -p overspill-explore --bench line_tools`, or `cargo xtask bench`. Without GNU
//! grep on `PATH` the baseline is left out with a message.

#![allow(missing_docs)]
// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Stdio};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use overspill_benchdata::{MB, Shape, bench_bytes};
use overspill_explore::Registry;

/// The patterns of the grep scenario: (name in the report, pattern).
mod support;
use support::context;

use context::context;

const PATTERNS: &[(&str, &str)] = &[
    ("literal ERROR", "ERROR"),
    ("regex timeout", "timeout after [0-9]{4}ms"),
    ("no match", "request_id=0000000000000000"),
];

fn gnu_grep_available() -> bool {
    Command::new("grep")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success() && out.stdout.starts_with(b"grep (GNU grep)"))
}

/// `grep -n -C3 pattern file`, its output drained through a pipe (GNU grep stops at the
/// first match when its output is `/dev/null`, so that would not be the same work).
fn gnu_grep(pattern: &str, file: &Path) -> usize {
    let out = Command::new("grep")
        .args(["-n", "-C3", "-E", pattern])
        .arg(file)
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    out.stdout.len()
}

fn grep(c: &mut Criterion) {
    let registry = Registry::new();
    let path = overspill_benchdata::ensure(Shape::Log, bench_bytes(100 * MB)).unwrap();
    let dir = path.parent().unwrap();
    let file = path.file_name().unwrap().to_str().unwrap();
    let gnu = gnu_grep_available();
    if !gnu {
        eprintln!("line_tools: GNU grep is not on PATH; the grep baseline is left out");
    }
    for (name, pattern) in PATTERNS {
        let mut group = c.benchmark_group(format!("grep/{file}/{name}"));
        group.sample_size(10);
        group.throughput(Throughput::Bytes(std::fs::metadata(&path).unwrap().len()));
        if gnu {
            group.bench_function("GNU grep -n -C3", |b| b.iter(|| gnu_grep(pattern, &path)));
        }
        let arguments = serde_json::json!({"file": file, "pattern": pattern}).to_string();
        group.bench_function("overspill grep", |b| {
            b.iter_batched(
                || context(dir),
                |ctx| {
                    let text = registry.dispatch(&ctx, "grep", &arguments);
                    assert!(!text.starts_with("{\"error\""), "{text}");
                    text
                },
                BatchSize::PerIteration,
            )
        });
        group.finish();
    }
}

fn head_and_slice(c: &mut Criterion) {
    let registry = Registry::new();
    for size in [MB, 100 * MB] {
        let path = overspill_benchdata::ensure(Shape::Log, bench_bytes(size)).unwrap();
        let dir = path.parent().unwrap();
        let file = path.file_name().unwrap().to_str().unwrap();
        let ctx = context(dir);
        // The middle of the file, so the slice is not a lucky first page.
        let lines = std::fs::read(&path)
            .unwrap()
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        let start = lines / 2;
        let head = serde_json::json!({"file": file, "lines": 50}).to_string();
        let slice =
            serde_json::json!({"file": file, "start": start, "end": start + 49}).to_string();
        let mut group = c.benchmark_group(format!("line_tools/{file}"));
        let mut run = |name: &str, tool: &str, arguments: &str| {
            let text = registry.dispatch(&ctx, tool, arguments);
            assert!(!text.starts_with("{\"error\""), "{text}");
            group.bench_function(name, |b| {
                b.iter(|| registry.dispatch(&ctx, tool, arguments))
            });
        };
        run("head 50 lines", "head", &head);
        run("slice 50 lines in the middle", "slice", &slice);
        group.sample_size(10);
        group.bench_function("head 50 lines, first call on the file", |b| {
            b.iter_batched(
                || context(dir),
                |ctx| registry.dispatch(&ctx, "head", &head),
                BatchSize::PerIteration,
            )
        });
        group.finish();
    }
}

criterion_group!(benches, grep, head_and_slice);
criterion_main!(benches);
