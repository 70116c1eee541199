//! The JSON exploration sequence of docs/performance.md on a 110 MB pod list from `overspill-benchdata`,
//! pretty-printed as the store writes it.
//!
//! Group `json/<input>`:
//! - `serde_json::from_slice::<Value>`: the baseline, a parse of the file's bytes already in
//!   memory;
//! - `first call: schema`: `schema` on a fresh file cache: reading the file and parsing it
//!   into the cached document, then the outline. Target: ≤ 1.0× the baseline (first set at 1.3×);
//! - `later call: …`: each later call of the sequence on the cached document. Target: ≤ 10 ms;
//! - `later call: query …`: a jq filter over every pod on the document a first query cached
//!   (no target);
//! - `first call: iterate_over window`: a windowed `iterate_over` on a fresh cache, which
//!   streams past everything outside the window instead of parsing it (no target).
//!
//! Peak memory is measured by the `json_memory` bench, in a process of its own.
//!
//! `cargo bench -p overspill-explore --bench json_tools`, or `cargo xtask bench`.

#![allow(missing_docs)]
// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used)]

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use overspill_benchdata::{MB, Shape, bench_bytes};
use overspill_explore::{ExploreContext, Registry};

mod support;
use support::{context, sequence};

use context::context;

use sequence::{FIRST, LATER, QUERY, STREAMED};

fn bench(c: &mut Criterion) {
    let path = overspill_benchdata::ensure(Shape::PodsPretty, bench_bytes(110 * MB)).unwrap();
    let dir = path.parent().unwrap();
    let file = path.file_name().unwrap().to_str().unwrap();
    let registry = Registry::new();
    let call = |ctx: &ExploreContext, (tool, arguments): (&str, String)| {
        let text = registry.dispatch(ctx, tool, &arguments);
        assert!(!text.starts_with("{\"error\""), "{tool}: {text}");
        text
    };

    let mut group = c.benchmark_group(format!("json/{file}"));
    group.sample_size(10);
    {
        let bytes = std::fs::read(&path).unwrap();
        group.bench_function("serde_json::from_slice::<Value>", |b| {
            b.iter_with_large_drop(|| serde_json::from_slice::<serde_json::Value>(&bytes).unwrap())
        });
    }
    // Each first call on a fresh cache: the parse, and the streamed window that skips it.
    for step in [&FIRST, &STREAMED] {
        group.bench_function(format!("first call: {}", step.0), |b| {
            b.iter_batched(
                || context(dir),
                |ctx| {
                    let text = call(&ctx, step.call(file));
                    (text, ctx)
                },
                BatchSize::PerIteration,
            )
        });
    }
    let ctx = context(dir);
    call(&ctx, FIRST.call(file));
    for step in LATER {
        group.bench_function(format!("later call: {}", step.0), |b| {
            b.iter(|| call(&ctx, step.call(file)))
        });
    }
    // The first query parses the file for jq; the measured ones evaluate.
    call(&ctx, QUERY.call(file));
    group.bench_function(format!("later call: {}", QUERY.0), |b| {
        b.iter(|| call(&ctx, QUERY.call(file)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
