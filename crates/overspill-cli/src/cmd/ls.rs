//! `overspill ls --dir DIR`, or `overspill ls --store URL [--principal NAME]`

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use overspill::budget::thousands;
use overspill::store::{Metadata, ReadRoot, SharedStore, Store};
use serde_json::{Value, json};

pub const EXAMPLES: &str = "Oldest first. Companion files are listed under the output they came from; \
a file the exploration tools would refuse (a second hard link, say) is marked with `!` and why.\n\n\
Examples:\n  \
overspill ls --dir ./pad\n  \
overspill ls --dir ./pad --json | jq '.[] | select(.tokens > 100000) | .file'\n  \
overspill ls --store s3://team-bucket/overspill --principal alice";

/// Arguments of `overspill ls`.
#[derive(Debug, Args)]
pub struct LsArgs {
    /// The scratchpad dir.
    #[arg(long, value_name = "DIR", required_unless_present = "store")]
    dir: Option<PathBuf>,
    /// A shared store instead (`overspill mcp --store URL`): its stored outputs, read from the
    /// objects, with credentials from the environment (docs/storage.md#a-shared-store).
    #[arg(long, value_name = "URL", conflicts_with = "dir")]
    store: Option<String>,
    /// With --store: only this principal's outputs (its name in the --auth-tokens file, or
    /// `shared` or `local`); without it, every directory of the store, each under its key.
    #[arg(long, value_name = "NAME", requires = "store")]
    principal: Option<String>,
    /// One JSON array of records instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: LsArgs) -> anyhow::Result<ExitCode> {
    if let Some(url) = &args.store {
        return from_store(url, args.principal.as_deref(), args.json);
    }
    let Some(dir) = &args.dir else {
        anyhow::bail!("give --dir DIR, or --store URL");
    };
    let mut out = std::io::stdout().lock();
    super::existing_dir(dir, "pass a scratchpad dir")?;
    let stored = Store::open(dir)?.list()?;
    // The dir is the tools' read root (as for `overspill tool --dir`): each listed file is
    // opened as they open it, so a file they refuse is marked with their reason.
    let root = ReadRoot::new(dir)?;
    let listed: Vec<Listed<'_>> = stored
        .iter()
        .map(|meta| Listed::judged(meta, &root))
        .collect();
    if args.json {
        let records: Vec<Value> = listed.iter().map(record).collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&records)?)?;
    } else if stored.is_empty() {
        tell!("overspill: no stored outputs in {}", dir.display());
    } else {
        write!(out, "{}", table(&listed))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--store URL`: the records of `principal`'s directory, or of every store directory, read
/// from the objects (nothing is cached: a listing fetches only records). As JSON, each record
/// also names its directory (`dir`).
fn from_store(url: &str, principal: Option<&str>, json: bool) -> anyhow::Result<ExitCode> {
    let objects = overspill::store::shared::open_url(url)?;
    let cache = tempfile::tempdir()?;
    let shared = SharedStore::new(objects, cache.path(), 0)?;
    let dirs = match principal {
        Some(name) => vec![overspill_mcp::principal_storage(name)],
        None => shared.store_dirs("")?,
    };
    let mut out = std::io::stdout().lock();
    let mut records = Vec::new();
    let mut any = false;
    for dir in &dirs {
        let stored = shared.records(dir)?;
        let listed: Vec<Listed<'_>> = stored.iter().map(Listed::unjudged).collect();
        if json {
            records.extend(listed.iter().map(|listed| {
                let mut value = record(listed);
                value["dir"] = json!(dir);
                value
            }));
        } else if !stored.is_empty() {
            if principal.is_none() {
                writeln!(out, "{dir}:")?;
            }
            write!(out, "{}", table(&listed))?;
            any = true;
        }
    }
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&records)?)?;
    } else if !any {
        tell!("overspill: no stored outputs in {}", shared.location());
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
    /// A record read from a shared store: its files are not on this machine to judge.
    fn unjudged(meta: &'a Metadata) -> Listed<'a> {
        Listed {
            meta,
            refused: None,
            companions_refused: vec![None; meta.companions.len()],
        }
    }

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
