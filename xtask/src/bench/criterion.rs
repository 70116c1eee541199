//! Reading criterion's results: each benchmark leaves `<id>/new/benchmark.json` (its id and
//! throughput) and `<id>/new/estimates.json` (its statistics, in nanoseconds) under
//! `CRITERION_HOME`.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

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

/// Every benchmark under `home`, by its full id, with its median time.
pub fn read(home: &Path) -> Result<BTreeMap<String, Measured>> {
    let mut measured = BTreeMap::new();
    visit(home, &mut measured)?;
    Ok(measured)
}

fn visit(dir: &Path, measured: &mut BTreeMap<String, Measured>) -> Result<()> {
    let entries = fs::read_dir(dir).with_context(|| format!("could not list {}", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        if !path.is_dir() {
            continue;
        }
        let benchmark = path.join("benchmark.json");
        if path.file_name().is_some_and(|n| n == "new") && benchmark.is_file() {
            let (id, figure) = one(&path)?;
            measured.insert(id, figure);
        } else {
            visit(&path, measured)?;
        }
    }
    Ok(())
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
mod tests {
    use super::*;

    fn write(home: &Path, dir: &str, benchmark: &str, median_ns: f64) {
        let new = home.join(dir).join("new");
        fs::create_dir_all(&new).unwrap();
        fs::write(new.join("benchmark.json"), benchmark).unwrap();
        let estimates = format!(
            r#"{{"mean":{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0}},"point_estimate":1.5,"standard_error":0.1}},
               "median":{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0}},"point_estimate":{median_ns},"standard_error":0.1}},
               "median_abs_dev":null,"slope":null,"std_dev":null}}"#
        );
        fs::write(new.join("estimates.json"), estimates).unwrap();
    }

    #[test]
    fn medians_are_read_by_full_id_with_their_throughput() {
        let home = tempfile::tempdir().unwrap();
        write(
            home.path(),
            "count_pods.json/o200k_base",
            r#"{"group_id":"count/pods.json","function_id":"o200k_base","value_str":null,"throughput":{"Bytes":1000},"full_id":"count/pods.json/o200k_base","directory_name":"x","title":"x"}"#,
            2.5e6,
        );
        write(
            home.path(),
            "json/later",
            r#"{"group_id":"json","function_id":"later","value_str":null,"throughput":null,"full_id":"json/later","directory_name":"x","title":"x"}"#,
            4e5,
        );
        // A baseline criterion keeps from an earlier run is not this run's figure.
        fs::create_dir_all(home.path().join("json/later/base")).unwrap();
        let measured = read(home.path()).unwrap();
        assert_eq!(measured.len(), 2);
        assert_eq!(
            measured["count/pods.json/o200k_base"],
            Measured::Time {
                seconds: 2.5e-3,
                bytes: Some(1000)
            }
        );
        assert_eq!(
            measured["json/later"],
            Measured::Time {
                seconds: 4e-4,
                bytes: None
            }
        );
    }

    #[test]
    fn a_file_that_is_not_criterions_is_an_error_naming_it() {
        let home = tempfile::tempdir().unwrap();
        write(home.path(), "broken", "{}", 1.0);
        let error = format!("{:#}", read(home.path()).unwrap_err());
        assert!(error.contains("benchmark.json"), "{error}");
    }
}
