//! The JSON exploration sequence of docs/performance.md, shared by the `json_tools` (time) and
//! `json_memory` (peak memory) benches so both measure the same calls.

// Each bench uses its part: `json_memory` neither names the steps nor streams.
#![allow(dead_code)]

/// One call of the sequence: its name in the report, the tool, and its arguments without
/// `file`.
pub struct Step(pub &'static str, pub &'static str, pub &'static str);

impl Step {
    /// The tool and its JSON arguments for `file`.
    pub fn call(&self, file: &str) -> (&'static str, String) {
        let mut arguments: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(self.2).unwrap();
        arguments.insert("file".to_owned(), file.into());
        (self.1, serde_json::Value::Object(arguments).to_string())
    }
}

/// The first call on a file: it reads and parses the whole document.
pub const FIRST: Step = Step("schema", "schema", "{}");

/// The later calls, on the cached document.
pub const LATER: &[Step] = &[
    Step("schema max_depth 6", "schema", r#"{"max_depth": 6}"#),
    Step(
        "item_schema $.items",
        "item_schema",
        r#"{"path": "$.items"}"#,
    ),
    Step(
        "iterate_over 50 items, 2 fields",
        "iterate_over",
        r#"{"path": "$.items", "fields": "metadata.name,status.phase", "offset": 1000, "limit": 50}"#,
    ),
    Step(
        "get_in one pod's status",
        "get_in",
        r#"{"path": "$.items[-1].status"}"#,
    ),
];

/// A windowed call on a file not yet cached, which may stream instead of parsing.
pub const STREAMED: Step = Step(
    "iterate_over window, not cached",
    "iterate_over",
    r#"{"path": "$.items", "fields": "metadata.name,status.phase", "offset": 20000, "limit": 50}"#,
);

/// A jq filter over every item, run after a first `query` has parsed the file for jq, so it
/// measures the evaluation on the cached document (not part of docs/performance.md's sequence, and kept
/// out of `json_memory`: jaq's value is several times the file).
pub const QUERY: Step = Step(
    "query failed pods' names",
    "query",
    r#"{"filter": ".items[] | select(.status.phase == \"Failed\") | .metadata.name", "limit": 20}"#,
);
