//! The `hostile` bench's rows (issue 22, item 5; issue 28, item 5): one tool call per hostile
//! input, or a session (the input intercepted, then every tool), its time and its process's
//! peak memory beside the input's size. The bounds they show are stated in
//! docs/security.md; the tests check the answers, never the time.
//!
//! The bench prints one line per case (see `crates/overspill/benches/hostile.rs`):
//! `hostile: case=<name> file_bytes=N seconds=S peak_rss_bytes=M answer=<code>`, and
//! ` memory_bound=<T>x+<P>MB` at the end for a case whose peak must stay within `T` times the
//! input plus `P` MB: its memory row is then a PASS/FAIL row, every other row is `info`. The
//! rows are built from those lines, so a case added to the bench needs no change here.

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail};

use super::scenarios::{Measured, Scenario, Target};

/// The bench that runs the hostile calls, each in a process of its own.
pub const BENCH: &str = "hostile";

/// The rows and their measurements, from what the bench printed.
pub fn read(stdout: &str) -> Result<(Vec<Scenario>, BTreeMap<String, Measured>)> {
    let mut scenarios = Vec::new();
    let mut measured = BTreeMap::new();
    for (index, line) in stdout
        .lines()
        .filter_map(|l| l.strip_prefix("hostile: "))
        .enumerate()
    {
        let case = Case::parse(line).with_context(|| format!("the hostile line `{line}`"))?;
        let id = |what: &str| format!("hostile/{index}/{what}");
        scenarios.push(Scenario {
            name: format!("hostile: {} → {}, time", case.name, case.answer),
            ours: id("seconds"),
            baseline: None,
            target: Target::Info,
        });
        scenarios.push(Scenario {
            name: format!("hostile: {}, peak memory against the file", case.name),
            ours: id("peak_rss"),
            baseline: Some(id("file")),
            target: case.memory_bound.unwrap_or(Target::Info),
        });
        measured.insert(
            id("seconds"),
            Measured::Time {
                seconds: case.seconds,
                bytes: None,
            },
        );
        measured.insert(id("peak_rss"), Measured::Bytes(case.peak_rss_bytes));
        measured.insert(id("file"), Measured::Bytes(case.file_bytes));
    }
    if scenarios.is_empty() {
        bail!("the hostile bench printed no `hostile:` line");
    }
    Ok((scenarios, measured))
}

/// One printed case.
struct Case<'a> {
    name: &'a str,
    file_bytes: u64,
    seconds: f64,
    peak_rss_bytes: u64,
    answer: &'a str,
    /// `memory_bound=4x+256MB`, when the line has it.
    memory_bound: Option<Target>,
}

impl<'a> Case<'a> {
    /// `case=<name with spaces> file_bytes=N seconds=S peak_rss_bytes=M answer=<code>`: the
    /// name runs up to ` file_bytes=`.
    fn parse(line: &'a str) -> Result<Case<'a>> {
        let rest = line.strip_prefix("case=").context("no case=")?;
        let (name, figures) = rest.split_once(" file_bytes=").context("no file_bytes=")?;
        let mut fields = BTreeMap::new();
        fields.insert("file_bytes", figures.split(' ').next().unwrap_or_default());
        for field in figures.split(' ').skip(1) {
            let (key, value) = field.split_once('=').context("a field is not key=value")?;
            fields.insert(key, value);
        }
        let number = |key: &str| -> Result<&str> {
            fields
                .get(key)
                .copied()
                .with_context(|| format!("no {key}="))
        };
        Ok(Case {
            name,
            file_bytes: number("file_bytes")?.parse().context("file_bytes")?,
            seconds: number("seconds")?.parse().context("seconds")?,
            peak_rss_bytes: number("peak_rss_bytes")?
                .parse()
                .context("peak_rss_bytes")?,
            answer: number("answer")?,
            memory_bound: fields
                .get("memory_bound")
                .map(|bound| memory_bound(bound))
                .transpose()?,
        })
    }
}

/// `4x+256MB` as a target.
fn memory_bound(text: &str) -> Result<Target> {
    let (times, plus) = text
        .split_once("x+")
        .with_context(|| format!("memory_bound={text} is not <T>x+<P>MB"))?;
    let plus = plus
        .strip_suffix("MB")
        .with_context(|| format!("memory_bound={text} does not end in MB"))?;
    Ok(Target::MemoryWithin {
        times: times.parse().context("memory_bound's times")?,
        plus_mb: plus.parse().context("memory_bound's MB")?,
    })
}

#[cfg(test)]
mod tests;
