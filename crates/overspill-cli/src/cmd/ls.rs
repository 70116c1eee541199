//! `overspill ls --dir DIR`

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use overspill::budget::thousands;
use overspill::store::{Metadata, ReadRoot, Store};
use serde_json::{Value, json};

pub const EXAMPLES: &str = "Oldest first. Companion files are listed under the output they came from; \
a file the exploration tools would refuse (a second hard link, say) is marked with `!` and why.\n\n\
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
    super::existing_dir(&args.dir, "pass a scratchpad dir")?;
    let stored = Store::open(&args.dir)?.list()?;
    // The dir is the tools' read root (as for `overspill tool --dir`): each listed file is
    // opened as they open it, so a file they refuse is marked with their reason.
    let root = ReadRoot::new(&args.dir)?;
    let listed: Vec<Listed<'_>> = stored
        .iter()
        .map(|meta| Listed::judged(meta, &root))
        .collect();
    if args.json {
        let records: Vec<Value> = listed.iter().map(record).collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&records)?)?;
    } else if stored.is_empty() {
        tell!("overspill: no stored outputs in {}", args.dir.display());
    } else {
        write!(out, "{}", table(&listed))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One stored output as listed: its record, and why the tools refuse it or any of its
/// companions, in the record's order (`None` for a file they read).
struct Listed<'a> {
    meta: &'a Metadata,
    refused: Option<String>,
    companions_refused: Vec<Option<String>>,
}

impl<'a> Listed<'a> {
    fn judged(meta: &'a Metadata, root: &ReadRoot) -> Listed<'a> {
        // Opened and closed at once: `open` judges the descriptor (type, hard links) without
        // reading a byte.
        let refusal = |file: &str| root.open(file).err().map(|error| error.to_string());
        Listed {
            meta,
            refused: refusal(&meta.file_name),
            companions_refused: meta
                .companions
                .iter()
                .map(|c| refusal(&c.file_name))
                .collect(),
        }
    }
}

fn record(listed: &Listed<'_>) -> Value {
    let meta = listed.meta;
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
        "refused": listed.refused,
        "companions": meta.companions.iter().zip(&listed.companions_refused).map(|(c, refused)| json!({
            "file": c.file_name, "key": c.key, "format": c.format.to_string(), "lines": c.lines,
            "refused": refused,
        })).collect::<Vec<_>>(),
    })
}

/// Left-aligned text columns, right-aligned numbers, companions indented under their output,
/// and under each file the tools refuse, a `!` line saying why.
fn table(listed: &[Listed<'_>]) -> String {
    let header = [
        "FILE", "TOOL", "SERVER", "CREATED", "BYTES", "LINES", "TOKENS", "FORMAT",
    ];
    let rows: Vec<[String; 8]> = listed
        .iter()
        .map(|Listed { meta: m, .. }| {
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
    let refused = |out: &mut String, refused: &Option<String>| {
        if let Some(reason) = refused {
            out.push_str(&format!("  ! the exploration tools refuse it: {reason}\n"));
        }
    };
    for (listed, row) in listed.iter().zip(&rows) {
        out.push_str(&line(row.each_ref().map(String::as_str)));
        refused(&mut out, &listed.refused);
        for (companion, companion_refused) in listed
            .meta
            .companions
            .iter()
            .zip(&listed.companions_refused)
        {
            out.push_str(&format!(
                "  └ {} ({}, {} lines) from key {:?}\n",
                companion.file_name,
                companion.format,
                thousands(companion.lines as u64),
                companion.key
            ));
            refused(&mut out, companion_refused);
        }
    }
    out
}
