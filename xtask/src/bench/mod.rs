//! `cargo xtask bench [--quick]`: every scenario of docs/performance.md beside its baseline, in one run,
//! with a PASS/FAIL table (docs/performance.md says what each row means).
//!
//! 1. The inputs are generated once into `target/bench-data` by `overspill-benchdata`.
//! 2. Each criterion bench runs with its output in `target/bench-report/criterion`, emptied
//!    first, so no figure from an earlier run can reach the table.
//! 3. The `json_memory` bench prints the peak memory of the JSON sequence, and the `mcp_proxy`
//!    bench the MCP proxy's figures (round trips on stdio and over HTTP, calls per second over
//!    HTTP, a 60 MB result from a stdio and from an HTTP server, peak memory, a gateway's, the
//!    first answer with and without cached token tables), each as a line of `key=value` fields.
//! 4. [`stateless`] measures a 2026-07-28 call through `overspill mcp --listen` itself, with the
//!    `mcp_proxy` bench's servers and the release `overspill` (round trips, and each process's
//!    CPU time per call).
//! 5. [`hook`] times `overspill hook claude-code` with a small output, process start to exit,
//!    against `cat` of the same input.
//! 6. [`scenarios::evaluate`] pairs each measurement with its baseline; the table is printed
//!    and written to `target/bench-report.md`.

mod criterion;
mod hook;
mod hostile;
mod scenarios;
mod shared;
mod stateless;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use overspill_benchdata::{MB, Shape};

use scenarios::{Measured, PEAK_RSS, PEAK_RSS_FILE, Row, Verdict, dist, mcp};

/// The options of `cargo xtask bench` (its `--help` is this type's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::Args)]
#[command(
    about = "The performance scenarios beside their baselines, as a PASS/FAIL table in \
             target/bench-report.md",
    long_about = "Runs every benchmark scenario of docs/performance.md next to its baseline in \
                  one run and prints a table (also written to target/bench-report.md): scenario, \
                  overspill, baseline, ratio, target, PASS/FAIL.",
    after_help = "Inputs are generated once into target/bench-data ($OVERSPILL_BENCH_DATA to \
                  move them). GNU grep on PATH is the grep baseline; without it the grep rows \
                  have none."
)]
pub struct Options {
    /// Shorter measurements and counting on one input (under 3 minutes once built); the full
    /// run takes about 15
    #[arg(long)]
    pub quick: bool,
}

/// The criterion benches, in the order they run. Bench names are unique in the workspace,
/// and every command selects `--workspace`, so the build and each run resolve the same
/// features and nothing is compiled twice.
const BENCHES: &[&str] = &[
    "count",
    "write",
    "intercept",
    "line_tools",
    "json_tools",
    "retries",
];

/// The bench that measures peak memory, in a process of its own.
const MEMORY_BENCH: &str = "json_memory";

/// The bench that measures the MCP proxy, a process (the release `overspill`) of its own.
const PROXY_BENCH: &str = "mcp_proxy";

/// The bench that times the first count of fresh processes.
const FIRST_COUNT_BENCH: &str = "first_count";

/// Every input the benches read: generated before any bench runs.
const INPUTS: &[(Shape, u64)] = &[
    (Shape::PodsPretty, 10 * MB),
    (Shape::PodsCompact, 10 * MB),
    (Shape::Log, 10 * MB),
    (Shape::Log, MB),
    (Shape::Log, 100 * MB),
    (Shape::PodsPretty, 110 * MB),
    // The refused `head`, `slice`, `grep` and `read` calls: about 201,000 lines.
    (Shape::Log, 20 * MB),
    // The MCP proxy's large result, and the small one beside it.
    (Shape::Log, 60 * MB),
    (Shape::Log, overspill_benchdata::TEST_MODE_BYTES),
];

