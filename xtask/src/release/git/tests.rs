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
