//! docs/security.md: many threads intercepting into one scratchpad dir and reading at once lose nothing.
//!
//! Defence guarded: content-addressed names with atomic no-clobber writes (identical outputs
//! converge, no torn or partial file under a final name, no temporary file left), and the
//! lock-free check-and-charge of the budget (the counters add up to exactly what was charged).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;

use overspill::config::Config;
use overspill::{Intercepted, Scratchpad, ToolOutput};

const THREADS: usize = 16;
const ROUNDS: usize = 500;

fn pad(memory: &std::path::Path) -> Scratchpad {
    let config = Config::from_toml_str(&format!(
        r#"
memory_dir = "{}"
[agent.llm]
provider = "openai"
model = "gpt-4o"
context_window = 100000000
[agent.scratchpad]
enabled = true
max_extraction_tokens = 10000
[mcp.servers.k8s.scratchpad]
"k8s_logs" = {{ min_tokens = 64 }}
"#,
        memory.display()
    ))
    .unwrap();
    Scratchpad::from_config(&config).build().unwrap()
}

/// Even rounds share one of ten outputs with every other thread; odd rounds are the thread's own.
fn output(thread: usize, round: usize) -> String {
    let (owner, n) = if round.is_multiple_of(2) {
        ("shared", round % 20)
    } else {
        ("own", thread * ROUNDS + round)
    };
    (0..40)
        .map(|line| format!("2026-12-03T07:{line:02}:00Z INFO {owner}-{n} request {line} served\n"))
        .collect()
}

fn file_of(pointer: &str) -> String {
    pointer
        .lines()
        .find_map(|l| l.strip_prefix("file: "))
        .expect("a pointer names its file")
        .to_owned()
}

#[test]
fn sixteen_threads_intercepting_and_exploring_one_dir_lose_nothing_and_counters_add_up() {
    let memory = tempfile::tempdir().unwrap();
    let pad = pad(memory.path());
    let counter = pad.counter();

    // Each thread: intercept, then read the stored output back with `head`, 500 times.
    let results: Vec<(String, String, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|thread| {
                let pad = pad.clone();
                scope.spawn(move || {
                    (0..ROUNDS)
                        .map(|round| {
                            let content = output(thread, round);
                            let Intercepted::Pointer(pointer) =
                                pad.intercept("k8s", "k8s_logs", ToolOutput::text(content.clone()))
                            else {
                                panic!("an output of 40 log lines is over 64 tokens");
                            };
                            let file = file_of(&pointer);
                            let answer =
                                pad.call("head", &format!(r#"{{"file": "{file}", "lines": 3}}"#));
                            (content, file, answer)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(results.len(), THREADS * ROUNDS);

    // Every pointer resolves to its exact content; identical outputs share one file.
    let dir = pad.scratchpad_dir().unwrap();
    let mut content_of: HashMap<&str, &str> = HashMap::new();
    for (content, file, answer) in &results {
        assert_eq!(&std::fs::read_to_string(dir.join(file)).unwrap(), content);
        let previous = content_of.insert(file, content);
        assert!(
            previous.is_none_or(|p| p == content),
            "{file} holds two outputs"
        );
        let first_line = content.lines().next().unwrap();
        assert!(answer.contains(first_line), "head of {file}: {answer}");
        assert!(answer.contains("--- head: "), "not a result: {answer}");
    }
    let distinct = 10 + THREADS * ROUNDS / 2;
    assert_eq!(content_of.len(), distinct);

    // Exactly those files, and no temporary file left behind.
    let names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with(".overspill-tmp")),
        "temporary files left"
    );
    let stored = names.iter().filter(|n| !n.starts_with('.')).count();
    assert_eq!(stored, distinct);

    // The counters: every interception and every answer, each counted once.
    let budget = pad.budget().unwrap();
    let intercepted: u64 = results
        .iter()
        .map(|(content, _, _)| counter.count(content) as u64)
        .sum();
    let extracted: u64 = results
        .iter()
        .map(|(_, _, answer)| counter.count(answer) as u64)
        .sum();
    assert_eq!(budget.tokens_intercepted(), intercepted);
    assert_eq!(budget.tokens_extracted(), extracted);
    assert_eq!(budget.used(), budget.baseline() + extracted);
}
