//! Single tool calls on hostile inputs (issue 22, item 5): how long each takes and how much
//! memory its process peaks at, with the default budget (128,000-token window, 10,000-token
//! cap). These are the bounds docs/security.md states; the tests check the answers, this
//! bench reports the time and memory (tests never time anything).
//!
//! Each case runs once, in a child process of its own (this binary run again with
//! `--case N`), so that its peak resident memory (`VmHWM`) is its own. The inputs are written
//! to the bench data directory first. Prints one line per case, which `cargo xtask bench`
//! reads:
//!
//! ```text
//! hostile: case=grep a{99999}, 1 MB of `a` file_bytes=1000001 seconds=0.0012 peak_rss_bytes=9437184 answer=invalid_argument
//! ```
//!
//! Memory is read from `/proc/self/status` (Linux); elsewhere it is reported as 0.
//! `cargo bench -p overspill-explore --bench hostile`.

#![allow(missing_docs)]
// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used)]

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use overspill_benchdata::{MB, Shape, bench_bytes};
use overspill_budget::{Budget, BudgetSettings};
use overspill_explore::{ExploreContext, Registry};
use overspill_store::ReadRoot;
use serde_json::{Value, json};

/// 10^18, the count a hostile model sends for `lines`, `context` or `max_matches`.
const HUGE: u64 = 1_000_000_000_000_000_000;

/// One hostile call: what it is called in the report, its input and its arguments.
struct Case {
    name: &'static str,
    input: fn(&Path) -> PathBuf,
    tool: &'static str,
    arguments: fn(&str) -> Value,
}

const CASES: &[Case] = &[
    Case {
        name: "grep a{99999}, 1 MB of `a`",
        input: a_run,
        tool: "grep",
        arguments: |file| json!({"file": file, "pattern": "a{99999}"}),
    },
    Case {
        name: "grep [ -~]{50000}, one 1.2 MB line",
        input: printable_line,
        tool: "grep",
        arguments: |file| json!({"file": file, "pattern": "[ -~]{50000}"}),
    },
    Case {
        name: "grep a{2000} (the widest accepted), 1 MB of `a` runs",
        input: a_runs,
        tool: "grep",
        arguments: |file| json!({"file": file, "pattern": "a{2000}"}),
    },
    Case {
        name: "grep (?:\\b\\w+\\b\\s+){50} (Unicode \\b, slowest engine), 10 MB Cyrillic",
        input: cyrillic,
        tool: "grep",
        arguments: |file| json!({"file": file, "pattern": r"(?:\b\w+\b\s+){50}"}),
    },
    Case {
        name: "grep context and max_matches 10^18, 100 MB log",
        input: log,
        tool: "grep",
        arguments: |file| json!({"file": file, "pattern": "GET", "context": HUGE, "max_matches": HUGE}),
    },
    Case {
        name: "schema max_depth 64, Markdown with 120,000 headings",
        input: headings,
        tool: "schema",
        arguments: |file| json!({"file": file, "max_depth": 64}),
    },
    Case {
        name: "read, 100 MB log",
        input: log,
        tool: "read",
        arguments: |file| json!({"file": file}),
    },
    Case {
        name: "head 10^18 lines, 100 MB log",
        input: log,
        tool: "head",
        arguments: |file| json!({"file": file, "lines": HUGE}),
    },
    Case {
        name: "slice 1 to 10^18, 100 MB log",
        input: log,
        tool: "slice",
        arguments: |file| json!({"file": file, "start": 1, "end": HUGE}),
    },
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `cargo bench` passes `--bench`; a listing run (`--list`) must not measure.
    if args.iter().any(|a| a == "--list") {
        return;
    }
    let dir = overspill_benchdata::data_dir().join("hostile");
    if let Some(at) = args.iter().position(|a| a == "--case") {
        let index: usize = args[at + 1].parse().unwrap();
        return run_case(&dir, &CASES[index]);
    }
    std::fs::create_dir_all(&dir).unwrap();
    for case in CASES {
        (case.input)(&dir);
    }
    for index in 0..CASES.len() {
        let mut child = Command::new(std::env::current_exe().unwrap());
        child.args(["--case", &index.to_string()]);
        if args.iter().any(|a| a == "--bench") {
            child.arg("--bench");
        }
        let output = child.output().unwrap();
        assert!(output.status.success(), "case {index} failed: {output:?}");
        std::io::stdout().write_all(&output.stdout).unwrap();
    }
}

