//! `cargo xtask release` end to end on synthetic workspaces: a git repository
//! holding tiny but real crates named after tidy's LAYERS, with the layer
//! graph's edges as dependencies. Each test breaks one precondition and checks
//! that the release fails with a message saying what to fix, or releases one
//! and checks the commit and tag.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

use super::audit::REQUIRED_FILES;
use super::{Options, run};
use crate::tidy::LAYERS;

/// Cargo runs one at a time: the tests stay fast on two cores, and a shared
/// `CARGO_TARGET_DIR` (if CI sets one) never sees two packagings at once.
static CARGO: Mutex<()> = Mutex::new(());

struct Synthetic {
    dir: tempfile::TempDir,
}

impl Synthetic {
    /// A clean, releasable workspace at 0.1.0 with one unreleased changelog entry.
    fn new() -> Synthetic {
        let dir = tempfile::tempdir().unwrap();
        let ws = Synthetic { dir };
        let members: Vec<String> = LAYERS
            .iter()
            .map(|(name, _)| format!("    \"crates/{name}\",\n"))
            .collect();
        let internal: Vec<String> = LAYERS
            .iter()
            .map(|(name, _)| {
                format!("{name} = {{ path = \"crates/{name}\", version = \"0.1.0\" }}\n")
            })
            .collect();
        ws.write(
            "Cargo.toml",
            &format!(
                "[workspace]\nresolver = \"3\"\nmembers = [\n{}]\n\n[workspace.package]\n\
                 version = \"0.1.0\"\nedition = \"2024\"\nlicense = \"MIT OR Apache-2.0\"\n\
                 repository = \"https://example.invalid/overspill\"\n\n\
                 [workspace.dependencies]\n{}",
                members.concat(),
                internal.concat()
            ),
        );
        ws.write(".gitignore", "/target\n");
        // No registry is needed: the crates depend only on each other.
        ws.write(".cargo/config.toml", "[net]\noffline = true\n");
        ws.write(
            "CHANGELOG.md",
            "# Changelog\n\n## [Unreleased]\n\n### Added\n- Everything.\n",
        );
        for (name, deps) in LAYERS {
            let dependencies: Vec<String> = deps
                .iter()
                .map(|d| format!("{d} = {{ workspace = true }}\n"))
                .collect();
            ws.write(
                &format!("crates/{name}/Cargo.toml"),
                &format!(
                    "[package]\nname = \"{name}\"\ndescription = \"The synthetic {name}.\"\n\
                     version.workspace = true\nedition.workspace = true\n\
                     license.workspace = true\nrepository.workspace = true\n\
                     readme = \"README.md\"\nkeywords = [\"llm\", \"tokens\"]\n\
                     categories = [\"development-tools\"]\n\n[dependencies]\n{}",
                    dependencies.concat()
                ),
            );
            ws.write(&format!("crates/{name}/README.md"), &format!("# {name}\n"));
            ws.write(
                &format!("crates/{name}/src/lib.rs"),
                "//! A synthetic layer.\n\n/// A value.\npub fn value() -> u32 {\n    1\n}\n",
            );
        }
        // Stand-ins for the embedded assets and their notices, small but present.
        for required in REQUIRED_FILES {
            ws.write(
                &format!("crates/{}/{}", required.krate, required.path),
                "stand-in\n",
            );
        }
        {
            let _cargo = lock();
            let status = crate::cargo::command(ws.root())
                .args(["generate-lockfile", "--quiet"])
                .status()
                .unwrap();
            assert!(status.success());
        }
        ws.git(&["init", "--quiet"]);
        ws.git(&["config", "user.name", "Release Test"]);
        ws.git(&["config", "user.email", "release@test.invalid"]);
        ws.git(&["config", "commit.gpgsign", "false"]);
        ws.git(&["config", "tag.gpgsign", "false"]);
        ws.commit("init");
        ws
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, path: &str, text: &str) {
        let path = self.root().join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn read(&self, path: &str) -> String {
        fs::read_to_string(self.root().join(path)).unwrap()
    }

    /// Rewrites one file by replacing `from` (which must occur) with `to`.
    fn edit(&self, path: &str, from: &str, to: &str) {
        let text = self.read(path);
        assert!(text.contains(from), "{path} lacks {from:?}");
        self.write(path, &text.replacen(from, to, 1));
    }

    fn commit(&self, message: &str) {
        self.git(&["add", "--all"]);
        self.git(&["commit", "--quiet", "--allow-empty", "-m", message]);
    }

    fn git(&self, args: &[&str]) -> String {
        let output = Command::new("git")
            .args(args)
            .current_dir(self.root())
            .output()
            .unwrap();
        assert!(output.status.success(), "git {args:?}: {output:?}");
        String::from_utf8(output.stdout).unwrap()
    }

    /// Runs a dry run that must fail, and checks that its message says each of `says`.
    fn dry_run_fails_saying(&self, says: &[&str]) {
        let message = self.release(dry_run()).unwrap_err();
        for said in says {
            assert!(message.contains(said), "{message}");
        }
    }

    /// Runs the release with `options` and returns its error message, if any.
    fn release(&self, mut options: Options) -> Result<(), String> {
        options.root = Some(self.root().to_path_buf());
        let _cargo = lock();
        run(self.root(), &options).map_err(|e| format!("{e:#}"))
    }
}

fn lock() -> std::sync::MutexGuard<'static, ()> {
    CARGO
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn dry_run() -> Options {
    Options {
        dry_run: true,
        no_verify: true,
        ..Options::default()
    }
}

#[test]
fn release_dry_run_passes_on_a_clean_workspace_including_the_verifying_build() {
    let ws = Synthetic::new();
    let options = Options {
        no_verify: false,
        ..dry_run()
    };
    assert_eq!(ws.release(options), Ok(()));
    assert_eq!(
        ws.git(&["status", "--porcelain"]),
        "",
        "a dry run changes nothing"
    );
    assert_eq!(ws.git(&["tag"]), "");
    assert!(
        ws.root()
            .join("target/package/overspill-tokens-0.1.0.crate")
            .is_file()
    );
}

#[test]
fn release_dry_run_fails_on_a_dirty_tree_naming_the_change() {
    let ws = Synthetic::new();
    ws.write("crates/overspill-store/src/new.rs", "");
    ws.dry_run_fails_saying(&[
        "the working tree is not clean",
        "crates/overspill-store/src/new.rs",
        "1 precondition(s) failed",
    ]);

    let allowed = Options {
        allow_dirty: true,
        ..dry_run()
    };
    assert_eq!(
        ws.release(allowed),
        Ok(()),
        "--allow-dirty skips only that check"
    );
}

#[test]
fn release_dry_run_fails_on_a_version_mismatch() {
    let ws = Synthetic::new();
    ws.edit(
        "crates/overspill-store/Cargo.toml",
        "version.workspace = true",
        "version = \"0.2.0\"",
    );
    ws.commit("store goes its own way");
    ws.dry_run_fails_saying(&[
        "version mismatch: overspill-store is at 0.2.0 but the workspace is at 0.1.0",
        "overspill-store sets its own version",
    ]);
}

#[test]
fn release_dry_run_fails_when_an_internal_requirement_names_another_version() {
    let ws = Synthetic::new();
    ws.edit(
        "Cargo.toml",
        "overspill-tokens = { path = \"crates/overspill-tokens\", version = \"0.1.0\" }",
        "overspill-tokens = { path = \"crates/overspill-tokens\", version = \"0.0.9\" }",
    );
    ws.commit("stale requirement");
    ws.dry_run_fails_saying(&["the requirement on overspill-tokens is `0.0.9`"]);
}

#[test]
fn release_dry_run_fails_without_a_changelog_entry() {
    let ws = Synthetic::new();
    ws.edit("CHANGELOG.md", "- Everything.\n", "");
    ws.commit("empty changelog");
    ws.dry_run_fails_saying(&["CHANGELOG.md has no entries for 0.1.0"]);
}

#[test]
fn release_dry_run_fails_on_missing_metadata_naming_crate_and_field() {
    let ws = Synthetic::new();
    ws.edit(
        "crates/overspill-budget/Cargo.toml",
        "description = \"The synthetic overspill-budget.\"\n",
        "",
    );
    ws.edit(
        "crates/overspill-config/Cargo.toml",
        "keywords = [\"llm\", \"tokens\"]\n",
        "",
    );
    ws.commit("metadata gone");
    ws.dry_run_fails_saying(&[
        "overspill-budget: missing or unusable `description` metadata",
        "overspill-config: missing or unusable `keywords` metadata",
        "2 precondition(s) failed",
    ]);
}

#[test]
fn release_dry_run_fails_when_the_model_notice_would_not_ship() {
    let ws = Synthetic::new();
    ws.git(&[
        "rm",
        "--quiet",
        "crates/overspill-tokens/assets/gemma3/NOTICE",
    ]);
    ws.commit("lost the notice");
    ws.dry_run_fails_saying(&["overspill-tokens does not package `assets/gemma3/NOTICE`"]);
}

#[test]
fn release_dry_run_fails_on_a_large_unexpected_file() {
    let ws = Synthetic::new();
    ws.write(
        "crates/overspill-explore/tests/fixtures/dump.json",
        &"x".repeat(300 * 1024),
    );
    ws.commit("big fixture");
    ws.dry_run_fails_saying(&[
        "overspill-explore would package `tests/fixtures/dump.json` (300.0 KiB)",
    ]);
}

#[test]
fn release_bumps_dates_commits_and_tags_and_then_refuses_to_repeat() {
    let ws = Synthetic::new();
    let options = Options {
        dry_run: false,
        version: Some("0.2.0".parse().unwrap()),
        no_verify: true,
        ..Options::default()
    };
    assert_eq!(ws.release(options.clone()), Ok(()));

    let manifest = ws.read("Cargo.toml");
    assert!(
        manifest.contains("[workspace.package]\nversion = \"0.2.0\""),
        "{manifest}"
    );
    assert!(!manifest.contains("0.1.0"), "{manifest}");
    let changelog = ws.read("CHANGELOG.md");
    assert!(
        changelog.contains("## [Unreleased]\n\n## [0.2.0] - 20"),
        "{changelog}"
    );
    assert!(ws.read("Cargo.lock").contains("version = \"0.2.0\""));
    assert_eq!(
        ws.git(&["status", "--porcelain"]),
        "",
        "everything is committed"
    );
    assert_eq!(
        ws.git(&["log", "-1", "--format=%s"]).trim(),
        "Release 0.2.0"
    );
    assert_eq!(ws.git(&["tag"]).trim(), "v0.2.0");
    assert_eq!(
        ws.git(&["rev-parse", "v0.2.0^{commit}"]),
        ws.git(&["rev-parse", "HEAD"])
    );

    let again = ws.release(options).unwrap_err();
    assert!(again.contains("tag v0.2.0 exists"), "{again}");
    let older = Options {
        version: Some("0.1.5".parse().unwrap()),
        ..dry_run()
    };
    let message = ws.release(older).unwrap_err();
    assert!(
        message.contains("cannot release 0.1.5: the workspace is already at 0.2.0"),
        "{message}"
    );
}
