//! `cargo xtask`: the workspace's maintenance commands.
//!
//! - `cargo xtask ci`: what `.ci/run` checks (fmt, clippy `-D warnings`, tidy, the tests).
//! - `cargo xtask tidy`: what docs/architecture.md#what-cargo-xtask-tidy-checks lists: the layer
//!   graph, module docs, paths and links the docs name, docs/tools.md against the tools'
//!   definitions, the flags' defaults the docs state against the binary's (`overspill
//!   doc-facts`, which it builds), and that `.ci/run` still runs the README's test command.
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

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{CommandFactory, Parser, Subcommand};

/// `cargo xtask`'s command line.
#[derive(Debug, Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "The overspill workspace's maintenance commands."
)]
struct Xtask {
    #[command(subcommand)]
    task: Option<Task>,
}

/// One task and its options.
#[derive(Debug, Subcommand)]
enum Task {
    /// Run cargo fmt --check, clippy -D warnings, tidy, then the README's test command
    Ci,
    /// Check the layer graph, module docs, the docs' paths and links, docs/tools.md against the tools, the docs' flag defaults against the binary's, and .ci/run against the README
    Tidy,
    Bench(bench::Options),
    Dist(dist::Options),
    Release(release::Options),
}

fn main() -> Result<()> {
    let Some(task) = Xtask::parse().task else {
        // A bare `cargo xtask` lists the tasks, as `--help` does.
        Xtask::command().print_help()?;
        return Ok(());
    };
    let root = workspace_root()?;
    match task {
        Task::Ci => ci(&root),
        Task::Tidy => run_tidy(&root),
        Task::Bench(options) => bench::run(&root, &options),
        Task::Dist(options) => dist::run(&root, &options),
        Task::Release(options) => release::run(&root, &options),
    }
}

fn workspace_root() -> Result<PathBuf> {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map(Path::to_path_buf)
        .context("xtask must live one level below the workspace root")
}

fn run_tidy(root: &Path) -> Result<()> {
    let problems = tidy::check(root, &tidy::Facts::of_binary(root)?)?;
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

#[cfg(test)]
mod tests;
