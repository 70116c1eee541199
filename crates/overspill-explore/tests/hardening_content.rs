//! Hostile content (docs/security.md "No panic on any input"): each file below is explored with every
//! registered tool, through dispatch as a model would, with the plain call and with each
//! optional argument pushed to a large value. Every answer must be a well-formed error object
//! with a message or a footed result, and no answer may cost more than the per-call cap
//! (counted with the agent's counter, so an unbounded output cannot slip through).
//!
//! The tool list and the calls come from the registry and the tools' schemas, so the JSON
//! tools are covered as soon as they are registered.
//!
//! Sizes: the single-line file is 100 MB, the wide object has 1,000,000 keys and the deep
//! JSON 100,000 levels, as docs/security.md names them; each is generated once per test in a
//! temporary directory.

// Helpers outside #[test] fns panic on fixture failures like the tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use overspill_budget::{Budget, BudgetSettings};
use overspill_explore::{ExploreContext, Registry};
use overspill_store::{Output, ReadRoot, Store, TextLayout};
use serde_json::{Map, Value, json};

/// The per-call cap of every context here.
const CAP: u64 = 4_000;

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

/// A value for an argument the schema declares, chosen to be valid but large.
fn large_value(name: &str, schema: &Value) -> Value {
    match (name, schema["type"].as_str()) {
        ("pattern", _) => json!("."),
        ("path", _) => json!("$"),
        // A filter that walks the whole document, so `query` really evaluates hostile content.
        ("filter", _) => json!(".. | length?"),
        (_, Some("integer")) => json!(1_000_000),
        (_, Some("boolean")) => json!(true),
        _ => json!("$"),
    }
}

/// The smallest valid value of a required argument.
fn required_value(name: &str, schema: &Value) -> Value {
    match (name, schema["type"].as_str()) {
        ("pattern", _) => json!("a"),
        ("path", _) => json!("$"),
        ("filter", _) => json!("."),
        ("end", _) => json!(5),
        (_, Some("integer")) => json!(schema["minimum"].as_u64().unwrap_or(1).max(1)),
        (_, Some("boolean")) => json!(false),
        _ => json!("$"),
    }
}

/// The calls every tool gets on `file`: the plain call with its required arguments, then
/// that call with each optional argument set large.
fn calls(registry: &Registry, file: &str) -> Vec<(&'static str, Value)> {
    let mut calls = Vec::new();
    for definition in registry.definitions() {
        let schema = definition.input_schema();
        let properties = schema["properties"].as_object().unwrap();
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut base = Map::new();
        base.insert("file".to_owned(), json!(file));
        for name in &required {
            if *name != "file" {
                base.insert((*name).to_owned(), required_value(name, &properties[*name]));
            }
        }
        calls.push((definition.name, Value::Object(base.clone())));
        for (name, property) in properties {
            if !required.contains(&name.as_str()) {
                let mut call = base.clone();
                call.insert(name.clone(), large_value(name, property));
                calls.push((definition.name, Value::Object(call)));
            }
        }
    }
    calls
}

/// What every answer must be. Returns the parsed error, if it is one.
fn check(tool: &str, arguments: &Value, text: &str) -> Option<Value> {
    let tokens = overspill_tokens::o200k().count(text) as u64;
    assert!(
        tokens <= CAP,
        "{tool} {arguments}: {tokens} tokens over the {CAP}-token cap"
    );
    if text.starts_with('{') {
        let error: Value = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("{tool} {arguments}: malformed error ({e}): {text}"));
        assert!(error["error"].is_string(), "{tool} {arguments}: {text}");
        // A refusal for size says what to run instead; every other error says what went wrong.
        let clear = if error["error"].as_str().unwrap().ends_with("_too_large") {
            error["retry"]["tool"].is_string()
                && error["suggestions"]
                    .as_array()
                    .is_some_and(|s| !s.is_empty())
        } else {
            error["message"].as_str().is_some_and(|m| m.len() > 10)
        };
        assert!(clear, "{tool} {arguments}: no clear message: {text}");
        Some(error)
    } else {
        let footer = text.rsplit('\n').next().unwrap();
        assert!(
            footer.starts_with(&format!("--- {tool}: ")) && footer.ends_with(" ---"),
            "{tool} {arguments}: no footer: {}",
            &text[text.len().saturating_sub(400)..]
        );
        None
    }
}

