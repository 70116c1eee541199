//! Hostile inputs (issue 22, item 5; issue 28, item 5): how long each case takes and how much
//! memory its process peaks at, with the default budget (128,000-token window, 10,000-token
//! cap). These are the bounds docs/security.md states; the tests check the answers, this
//! bench reports the time and memory (tests never time anything).
//!
//! A case is one tool call on a stored file, or a *session*: the input intercepted as a tool's
//! output (`Scratchpad::intercept`, as `overspill intercept` runs it) and then every exploration
//! tool called on the stored file in the same process, as a model explores it, with the file
//! cache keeping what the calls derive. That is why the bench lives in the facade crate.
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
//! A case whose peak must stay within the bound docs/security.md states for JSON sessions and
//! `query` (4× the input + 256 MB) ends its line with `memory_bound=4x+256MB`, which
//! `cargo xtask bench` turns into a PASS/FAIL row. With `OVERSPILL_BENCH_QUICK=1` (`cargo
//! xtask bench --quick`) those cases run on inputs a quarter of the size.
//!
//! Memory is read from `/proc/self/status` (Linux); elsewhere it is reported as 0.
//! `cargo bench -p overspill --bench hostile`.

#![allow(missing_docs)]
// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used)]

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use overspill::budget::{Budget, BudgetSettings, thousands};
use overspill::explore::{ExploreContext, Registry};
use overspill::store::ReadRoot;
use overspill::{Intercepted, Scratchpad, ToolOutput};
use overspill_benchdata::{MB, Shape, bench_bytes};
use serde_json::{Value, json};

/// 10^18, the count a hostile model sends for `lines`, `context` or `max_matches`.
const HUGE: u64 = 1_000_000_000_000_000_000;

/// The bound a `bounded` case's peak must stay within: 4 times the input plus 256 MB
/// (docs/security.md), as `cargo xtask bench` reads it.
const MEMORY_BOUND: &str = "4x+256MB";

/// One hostile case: what it is called in the report (`{}` stands for the input's
/// description), its input, what it runs, and whether its peak has a bound.
struct Case {
    name: &'static str,
    input: fn(&Path) -> Input,
    run: Run,
    bounded: bool,
}

/// A case's input file and how the report describes it.
struct Input {
    path: PathBuf,
    what: String,
}

impl Input {
    fn plain(path: PathBuf) -> Input {
        Input {
            path,
            what: String::new(),
        }
    }
}

