//! The git side of a release: a clean tree to package from, the release commit
//! and its tag.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The `git status --porcelain` lines of everything a package could pick up:
/// staged, unstaged and untracked changes (ignored files are not listed).
pub fn dirty_paths(root: &Path) -> Result<Vec<String>> {
    let out = git(root, &["status", "--porcelain", "--untracked-files=all"])?;
    Ok(out
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect())
}

/// Whether the tag `name` exists.
pub fn tag_exists(root: &Path, name: &str) -> Result<bool> {
    let status = Command::new("git")
        .args(["rev-parse", "--quiet", "--verify"])
        .arg(format!("refs/tags/{name}"))
        .current_dir(root)
        .output()
        .context("could not run git: a release needs it for the clean-tree check, commit and tag")?
        .status;
    Ok(status.success())
}

/// Whether `path` (relative to `root`) is tracked.
pub fn is_tracked(root: &Path, path: &str) -> Result<bool> {
    Ok(!git(root, &["ls-files", "--", path])?.trim().is_empty())
}

/// Commits exactly `paths` (other changes in the tree stay out of the commit).
pub fn commit(root: &Path, message: &str, paths: &[&str]) -> Result<()> {
    let mut args = vec!["commit", "--quiet", "-m", message, "--"];
    args.extend_from_slice(paths);
    git(root, &args).map(drop)
}

/// Creates the annotated tag `name` on `HEAD`.
pub fn tag(root: &Path, name: &str, message: &str) -> Result<()> {
    git(root, &["tag", "--annotate", name, "-m", message]).map(drop)
}

/// Runs git in `root` and returns its stdout; a failure carries git's stderr.
fn git(root: &Path, args: &[&str]) -> Result<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .context(
            "could not run git: a release needs it for the clean-tree check, commit and tag",
        )?;
    if !output.status.success() {
        bail!(
            "`git {}` failed in {}: {}",
            args.join(" "),
            root.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    String::from_utf8(output.stdout).context("git printed non-UTF-8 output")
}

#[cfg(test)]
mod tests;