/// Runs every call of every tool on `file` under `dir`; returns `(answers, errors)`.
fn explore_with_every_tool(
    dir: &Path,
    file: &str,
) -> (Vec<(&'static str, Value, String)>, Vec<Value>) {
    let registry = Registry::new();
    let ctx = context(dir);
    let mut answers = Vec::new();
    let mut errors = Vec::new();
    for (tool, arguments) in calls(&registry, file) {
        let started = Instant::now();
        let text = registry.dispatch_value(&ctx, tool, &arguments);
        eprintln!("{tool} {arguments}: {:?}", started.elapsed());
        if let Some(error) = check(tool, &arguments, &text) {
            errors.push(error);
        }
        answers.push((tool, arguments, text));
    }
    (answers, errors)
}

#[test]
fn json_nested_100_000_deep_as_the_store_writes_it_is_explored_without_overflow() {
    // Defences: the store's JSON detection and pretty-printing under serde_json's recursion
    // limit (the store must not overflow writing it), and every tool reading it as text or
    // refusing it with a message.
    let dir = tempfile::tempdir().unwrap();
    let content = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let stored = Store::open(dir.path())
        .unwrap()
        .write_output(&Output {
            tool: "deep",
            server: None,
            content: &content,
            tokens: None,
            text_layout: TextLayout::Reindented,
        })
        .unwrap();
    let deep_object = format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    fs::write(dir.path().join("deep_object.json"), deep_object).unwrap();
    for file in [stored.file_name.as_str(), "deep_object.json"] {
        let (answers, _) = explore_with_every_tool(dir.path(), file);
        assert!(!answers.is_empty());
    }
}

#[test]
fn a_100_mb_single_line_is_cut_to_the_cap_by_every_tool() {
    // Defences: the per-line cut (line cap) and the per-call cap in delivery; grep's output
    // bound on a match that is the whole file.
    let dir = tempfile::tempdir().unwrap();
    let mut file = File::create(dir.path().join("line.txt")).unwrap();
    let chunk = "lorem ipsum dolor sit amet 0123456789 ".repeat(1 << 10);
    let mut written = 0;
    while written < 100_000_000 {
        file.write_all(chunk.as_bytes()).unwrap();
        written += chunk.len();
    }
    drop(file);
    let (answers, _) = explore_with_every_tool(dir.path(), "line.txt");
    // head shows the start of the line, cut, rather than refusing it.
    let head = answers
        .iter()
        .find(|(tool, arguments, _)| *tool == "head" && arguments.as_object().unwrap().len() == 1)
        .map(|(_, _, text)| text)
        .unwrap();
    assert!(head.starts_with("1: lorem ipsum"), "{}", &head[..200]);
}

#[test]
fn invalid_utf8_nuls_and_an_empty_file_are_explored_by_every_tool() {
    // Defences: lossy decoding for display, binary-safe line index and regex search over
    // bytes, and empty-file edge cases in every tool's windowing.
    let dir = tempfile::tempdir().unwrap();
    let mut invalid = Vec::new();
    for i in 0..2_000u32 {
        invalid.extend_from_slice(b"row ");
        invalid.extend_from_slice(&[0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82, 0xed, 0xa0, 0x80]);
        invalid.extend_from_slice(i.to_string().as_bytes());
        invalid.push(if i % 3 == 0 { b'\r' } else { b'\n' });
    }
    fs::write(dir.path().join("invalid.txt"), &invalid).unwrap();
    fs::write(dir.path().join("invalid.json"), b"{\"a\": \"\xff\xfe\"}").unwrap();
    fs::write(dir.path().join("nuls.bin"), vec![0u8; 4 << 20]).unwrap();
    fs::write(dir.path().join("nul_lines.txt"), b"\0\n".repeat(100_000)).unwrap();
    fs::write(dir.path().join("empty.txt"), b"").unwrap();
    fs::write(dir.path().join("empty.json"), b"").unwrap();
    for file in [
        "invalid.txt",
        "invalid.json",
        "nuls.bin",
        "nul_lines.txt",
        "empty.txt",
        "empty.json",
    ] {
        let (answers, _) = explore_with_every_tool(dir.path(), file);
        assert!(!answers.is_empty(), "{file}");
    }
}

#[test]
fn a_json_object_with_1_000_000_keys_is_explored_within_the_cap() {
    // Defences: the per-call cap on a result with a million lines/keys; bounded summaries.
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::with_capacity(20 << 20);
    text.push('{');
    for i in 0..1_000_000u32 {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!("\"k{i}\":{i}"));
    }
    text.push('}');
    fs::write(dir.path().join("wide.json"), &text).unwrap();
    // The same object as the store writes it (pretty-printed: a million lines).
    let stored = Store::open(dir.path().join("store"))
        .unwrap()
        .write_output(&Output {
            tool: "wide",
            server: None,
            content: &text,
            tokens: None,
            text_layout: TextLayout::Reindented,
        })
        .unwrap();
    fs::rename(&stored.path, dir.path().join("wide_pretty.json")).unwrap();
    for file in ["wide.json", "wide_pretty.json"] {
        explore_with_every_tool(dir.path(), file);
    }
}

#[test]
fn a_file_deleted_between_two_calls_is_not_found_and_not_served_from_the_cache() {
    // Defence: the cache re-checks the file on every open; a deleted file is `not_found`.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gone.txt");
    fs::write(&path, "alpha\nbeta\n").unwrap();
    let registry = Registry::new();
    let ctx = context(dir.path());
    for (tool, arguments) in calls(&registry, "gone.txt") {
        fs::write(&path, "alpha\nbeta\n").unwrap();
        let first = registry.dispatch_value(&ctx, tool, &arguments);
        check(tool, &arguments, &first);
        fs::remove_file(&path).unwrap();
        let second = registry.dispatch_value(&ctx, tool, &arguments);
        let error = check(tool, &arguments, &second)
            .unwrap_or_else(|| panic!("{tool}: a deleted file was served: {second}"));
        assert_eq!(error["error"], "not_found", "{tool}: {second}");
    }
}