/// What a case does with its input.
enum Run {
    /// One tool call on the input as a stored file.
    Call {
        tool: &'static str,
        arguments: fn(&str) -> Value,
    },
    /// The input intercepted as a tool's output, then these calls (tool, arguments) on the
    /// stored file, all in one process.
    Session {
        calls: fn(&str) -> Vec<(&'static str, Value)>,
    },
}

const CASES: &[Case] = &[
    Case {
        name: "grep a{99999}, 1 MB of `a`",
        input: a_run,
        run: Run::Call {
            tool: "grep",
            arguments: |file| json!({"file": file, "pattern": "a{99999}"}),
        },
        bounded: false,
    },
    Case {
        name: "grep [ -~]{50000}, one 1.2 MB line",
        input: printable_line,
        run: Run::Call {
            tool: "grep",
            arguments: |file| json!({"file": file, "pattern": "[ -~]{50000}"}),
        },
        bounded: false,
    },
    Case {
        name: "grep a{2000} (the widest accepted), 1 MB of `a` runs",
        input: a_runs,
        run: Run::Call {
            tool: "grep",
            arguments: |file| json!({"file": file, "pattern": "a{2000}"}),
        },
        bounded: false,
    },
    Case {
        name: "grep (?:\\b\\w+\\b\\s+){50} (Unicode \\b, slowest engine), 10 MB Cyrillic",
        input: cyrillic,
        run: Run::Call {
            tool: "grep",
            arguments: |file| json!({"file": file, "pattern": r"(?:\b\w+\b\s+){50}"}),
        },
        bounded: false,
    },
    Case {
        name: "grep context and max_matches 10^18, 100 MB log",
        input: log,
        run: Run::Call {
            tool: "grep",
            arguments: |file| json!({"file": file, "pattern": "GET", "context": HUGE, "max_matches": HUGE}),
        },
        bounded: false,
    },
    Case {
        name: "schema max_depth 64, Markdown with 120,000 headings",
        input: headings,
        run: Run::Call {
            tool: "schema",
            arguments: |file| json!({"file": file, "max_depth": 64}),
        },
        bounded: false,
    },
    Case {
        name: "read, 100 MB log",
        input: log,
        run: Run::Call {
            tool: "read",
            arguments: |file| json!({"file": file}),
        },
        bounded: false,
    },
    Case {
        name: "head 10^18 lines, 100 MB log",
        input: log,
        run: Run::Call {
            tool: "head",
            arguments: |file| json!({"file": file, "lines": HUGE}),
        },
        bounded: false,
    },
    Case {
        name: "slice 1 to 10^18, 100 MB log",
        input: log,
        run: Run::Call {
            tool: "slice",
            arguments: |file| json!({"file": file, "start": 1, "end": HUGE}),
        },
        bounded: false,
    },
    Case {
        name: "intercept + every tool, {}",
        input: many_keys,
        run: Run::Session {
            calls: |file| every_tool(file, "$", "[.[] | select(. > 990)] | length"),
        },
        bounded: true,
    },
    Case {
        name: "intercept + every tool, {}",
        input: wide_arrays,
        run: Run::Session {
            calls: |file| every_tool(file, "$.a", "[.a, .b] | map(length)"),
        },
        bounded: true,
    },
    Case {
        name: "query [paths], {}",
        input: pods,
        run: Run::Call {
            tool: "query",
            arguments: |file| json!({"file": file, "filter": "[paths]"}),
        },
        bounded: true,
    },
    Case {
        name: "query [.. | tostring], {}",
        input: pods,
        run: Run::Call {
            tool: "query",
            arguments: |file| json!({"file": file, "filter": "[.. | tostring]"}),
        },
        bounded: true,
    },
    Case {
        name: "query [..] | tojson, {}",
        input: pods,
        run: Run::Call {
            tool: "query",
            arguments: |file| json!({"file": file, "filter": "[..] | tojson"}),
        },
        bounded: true,
    },
    Case {
        name: "query group_by(.), {}",
        input: numbers,
        run: Run::Call {
            tool: "query",
            arguments: |file| json!({"file": file, "filter": "group_by(.) | length"}),
        },
        bounded: true,
    },
];

/// The calls of a session, in the order a model explores a stored JSON file: its outline,
/// the array at `array` (its item shape, a window of it, the whole of it), a `filter`, a
/// search, and the text tools.
fn every_tool(file: &str, array: &str, filter: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("schema", json!({"file": file})),
        ("item_schema", json!({"file": file, "path": array})),
        (
            "iterate_over",
            json!({"file": file, "path": array, "limit": 20}),
        ),
        ("get_in", json!({"file": file, "path": array})),
        ("query", json!({"file": file, "filter": filter})),
        ("grep", json!({"file": file, "pattern": "99"})),
        ("head", json!({"file": file})),
        ("slice", json!({"file": file, "start": 1_000, "end": 1_100})),
        ("read", json!({"file": file})),
    ]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `cargo bench` passes `--bench`; a listing run (`--list`) must not measure.
    if args.iter().any(|a| a == "--list") {
        return;
    }
    let dir = overspill_benchdata::data_dir().join("hostile");
    if let Some(at) = args.iter().position(|a| a == "--case") {
        let index: usize = args[at + 1].parse().unwrap();
        return run_case(&dir, index);
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

/// Runs case `index` in this process and prints its line.
fn run_case(dir: &Path, index: usize) {
    let case = &CASES[index];
    let input = (case.input)(dir);
    let started = Instant::now();
    let answers = match case.run {
        Run::Call { tool, arguments } => {
            let file = input.path.file_name().unwrap().to_str().unwrap();
            let settings = BudgetSettings::for_window(128_000);
            let budget = Arc::new(Budget::new(settings, 0).unwrap());
            let ctx = ExploreContext::new(
                ReadRoot::new(dir).unwrap(),
                overspill::tokens::o200k(),
                budget,
            );
            vec![answer(&Registry::new().dispatch_value(
                &ctx,
                tool,
                &arguments(file),
            ))]
        }
        Run::Session { calls } => session(dir, index, &input.path, calls),
    };
    let seconds = started.elapsed().as_secs_f64();
    // A session answers with what each call answered that was not a result.
    let errors: Vec<&str> = answers
        .iter()
        .map(String::as_str)
        .filter(|a| *a != "result")
        .collect();
    let answer = if errors.is_empty() {
        "result".to_owned()
    } else {
        errors.join(",")
    };
    let mut line = format!(
        "hostile: case={} file_bytes={} seconds={seconds:.6} peak_rss_bytes={} answer={answer}",
        case.name.replace("{}", &input.what),
        std::fs::metadata(&input.path).unwrap().len(),
        peak_rss_bytes().unwrap_or(0)
    );
    if case.bounded {
        let _ = write!(line, " memory_bound={MEMORY_BOUND}");
    }
    println!("{line}");
}

/// Intercepts the text of `input` into a fresh scratchpad directory, then makes each of
/// `calls` on the stored file; returns what each answered.
fn session(
    dir: &Path,
    index: usize,
    input: &Path,
    calls: fn(&str) -> Vec<(&'static str, Value)>,
) -> Vec<String> {
    let pad_dir = dir.join(format!("session-{index}"));
    let _ = std::fs::remove_dir_all(&pad_dir);
    let pad = Scratchpad::builder()
        .scratchpad_dir(&pad_dir)
        .context_window(128_000)
        .build()
        .unwrap();
    let text = std::fs::read_to_string(input).unwrap();
    let output = ToolOutput::text(text).with_min_tokens(5_120);
    let Intercepted::Pointer(pointer) = pad.intercept("", "hostile", output) else {
        panic!("the input was not stored");
    };
    let file = pointer
        .lines()
        .find_map(|l| l.strip_prefix("file: "))
        .unwrap()
        .to_owned();
    let answers = calls(&file)
        .into_iter()
        .map(|(tool, arguments)| answer(&pad.call_value(tool, &arguments)))
        .collect();
    let _ = std::fs::remove_dir_all(&pad_dir);
    answers
}

/// `result`, or the error code of an error answer.
fn answer(text: &str) -> String {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|error| error["error"].as_str().map(str::to_owned))
        .unwrap_or_else(|| "result".to_owned())
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

/// `n` for a bounded case's input: a quarter of it in a quick run
/// (`OVERSPILL_BENCH_QUICK`), and at most 10,000 when the bench runs as a test.
fn bounded_count(n: u64) -> u64 {
    let n = if std::env::var_os("OVERSPILL_BENCH_QUICK").is_some() {
        n / 4
    } else {
        n
    };
    if bench_bytes(MB) < MB {
        n.min(10_000)
    } else {
        n
    }
}

/// `n` items written by `item` (given its index), separated by commas, between `open` and
/// `close`: a JSON object or array on one line.
fn one_line(
    open: char,
    n: u64,
    close: char,
    mut item: impl FnMut(&mut String, u64) -> std::fmt::Result,
) -> String {
    let mut out = String::from(open);
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        // Writing to a String cannot fail.
        let _ = item(&mut out, i);
    }
    out.push(close);
    out
}

/// One object with 1,000,000 keys (`{"key0000000": 0, …}`, 16.9 MB on one line).
fn many_keys(dir: &Path) -> Input {
    let n = bounded_count(1_000_000);
    let path = ensure(dir, &format!("keys-{n}.json"), || {
        one_line('{', n, '}', |out, i| {
            write!(out, "\"key{i:07}\":{}", i % 1_000)
        })
    });
    Input {
        what: format!("an object of {} keys", thousands(n)),
        path,
    }
}

/// `{"a": [0, 0, …], "b": [0, 0, …]}` with 5,000,000 zeros in all (10 MB on one line).
fn wide_arrays(dir: &Path) -> Input {
    let n = bounded_count(5_000_000);
    let path = ensure(dir, &format!("wide-{n}.json"), || {
        let half = usize::try_from(n / 2).unwrap();
        let zeros = vec!["0"; half].join(",");
        format!("{{\"a\":[{zeros}],\"b\":[{zeros}]}}")
    });
    Input {
        what: format!("two arrays of {} numbers each", thousands(n / 2)),
        path,
    }
}

/// The pretty-printed pod list of the benches at 30 MB.
fn pods(dir: &Path) -> Input {
    let bytes = bounded_count(30 * MB);
    let path = overspill_benchdata::ensure_in(dir, Shape::PodsPretty, bench_bytes(bytes)).unwrap();
    let what = if bytes >= MB {
        format!("a {} MB pod list", bytes / MB)
    } else {
        format!("a {} KB pod list", bytes / 1_000)
    };
    Input { what, path }
}

/// An array of 5,000,000 distinct numbers, shuffled (`[0, 7919, 15838, …]`).
fn numbers(dir: &Path) -> Input {
    let n = bounded_count(5_000_000);
    // 7919 is prime and divides no power of 10: `i × 7919 mod n` visits every number below n
    // once when n is one.
    let path = ensure(dir, &format!("numbers-{n}.json"), || {
        one_line('[', n, ']', |out, i| write!(out, "{}", i * 7_919 % n))
    });
    Input {
        what: format!("{} numbers", thousands(n)),
        path,
    }
}

fn a_run(dir: &Path) -> Input {
    let n = bench_bytes(MB);
    Input::plain(ensure(dir, &format!("a-{n}.txt"), || {
        format!("{}\n", "a".repeat(n as usize))
    }))
}

fn printable_line(dir: &Path) -> Input {
    let n = bench_bytes(1_200_000);
    Input::plain(ensure(dir, &format!("printable-{n}.txt"), || {
        let mut line: String = (0..n)
            .map(|i| char::from(b' ' + (i.wrapping_mul(2_654_435_761) >> 7) as u8 % 95))
            .collect();
        line.push('\n');
        line
    }))
}

fn a_runs(dir: &Path) -> Input {
    let n = bench_bytes(MB) as usize;
    Input::plain(ensure(dir, &format!("a-runs-{n}.txt"), || {
        let mut out = String::with_capacity(n + 2_000);
        while out.len() < n {
            out.push_str(&"a".repeat(1_999));
            out.push('b');
        }
        out.push('\n');
        out
    }))
}

fn cyrillic(dir: &Path) -> Input {
    let n = bench_bytes(10 * MB) as usize;
    Input::plain(ensure(dir, &format!("cyrillic-{n}.txt"), || {
        let words = ["привет", "мир", "данные", "ошибка", "сервер", "запрос"];
        let mut out = String::with_capacity(n + 64);
        let mut i = 0usize;
        while out.len() < n {
            out.push_str(words[i % words.len()]);
            out.push(if i % 13 == 12 { '\n' } else { ' ' });
            i += 1;
        }
        out
    }))
}

fn headings(dir: &Path) -> Input {
    let n = if bench_bytes(MB) < MB { 2_000 } else { 120_000 };
    Input::plain(ensure(dir, &format!("headings-{n}.md"), || {
        let mut out = String::new();
        for i in 0..n {
            let _ = write!(out, "# heading {i}\ntext\n");
        }
        out
    }))
}

fn log(dir: &Path) -> Input {
    // Generated in the cases' own directory: a hard link to the shared copy would give that copy
    // a second name, and the tools refuse files with more than one (docs/security.md).
    Input::plain(overspill_benchdata::ensure_in(dir, Shape::Log, bench_bytes(100 * MB)).unwrap())
}
