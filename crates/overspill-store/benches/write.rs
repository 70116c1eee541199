//! Storing a 10 MB one-line JSON pod list (`overspill-benchdata`): the store's share of an interception (docs/performance.md).
//!
//! Baselines in the same run: validating the text with `serde_json` (`IgnoredAny`, the
//! cheapest parse) and writing the same bytes with `fs::write`.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use overspill_benchdata::{MB, Shape, bench_bytes};
use overspill_store::{Format, Output, Store, TextLayout};

fn bench_write(c: &mut Criterion) {
    let path = overspill_benchdata::ensure(Shape::PodsCompact, bench_bytes(10 * MB)).unwrap();
    let content = std::fs::read_to_string(path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let mut group = c.benchmark_group("store_10MB_json");
    group.throughput(Throughput::Bytes(content.len() as u64));
    group.sample_size(10);

    group.bench_function("detect", |b| {
        b.iter(|| assert_eq!(Format::detect(black_box(&content)), Format::Json))
    });
    group.bench_function("baseline_serde_json_ignored_any", |b| {
        b.iter(|| serde_json::from_str::<serde::de::IgnoredAny>(black_box(&content)).unwrap())
    });
    group.bench_function("baseline_fs_write", |b| {
        let path = dir.path().join("plain.json");
        b.iter(|| std::fs::write(&path, black_box(content.as_bytes())).unwrap())
    });
    let mut n = 0u64;
    group.bench_function("write_output_new_file", |b| {
        b.iter(|| {
            n += 1;
            let tool = format!("bench{n}");
            let stored = store
                .write_output(&Output {
                    tool: &tool,
                    server: None,
                    content: &content,
                    tokens: None,
                    text_layout: TextLayout::Reindented,
                })
                .unwrap();
            std::fs::remove_file(&stored.path).unwrap();
        })
    });
    group.bench_function("write_output_already_stored", |b| {
        b.iter(|| {
            store
                .write_output(&Output {
                    tool: "again",
                    server: None,
                    content: &content,
                    tokens: None,
                    text_layout: TextLayout::Reindented,
                })
                .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, bench_write);
criterion_main!(benches);
