//! Intercepting a 10 MB JSON tool output (docs/performance.md): what [`Scratchpad::intercept`] costs
//! beside the least any interceptor must do, counting the tokens and writing the bytes.
//!
//! Group `intercept/<input>`: `count + fs::write` (the baseline: `o200k_base` count, then
//! `std::fs::write` of the output to a new file) and `Scratchpad::intercept` (threshold
//! check, full count, format detection, pretty-printing, content hash, atomic write, metadata
//! record, pointer). Each iteration writes into a fresh directory, so neither side finds its
//! file already there. Target: at most 1.3× the baseline.
//!
//! `cargo bench -p overspill --bench intercept`, or `cargo xtask bench` for the report.

#![allow(missing_docs)]
// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used)]

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use overspill::{Scratchpad, ToolOutput};
use overspill_benchdata::{MB, Shape, bench_bytes};

fn intercept(c: &mut Criterion) {
    let shape = Shape::PodsCompact;
    let bytes = bench_bytes(10 * MB);
    let path = overspill_benchdata::ensure(shape, bytes).unwrap();
    let content = std::fs::read_to_string(&path).unwrap();
    let counter = overspill_tokens::o200k();

    let mut group = c.benchmark_group(format!("intercept/{}", shape.file_name(bytes)));
    group.throughput(Throughput::Bytes(content.len() as u64));
    group.sample_size(10);
    group.bench_function("count + fs::write", |b| {
        b.iter_batched(
            || tempfile::tempdir().unwrap(),
            |dir| {
                let tokens = counter.count(&content);
                std::fs::write(dir.path().join("output.json"), &content).unwrap();
                (tokens, dir)
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("Scratchpad::intercept", |b| {
        b.iter_batched(
            || {
                let dir = tempfile::tempdir().unwrap();
                let scratchpad = Scratchpad::builder()
                    .scratchpad_dir(dir.path())
                    .counter(counter)
                    .context_window(200_000)
                    .intercept_all(5_120)
                    .build()
                    .unwrap();
                (scratchpad, ToolOutput::text(content.clone()), dir)
            },
            |(scratchpad, output, dir)| {
                let intercepted = scratchpad.intercept("k8s", "list_pods", output);
                assert!(intercepted.is_pointer());
                (intercepted, dir)
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, intercept);
criterion_main!(benches);
