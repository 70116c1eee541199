//! A log-search API result: hits whose `message` is JSON inside a string.

use std::io::{self, Write};

use serde_json::json;

use crate::CountingWriter;
use crate::pods::node;
use crate::random::SplitMix64;

/// Writes `{"query": …, "hits": [hits…], …}` on one line until `bytes`.
pub(crate) fn write<W: Write>(out: &mut CountingWriter<'_, W>, bytes: u64) -> io::Result<()> {
    let mut r = SplitMix64::new(99);
    out.write_all(br#"{"query":"level:error OR duration_ms:>1000","hits":["#)?;
    let mut ids = Vec::new();
    let mut n = 0u64;
    while n == 0 || out.written < bytes {
        let inner = json!({
            "trace_id": r.hex(32),
            "span": *r.choice(&["db.query", "http.client", "cache.get"]),
            "duration_ms": r.between(1, 5_000),
            "attributes": {"retry": r.between(0, 3), "shard": r.between(0, 15)},
        });
        let id = r.hex(20);
        let hit = json!({
            "_id": id,
            "timestamp": r.timestamp(12),
            "level": *r.choice(&["info", "warn", "error"]),
            "host": node(&mut r),
            "message": inner.to_string(),
        });
        if n > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, &hit)?;
        if ids.len() < 50 {
            ids.push(id);
        }
        n += 1;
    }
    let mut report = vec![
        "# Incident summary".to_owned(),
        String::new(),
        "## Impact".to_owned(),
        "- checkout: elevated 5xx".to_owned(),
        "- payments: degraded".to_owned(),
        String::new(),
        "## Timeline".to_owned(),
    ];
    report.extend((0..12).map(|k| format!("- {}: event {k}", r.timestamp(12))));
    report.extend(["", "## Root cause", "Connection pool exhaustion."].map(str::to_owned));
    let raw_page = serde_json::to_string_pretty(&json!({"page": 1, "ids": ids}))?;
    let tail = json!({
        "total": n,
        "took_ms": r.between(5, 900),
        "report_markdown": report.join("\n"),
        "raw_page": raw_page,
    });
    let tail = tail.to_string();
    // `tail` is an object: splice its members after the hits.
    writeln!(out, "],{}", &tail[1..])
}