/// Runs the benches and prints the report.
pub fn run(root: &Path, options: &Options) -> Result<()> {
    let started = Instant::now();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let data = overspill_benchdata::data_dir();
    let home = target.join("bench-report").join("criterion");

    eprintln!("xtask bench: generating the inputs in {}", data.display());
    for &(shape, bytes) in INPUTS {
        overspill_benchdata::ensure_in(&data, shape, bytes)
            .with_context(|| format!("could not generate {}", shape.file_name(bytes)))?;
    }

    let shared_parts = shared::parts(root, &target);
    eprintln!("xtask bench: building the benches (release profile)");
    let build = Instant::now();
    let all: Vec<&str> = BENCHES
        .iter()
        .copied()
        .chain([MEMORY_BENCH, PROXY_BENCH, FIRST_COUNT_BENCH, hostile::BENCH])
        .chain(shared_parts.is_some().then_some(shared::BENCH))
        .collect();
    let runner = Runner {
        root,
        data: &data,
        home: &home,
        quick: options.quick,
    };
    runner.run(&all, &["--no-run"], &[])?;
    let build = build.elapsed();

    if home.exists() {
        std::fs::remove_dir_all(&home)
            .with_context(|| format!("could not empty {}", home.display()))?;
    }
    let measure = Instant::now();
    let criterion_args: &[&str] = if options.quick {
        &["--warm-up-time", "0.5", "--measurement-time", "1"]
    } else {
        &["--warm-up-time", "1", "--measurement-time", "5"]
    };
    for bench in BENCHES {
        runner.run(&[bench], &[], criterion_args)?;
    }
    let mut measured = criterion::read(&home)?;
    let memory = runner.output(MEMORY_BENCH)?;
    measured.extend(json_memory(&memory)?);
    let proxy = runner.output(PROXY_BENCH)?;
    measured.extend(mcp_proxy(&proxy)?);
    let binaries = stateless::Binaries::of(&runner.executables(PROXY_BENCH)?, PROXY_BENCH)?;
    let scratch = target.join("bench-report").join("stateless");
    measured.extend(stateless::measure(&binaries, &scratch, options.quick)?);
    let scratch = target.join("bench-report").join("hook");
    measured.extend(hook::measure(&binaries.overspill, &scratch, options.quick)?);
    let (hostile_rows, hostile_measured) = hostile::read(&runner.output(hostile::BENCH)?)?;
    measured.extend(hostile_measured);
    measured.extend(first_count(&runner.output(FIRST_COUNT_BENCH)?)?);
    measured.extend(dist_sizes(root, &target)?);
    if let Some(redis) = &shared_parts {
        let scratch = target.join("bench-report").join("shared-store");
        let command = runner.command(&[shared::BENCH]);
        measured.extend(shared::measure(root, redis, &scratch, command)?);
    }
    let measure = measure.elapsed();

    let gnu_grep = measured.keys().any(|id| id.ends_with("/GNU grep -n -C3"));
    let mut all_scenarios = scenarios::all(options.quick, gnu_grep);
    all_scenarios.extend(hostile_rows);
    if shared_parts.is_some() {
        all_scenarios.extend(scenarios::shared_store());
    }
    let rows = scenarios::evaluate(&all_scenarios, &measured).map_err(|missing| {
        anyhow::anyhow!(
            "these measurements are missing, so a bench and xtask/src/bench/scenarios.rs \
                 disagree on a name: {}",
            missing.join(", ")
        )
    })?;
    let table = table(&rows);
    println!("{table}");
    let report = report(
        root,
        options,
        &table,
        &rows,
        build,
        measure,
        started.elapsed(),
    );
    let path = target.join("bench-report.md");
    std::fs::write(&path, report).with_context(|| format!("could not write {}", path.display()))?;
    let failed = rows.iter().filter(|r| r.verdict == Verdict::Fail).count();
    eprintln!(
        "xtask bench: {} scenarios, {} PASS, {failed} FAIL; report in {} ({:.0} s in all)",
        rows.len(),
        rows.iter().filter(|r| r.verdict == Verdict::Pass).count(),
        path.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Where a run's benches read and write.
struct Runner<'a> {
    root: &'a Path,
    data: &'a Path,
    home: &'a Path,
    quick: bool,
}

impl Runner<'_> {
    /// `cargo bench --workspace --bench B…` with the run's environment.
    fn command(&self, benches: &[&str]) -> Command {
        let mut command = crate::cargo::command(self.root);
        command.args(["bench", "--quiet", "--workspace"]);
        for bench in benches {
            command.args(["--bench", bench]);
        }
        command
            .env("OVERSPILL_BENCH_DATA", self.data)
            .env("CRITERION_HOME", self.home);
        if self.quick {
            command.env("OVERSPILL_BENCH_QUICK", "1");
        } else {
            command.env_remove("OVERSPILL_BENCH_QUICK");
        }
        command
    }

    /// Runs `benches` with `cargo_args`, and `bench_args` after `--`.
    fn run(&self, benches: &[&str], cargo_args: &[&str], bench_args: &[&str]) -> Result<()> {
        let mut command = self.command(benches);
        command.args(cargo_args);
        if !bench_args.is_empty() {
            command.arg("--").args(bench_args);
        }
        let what = format!(
            "cargo bench --bench {} {}",
            benches.join(" --bench "),
            cargo_args.join(" ")
        );
        eprintln!("xtask bench: {what}");
        let status = command
            .status()
            .with_context(|| format!("could not start `{what}`"))?;
        if !status.success() {
            bail!("`{what}` failed ({status})");
        }
        Ok(())
    }

    /// The executables cargo built for `bench` (built already), by target name: the bench's
    /// own and the binaries it runs, such as `overspill`.
    fn executables(&self, bench: &str) -> Result<BTreeMap<String, PathBuf>> {
        let output = self
            .command(&[bench])
            .args(["--no-run", "--message-format=json"])
            .stderr(std::process::Stdio::inherit())
            .output()
            .with_context(|| format!("could not start cargo bench --bench {bench} --no-run"))?;
        if !output.status.success() {
            bail!(
                "cargo bench --bench {bench} --no-run failed ({})",
                output.status
            );
        }
        let mut built = BTreeMap::new();
        for message in cargo_metadata::Message::parse_stream(output.stdout.as_slice()) {
            let message = message.context("cargo's build messages could not be read")?;
            if let cargo_metadata::Message::CompilerArtifact(artifact) = message
                && let Some(executable) = artifact.executable
            {
                built.insert(artifact.target.name, executable.into_std_path_buf());
            }
        }
        Ok(built)
    }

    /// Runs `bench` and returns what it printed.
    fn output(&self, bench: &str) -> Result<String> {
        eprintln!("xtask bench: cargo bench --bench {bench}");
        let output = self
            .command(&[bench])
            .stderr(std::process::Stdio::inherit())
            .output()
            .with_context(|| format!("could not start cargo bench --bench {bench}"))?;
        if !output.status.success() {
            bail!("cargo bench --bench {bench} failed ({})", output.status);
        }
        String::from_utf8(output.stdout)
            .with_context(|| format!("the {bench} bench printed something not UTF-8"))
    }
}

