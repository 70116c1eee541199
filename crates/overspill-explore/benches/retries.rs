//! What a refused call costs (issue 31): one call whose result is too large for the per-call
//! limit, answered with `<tool>_too_large` and a ready `retry` call, beside that retry's own call,
//! which fits.
//!
//! Group `retries/<call>`, one per tool whose refusal offers a retry:
//! - `refused call`: `Registry::dispatch` of the call, from its arguments to the error with its
//!   `retry` (docs/tools.md#errors, "Retry");
//! - `retry call`: the call the `retry` names, run as it is: the baseline, so the ratio says how
//!   many calls that fit one refusal costs.
//!
//! Each call has a context of its own, whose per-call limit is set so the call is refused (the
//! budget is far larger), and which has the file cached by a first call, as a model's session
//! has: the figures are the cost of the refusal, not of reading the file. Before measuring, the
//! bench checks once that the call is refused with a `retry` and that the retry fits, and
//! panics otherwise: a call that is no longer refused would measure something else.
//!
//! `cargo bench -p overspill-explore --bench retries`, or `cargo xtask bench`.

#![allow(missing_docs)]
// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use overspill_benchdata::{MB, Shape, bench_bytes};
use overspill_budget::{Budget, BudgetSettings};
use overspill_explore::{ExploreContext, Registry};
use overspill_store::ReadRoot;
use serde_json::{Map, Value, json};

/// The file a refused call reads.
#[derive(Clone, Copy)]
enum Input {
    /// The service log of 20 MB, about 201,000 lines.
    Log,
    /// The pretty-printed pod list of 10 MB, about 2,200 pods.
    Pods,
    /// The 10 MB log as one string of a JSON document, as an MCP result carries a tool's text:
    /// `{"content": [{"type": "text", "text": "…"}]}`.
    LogInString,
}

impl Input {
    /// Its size at full scale.
    fn bytes(self) -> u64 {
        match self {
            Input::Log => 20 * MB,
            Input::Pods | Input::LogInString => 10 * MB,
        }
    }
}

/// One refused call: its name in the report, the file, the tool, its arguments without `file`,
/// and the per-call limit that refuses it at full scale.
struct Refusal {
    name: &'static str,
    input: Input,
    tool: &'static str,
    arguments: &'static str,
    limit: u64,
}

/// The per-call limit of the line tools and of paging a string: about 2,000 lines of the log.
const LINES_LIMIT: u64 = 64_000;

/// Every refused call, in report order.
const REFUSALS: &[Refusal] = &[
    Refusal {
        name: "head 200,000 lines, 20 MB log",
        input: Input::Log,
        tool: "head",
        arguments: r#"{"lines": 200000}"#,
        limit: LINES_LIMIT,
    },
    Refusal {
        name: "slice 100,000 lines, 20 MB log",
        input: Input::Log,
        tool: "slice",
        arguments: r#"{"start": 100001, "end": 200000}"#,
        limit: LINES_LIMIT,
    },
    Refusal {
        name: "grep INFO, every match, 20 MB log",
        input: Input::Log,
        tool: "grep",
        arguments: r#"{"pattern": "INFO", "max_matches": 1000000}"#,
        limit: LINES_LIMIT,
    },
    Refusal {
        name: "read the whole 20 MB log",
        input: Input::Log,
        tool: "read",
        arguments: "{}",
        limit: LINES_LIMIT,
    },
    Refusal {
        name: "iterate_over every pod, whole items, 10 MB pod list",
        input: Input::Pods,
        tool: "iterate_over",
        arguments: r#"{"path": "$.items"}"#,
        limit: LINES_LIMIT,
    },
    Refusal {
        name: "get_in a 10 MB string",
        input: Input::LogInString,
        tool: "get_in",
        arguments: r#"{"path": "$.content[0].text"}"#,
        limit: LINES_LIMIT,
    },
    Refusal {
        name: "get_in the whole 10 MB pod list (an object)",
        input: Input::Pods,
        tool: "get_in",
        arguments: r#"{"path": "$"}"#,
        limit: LINES_LIMIT,
    },
    Refusal {
        name: "get_in every pod (an array), 10 MB pod list",
        input: Input::Pods,
        tool: "get_in",
        arguments: r#"{"path": "$.items"}"#,
        limit: LINES_LIMIT,
    },
    Refusal {
        name: "query .items[], 10 MB pod list",
        input: Input::Pods,
        tool: "query",
        arguments: r#"{"filter": ".items[]"}"#,
        limit: LINES_LIMIT,
    },
    Refusal {
        name: "schema max_depth 64, 10 MB pod list",
        input: Input::Pods,
        tool: "schema",
        arguments: r#"{"max_depth": 64}"#,
        limit: 300,
    },
    Refusal {
        name: "item_schema $.items, 10 MB pod list",
        input: Input::Pods,
        tool: "item_schema",
        arguments: r#"{"path": "$.items"}"#,
        limit: 300,
    },
];

