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
mod tests {
    use super::*;
    use std::fs;

    /// Runs git for a test, with an identity so commits work on any machine.
    fn run(root: &Path, args: &[&str]) {
        let status = Command::new("git")
            .args([
                "-c",
                "user.name=Release Test",
                "-c",
                "user.email=release@test.invalid",
            ])
            .args(["-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"])
            .args(args)
            .current_dir(root)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        run(dir.path(), &["init", "--quiet"]);
        fs::write(dir.path().join(".gitignore"), "/target\n").unwrap();
        fs::write(dir.path().join("Cargo.toml"), "[workspace]\n").unwrap();
        run(dir.path(), &["add", "."]);
        run(dir.path(), &["commit", "--quiet", "-m", "init"]);
        dir
    }

    #[test]
    fn a_fresh_commit_is_a_clean_tree() {
        let dir = repo();
        assert_eq!(dirty_paths(dir.path()).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn modified_staged_and_untracked_files_make_the_tree_dirty() {
        let dir = repo();
        fs::write(dir.path().join("Cargo.toml"), "[workspace]\n# edit\n").unwrap();
        fs::create_dir_all(dir.path().join("crates/x")).unwrap();
        fs::write(dir.path().join("crates/x/new.rs"), "").unwrap();
        fs::write(dir.path().join("staged.md"), "").unwrap();
        run(dir.path(), &["add", "staged.md"]);
        let dirty = dirty_paths(dir.path()).unwrap();
        assert_eq!(dirty.len(), 3, "{dirty:?}");
        assert!(dirty.iter().any(|l| l.ends_with("Cargo.toml")));
        assert!(dirty.iter().any(|l| l.ends_with("crates/x/new.rs")));
        assert!(dirty.iter().any(|l| l.ends_with("staged.md")));
    }

    #[test]
    fn ignored_files_do_not_make_the_tree_dirty() {
        let dir = repo();
        fs::create_dir_all(dir.path().join("target/debug")).unwrap();
        fs::write(dir.path().join("target/debug/out"), "x").unwrap();
        assert!(dirty_paths(dir.path()).unwrap().is_empty());
    }

    #[test]
    fn outside_a_repository_the_clean_tree_check_fails_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let message = dirty_paths(dir.path()).unwrap_err().to_string();
        assert!(message.contains("git status"), "{message}");
    }

    #[test]
    fn tags_are_found_once_created() {
        let dir = repo();
        assert!(!tag_exists(dir.path(), "v0.1.0").unwrap());
        run(dir.path(), &["tag", "v0.1.0"]);
        assert!(tag_exists(dir.path(), "v0.1.0").unwrap());
        assert!(is_tracked(dir.path(), "Cargo.toml").unwrap());
        assert!(!is_tracked(dir.path(), "Cargo.lock").unwrap());
    }
}
