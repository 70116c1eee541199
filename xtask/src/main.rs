//! `cargo xtask`: the workspace's maintenance commands.
//!
//! - `cargo xtask ci`: what `.ci/run` checks (fmt, clippy `-D warnings`, tidy, the tests).
//! - `cargo xtask tidy`: the layer graph of docs/architecture.md#allowed-dependency-graph, crate docs, and that `.ci/run`
//!   still runs the README's test command.
//! - `cargo xtask bench [--quick]`: every performance scenario of docs/performance.md beside its
//!   baseline in one run, as a PASS/FAIL table (docs/performance.md).
//! - `cargo xtask dist [--target T]`: the binary and its npm, PyPI and tarball packages for one
//!   platform (docs/releasing.md#packages-without-rust).
//! - `cargo xtask release [--dry-run] [--version X.Y.Z]`: the release checks,
//!   packaging, version bump, changelog date and tag of docs/releasing.md (docs/releasing.md).

mod bench;
mod cargo;
mod dist;
mod release;
mod tidy;

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

const USAGE: &str = "usage: cargo xtask <ci|tidy|bench|dist|release>

  ci       cargo fmt --check, clippy -D warnings, tidy, then the README's test command
  tidy     check the layer graph, crate docs and .ci/run against the README
  bench    the performance scenarios beside their baselines, as a PASS/FAIL
           table in target/bench-report.md; `cargo xtask bench --help`
  dist     the binary and its packages without Rust (npm, PyPI wheel, tarball) for
           the host platform; `cargo xtask dist --help`
  release  check, package, bump, date the changelog and tag (never publishes);
           `cargo xtask release --help` for its options";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root()?;
    match args.first().map(String::as_str) {
        Some("tidy") => run_tidy(&root),
        Some("ci") => ci(&root),
        Some("bench") => with_help(&args[1..], bench::USAGE, |rest| {
            bench::run(&root, &bench::Options::parse(rest)?)
        }),
        Some("dist") => with_help(&args[1..], dist::USAGE, |rest| {
            dist::run(&root, &dist::Options::parse(rest)?)
        }),
        Some("release") => with_help(&args[1..], release::USAGE, |rest| {
            release::run(&root, &release::Options::parse(rest)?)
        }),
        Some("-h" | "--help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => bail!("unknown task `{other}`\n\n{USAGE}"),
    }
}

/// Prints `usage` when the task's arguments ask for help; runs the task on them otherwise.
fn with_help(
    rest: &[String],
    usage: &str,
    task: impl FnOnce(&[String]) -> Result<()>,
) -> Result<()> {
    if rest.iter().any(|a| a == "-h" || a == "--help") {
        println!("{usage}");
        return Ok(());
    }
    task(rest)
}

fn workspace_root() -> Result<PathBuf> {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map(Path::to_path_buf)
        .context("xtask must live one level below the workspace root")
}

fn run_tidy(root: &Path) -> Result<()> {
    let problems = tidy::check(root)?;
    if problems.is_empty() {
        println!("tidy: ok");
        return Ok(());
    }
    for problem in &problems {
        eprintln!("tidy: {problem}");
    }
    bail!("tidy found {} problem(s)", problems.len())
}

fn ci(root: &Path) -> Result<()> {
    cargo::run(root, &["fmt", "--all", "--", "--check"])?;
    cargo::run(
        root,
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    run_tidy(root)?;
    let test_command = tidy::readme_test_command(root)?;
    let words: Vec<&str> = test_command.split_whitespace().collect();
    match words.split_first() {
        Some((&"cargo", rest)) => cargo::run(root, rest),
        _ => bail!("the README's test command `{test_command}` does not start with `cargo`"),
    }
}