#[test]
fn a_file_replaced_by_one_of_another_size_between_two_calls_is_read_afresh() {
    // Defence: the cache key includes the size, so new content is read.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("swap.txt");
    let registry = Registry::new();
    let ctx = context(dir.path());
    fs::write(&path, "old line one\nold line two\n").unwrap();
    let before = registry.dispatch(&ctx, "read", r#"{"file": "swap.txt"}"#);
    assert!(before.contains("old line one"), "{before}");
    let tmp = dir.path().join("swap.tmp");
    fs::write(&tmp, "new line one\nnew line two, longer\n").unwrap();
    fs::rename(&tmp, &path).unwrap();
    for (tool, arguments) in calls(&registry, "swap.txt") {
        let after = registry.dispatch_value(&ctx, tool, &arguments);
        check(tool, &arguments, &after);
        assert!(!after.contains("old line"), "{tool} served stale: {after}");
    }
    let after = registry.dispatch(&ctx, "read", r#"{"file": "swap.txt"}"#);
    assert!(after.contains("new line two, longer"), "{after}");
}

#[test]
fn a_same_size_replacement_right_after_a_read_is_read_afresh() {
    // Defence: the cache key must tell a replaced file from the one it cached.
    // The replacement has the same size and is renamed over the original, as an atomic
    // writer would do.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("swap.txt");
    let registry = Registry::new();
    let ctx = context(dir.path());
    fs::write(&path, "old line one\nold line two\n").unwrap();
    let before = registry.dispatch(&ctx, "read", r#"{"file": "swap.txt"}"#);
    assert!(before.contains("old line one"), "{before}");
    let tmp = dir.path().join("swap.tmp");
    fs::write(&tmp, "new line one\nnew line two\n").unwrap();
    fs::rename(&tmp, &path).unwrap();
    for (tool, arguments) in [
        ("read", json!({"file": "swap.txt"})),
        ("head", json!({"file": "swap.txt"})),
        ("slice", json!({"file": "swap.txt", "start": 1, "end": 2})),
        ("grep", json!({"file": "swap.txt", "pattern": "line"})),
    ] {
        let after = registry.dispatch_value(&ctx, tool, &arguments);
        assert!(after.contains("new line one"), "{tool}: {after}");
        assert!(!after.contains("old line"), "{tool} served stale: {after}");
    }
}

#[test]
fn a_same_size_replacement_with_its_mtime_preserved_is_read_afresh() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("swap.txt");
    let ctx = context(dir.path());
    let registry = Registry::new();
    fs::write(&path, "old line one\n").unwrap();
    let mtime = fs::metadata(&path).unwrap().modified().unwrap();
    let before = registry.dispatch(&ctx, "read", r#"{"file": "swap.txt"}"#);
    assert!(before.contains("old line one"), "{before}");
    let tmp = dir.path().join("swap.tmp");
    fs::write(&tmp, "new line one\n").unwrap();
    File::options()
        .write(true)
        .open(&tmp)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    fs::rename(&tmp, &path).unwrap();
    let after = registry.dispatch(&ctx, "read", r#"{"file": "swap.txt"}"#);
    assert!(after.contains("new line one"), "served stale: {after}");
}

#[test]
fn a_file_growing_while_it_is_read_gives_well_formed_answers() {
    // Defences: each call works on one snapshot of the file (bytes read once, line index
    // built from them), so a writer appending meanwhile cannot tear a result or panic.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.log");
    fs::write(&path, "start\n").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (path, stop) = (path.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut file = OpenOptions::new().append(true).open(&path).unwrap();
            let mut i = 0u64;
            // Paced and bounded (at most ~1 MB), so it is still growing while the readers run
            // and their work stays small.
            while !stop.load(Ordering::Relaxed) && i < 60_000 {
                // Partial lines on purpose: a reader may see a line without its newline.
                write!(file, "line {i} ").unwrap();
                if i.is_multiple_of(3) {
                    writeln!(file, "GET /api {}", 200 + i % 400).unwrap();
                }
                i += 1;
                if i.is_multiple_of(64) {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        })
    };
    let registry = Registry::new();
    let ctx = context(dir.path());
    // The plain calls and the booleans: the million-line windows would only measure speed.
    let calls: Vec<_> = calls(&registry, "growing.log")
        .into_iter()
        .filter(|(_, arguments)| {
            !arguments
                .as_object()
                .unwrap()
                .values()
                .any(|v| v == 1_000_000)
        })
        .collect();
    for _ in 0..12 {
        for (tool, arguments) in &calls {
            let started = Instant::now();
            let text = registry.dispatch_value(&ctx, tool, arguments);
            eprintln!("{tool} {arguments}: {:?}", started.elapsed());
            check(tool, arguments, &text);
        }
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
}
