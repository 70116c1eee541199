//! The `hostile` bench's rows (issue 22, item 5): one tool call per hostile input, its time
//! and its process's peak memory beside the input's size, as `info` rows. The bounds they
//! show are stated in docs/security.md; the tests check the answers, never the time.
//!
//! The bench prints one line per case (see `crates/overspill-explore/benches/hostile.rs`):
//! `hostile: case=<name> file_bytes=N seconds=S peak_rss_bytes=M answer=<code>`. The rows are
//! built from those lines, so a case added to the bench needs no change here.

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
            target: Target::Info,
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
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_hostile_line_gives_a_time_row_and_a_memory_row() {
        let stdout = "noise\nhostile: case=grep a{99999}, 1 MB of `a` file_bytes=1000001 seconds=0.001200 peak_rss_bytes=9437184 answer=invalid_argument\nhostile: case=read, 100 MB log file_bytes=100000000 seconds=0.25 peak_rss_bytes=120000000 answer=read_too_large\n";
        let (rows, measured) = read(stdout).unwrap();
        assert_eq!(rows.len(), 4);
        assert_eq!(
            rows[0].name,
            "hostile: grep a{99999}, 1 MB of `a` → invalid_argument, time"
        );
        assert_eq!(
            rows[3].name,
            "hostile: read, 100 MB log, peak memory against the file"
        );
        assert_eq!(rows[3].baseline.as_deref(), Some("hostile/1/file"));
        assert_eq!(
            measured["hostile/0/seconds"],
            Measured::Time {
                seconds: 0.0012,
                bytes: None
            }
        );
        assert_eq!(measured["hostile/1/peak_rss"], Measured::Bytes(120_000_000));
        assert_eq!(measured["hostile/1/file"], Measured::Bytes(100_000_000));
        assert!(rows.iter().all(|r| r.target == Target::Info));
    }

    #[test]
    fn a_malformed_or_missing_line_is_an_error() {
        assert!(read("nothing").is_err());
        assert!(read("hostile: case=x file_bytes=1 seconds=a peak_rss_bytes=1 answer=y").is_err());
        assert!(read("hostile: case=x seconds=1").is_err());
    }
}
