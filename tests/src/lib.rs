//! End-to-end tests across the overspill crates live in `tests/tests/`.
//!
//! This library holds only what those tests share: the bundled pod list of the tour, the
//! sample-data directory of `../shared/data/` (tests that need it skip loudly when it is absent),
//! and the calls that exercise every exploration tool on a stored pod list.

use std::path::PathBuf;

/// A tool name and its arguments as JSON text.
pub type Call = (&'static str, String);

/// The tour's pod list: 450 pods, 1.7 MB (`gen_samples.py pods 450`).
pub const POD_LIST: &str = include_str!("../../crates/overspill-cli/assets/tour/pods.json");

/// The shared sample-data directory (`../shared/data` beside the checkout), if present.
pub fn shared_data_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    dir.is_dir().then_some(dir)
}

/// One call of every exploration tool on a stored pod list named `file`, as `(tool, JSON
/// arguments)`, in the order a model would explore (`single_agent.rs` holds it to the
/// registry's tools).
pub fn every_tool_on_pods(file: &str) -> Vec<Call> {
    vec![
        ("schema", format!(r#"{{"file": "{file}", "max_depth": 2}}"#)),
        (
            "item_schema",
            format!(r#"{{"file": "{file}", "path": "$.items", "limit": 20}}"#),
        ),
        (
            "iterate_over",
            format!(
                r#"{{"file": "{file}", "path": "$.items", "fields": "metadata.name,status.phase", "offset": 78, "limit": 4}}"#
            ),
        ),
        (
            "get_in",
            format!(r#"{{"file": "{file}", "path": "$.items[80].status.phase"}}"#),
        ),
        (
            "query",
            format!(
                r#"{{"file": "{file}", "filter": "[.items[] | select(.status.phase == \"Failed\")] | length"}}"#
            ),
        ),
        (
            "grep",
            format!(
                r#"{{"file": "{file}", "pattern": "CrashLoopBackOff", "context": 1, "max_matches": 3}}"#
            ),
        ),
        ("head", format!(r#"{{"file": "{file}", "lines": 5}}"#)),
        (
            "slice",
            format!(r#"{{"file": "{file}", "start": 10, "end": 14}}"#),
        ),
        ("read", format!(r#"{{"file": "{file}"}}"#)),
    ]
}
