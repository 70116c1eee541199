//! Retries on hostile content (issue 22 item 7, issue 28 item 4): every `*_too_large` error
//! offers a `retry` call that is not the call just refused, and that call, run exactly as
//! given, fits. Hostile files are generated at random sizes, each kind in turn: one huge line,
//! many lines, deep JSON, objects with many or long keys, huge items, long strings, Markdown
//! with thousands of headings, one huge scalar, and the outputs whose retries once looped — an
//! object with a million keys, 5M zeros, a 50 MB string, a pod list — at a few kilobytes, which
//! is enough to overflow the small cap this test sets. Each tool (and `query` with the filters a
//! model writes first: `.`, `keys`, `.[]`, `.items`, `[.items[] | .metadata]`, …) is called
//! with a window too large for the cap; every refusal's retry must differ from the refused call
//! (tool and arguments, defaults left out) and, run unchanged, must not be refused for size.
//!
//! Defence guarded: each tool's `smaller` chain ends in a call that fits (a window of one
//! unit, a cut line, a capped outline, a switch to a tool that summarises, a `query` result
//! windowed or cut), and the registry offers the first fitting call of that chain, never the
//! refused call itself (docs/tools.md#errors, "Retry").
//!
//! The artifact tools have no retry to check: `read_artifact` returns an artifact too large for
//! the call as a pointer, never as `*_too_large` (docs/artifacts.md), and `write_artifact`
//! returns no content.

// Helpers outside #[test] fns panic on fixture failures like the tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::{Arc, Mutex};

use overspill_budget::{Budget, BudgetSettings};
use overspill_explore::{ExploreContext, FileCache, Registry};
use overspill_store::ReadRoot;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRng, TestRunner};
use serde_json::{Map, Value, json};

/// The per-call cap: small, so that hostile files overflow it quickly.
const CAP: u64 = 1_500;

/// Files smaller than this may fit the cap whole; the generator leaves them out.
const MIN_FILE_BYTES: usize = 12_000;

/// A context with a fresh budget (only the per-call cap limits what fits) over `cache`, which
/// the calls on one file share so that each parses it once.
fn context(dir: &Path, cache: &Arc<FileCache>) -> ExploreContext {
    let settings = BudgetSettings {
        max_extraction_tokens: CAP,
        ..BudgetSettings::for_window(1_000_000)
    };
    let budget = Arc::new(Budget::new(settings, 0).unwrap());
    ExploreContext::new(
        ReadRoot::new(dir).unwrap(),
        overspill_tokens::o200k(),
        budget,
    )
    .with_cache(Arc::clone(cache))
}

