//! Retries on hostile content (issue 22, item 7): every `*_too_large` error offers a `retry`
//! call, and that call, run exactly as given, must fit. Hostile files (one huge line, many
//! lines, deep JSON, objects with many or long keys, huge items, Markdown with thousands of
//! headings, text that costs many tokens per byte) are generated at random sizes; each tool
//! is called with a window too large for the cap; every refusal's retry is run unchanged
//! and must not be refused for size again.
//!
//! Defence guarded: each tool's `smaller` chain ends in a call that fits (a window of one
//! unit, a cut line, a capped outline, a switch to a tool that summarises), and the registry
//! offers the first fitting call of that chain.

// Helpers outside #[test] fns panic on fixture failures like the tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use overspill_budget::{Budget, BudgetSettings};
use overspill_explore::{ExploreContext, Registry};
use overspill_store::ReadRoot;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRng, TestRunner};
use serde_json::{Value, json};

/// The per-call cap: small, so that hostile files overflow it quickly.
const CAP: u64 = 1_500;

fn context(dir: &Path) -> ExploreContext {
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
    /// An array of `items` objects with `fields` keys each holding long strings.
    FatItems {
        items: usize,
        fields: usize,
        chars: usize,
    },
    /// A string value of `lines` lines of `chars` characters.
    LongString { lines: usize, chars: usize },
    /// Markdown with `headings` headings of `chars`-character titles.
    Headings { headings: usize, chars: usize },
    /// A number written with `digits` digits.
    HugeNumber { digits: usize },
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
                let object: serde_json::Map<String, Value> = (0..keys)
                    .map(|i| (format!("{i:0>key_chars$}"), json!(i)))
                    .collect();
                ("wide.json", serde_json::to_string(&object).unwrap())
            }
            Hostile::FatItems {
                items,
                fields,
                chars,
            } => {
                let list: Vec<Value> = (0..items)
                    .map(|i| {
                        let item: serde_json::Map<String, Value> = (0..fields)
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
        }
    }
}

fn hostile() -> impl Strategy<Value = Hostile> {
    prop_oneof![
        (1_000usize..20_000, any::<u8>())
            .prop_map(|(words, flavour)| Hostile::HugeLine { words, flavour }),
        (2_000usize..20_000, any::<u8>())
            .prop_map(|(lines, flavour)| Hostile::ManyLines { lines, flavour }),
        (100usize..5_000).prop_map(|depth| Hostile::DeepJson { depth }),
        (1usize..10_000, 1usize..2_000)
            .prop_map(|(keys, key_chars)| Hostile::WideObject { keys, key_chars }),
        (1usize..200, 1usize..400, 1usize..300).prop_map(|(items, fields, chars)| {
            Hostile::FatItems {
                items,
                fields,
                chars,
            }
        }),
        (1usize..2_000, 1usize..300)
            .prop_map(|(lines, chars)| Hostile::LongString { lines, chars }),
        (100usize..4_000, 1usize..60)
            .prop_map(|(headings, chars)| Hostile::Headings { headings, chars }),
        (1_000usize..100_000).prop_map(|digits| Hostile::HugeNumber { digits }),
    ]
}

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
    let json_calls = [
        ("item_schema", json!({"file": file, "path": "$.items"})),
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
    ];
    if file.ends_with(".json") {
        calls.extend(json_calls);
    }
    calls
}

/// Runs `tool` on `arguments`; when refused for size, runs the retry unchanged and returns
/// what went wrong, if anything.
fn retry_fits(
    registry: &Registry,
    ctx: &ExploreContext,
    tool: &str,
    arguments: &Value,
) -> Result<(), String> {
    let text = registry.dispatch_value(ctx, tool, arguments);
    let tokens = overspill_tokens::o200k().count(&text) as u64;
    if tokens > CAP {
        return Err(format!(
            "{tool} {arguments}: the answer has {tokens} tokens"
        ));
    }
    let Ok(error) = serde_json::from_str::<Value>(&text) else {
        return Ok(());
    };
    let code = error["error"].as_str().unwrap_or_default();
    if !code.ends_with("_too_large") {
        return Ok(());
    }
    let retry = &error["retry"];
    let (retry_tool, retry_arguments) = (retry["tool"].as_str().unwrap(), &retry["arguments"]);
    let again = registry.dispatch_value(ctx, retry_tool, retry_arguments);
    let again_tokens = overspill_tokens::o200k().count(&again) as u64;
    if again_tokens > CAP {
        return Err(format!(
            "{tool} {arguments}: its retry {retry} answers {again_tokens} tokens"
        ));
    }
    if serde_json::from_str::<Value>(&again)
        .ok()
        .and_then(|e| e["error"].as_str().map(|c| c.ends_with("_too_large")))
        .unwrap_or(false)
    {
        return Err(format!(
            "{tool} {arguments}: its retry {retry} is refused again: {}",
            &again[..again.len().min(600)]
        ));
    }
    Ok(())
}

#[test]
fn every_retry_offered_on_hostile_files_fits_when_run_unchanged() {
    let registry = Registry::new();
    on_hostile_files(24, |dir, name| {
        let mut failures = Vec::new();
        for (tool, arguments) in greedy_calls(name) {
            // A fresh budget per call: only the per-call cap limits what fits.
            let ctx = context(dir);
            if let Err(failure) = retry_fits(&registry, &ctx, tool, &arguments) {
                failures.push(failure);
            }
        }
        failures
    });
}

/// Runs `check` on `cases` hostile files (the same ones on every run: a fixed seed), each
/// written alone in a directory; `check` returns what went wrong.
fn on_hostile_files(cases: u32, check: impl Fn(&Path, &str) -> Vec<String>) {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::deterministic_rng(config.rng_algorithm);
    TestRunner::new_with_rng(config, rng)
        .run(&hostile(), |hostile| {
            let dir = tempfile::tempdir().unwrap();
            let (name, content) = hostile.file();
            std::fs::write(dir.path().join(name), content).unwrap();
            let failures = check(dir.path(), name);
            prop_assert!(failures.is_empty(), "{hostile:?}: {failures:#?}");
            Ok(())
        })
        .unwrap();
}

#[test]
fn every_retry_names_only_tools_the_registry_exposes() {
    // Issue 23: with `head` excluded, an oversized `read` proposed a `head` retry the same
    // registry refused. Each tool alone is the strictest exclusion: its retries may name it only.
    on_hostile_files(8, |dir, name| {
        let mut failures = Vec::new();
        for (tool, arguments) in greedy_calls(name) {
            let registry = Registry::new().only(&[tool]);
            let text = registry.dispatch_value(&context(dir), tool, &arguments);
            let Ok(error) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            if error["error"]
                .as_str()
                .is_some_and(|c| c.ends_with("_too_large"))
                && error["retry"]["tool"] != tool
            {
                failures.push(format!("{tool} {arguments}: retry {}", error["retry"]));
            }
        }
        failures
    });
}
