//! The JSON exploration sequence on a large pod list (SPEC §12, issue 8): the first call on a
//! file against a `serde_json::from_slice::<Value>` parse of it (target ≤ 1.0×), the later
//! calls (target ≤ 10 ms each), and the peak resident memory (target ≤ 4× the file).
//!
//! Run with `cargo bench -p overspill-explore --bench json_tools`. The pod list comes from
//! `/work/shared/data/gen_samples.py pods N` (N from `OVERSPILL_BENCH_PODS`, default 30,000,
//! about 110 MB as the generator prints it), stored pretty-printed with two spaces as the
//! store writes it. Without Python or the generator the bench says so and measures nothing.

// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use overspill_budget::{Budget, BudgetSettings};
use overspill_explore::{ExploreContext, Registry};
use overspill_store::ReadRoot;

/// Writes the pod list to `path` pretty-printed with two spaces; false when Python or the
/// generator is missing. Generated in child processes so that this process's memory figure
/// starts clean.
fn write_pods(path: &Path) -> bool {
    let script = Path::new("/work/shared/data/gen_samples.py");
    let n = std::env::var("OVERSPILL_BENCH_PODS").unwrap_or_else(|_| "30000".to_owned());
    let pipeline = format!(
        "python3 '{}' pods {n} | python3 -c 'import json, sys; json.dump(json.load(sys.stdin), sys.stdout, indent=2)' > '{}'",
        script.display(),
        path.display()
    );
    let ok = script.exists()
        && std::process::Command::new("sh")
            .args(["-c", &pipeline])
            .status()
            .is_ok_and(|s| s.success());
    if !ok {
        eprintln!(
            "json_tools bench skipped: python3 or {} is not available",
            script.display()
        );
    }
    ok
}

fn context(root: &ReadRoot) -> ExploreContext {
    let settings = BudgetSettings {
        max_extraction_tokens: 1 << 30,
        ..BudgetSettings::for_window(1 << 40)
    };
    let budget = Arc::new(Budget::new(settings, 0).unwrap());
    ExploreContext::new(root.clone(), overspill_tokens::o200k(), budget)
}

/// The sequence after the first call: each must not be an error.
const LATER: &[(&str, &str, &str)] = &[
    (
        "schema again (max_depth 6)",
        "schema",
        r#"{"file": "pods.json", "max_depth": 6}"#,
    ),
    (
        "item_schema $.items",
        "item_schema",
        r#"{"file": "pods.json", "path": "$.items"}"#,
    ),
    (
        "iterate_over 50 items, 2 fields",
        "iterate_over",
        r#"{"file": "pods.json", "path": "$.items", "fields": "metadata.name,status.phase", "offset": 1000, "limit": 50}"#,
    ),
    (
        "get_in one pod's status",
        "get_in",
        r#"{"file": "pods.json", "path": "$.items[2000].status"}"#,
    ),
];

/// The process's peak resident memory (`VmHWM`, Linux).
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    if !write_pods(&dir.path().join("pods.json")) {
        return;
    }
    let root = ReadRoot::new(dir.path()).unwrap();
    let registry = Registry::new();
    let size = std::fs::metadata(dir.path().join("pods.json"))
        .unwrap()
        .len() as f64;

    // One plain run first, for the ratios and the memory figure of a single sequence.
    let ctx = context(&root);
    let started = Instant::now();
    let first = registry.dispatch(&ctx, "schema", r#"{"file": "pods.json"}"#);
    let first_call = started.elapsed();
    assert!(!first.starts_with("{\"error\""), "{first}");
    let mut later = Vec::new();
    for (name, tool, arguments) in LATER {
        let started = Instant::now();
        let text = registry.dispatch(&ctx, tool, arguments);
        later.push((*name, started.elapsed()));
        assert!(!text.starts_with("{\"error\""), "{name}: {text}");
    }
    let peak = peak_rss_bytes();
    let bytes = std::fs::read(dir.path().join("pods.json")).unwrap();
    let started = Instant::now();
    let _: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let parse = started.elapsed();
    drop(bytes);
    eprintln!(
        "json_tools: {:.0} MB; serde_json parse {parse:.2?}; first call (schema) {first_call:.2?} = {:.2}x the parse",
        size / 1e6,
        first_call.as_secs_f64() / parse.as_secs_f64()
    );
    for (name, took) in &later {
        let verdict = if *took <= Duration::from_millis(10) {
            "ok"
        } else {
            "OVER 10 ms"
        };
        eprintln!("json_tools: later call {name}: {took:.2?} ({verdict})");
    }
    if let Some(peak) = peak {
        eprintln!(
            "json_tools: peak RSS during the sequence {:.0} MB = {:.2}x the file",
            peak as f64 / 1e6,
            peak as f64 / size
        );
    }

    let mut group = c.benchmark_group("json_tools");
    group.sample_size(10);
    group.bench_function("first call: schema on a fresh cache", |b| {
        b.iter_batched(
            || context(&root),
            |ctx| registry.dispatch(&ctx, "schema", r#"{"file": "pods.json"}"#),
            BatchSize::PerIteration,
        )
    });
    for (name, tool, arguments) in LATER {
        group.bench_function(format!("later call: {name}"), |b| {
            b.iter(|| registry.dispatch(&ctx, tool, arguments))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
