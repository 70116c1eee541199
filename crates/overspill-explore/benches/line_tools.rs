//! Line tools over a 10 MB log: `head`/`slice` cost what they return, `grep` scans at memory
//! speed (SPEC §12). Run with `cargo bench -p overspill-explore --bench line_tools`.

// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use overspill_budget::{Budget, BudgetSettings};
use overspill_explore::{ExploreContext, Registry};
use overspill_store::ReadRoot;

/// A deterministic service log of about `bytes` bytes.
fn log(bytes: usize) -> String {
    let levels = ["INFO ", "INFO ", "INFO ", "WARN ", "ERROR"];
    let services = ["payments", "search", "checkout", "inventory"];
    let mut out = String::with_capacity(bytes + 200);
    let mut seed = 42u64;
    let mut i = 0u64;
    while out.len() < bytes {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let level = levels[(seed >> 33) as usize % levels.len()];
        let service = services[(seed >> 40) as usize % services.len()];
        out.push_str(&format!(
            "2026-11-12T00:{:02}:{:02}.{:03}Z {level} [{service}] request_id={:016x} GET /api/v1/items {} {}ms\n",
            i / 60 % 60,
            i % 60,
            i % 1000,
            seed,
            200 + (seed >> 50) % 300,
            (seed >> 20) % 3000
        ));
        i += 1;
    }
    out
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("app.log"), log(10 << 20)).unwrap();
    let budget = Arc::new(
        Budget::new(
            BudgetSettings {
                max_extraction_tokens: 1 << 30,
                ..BudgetSettings::for_window(1 << 40)
            },
            0,
        )
        .unwrap(),
    );
    let ctx = ExploreContext::new(
        ReadRoot::new(dir.path()).unwrap(),
        overspill_tokens::o200k(),
        budget,
    );
    let registry = Registry::new();
    let mut run = |name: &str, tool: &str, arguments: &str| {
        c.bench_function(name, |b| {
            b.iter(|| registry.dispatch(&ctx, tool, arguments))
        });
    };
    run(
        "head 50 lines of 10 MB",
        "head",
        r#"{"file": "app.log", "lines": 50}"#,
    );
    run(
        "slice 50 lines at the end of 10 MB",
        "slice",
        r#"{"file": "app.log", "start": 99000, "end": 99049}"#,
    );
    run(
        "grep literal, 10 MB",
        "grep",
        r#"{"file": "app.log", "pattern": "ERROR", "max_matches": 20}"#,
    );
    run(
        "grep regex, 10 MB",
        "grep",
        r#"{"file": "app.log", "pattern": "ERROR.* 5[0-9]{2} ", "max_matches": 20}"#,
    );
    run(
        "grep no match, 10 MB",
        "grep",
        r#"{"file": "app.log", "pattern": "connection refused"}"#,
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