/// The figures of the `json_memory` line: `json_memory: file_bytes=N peak_rss_bytes=M`.
fn json_memory(stdout: &str) -> Result<BTreeMap<String, Measured>> {
    let fields = fields(stdout, "json_memory")?;
    let mut figures = BTreeMap::new();
    for (key, id) in [("file_bytes", PEAK_RSS_FILE), ("peak_rss_bytes", PEAK_RSS)] {
        figures.insert(
            id.to_owned(),
            Measured::Bytes(field(&fields, "json_memory", key)?),
        );
    }
    Ok(figures)
}

/// The figures of the `first_count` line (nanoseconds; see
/// `crates/overspill-tokens/benches/first_count.rs`).
fn first_count(stdout: &str) -> Result<BTreeMap<String, Measured>> {
    times(
        stdout,
        FIRST_COUNT_BENCH,
        &[
            ("prebuilt_ns", dist::FIRST_COUNT_PREBUILT),
            ("built_ns", dist::FIRST_COUNT_BUILT),
            ("cached_ns", dist::FIRST_COUNT_CACHED),
        ],
    )
}

/// The times a bench printed on its `bench:` line in nanoseconds, each `(field, id)` recorded
/// under its id.
fn times(stdout: &str, bench: &str, ids: &[(&str, &str)]) -> Result<BTreeMap<String, Measured>> {
    let fields = fields(stdout, bench)?;
    let mut figures = BTreeMap::new();
    for &(key, id) in ids {
        let seconds = field(&fields, bench, key)? as f64 / 1e9;
        figures.insert(
            id.to_owned(),
            Measured::Time {
                seconds,
                bytes: None,
            },
        );
    }
    Ok(figures)
}

