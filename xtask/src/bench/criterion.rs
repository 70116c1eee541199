//! Reading criterion's results: each benchmark leaves `<id>/new/benchmark.json` (its id and
//! throughput) and `<id>/new/estimates.json` (its statistics, in nanoseconds) under
//! `CRITERION_HOME`.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;
use walkdir::WalkDir;

use super::scenarios::Measured;

#[derive(Deserialize)]
struct Benchmark {
    full_id: String,
    throughput: Option<Throughput>,
}

#[derive(Deserialize)]
enum Throughput {
    Bytes(u64),
    BytesDecimal(u64),
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct Estimates {
    median: Estimate,
}

#[derive(Deserialize)]
struct Estimate {
    point_estimate: f64,
}

/// Every benchmark under `home`, by its full id, with its median time: criterion keeps a
/// run's figures in a `new` directory beside its `benchmark.json`.
pub fn read(home: &Path) -> Result<BTreeMap<String, Measured>> {
    let mut measured = BTreeMap::new();
    for entry in WalkDir::new(home) {
        let entry = entry.with_context(|| format!("could not list {}", home.display()))?;
        let path = entry.path();
        if entry.file_type().is_dir()
            && path.file_name().is_some_and(|n| n == "new")
            && path.join("benchmark.json").is_file()
        {
            let (id, figure) = one(path)?;
            measured.insert(id, figure);
        }
    }
    Ok(measured)
}

fn one(new: &Path) -> Result<(String, Measured)> {
    let read = |name: &str| {
        let path = new.join(name);
        fs::read_to_string(&path).with_context(|| format!("could not read {}", path.display()))
    };
    let benchmark: Benchmark = serde_json::from_str(&read("benchmark.json")?)
        .with_context(|| format!("{} is not criterion's benchmark.json", new.display()))?;
    let estimates: Estimates = serde_json::from_str(&read("estimates.json")?)
        .with_context(|| format!("{} is not criterion's estimates.json", new.display()))?;
    let bytes = match benchmark.throughput {
        Some(Throughput::Bytes(n) | Throughput::BytesDecimal(n)) => Some(n),
        Some(Throughput::Other) | None => None,
    };
    let figure = Measured::Time {
        seconds: estimates.median.point_estimate / 1e9,
        bytes,
    };
    Ok((benchmark.full_id, figure))
}

#[cfg(test)]
mod tests;
