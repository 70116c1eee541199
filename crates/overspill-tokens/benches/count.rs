//! Counting throughput on 10 MB tool outputs against `tiktoken-rs` (docs/performance.md): pretty JSON,
//! compact JSON and log text, from `overspill-benchdata`.
//!
//! `cargo bench -p overspill-tokens`, or `cargo xtask bench` for the report with ratios. With
//! `OVERSPILL_BENCH_QUICK=1` only the pretty JSON input is measured.
//!
//! Groups: `count/<input>` holds `tiktoken-rs <encoding>` (the baseline,
//! `encode_ordinary().len()`) beside each of our counters; `count_up_to_<limit>/<input>` the
//! below-threshold decision of each counter.

#![allow(missing_docs)]
// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use overspill_benchdata::{MB, Shape, bench_bytes};
use overspill_tokens::{TokenCounter, cl100k, claude, gemma3, o200k};
use tiktoken_rs::{CoreBPE, cl100k_base_singleton, o200k_base_singleton};

/// The interception threshold of the default configuration.
const THRESHOLD: usize = 5_120;

/// A limit too large for the byte-length bound to settle on 10 MB (which needs at least
/// 10 MB / 48 tokens for Gemma 3), so `count_up_to` has to tokenize until it passes: the cost
/// should grow with this, not the text.
const LARGE_LIMIT: usize = 250_000;

fn counting(c: &mut Criterion) {
    let quick = std::env::var_os("OVERSPILL_BENCH_QUICK").is_some();
    let shapes: &[Shape] = if quick {
        &[Shape::PodsPretty]
    } else {
        &[Shape::PodsPretty, Shape::PodsCompact, Shape::Log]
    };
    let ours: [&dyn TokenCounter; 4] = [o200k(), cl100k(), gemma3(), claude()];
    let references: [(&str, &CoreBPE, &dyn TokenCounter); 2] = [
        ("tiktoken-rs o200k_base", o200k_base_singleton(), o200k()),
        ("tiktoken-rs cl100k_base", cl100k_base_singleton(), cl100k()),
    ];
    for &shape in shapes {
        let bytes = bench_bytes(10 * MB);
        let path = overspill_benchdata::ensure(shape, bytes).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let input = shape.file_name(bytes);
        // The same number, or the speed means nothing.
        for (name, reference, counter) in references {
            let expected = reference.encode_ordinary(&text).len();
            assert_eq!(counter.count(&text), expected, "{name} on {input}");
        }
        let mut group = c.benchmark_group(format!("count/{input}"));
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(10);
        for (name, reference, _) in references {
            group.bench_function(name, |b| b.iter(|| reference.encode_ordinary(&text).len()));
        }
        for counter in ours {
            group.bench_function(counter.name(), |b| b.iter(|| counter.count(&text)));
        }
        group.finish();

        let limits: &[usize] = if quick {
            &[THRESHOLD]
        } else {
            &[THRESHOLD, LARGE_LIMIT]
        };
        for &limit in limits {
            let mut group = c.benchmark_group(format!("count_up_to_{limit}/{input}"));
            group.sample_size(10);
            for counter in ours {
                group.bench_with_input(
                    BenchmarkId::from_parameter(counter.name()),
                    &text,
                    |b, text| b.iter(|| counter.count_up_to(text, limit)),
                );
            }
            group.finish();
        }
    }
}

criterion_group!(benches, counting);
criterion_main!(benches);
