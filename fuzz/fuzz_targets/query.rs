//! `query` filters: any filter text (after a first byte that picks the document) is
//! evaluated within its limits — an answer or an error, never a crash, an abort or a stall
//! (issue 22: filters that overflowed the stack, allocated gigabytes or ran far past the
//! time limit). libFuzzer reports a stack overflow, an out-of-memory or a timeout as a crash.
#![no_main]

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use overspill_explore::jq::{self, Document, Limits, QueryError, Window};

/// Limits small enough for fast runs; the same checks as the defaults, at a smaller scale.
const LIMITS: Limits = Limits {
    max_steps: 200_000,
    max_time: Duration::from_millis(500),
    max_results: 1_000,
    max_output_bytes: 64 << 10,
    max_value_bytes: 1 << 20,
    max_produced_bytes: 16 << 20,
    max_nesting: 512,
    max_stack_bytes: 64 << 20,
};

/// How far past its time limit a run may end (sanitizers slow everything down).
const TIME_SLACK: Duration = Duration::from_secs(5);

/// The documents a filter runs on, parsed once: a small pod list, numbers, a long string,
/// a document nested deeper than a built value may be.
fn documents() -> &'static [Document] {
    static DOCUMENTS: OnceLock<Vec<Document>> = OnceLock::new();
    DOCUMENTS.get_or_init(|| {
        let pods = r#"{"items": [
            {"metadata": {"name": "api-1", "labels": {"app": "api"}}, "status": {"phase": "Running", "restarts": 0}},
            {"metadata": {"name": "db-0", "labels": {}}, "status": {"phase": "Failed", "restarts": 12}},
            {"metadata": {"name": "é-2"}, "status": {"phase": "Pending", "message": "x\u0000y"}}
        ]}"#
        .to_owned();
        let numbers = format!(
            "[{}]",
            (0..2_000).map(|i| (i * 7919 % 1000).to_string()).collect::<Vec<_>>().join(",")
        );
        let text = format!("\"{}\"", "ab, é\\n".repeat(10_000));
        let deep = format!("{}1{}", "[".repeat(600), "]".repeat(600));
        [pods, numbers, text, deep]
            .iter()
            .map(|json| Document::parse(json.as_bytes()).expect("a fixture document parses"))
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((selector, filter)) = data.split_first() else {
        return;
    };
    let documents = documents();
    let document = documents[usize::from(*selector) % documents.len()].clone();
    let filter = String::from_utf8_lossy(filter);
    let window = Window {
        offset: 0,
        limit: Some(100),
    };
    let started = Instant::now();
    let outcome = jq::run_with(&filter, move || Ok(document), window, &LIMITS);
    let took = started.elapsed();
    assert!(
        took < LIMITS.max_time + TIME_SLACK,
        "{filter:?} ran {took:?}, past its {:?} limit",
        LIMITS.max_time
    );
    match outcome {
        Ok(outcome) => {
            let bytes: usize = outcome.results.iter().map(|r| r.len() + 1).sum();
            assert!(bytes <= LIMITS.max_output_bytes, "{filter:?}: {bytes} bytes");
            assert!(outcome.results.len() <= 100, "{filter:?}: past its window");
        }
        // A panic inside the engine, caught on the evaluation thread: a bug to look at.
        Err(QueryError::Internal(message)) => panic!("{filter:?}: {message}"),
        Err(_) => {}
    }
});
