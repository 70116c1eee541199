//! Peak memory of the JSON exploration sequence of docs/performance.md on the 110 MB pod list: the same
//! calls as the `json_tools` bench, once, in a process that does nothing else, then the
//! process's peak resident set (`VmHWM`) against the file size. Target: ≤ 4×.
//!
//! Prints one line, `json_memory: file_bytes=N peak_rss_bytes=M`, which `cargo xtask bench`
//! reads. Linux only (it reads `/proc/self/status`); elsewhere it says so and measures
//! nothing. `cargo bench -p overspill-explore --bench json_memory`.

#![allow(missing_docs)]
// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used)]

use overspill_benchdata::{MB, Shape, bench_bytes};
use overspill_explore::Registry;

mod support;
use support::{context, sequence};

use context::context;

use sequence::{FIRST, LATER};

/// The process's peak resident memory, from `VmHWM` in `/proc/self/status`.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn main() {
    // `cargo bench` passes `--bench`; a listing run (`--list`) must not measure.
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    // Generating streams one pod at a time, so it does not raise the peak.
    let path = overspill_benchdata::ensure(Shape::PodsPretty, bench_bytes(110 * MB)).unwrap();
    if peak_rss_bytes().is_none() {
        eprintln!("json_memory: /proc/self/status has no VmHWM here; nothing measured");
        return;
    }
    let dir = path.parent().unwrap();
    let file = path.file_name().unwrap().to_str().unwrap();
    let ctx = context(dir);
    let registry = Registry::new();
    for step in std::iter::once(&FIRST).chain(LATER) {
        let (tool, arguments) = step.call(file);
        let text = registry.dispatch(&ctx, tool, &arguments);
        assert!(!text.starts_with("{\"error\""), "{tool}: {text}");
    }
    let file_bytes = std::fs::metadata(&path).unwrap().len();
    let peak = peak_rss_bytes().unwrap_or(0);
    println!("json_memory: file_bytes={file_bytes} peak_rss_bytes={peak}");
}