/// The sizes of what `cargo xtask dist` made for the host (made now if `target/dist` has no
/// packages): the stripped binary as the tarball holds it, and each package file.
fn dist_sizes(root: &Path, target: &Path) -> Result<BTreeMap<String, Measured>> {
    let out = target.join("dist");
    // Packages of this version for this machine, else made now.
    let version = crate::dist::version(root)?;
    let host = crate::dist::archive_name(&version, &crate::dist::host_target()?);
    let current = crate::dist::packages(&out, &version)
        .is_ok_and(|made| made.tarball.ends_with(format!("{host}.tar.gz")));
    if !current {
        eprintln!(
            "xtask bench: no {host}.tar.gz in {}; running `cargo xtask dist`",
            out.display()
        );
        crate::dist::run(root, &crate::dist::Options::default())?;
    }
    let made = crate::dist::packages(&out, &version)?;
    let size = |path: &Path| -> Result<Measured> {
        let bytes = std::fs::metadata(path)
            .with_context(|| format!("cannot measure {}", path.display()))?
            .len();
        Ok(Measured::Bytes(bytes))
    };
    BTreeMap::from([
        (
            dist::BINARY,
            Ok(Measured::Bytes(crate::dist::binary_size_in(&made.tarball)?)),
        ),
        (dist::TARBALL, size(&made.tarball)),
        (dist::WHEEL, size(&made.wheel)),
        (dist::NPM_LAUNCHER, size(&made.npm_launcher)),
        (dist::NPM_PLATFORM, size(&made.npm_platform)),
    ])
    .into_iter()
    .map(|(id, figure)| Ok((id.to_owned(), figure?)))
    .collect()
}

/// The figures of the `mcp_proxy` line (times in nanoseconds, sizes in bytes; see
/// `crates/overspill-cli/benches/mcp_proxy.rs`).
fn mcp_proxy(stdout: &str) -> Result<BTreeMap<String, Measured>> {
    let fields = fields(stdout, "mcp_proxy")?;
    let get = |key: &str| field(&fields, "mcp_proxy", key);
    let result_bytes = get("result_bytes")?;
    let time = |key: &str, bytes: Option<u64>| -> Result<Measured> {
        Ok(Measured::Time {
            seconds: get(key)? as f64 / 1e9,
            bytes,
        })
    };
    // A burst is `http_burst_calls` calls from concurrent clients, timed as a whole.
    let rate = |key: &str| -> Result<Measured> {
        let calls = get("http_burst_calls")? as f64;
        let seconds = get(key)? as f64 / 1e9;
        if seconds <= 0.0 {
            bail!("the mcp_proxy line has {key}=0");
        }
        Ok(Measured::CallsPerSecond(calls / seconds))
    };
    let mut figures = BTreeMap::new();
    for (id, figure) in [
        (mcp::ROUND_TRIP_DIRECT, time("direct_round_trip_ns", None)?),
        (mcp::ROUND_TRIP_PROXIED, time("proxy_round_trip_ns", None)?),
        (
            mcp::AFTER_LAST_BYTE,
            time("after_last_byte_ns", Some(result_bytes))?,
        ),
        (
            mcp::COUNT_WRITE,
            time("count_write_ns", Some(result_bytes))?,
        ),
        (
            mcp::REQUEST_TO_POINTER,
            time("request_to_pointer_ns", None)?,
        ),
        (
            mcp::REQUEST_DIRECTLY,
            time("request_to_result_directly_ns", None)?,
        ),
        (mcp::RESULT_BYTES, Measured::Bytes(result_bytes)),
        (
            mcp::PEAK_RSS,
            Measured::Bytes(get("peak_rss_bytes").context("(not Linux?)")?),
        ),
        (
            mcp::SMALL_PEAK_RSS,
            Measured::Bytes(get("small_peak_rss_bytes")?),
        ),
        (
            mcp::HTTP_ROUND_TRIP_DIRECT,
            time("http_direct_round_trip_ns", None)?,
        ),
        (
            mcp::HTTP_ROUND_TRIP_PROXIED,
            time("http_proxy_round_trip_ns", None)?,
        ),
        (
            mcp::HTTP_ROUND_TRIP_COUNTED,
            time("http_metrics_round_trip_ns", None)?,
        ),
        (mcp::HTTP_RATE_DIRECT, rate("http_direct_burst_ns")?),
        (mcp::HTTP_RATE_PROXIED, rate("http_proxy_burst_ns")?),
        (
            mcp::URL_AFTER_LAST_BYTE,
            time("url_after_last_byte_ns", Some(result_bytes))?,
        ),
        (
            mcp::URL_COUNT_WRITE,
            time("url_count_write_ns", Some(result_bytes))?,
        ),
        (
            mcp::URL_PEAK_RSS,
            Measured::Bytes(get("url_peak_rss_bytes").context("(not Linux?)")?),
        ),
        (
            mcp::GATEWAY_TOOLS,
            Measured::Tokens(get("gateway_tools_tokens")?),
        ),
        (
            mcp::PROXIES_TOOLS,
            Measured::Tokens(get("proxies_tools_tokens")?),
        ),
        (
            mcp::GATEWAY_ROUND_TRIP,
            time("gateway_round_trip_ns", None)?,
        ),
        (
            mcp::GATEWAY_PROXY_ROUND_TRIP,
            time("gateway_proxy_round_trip_ns", None)?,
        ),
        (mcp::GATEWAY_STARTUP, time("gateway_startup_ns", None)?),
        (
            mcp::GATEWAY_STARTUP_ONE,
            time("gateway_startup_one_ns", None)?,
        ),
    ] {
        figures.insert(id.to_owned(), figure);
    }
    for (opening, ids) in ["initialize", "discover"]
        .into_iter()
        .zip(mcp::FIRST_ANSWER)
    {
        for (side, id) in ["direct", "cold", "warm"].into_iter().zip(ids) {
            figures.insert(
                id.to_owned(),
                time(&format!("first_{opening}_{side}_ns"), None)?,
            );
        }
    }
    Ok(figures)
}

