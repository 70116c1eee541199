//! What a refused call costs (issue 31): one call whose result is too large for what it may
//! cost, answered with `<tool>_too_large` and a ready `retry` call, beside that retry's own call,
//! which fits.
//!
//! Group `retries/<call>`, one per tool whose refusal offers a retry:
//! - `refused call`: `Registry::dispatch` of the call, from its arguments to the error with its
//!   `retry` (docs/tools.md#errors, "Retry");
//! - `retry call`: the call the `retry` names, run as it is: the baseline, so the ratio says how
//!   many calls that fit one refusal costs.
//!
//! What refuses a call is its [`Limit`]: a per-call limit below the result (the line tools, the
//! windows and `query`), or a budget nearly spent (`schema` and `item_schema`, whose results a
//! per-call limit of thousands of tokens always holds). Each measured call gets a fresh budget,
//! so the retry call's charge never changes what the next call may cost, and shares one file
//! cache, filled by a first call, as a model's session has: the figures are the cost of the
//! refusal, not of reading the file. Before measuring, the bench checks once that the call is
//! refused with a `retry` and that the retry fits, and panics otherwise: a call that is no
//! longer refused would measure something else.
//!
//! `cargo bench -p overspill-explore --bench retries`, or `cargo xtask bench`.

#![allow(missing_docs)]
// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use overspill_benchdata::{MB, Shape, bench_bytes};
use overspill_budget::{Budget, BudgetSettings};
use overspill_explore::{ExploreContext, FileCache, Registry};
use overspill_store::ReadRoot;
use serde_json::{Map, Value, json};

/// The file a refused call reads.
#[derive(Clone, Copy)]
enum Input {
    /// The service log of 20 MB, about 201,000 lines.
    Log,
    /// The pretty-printed pod list of 10 MB, about 2,200 pods.
    Pods,
    /// The 10 MB log as the one string of a JSON document, as an MCP result carries a tool's
    /// text: `{"content": [{"type": "text", "text": "…"}]}`.
    LogInString,
}

impl Input {
    /// Its size when the bench runs as a benchmark.
    fn bytes(self) -> u64 {
        match self {
            Input::Log => 20 * MB,
            Input::Pods | Input::LogInString => 10 * MB,
        }
    }
}

/// What makes a call too large.
#[derive(Clone, Copy)]
enum Limit {
    /// A per-call limit of this many tokens, the budget far larger.
    PerCall(u64),
    /// The default per-call limit (10,000) with only this many tokens left of a 128,000-token
    /// window.
    Remaining(u64),
}

/// One refused call: its name in the report, the file, the tool, its arguments without `file`,
/// and what refuses it.
struct Refusal {
    name: &'static str,
    input: Input,
    tool: &'static str,
    arguments: &'static str,
    limit: Limit,
}

/// The per-call limit of the line tools, the windows and `query`: about 1,900 lines of the log.
const LINES: Limit = Limit::PerCall(100_000);

/// The budget left for `schema` and `item_schema`: half of the pod list's outline (about 1,050
/// tokens).
const NEARLY_SPENT: Limit = Limit::Remaining(500);

/// Every refused call, in report order.
const REFUSALS: &[Refusal] = &[
    Refusal {
        name: "head 200,000 lines, 20 MB log",
        input: Input::Log,
        tool: "head",
        arguments: r#"{"lines": 200000}"#,
        limit: LINES,
    },
    Refusal {
        name: "slice 100,000 lines from line 1,001, 20 MB log",
        input: Input::Log,
        tool: "slice",
        arguments: r#"{"start": 1001, "end": 101000}"#,
        limit: LINES,
    },
    Refusal {
        name: "grep INFO, every match, 20 MB log",
        input: Input::Log,
        tool: "grep",
        arguments: r#"{"pattern": "INFO", "max_matches": 1000000}"#,
        limit: LINES,
    },
    Refusal {
        name: "read the whole 20 MB log",
        input: Input::Log,
        tool: "read",
        arguments: "{}",
        limit: LINES,
    },
    Refusal {
        name: "iterate_over every pod, whole items, 10 MB pod list",
        input: Input::Pods,
        tool: "iterate_over",
        arguments: r#"{"path": "$.items"}"#,
        limit: LINES,
    },
    Refusal {
        name: "get_in 100,000 lines of a 10 MB string",
        input: Input::LogInString,
        tool: "get_in",
        arguments: r#"{"path": "$.content[0].text", "limit": 100000}"#,
        limit: LINES,
    },
    Refusal {
        name: "get_in the whole 10 MB pod list (an object)",
        input: Input::Pods,
        tool: "get_in",
        arguments: r#"{"path": "$"}"#,
        limit: LINES,
    },
    Refusal {
        name: "get_in every pod (an array), 10 MB pod list",
        input: Input::Pods,
        tool: "get_in",
        arguments: r#"{"path": "$.items"}"#,
        limit: LINES,
    },
    Refusal {
        name: "query .items[], 10 MB pod list",
        input: Input::Pods,
        tool: "query",
        arguments: r#"{"filter": ".items[]"}"#,
        limit: LINES,
    },
    Refusal {
        name: "schema max_depth 64, 10 MB pod list, budget nearly spent",
        input: Input::Pods,
        tool: "schema",
        arguments: r#"{"max_depth": 64}"#,
        limit: NEARLY_SPENT,
    },
    Refusal {
        name: "item_schema $.items, 10 MB pod list, budget nearly spent",
        input: Input::Pods,
        tool: "item_schema",
        arguments: r#"{"path": "$.items"}"#,
        limit: NEARLY_SPENT,
    },
];