/// Text that costs many tokens per byte, or few.
fn word(rng_pick: u8, i: usize) -> String {
    match rng_pick % 4 {
        0 => format!("w{i}"),
        1 => "界".repeat(1 + i % 7),
        2 => format!("{:x}", (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        _ => "🦀\u{301}".to_owned(),
    }
}

/// One hostile file: its name and content.
#[derive(Debug, Clone)]
enum Hostile {
    /// One line of `n` words.
    HugeLine { words: usize, flavour: u8 },
    /// `n` short lines.
    ManyLines { lines: usize, flavour: u8 },
    /// Arrays nested `depth` deep, with a string at the bottom.
    DeepJson { depth: usize },
    /// One object with `keys` keys of `key_chars` characters.
    WideObject { keys: usize, key_chars: usize },
    /// One object with `keys` short keys: the million-key object, smaller.
    ManyKeys { keys: usize },
    /// An array of `n` zeros: 5M zeros, fewer.
    Zeros { n: usize },
    /// An array of `items` objects with `fields` keys each holding long strings.
    FatItems {
        items: usize,
        fields: usize,
        chars: usize,
    },
    /// A string value of `lines` lines of `chars` characters, under the key `log`.
    LongString { lines: usize, chars: usize },
    /// A document that is one string of `lines` lines: the 50 MB string, shorter.
    TopString {
        lines: usize,
        chars: usize,
        flavour: u8,
    },
    /// A pod list of about `bytes` bytes, on one line or pretty-printed.
    Pods { bytes: u64, pretty: bool },
    /// Markdown with `headings` headings of `chars`-character titles.
    Headings { headings: usize, chars: usize },
    /// A number written with `digits` digits, under the key `n`.
    HugeNumber { digits: usize },
    /// A document that is one number of `digits` digits.
    TopNumber { digits: usize },
}

impl Hostile {
    fn file(&self) -> (&'static str, String) {
        match *self {
            Hostile::HugeLine { words, flavour } => {
                let mut out = String::new();
                for i in 0..words {
                    out.push_str(&word(flavour, i));
                    out.push(' ');
                }
                ("line.txt", out)
            }
            Hostile::ManyLines { lines, flavour } => {
                let mut out = String::new();
                for i in 0..lines {
                    let _ = writeln!(out, "{} {}", word(flavour, i), word(flavour, i + 1));
                }
                ("lines.log", out)
            }
            Hostile::DeepJson { depth } => (
                "deep.json",
                format!("{}\"bottom\"{}", "[".repeat(depth), "]".repeat(depth)),
            ),
            Hostile::WideObject { keys, key_chars } => {
                let object: Map<String, Value> = (0..keys)
                    .map(|i| (format!("{i:0>key_chars$}"), json!(i)))
                    .collect();
                ("wide.json", serde_json::to_string(&object).unwrap())
            }
            Hostile::ManyKeys { keys } => {
                let object: Map<String, Value> =
                    (0..keys).map(|i| (format!("k{i:07}"), json!(i))).collect();
                ("keys.json", serde_json::to_string(&object).unwrap())
            }
            Hostile::Zeros { n } => ("zeros.json", format!("[{}]", vec!["0"; n].join(","))),
            Hostile::FatItems {
                items,
                fields,
                chars,
            } => {
                let list: Vec<Value> = (0..items)
                    .map(|i| {
                        let item: Map<String, Value> = (0..fields)
                            .map(|f| (format!("field{f}"), json!(word(f as u8, i).repeat(chars))))
                            .collect();
                        Value::Object(item)
                    })
                    .collect();
                (
                    "items.json",
                    serde_json::to_string_pretty(&json!({ "items": list })).unwrap(),
                )
            }
            Hostile::LongString { lines, chars } => {
                let text: Vec<String> = (0..lines).map(|i| word(2, i).repeat(chars)).collect();
                ("string.json", json!({ "log": text.join("\n") }).to_string())
            }
            Hostile::TopString {
                lines,
                chars,
                flavour,
            } => {
                let text: Vec<String> =
                    (0..lines).map(|i| word(flavour, i).repeat(chars)).collect();
                ("text.json", json!(text.join("\n")).to_string())
            }
            Hostile::Pods { bytes, pretty } => {
                let shape = if pretty {
                    overspill_benchdata::Shape::PodsPretty
                } else {
                    overspill_benchdata::Shape::PodsCompact
                };
                let mut out = Vec::new();
                overspill_benchdata::generate(shape, bytes, &mut out).unwrap();
                ("pods.json", String::from_utf8(out).unwrap())
            }
            Hostile::Headings { headings, chars } => {
                let mut out = String::new();
                for i in 0..headings {
                    let level = 1 + i % 3;
                    let _ = writeln!(out, "{} {}\n", "#".repeat(level), word(0, i).repeat(chars));
                }
                ("notes.md", out)
            }
            Hostile::HugeNumber { digits } => {
                ("number.json", format!("{{\"n\": 1{}}}", "7".repeat(digits)))
            }
            Hostile::TopNumber { digits } => ("scalar.json", format!("1{}", "3".repeat(digits))),
        }
    }
}

/// Each kind of hostile file, as a strategy of its own so that every kind is run.
fn hostile_kinds() -> Vec<BoxedStrategy<Hostile>> {
    let kinds = vec![
        (1_000usize..20_000, any::<u8>())
            .prop_map(|(words, flavour)| Hostile::HugeLine { words, flavour })
            .boxed(),
        (2_000usize..20_000, any::<u8>())
            .prop_map(|(lines, flavour)| Hostile::ManyLines { lines, flavour })
            .boxed(),
        (100usize..5_000)
            .prop_map(|depth| Hostile::DeepJson { depth })
            .boxed(),
        (50usize..2_000, 1usize..500)
            .prop_map(|(keys, key_chars)| Hostile::WideObject { keys, key_chars })
            .boxed(),
        (1_500usize..8_000)
            .prop_map(|keys| Hostile::ManyKeys { keys })
            .boxed(),
        (6_000usize..20_000)
            .prop_map(|n| Hostile::Zeros { n })
            .boxed(),
        (1usize..40, 4usize..300, 10usize..60)
            .prop_map(|(items, fields, chars)| Hostile::FatItems {
                items,
                fields,
                chars,
            })
            .boxed(),
        (1usize..400, 1usize..60)
            .prop_map(|(lines, chars)| Hostile::LongString { lines, chars })
            .boxed(),
        (1usize..400, 1usize..60, any::<u8>())
            .prop_map(|(lines, chars, flavour)| Hostile::TopString {
                lines,
                chars,
                flavour,
            })
            .boxed(),
        (12_000u64..150_000, any::<bool>())
            .prop_map(|(bytes, pretty)| Hostile::Pods { bytes, pretty })
            .boxed(),
        (100usize..2_000, 1usize..40)
            .prop_map(|(headings, chars)| Hostile::Headings { headings, chars })
            .boxed(),
        (12_000usize..60_000)
            .prop_map(|digits| Hostile::HugeNumber { digits })
            .boxed(),
        (12_000usize..60_000)
            .prop_map(|digits| Hostile::TopNumber { digits })
            .boxed(),
    ];
    kinds
        .into_iter()
        .map(|kind| {
            kind.prop_filter("small enough to fit the cap", |h| {
                matches!(h, Hostile::DeepJson { .. }) || h.file().1.len() >= MIN_FILE_BYTES
            })
            .boxed()
        })
        .collect()
}

/// The filters a model writes first, the ones whose retries once repeated them among them.
const FILTERS: &[&str] = &[
    ".",
    "keys",
    ".[]",
    ".items",
    "[.items[] | .metadata]",
    ".items[]",
    ".items[0]",
    ".log",
    ".n",
    "to_entries",
    "[.[]]",
    "map(.)",
    "tostring",
    "..",
    "[paths]",
    ".[0]",
    ".items | map(.metadata.name)",
];

/// Calls asking for more than the cap allows, on `file`.
fn greedy_calls(file: &str) -> Vec<(&'static str, Value)> {
    let mut calls = vec![
        ("head", json!({"file": file, "lines": 1_000_000})),
        ("slice", json!({"file": file, "start": 1, "end": 1_000_000})),
        (
            "grep",
            json!({"file": file, "pattern": ".", "context": 50, "max_matches": 1_000_000}),
        ),
        ("read", json!({"file": file})),
        ("schema", json!({"file": file, "max_depth": 64})),
    ];
    if !file.ends_with(".json") {
        return calls;
    }
    calls.extend([
        ("item_schema", json!({"file": file, "path": "$.items"})),
        ("item_schema", json!({"file": file, "path": "$"})),
        ("iterate_over", json!({"file": file, "path": "$.items"})),
        ("iterate_over", json!({"file": file, "path": "$"})),
        ("get_in", json!({"file": file, "path": "$"})),
        ("get_in", json!({"file": file, "path": "$.items"})),
        ("get_in", json!({"file": file, "path": "$.items[0]"})),
        ("get_in", json!({"file": file, "path": "$.log"})),
        ("get_in", json!({"file": file, "path": "$.n"})),
        (
            "schema",
            json!({"file": file, "path": "$.items[0]", "max_depth": 64}),
        ),
    ]);
    for filter in FILTERS {
        calls.push(("query", json!({"file": file, "filter": filter})));
    }
    // Windows a model pages with: past the first result, and one result at a time.
    calls.extend([
        (
            "query",
            json!({"file": file, "filter": ".[]", "offset": 1, "limit": 3}),
        ),
        ("query", json!({"file": file, "filter": "..", "offset": 1})),
        ("query", json!({"file": file, "filter": ".", "limit": 1})),
        (
            "query",
            json!({"file": file, "filter": ".items[]", "offset": 2, "limit": 1}),
        ),
    ]);
    calls
}

/// The default of each argument of each tool, as its schema declares it.
fn defaults(registry: &Registry) -> BTreeMap<String, Map<String, Value>> {
    registry
        .mcp_tools()
        .into_iter()
        .map(|tool| {
            let name = tool["name"].as_str().unwrap().to_owned();
            let defaults = tool["inputSchema"]["properties"]
                .as_object()
                .unwrap()
                .iter()
                .filter_map(|(key, property)| Some((key.clone(), property.get("default")?.clone())))
                .collect();
            (name, defaults)
        })
        .collect()
}

/// A call in canonical form: its tool and the arguments that are not null or their default,
/// so that `{"offset": 0}` and `{}` are the same call.
fn canonical(
    defaults: &BTreeMap<String, Map<String, Value>>,
    tool: &str,
    arguments: &Value,
) -> (String, Map<String, Value>) {
    let declared = defaults.get(tool);
    let arguments = arguments
        .as_object()
        .unwrap()
        .iter()
        .filter(|(key, value)| {
            !value.is_null() && declared.and_then(|d| d.get(*key)) != Some(*value)
        })
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    (tool.to_owned(), arguments)
}

/// What one greedy call taught: whether it was refused for size, and what went wrong.
struct Checked {
    refused: bool,
    failure: Option<String>,
}

/// Runs `tool` on `arguments`; when refused for size, checks that the retry is there, differs
/// from the refused call, and fits when run unchanged.
fn check_retry(
    registry: &Registry,
    ctx: &ExploreContext,
    defaults: &BTreeMap<String, Map<String, Value>>,
    tool: &str,
    arguments: &Value,
) -> Checked {
    let fail = |failure: String| Checked {
        refused: true,
        failure: Some(failure),
    };
    let text = registry.dispatch_value(ctx, tool, arguments);
    let tokens = overspill_tokens::o200k().count(&text) as u64;
    if tokens > CAP {
        return fail(format!(
            "{tool} {arguments}: the answer has {tokens} tokens"
        ));
    }
    let Some(code) = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|e| e["error"].as_str().map(str::to_owned))
    else {
        return Checked {
            refused: false,
            failure: None,
        };
    };
    if !code.ends_with("_too_large") {
        return Checked {
            refused: false,
            failure: None,
        };
    }
    let error: Value = serde_json::from_str(&text).unwrap();
    let retry = &error["retry"];
    let (Some(retry_tool), Some(retry_arguments)) =
        (retry["tool"].as_str(), retry.get("arguments"))
    else {
        return fail(format!("{tool} {arguments}: no retry in {text}"));
    };
    if canonical(defaults, retry_tool, retry_arguments) == canonical(defaults, tool, arguments) {
        return fail(format!(
            "{tool} {arguments}: the retry {retry} is the refused call"
        ));
    }
    let again = registry.dispatch_value(ctx, retry_tool, retry_arguments);
    let again_tokens = overspill_tokens::o200k().count(&again) as u64;
    if again_tokens > CAP {
        return fail(format!(
            "{tool} {arguments}: its retry {retry} answers {again_tokens} tokens"
        ));
    }
    if serde_json::from_str::<Value>(&again)
        .ok()
        .and_then(|e| e["error"].as_str().map(|c| c.ends_with("_too_large")))
        .unwrap_or(false)
    {
        return fail(format!(
            "{tool} {arguments}: its retry {retry} is refused again: {}",
            &again[..again.len().min(600)]
        ));
    }
    Checked {
        refused: true,
        failure: None,
    }
}

#[test]
fn every_too_large_retry_differs_from_the_refused_call_and_fits_when_run_unchanged() {
    let registry = Registry::new();
    let defaults = defaults(&registry);
    // Which calls were refused at least once: the property must not hold by never refusing.
    let refused = Mutex::new(BTreeSet::new());
    on_hostile_files(2, |dir, name| {
        let cache = Arc::new(FileCache::new(1 << 30));
        let mut failures = Vec::new();
        for (tool, arguments) in greedy_calls(name) {
            let ctx = context(dir, &cache);
            let checked = check_retry(&registry, &ctx, &defaults, tool, &arguments);
            if checked.refused {
                let what = arguments["filter"].as_str().unwrap_or_default();
                refused
                    .lock()
                    .unwrap()
                    .insert(format!("{tool} {what}").trim().to_owned());
            }
            failures.extend(checked.failure);
        }
        failures
    });
    let refused = refused.into_inner().unwrap();
    for tool in Registry::new().names() {
        assert!(
            refused.iter().any(|r| r.split(' ').next() == Some(tool)),
            "{tool} was never refused: {refused:?}"
        );
    }
    for filter in [".", "keys", ".[]", ".items", "[.items[] | .metadata]"] {
        assert!(
            refused.contains(&format!("query {filter}")),
            "query {filter} was never refused: {refused:?}"
        );
    }
}

/// Runs `check` on `cases` hostile files of each kind (the same ones on every run: a fixed
/// seed), each written alone in a directory; `check` returns what went wrong. The kinds run on
/// threads of their own.
fn on_hostile_files(cases: u32, check: impl Fn(&Path, &str) -> Vec<String> + Sync) {
    std::thread::scope(|scope| {
        let runs: Vec<_> = (0..hostile_kinds().len())
            .map(|index| {
                let check = &check;
                scope.spawn(move || {
                    // Strategies are not `Send`: each thread builds its own.
                    let kind = hostile_kinds().swap_remove(index);
                    let config = Config {
                        cases,
                        failure_persistence: None,
                        ..Config::default()
                    };
                    let rng = TestRng::deterministic_rng(config.rng_algorithm);
                    TestRunner::new_with_rng(config, rng)
                        .run(&kind, |hostile| {
                            let dir = tempfile::tempdir().unwrap();
                            let (name, content) = hostile.file();
                            std::fs::write(dir.path().join(name), content).unwrap();
                            let failures = check(dir.path(), name);
                            prop_assert!(failures.is_empty(), "{hostile:?}: {failures:#?}");
                            Ok(())
                        })
                        .map_err(|error| error.to_string())
                })
            })
            .collect();
        let failed: Vec<String> = runs
            .into_iter()
            .filter_map(|run| run.join().unwrap().err())
            .collect();
        assert!(failed.is_empty(), "{failed:#?}");
    });
}

#[test]
fn every_retry_names_only_tools_the_registry_exposes() {
    // Issue 23: with `head` excluded, an oversized `read` proposed a `head` retry the same
    // registry refused. Each tool alone is the strictest exclusion: its retries may name it
    // only, and where it has no smaller form of its own the error offers no retry at all
    // rather than the refused call.
    let full = Registry::new();
    let defaults = defaults(&full);
    on_hostile_files(1, |dir, name| {
        let cache = Arc::new(FileCache::new(1 << 30));
        let mut failures = Vec::new();
        for (tool, arguments) in greedy_calls(name) {
            let registry = Registry::new().only(&[tool]);
            let text = registry.dispatch_value(&context(dir, &cache), tool, &arguments);
            let Ok(error) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            if !error["error"]
                .as_str()
                .is_some_and(|c| c.ends_with("_too_large"))
            {
                continue;
            }
            let retry = &error["retry"];
            if retry.is_null() {
                continue;
            }
            if retry["tool"] != tool
                || canonical(&defaults, tool, &retry["arguments"])
                    == canonical(&defaults, tool, &arguments)
            {
                failures.push(format!("{tool} {arguments}: retry {retry}"));
            }
        }
        failures
    });
}