/// The `key=value` fields of the line `<bench>: …` a bench printed.
fn fields(stdout: &str, bench: &str) -> Result<BTreeMap<String, u64>> {
    let prefix = format!("{bench}: ");
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .with_context(|| format!("the {bench} bench printed no `{bench}:` line (not Linux?)"))?;
    let mut fields = BTreeMap::new();
    for field in line.split_whitespace() {
        let (key, value) = field
            .split_once('=')
            .with_context(|| format!("`{field}` in the {bench} line is not key=value"))?;
        let value: u64 = value
            .parse()
            .with_context(|| format!("`{field}` in the {bench} line is not a number"))?;
        fields.insert(key.to_owned(), value);
    }
    Ok(fields)
}

fn field(fields: &BTreeMap<String, u64>, bench: &str, key: &str) -> Result<u64> {
    fields
        .get(key)
        .copied()
        .with_context(|| format!("the {bench} line has no {key}"))
}

/// The Markdown table of the rows.
fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| scenario | overspill | baseline | ratio | target | result |\n|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            row.scenario.name, row.ours, row.baseline, row.ratio, row.scenario.target, row.verdict
        );
    }
    out
}

fn report(
    root: &Path,
    options: &Options,
    table: &str,
    rows: &[Row],
    build: std::time::Duration,
    measure: std::time::Duration,
    total: std::time::Duration,
) -> String {
    let commit = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or_else(
            || "unknown".to_owned(),
            |o| String::from_utf8_lossy(&o.stdout).trim().to_owned(),
        );
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|m| m.trim_start_matches([' ', '\t', ':']).to_owned())
            })
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let failed: Vec<&str> = rows
        .iter()
        .filter(|r| r.verdict == Verdict::Fail)
        .map(|r| r.scenario.name.as_str())
        .collect();
    let mut out = String::new();
    let _ = writeln!(out, "# overspill bench report\n");
    let _ = writeln!(
        out,
        "`cargo xtask bench{}` at commit {commit}, on {cores} cores ({cpu}).\n",
        if options.quick { " --quick" } else { "" }
    );
    let _ = writeln!(
        out,
        "Times are medians (criterion's, and the mcp_proxy bench's own or xtask's for the MCP \
         proxy rows), except the CPU rows, each a process's CPU time over its calls divided by \
         them; each ratio divides overspill's figure by the baseline's, both measured in this \
         run. docs/performance.md explains each row.\n"
    );
    out.push_str(table);
    let _ = writeln!(
        out,
        "\nBuilding took {:.0} s, measuring {:.0} s, {:.0} s in all.",
        build.as_secs_f64(),
        measure.as_secs_f64(),
        total.as_secs_f64()
    );
    if failed.is_empty() {
        let _ = writeln!(out, "\nEvery target is met.");
    } else {
        let _ = writeln!(out, "\nMissed: {}.", failed.join("; "));
    }
    out
}

#[cfg(test)]
mod tests;