fn bench(c: &mut Criterion) {
    let registry = Registry::new();
    let log = overspill_benchdata::ensure(Shape::Log, bench_bytes(Input::Log.bytes())).unwrap();
    let pods =
        overspill_benchdata::ensure(Shape::PodsPretty, bench_bytes(Input::Pods.bytes())).unwrap();
    let in_string = tempfile::tempdir().unwrap();
    let in_string_path = in_string.path().join("log-in-a-string.json");
    write_log_in_string(&in_string_path);

    for refusal in REFUSALS {
        let path = match refusal.input {
            Input::Log => log.as_path(),
            Input::Pods => pods.as_path(),
            Input::LogInString => in_string_path.as_path(),
        };
        let dir = path.parent().unwrap();
        let file = path.file_name().unwrap().to_str().unwrap();
        let ctx = context(dir, scaled(refusal.limit, refusal.input));
        let mut arguments: Map<String, Value> = serde_json::from_str(refusal.arguments).unwrap();
        arguments.insert("file".to_owned(), file.into());
        let arguments = Value::Object(arguments).to_string();
        let (retry_tool, retry_arguments) = checked(&registry, &ctx, refusal.tool, &arguments);

        let mut group = c.benchmark_group(format!("retries/{}", refusal.name));
        group.sample_size(10);
        group.bench_function("refused call", |b| {
            b.iter(|| registry.dispatch(&ctx, refusal.tool, &arguments))
        });
        group.bench_function("retry call", |b| {
            b.iter(|| registry.dispatch(&ctx, &retry_tool, &retry_arguments))
        });
        group.finish();
    }
}

/// Checks that `tool` is refused with a `retry` and that the retry fits, and returns the
/// retry's tool and arguments. The first call also caches the file in `ctx`.
fn checked(
    registry: &Registry,
    ctx: &ExploreContext,
    tool: &str,
    arguments: &str,
) -> (String, String) {
    let answer = registry.dispatch(ctx, tool, arguments);
    let error: Value = serde_json::from_str(&answer)
        .unwrap_or_else(|_| panic!("{tool} {arguments} was not refused: {answer}"));
    assert_eq!(
        error["error"],
        format!("{tool}_too_large"),
        "{tool} {arguments}: {answer}"
    );
    let retry = &error["retry"];
    let (Some(retry_tool), Some(retry_arguments)) = (retry["tool"].as_str(), retry.get("arguments"))
    else {
        panic!("{tool} {arguments} was refused without a retry: {answer}");
    };
    let retry_arguments = retry_arguments.to_string();
    let fits = registry.dispatch(ctx, retry_tool, &retry_arguments);
    assert!(
        !fits.starts_with("{\"error\""),
        "the retry {retry_tool} {retry_arguments} of {tool} {arguments} does not fit: {fits}"
    );
    eprintln!(
        "retries: {tool} {arguments}: ~{} tokens against {}; retry {retry_tool} {retry_arguments}",
        error["estimated_tokens"], error["per_call_limit"]
    );
    (retry_tool.to_owned(), retry_arguments)
}

/// A context reading `dir` with a per-call limit of `limit` tokens and a budget no call can
/// exhaust, with a file cache of its own.
fn context(dir: &Path, limit: u64) -> ExploreContext {
    let settings = BudgetSettings {
        max_extraction_tokens: limit,
        ..BudgetSettings::for_window(1 << 40)
    };
    let budget = Arc::new(Budget::new(settings, 0).unwrap());
    ExploreContext::new(
        ReadRoot::new(dir).unwrap(),
        overspill_tokens::o200k(),
        budget,
    )
}

/// `limit` scaled to the input's size when the bench runs as a test, on small inputs, so the
/// call is still refused.
fn scaled(limit: u64, input: Input) -> u64 {
    let full = input.bytes();
    (limit * bench_bytes(full) / full).max(100)
}

/// Writes the log of [`Input::LogInString`] as the one text of an MCP tool result.
fn write_log_in_string(path: &Path) {
    let log = overspill_benchdata::ensure(Shape::Log, bench_bytes(Input::LogInString.bytes()))
        .unwrap();
    let text = std::fs::read_to_string(log).unwrap();
    let document = json!({"content": [{"type": "text", "text": text}]});
    std::fs::write(path, serde_json::to_string_pretty(&document).unwrap()).unwrap();
}

criterion_group!(benches, bench);
criterion_main!(benches);