fn bench(c: &mut Criterion) {
    let registry = Registry::new();
    let log = overspill_benchdata::ensure(Shape::Log, bench_bytes(Input::Log.bytes())).unwrap();
    let pods =
        overspill_benchdata::ensure(Shape::PodsPretty, bench_bytes(Input::Pods.bytes())).unwrap();
    let in_string = tempfile::tempdir().unwrap();
    let in_string = in_string.path().join("log-in-a-string.json");
    write_log_in_string(&in_string);

    for refusal in REFUSALS {
        let path = match refusal.input {
            Input::Log => &log,
            Input::Pods => &pods,
            Input::LogInString => &in_string,
        };
        let session = Session {
            root: ReadRoot::new(path.parent().unwrap()).unwrap(),
            cache: Arc::new(FileCache::default()),
            limit: scaled(refusal.limit, refusal.input),
        };
        let file = path.file_name().unwrap().to_str().unwrap();
        let mut arguments: Map<String, Value> = serde_json::from_str(refusal.arguments).unwrap();
        arguments.insert("file".to_owned(), file.into());
        let arguments = Value::Object(arguments).to_string();
        let (retry_tool, retry_arguments) = checked(&registry, &session, refusal.tool, &arguments);

        let mut group = c.benchmark_group(format!("retries/{}", refusal.name));
        group.sample_size(10);
        let mut measure = |name: &str, tool: &str, arguments: &str| {
            group.bench_function(name, |b| {
                b.iter_batched_ref(
                    || session.context(),
                    |ctx| registry.dispatch(ctx, tool, arguments),
                    BatchSize::SmallInput,
                )
            });
        };
        measure("refused call", refusal.tool, &arguments);
        measure("retry call", &retry_tool, &retry_arguments);
        group.finish();
    }
}

/// What the calls of one refused call share: the directory, the file cache, the limit.
struct Session {
    root: ReadRoot,
    cache: Arc<FileCache>,
    limit: Limit,
}

impl Session {
    /// A context over the shared cache with a budget of its own, nothing charged yet.
    fn context(&self) -> ExploreContext {
        let (settings, used) = match self.limit {
            Limit::PerCall(tokens) => (
                BudgetSettings {
                    max_extraction_tokens: tokens,
                    ..BudgetSettings::for_window(1 << 40)
                },
                0,
            ),
            Limit::Remaining(tokens) => {
                let settings = BudgetSettings::for_window(128_000);
                let usable = settings.usable().unwrap();
                (settings, usable - tokens)
            }
        };
        let budget = Arc::new(Budget::new(settings, used).unwrap());
        ExploreContext::new(self.root.clone(), overspill_tokens::o200k(), budget)
            .with_cache(Arc::clone(&self.cache))
    }
}

/// Checks that `tool` is refused with a `retry` and that the retry fits, and returns the
/// retry's tool and arguments. The first call also fills the session's file cache.
fn checked(
    registry: &Registry,
    session: &Session,
    tool: &str,
    arguments: &str,
) -> (String, String) {
    let answer = registry.dispatch(&session.context(), tool, arguments);
    let error: Value = serde_json::from_str(&answer)
        .unwrap_or_else(|_| panic!("{tool} {arguments} was not refused: {answer}"));
    assert_eq!(
        error["error"],
        format!("{tool}_too_large"),
        "{tool} {arguments}: {answer}"
    );
    let retry = &error["retry"];
    let (Some(retry_tool), Some(retry_arguments)) =
        (retry["tool"].as_str(), retry.get("arguments"))
    else {
        panic!("{tool} {arguments} was refused without a retry: {answer}");
    };
    let retry_arguments = retry_arguments.to_string();
    let fits = registry.dispatch(&session.context(), retry_tool, &retry_arguments);
    assert!(
        !fits.starts_with("{\"error\""),
        "the retry {retry_tool} {retry_arguments} of {tool} {arguments} does not fit: {fits}"
    );
    eprintln!(
        "retries: {tool} {arguments}: ~{} tokens, {} per call, {} left; retry {retry_tool} \
         {retry_arguments}",
        error["estimated_tokens"], error["per_call_limit"], error["remaining_budget_tokens"]
    );
    (retry_tool.to_owned(), retry_arguments)
}

/// A per-call limit scaled to the input's size when the bench runs as a test, on small
/// inputs, so the call is still refused. What is left of a budget does not depend on the input.
fn scaled(limit: Limit, input: Input) -> Limit {
    match limit {
        Limit::PerCall(tokens) => {
            let full = input.bytes();
            Limit::PerCall((tokens * bench_bytes(full) / full).max(100))
        }
        Limit::Remaining(_) => limit,
    }
}

/// Writes the log of [`Input::LogInString`] as the one text of an MCP tool result.
fn write_log_in_string(path: &Path) {
    let log =
        overspill_benchdata::ensure(Shape::Log, bench_bytes(Input::LogInString.bytes())).unwrap();
    let text = std::fs::read_to_string(log).unwrap();
    let document = json!({"content": [{"type": "text", "text": text}]});
    std::fs::write(path, serde_json::to_string_pretty(&document).unwrap()).unwrap();
}

criterion_group!(benches, bench);
criterion_main!(benches);