/// Runs one case in this process and prints its line.
fn run_case(dir: &Path, case: &Case) {
    let path = (case.input)(dir);
    let file = path.file_name().unwrap().to_str().unwrap().to_owned();
    let settings = BudgetSettings::for_window(128_000);
    let budget = Arc::new(Budget::new(settings, 0).unwrap());
    let registry = Registry::new();
    let started = Instant::now();
    let ctx = ExploreContext::new(
        ReadRoot::new(dir).unwrap(),
        overspill_tokens::o200k(),
        budget,
    );
    let text = registry.dispatch_value(&ctx, case.tool, &(case.arguments)(&file));
    let seconds = started.elapsed().as_secs_f64();
    let answer = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|error| error["error"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "result".to_owned());
    println!(
        "hostile: case={} file_bytes={} seconds={seconds:.6} peak_rss_bytes={} answer={answer}",
        case.name,
        std::fs::metadata(&path).unwrap().len(),
        peak_rss_bytes().unwrap_or(0)
    );
}

/// The process's peak resident memory, from `VmHWM` in `/proc/self/status`.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `name` in `dir`, written by `write` unless it exists.
fn ensure(dir: &Path, name: &str, write: impl FnOnce() -> String) -> PathBuf {
    let path = dir.join(name);
    if !path.is_file() {
        let partial = dir.join(format!(".{name}.partial"));
        std::fs::write(&partial, write()).unwrap();
        std::fs::rename(&partial, &path).unwrap();
    }
    path
}

fn a_run(dir: &Path) -> PathBuf {
    let n = bench_bytes(MB);
    ensure(dir, &format!("a-{n}.txt"), || {
        format!("{}\n", "a".repeat(n as usize))
    })
}

fn printable_line(dir: &Path) -> PathBuf {
    let n = bench_bytes(1_200_000);
    ensure(dir, &format!("printable-{n}.txt"), || {
        let mut line: String = (0..n)
            .map(|i| char::from(b' ' + (i.wrapping_mul(2_654_435_761) >> 7) as u8 % 95))
            .collect();
        line.push('\n');
        line
    })
}

fn a_runs(dir: &Path) -> PathBuf {
    let n = bench_bytes(MB) as usize;
    ensure(dir, &format!("a-runs-{n}.txt"), || {
        let mut out = String::with_capacity(n + 2_000);
        while out.len() < n {
            out.push_str(&"a".repeat(1_999));
            out.push('b');
        }
        out.push('\n');
        out
    })
}

fn cyrillic(dir: &Path) -> PathBuf {
    let n = bench_bytes(10 * MB) as usize;
    ensure(dir, &format!("cyrillic-{n}.txt"), || {
        let words = ["привет", "мир", "данные", "ошибка", "сервер", "запрос"];
        let mut out = String::with_capacity(n + 64);
        let mut i = 0usize;
        while out.len() < n {
            out.push_str(words[i % words.len()]);
            out.push(if i % 13 == 12 { '\n' } else { ' ' });
            i += 1;
        }
        out
    })
}

fn headings(dir: &Path) -> PathBuf {
    let n = if bench_bytes(MB) < MB { 2_000 } else { 120_000 };
    ensure(dir, &format!("headings-{n}.md"), || {
        let mut out = String::new();
        for i in 0..n {
            let _ = write!(out, "# heading {i}\ntext\n");
        }
        out
    })
}

fn log(dir: &Path) -> PathBuf {
    // Generated in the hostile directory itself: a hard link to the shared copy would give that
    // copy a second name, and the tools refuse files with more than one (docs/security.md).
    overspill_benchdata::ensure_in(dir, Shape::Log, bench_bytes(100 * MB)).unwrap()
}
