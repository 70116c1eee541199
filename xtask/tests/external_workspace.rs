//! The facade as another workspace sees it: `tests/fixtures/external-workspace`
//! is an application with its own `[workspace]` that depends on
//! `crates/overspill` by path. Building and running it proves the crates build
//! outside this workspace (no reliance on our workspace's features or members)
//! and that intercept + an exploration tool work through the public API alone.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The overspill crates, built unoptimised as in our own workspace. The outside
/// workspace's profile optimises every dependency, which would also optimise
/// these; only their compile time depends on it, so the test keeps it low.
const OVERSPILL_CRATES: &[&str] = &[
    "overspill-tokens",
    "overspill-config",
    "overspill-store",
    "overspill-budget",
    "overspill-explore",
    "overspill-artifacts",
    "overspill",
];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

#[test]
fn an_outside_workspace_depending_on_the_facade_by_path_builds_intercepts_and_explores() {
    let root = workspace_root();
    let fixture = root.join("tests/fixtures/external-workspace");
    // Seed its lock file with ours: the outside build then resolves the same
    // versions and reuses the dependencies this workspace already compiled.
    // The copy is ignored by the fixture's .gitignore.
    fs::copy(root.join("Cargo.lock"), fixture.join("Cargo.lock")).unwrap();
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let memory = tempfile::tempdir().unwrap();

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut command = Command::new(cargo);
    command
        .args(["run", "--quiet", "--manifest-path"])
        .arg(fixture.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target_dir)
        .current_dir(&fixture);
    for krate in OVERSPILL_CRATES {
        command
            .arg("--config")
            .arg(format!("profile.dev.package.{krate}.opt-level=0"));
    }
    command.arg("--").arg(memory.path().join("memory"));
    let output = command.output().unwrap();

    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the external host failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    assert!(
        stdout.contains("was too large for your context, so it was stored"),
        "no pointer:\n{stdout}"
    );
    assert!(
        stdout.contains("ERROR deploy step 7 done"),
        "grep found nothing:\n{stdout}"
    );
    assert!(
        stdout.contains("event: aura.scratchpad_usage"),
        "no usage event:\n{stdout}"
    );
    assert!(stdout.trim_end().ends_with("external host: ok"), "{stdout}");
}
