//! Test data for the JSON tools: generated pod lists, an independent oracle (Python's
//! `json` module), and pathological documents.

use std::path::Path;

use serde_json::Value;

/// `gen_samples.py pods n`, or `None` (with a note on stderr) when Python or the generator
/// is missing.
pub(crate) fn pods(n: usize) -> Option<String> {
    crate::test_support::pods_json(n)
}

/// Runs a Python snippet with `data` bound to the parsed JSON of `file`; its stdout,
/// trimmed, or `None` (with a note) when `python3` is missing.
pub(crate) fn python(file: &Path, snippet: &str) -> Option<String> {
    let script = format!(
        "import json, sys\nwith open(sys.argv[1]) as f:\n    data = json.load(f)\n{snippet}\n"
    );
    let output = match std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(file)
        .output()
    {
        Ok(output) => output,
        Err(_) => {
            eprintln!("skipping the Python cross-check: python3 is not available");
            return None;
        }
    };
    assert!(
        output.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// `[[[…]]]`, `depth` levels.
pub(crate) fn deep_arrays(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// `{"a": {"a": … 1 …}}`, `depth` levels, pretty-printed one key per line.
pub(crate) fn deep_objects(depth: usize) -> String {
    let mut out = String::with_capacity(depth * 12);
    for _ in 0..depth {
        out.push_str("{\n\"a\": ");
    }
    out.push('1');
    for _ in 0..depth {
        out.push_str("\n}");
    }
    out.push('\n');
    out
}

/// The rows of an `iterate_over` body, parsed.
pub(crate) fn rows(body: &str) -> Vec<Value> {
    let value: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"));
    value.as_array().cloned().unwrap_or_default()
}

/// A body of numbered lines without its numbers.
pub(crate) fn unnumbered(body: &str) -> String {
    body.lines()
        .map(|line| line.split_once(": ").map_or(line, |(_, text)| text))
        .collect::<Vec<_>>()
        .join("\n")
}
