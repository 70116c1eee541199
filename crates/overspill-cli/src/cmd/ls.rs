//! `overspill ls --dir DIR`

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use overspill::budget::thousands;
use overspill::store::{Metadata, Store};
use serde_json::{Value, json};

pub const EXAMPLES: &str = "Oldest first. Companion files are listed under the output they came from.\n\n\
Examples:\n  \
overspill ls --dir ./pad\n  \
overspill ls --dir ./pad --json | jq '.[] | select(.tokens > 100000) | .file'";

/// Arguments of `overspill ls`.
#[derive(Debug, Args)]
pub struct LsArgs {
    /// The scratchpad dir.
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// One JSON array of records instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: LsArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    if !args.dir.is_dir() {
        anyhow::bail!(
            "{} is not a directory; pass a scratchpad dir",
            args.dir.display()
        );
    }
    let stored = Store::open(&args.dir)?.list()?;
    if args.json {
        let records: Vec<Value> = stored.iter().map(record).collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&records)?)?;
    } else if stored.is_empty() {
        eprintln!("overspill: no stored outputs in {}", args.dir.display());
    } else {
        write!(out, "{}", table(&stored))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn record(meta: &Metadata) -> Value {
    json!({
        "file": meta.file_name,
        "tool": meta.tool,
        "server": meta.server,
        "created": meta.created_rfc3339(),
        "bytes": meta.bytes,
        "lines": meta.lines,
        "tokens": meta.tokens.as_ref().map(|t| t.tokens),
        "counter": meta.tokens.as_ref().map(|t| t.counter.as_str()),
        "format": meta.format.to_string(),
        "companions": meta.companions.iter().map(|c| json!({
            "file": c.file_name, "key": c.key, "format": c.format.to_string(), "lines": c.lines,
        })).collect::<Vec<_>>(),
    })
}

/// Left-aligned text columns, right-aligned numbers, companions indented under their output.
fn table(stored: &[Metadata]) -> String {
    let header = [
        "FILE", "TOOL", "SERVER", "CREATED", "BYTES", "LINES", "TOKENS", "FORMAT",
    ];
    let rows: Vec<[String; 8]> = stored
        .iter()
        .map(|m| {
            [
                m.file_name.clone(),
                m.tool.clone(),
                m.server.clone().unwrap_or_else(|| "-".to_owned()),
                m.created_rfc3339(),
                thousands(m.bytes),
                thousands(m.lines as u64),
                m.tokens.as_ref().map_or_else(
                    || "-".to_owned(),
                    |t| format!("{} {}", thousands(t.tokens as u64), t.counter),
                ),
                m.format.to_string(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let numeric = [false, false, false, false, true, true, false, false];
    let line = |cells: [&str; 8]| {
        let mut out = String::new();
        for (i, cell) in cells.iter().enumerate() {
            let pad = widths[i].saturating_sub(cell.chars().count());
            if i > 0 {
                out.push_str("  ");
            }
            if numeric[i] {
                out.push_str(&" ".repeat(pad));
                out.push_str(cell);
            } else {
                out.push_str(cell);
                if i + 1 < cells.len() {
                    out.push_str(&" ".repeat(pad));
                }
            }
        }
        out.push('\n');
        out
    };
    let mut out = line(header);
    for (meta, row) in stored.iter().zip(&rows) {
        out.push_str(&line(row.each_ref().map(String::as_str)));
        for companion in &meta.companions {
            out.push_str(&format!(
                "  └ {} ({}, {} lines) from key {:?}\n",
                companion.file_name,
                companion.format,
                thousands(companion.lines as u64),
                companion.key
            ));
        }
    }
    out
}
