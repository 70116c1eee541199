//! Workspace hygiene checks that a compiler cannot make (SPEC §1).

use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};

/// The allowed internal dependencies of each crate (SPEC §1). A crate absent
/// from this table is not a layered crate and is not checked.
pub const LAYERS: &[(&str, &[&str])] = &[
    ("overspill-tokens", &[]),
    ("overspill-config", &[]),
    ("overspill-json", &[]),
    ("overspill-store", &["overspill-json"]),
    ("overspill-budget", &["overspill-tokens"]),
    (
        "overspill-explore",
        &[
            "overspill-tokens",
            "overspill-json",
            "overspill-store",
            "overspill-budget",
        ],
    ),
    (
        "overspill-artifacts",
        &[
            "overspill-tokens",
            "overspill-json",
            "overspill-store",
            "overspill-budget",
            "overspill-explore",
        ],
    ),
    (
        "overspill",
        &[
            "overspill-tokens",
            "overspill-config",
            "overspill-json",
            "overspill-store",
            "overspill-budget",
            "overspill-explore",
            "overspill-artifacts",
        ],
    ),
    ("overspill-mcp", &["overspill"]),
    ("overspill-rig", &["overspill"]),
    ("overspill-cli", &["overspill", "overspill-mcp"]),
];

/// The README heading whose first code block holds the test command.
const TEST_HEADING: &str = "## Running the tests";

/// One thing tidy found wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// `krate` depends on `dependency`, which SPEC §1 does not allow.
    ForbiddenEdge {
        krate: String,
        dependency: String,
        section: String,
    },
    /// A library crate's `src/lib.rs` does not open with a `//!` doc comment.
    MissingCrateDoc { krate: String },
    /// A layered crate of SPEC §1 is not in the workspace.
    MissingCrate { krate: String },
    /// `.ci/run` no longer runs the README's test command.
    CiSkipsTests { command: String },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::ForbiddenEdge {
                krate,
                dependency,
                section,
            } => write!(
                f,
                "{krate} -> {dependency} ([{section}]) breaks the layer graph of SPEC §1; \
                 move the shared code down a layer or depend on the facade instead"
            ),
            Problem::MissingCrateDoc { krate } => write!(
                f,
                "{krate}: src/lib.rs must open with a `//!` crate doc saying what it owns, with a `# Architecture invariant` section"
            ),
            Problem::MissingCrate { krate } => {
                write!(f, "{krate}: the crate of SPEC §1 is missing from crates/")
            }
            Problem::CiSkipsTests { command } => write!(
                f,
                ".ci/run does not run the README's test command `{command}`; add it back"
            ),
        }
    }
}

/// Runs every check over the workspace at `root`.
pub fn check(root: &Path) -> Result<Vec<Problem>> {
    let mut problems = Vec::new();
    for (krate, allowed) in LAYERS {
        let dir = root.join("crates").join(krate);
        let manifest = dir.join("Cargo.toml");
        if !manifest.exists() {
            problems.push(Problem::MissingCrate {
                krate: (*krate).to_owned(),
            });
            continue;
        }
        let text = fs::read_to_string(&manifest)
            .with_context(|| format!("reading {}", manifest.display()))?;
        problems.extend(layer_problems(krate, allowed, &text)?);
        let lib = dir.join("src/lib.rs");
        if lib.exists() && !opens_with_crate_doc(&fs::read_to_string(&lib)?) {
            problems.push(Problem::MissingCrateDoc {
                krate: (*krate).to_owned(),
            });
        }
    }
    let command = readme_test_command(root)?;
    let ci = fs::read_to_string(root.join(".ci/run")).unwrap_or_default();
    if !ci.lines().any(|line| runs_command(line, &command)) {
        problems.push(Problem::CiSkipsTests { command });
    }
    Ok(problems)
}

/// The forbidden internal dependencies in one crate manifest. Dev- and
/// build-dependencies count too: a test that reaches up a layer is still a cycle
/// for `cargo publish`.
pub fn layer_problems(krate: &str, allowed: &[&str], manifest: &str) -> Result<Vec<Problem>> {
    let doc: toml::Table =
        toml::from_str(manifest).with_context(|| format!("parsing the manifest of {krate}"))?;
    let allowed: BTreeSet<&str> = allowed.iter().copied().collect();
    let mut problems = Vec::new();
    for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
        let Some(deps) = doc.get(section).and_then(toml::Value::as_table) else {
            continue;
        };
        for (name, spec) in deps {
            let package = spec
                .as_table()
                .and_then(|t| t.get("package"))
                .and_then(toml::Value::as_str)
                .unwrap_or(name);
            if is_internal(package) && package != krate && !allowed.contains(package) {
                problems.push(Problem::ForbiddenEdge {
                    krate: krate.to_owned(),
                    dependency: package.to_owned(),
                    section: section.to_owned(),
                });
            }
        }
    }
    Ok(problems)
}

/// The test command the README documents: the first line of the first code block
/// under its `## Running the tests` heading.
pub fn readme_test_command(root: &Path) -> Result<String> {
    let readme = fs::read_to_string(root.join("README.md")).context("reading README.md")?;
    let Some(start) = readme.find(TEST_HEADING) else {
        bail!("README.md has no `{TEST_HEADING}` section");
    };
    let mut in_block = false;
    for line in readme[start..].lines().skip(1) {
        if line.starts_with("## ") && !in_block {
            break;
        }
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block && !line.trim().is_empty() {
            return Ok(line.trim().to_owned());
        }
    }
    bail!("README.md's `{TEST_HEADING}` section has no code block with the command")
}

fn is_internal(package: &str) -> bool {
    LAYERS.iter().any(|(name, _)| *name == package)
}

/// Whether `lib.rs` opens with a `//!` crate doc that has its `# Architecture invariant` section.
fn opens_with_crate_doc(source: &str) -> bool {
    let opens = source
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with("#!["))
        .is_some_and(|line| line.starts_with("//!"));
    opens
        && source
            .lines()
            .map(str::trim)
            .any(|line| line == "//! # Architecture invariant")
}

/// Whether a shell line runs `command` (not merely mentions it in a comment or echo).
fn runs_command(line: &str, command: &str) -> bool {
    let line = line.trim();
    !line.starts_with('#') && !line.starts_with("echo") && line.contains(command)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STORE_ON_EXPLORE: &str = r#"
[package]
name = "overspill-store"
version = "0.1.0"

[dependencies]
serde = "1"
overspill-explore = { path = "../overspill-explore" }
"#;

    #[test]
    fn store_depending_on_explore_is_a_forbidden_edge() {
        let problems = layer_problems("overspill-store", &[], STORE_ON_EXPLORE).unwrap();
        assert_eq!(
            problems,
            vec![Problem::ForbiddenEdge {
                krate: "overspill-store".into(),
                dependency: "overspill-explore".into(),
                section: "dependencies".into(),
            }]
        );
        let message = problems[0].to_string();
        assert!(
            message.contains("overspill-store -> overspill-explore"),
            "{message}"
        );
    }

    #[test]
    fn renamed_and_dev_dependencies_are_checked() {
        let manifest = r#"
[dev-dependencies]
tok = { package = "overspill-budget", path = "../overspill-budget" }
"#;
        let problems = layer_problems("overspill-tokens", &[], manifest).unwrap();
        assert_eq!(problems.len(), 1);
        assert!(
            matches!(&problems[0], Problem::ForbiddenEdge { dependency, section, .. }
            if dependency == "overspill-budget" && section == "dev-dependencies")
        );
    }

    #[test]
    fn allowed_edges_pass() {
        let manifest = r#"
[dependencies]
overspill-tokens = { workspace = true }
"#;
        assert!(
            layer_problems("overspill-budget", &["overspill-tokens"], manifest)
                .unwrap()
                .is_empty()
        );
    }

    /// A whole synthetic workspace: tidy must fail on it, naming crate and edge.
    #[test]
    fn tidy_fails_on_a_synthetic_workspace_with_a_broken_layer() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (krate, _) in LAYERS {
            let crate_dir = root.join("crates").join(krate);
            fs::create_dir_all(crate_dir.join("src")).unwrap();
            let manifest = if *krate == "overspill-store" {
                STORE_ON_EXPLORE.to_owned()
            } else {
                format!("[package]\nname = \"{krate}\"\n")
            };
            fs::write(crate_dir.join("Cargo.toml"), manifest).unwrap();
            let doc = match *krate {
                "overspill-config" => "",
                // A doc without its invariant section is as incomplete as no doc.
                "overspill-budget" => "//! Owns a thing.\n",
                _ => "//! Owns a thing.\n//!\n//! # Architecture invariant\n//!\n//! Never more.\n",
            };
            fs::write(crate_dir.join("src/lib.rs"), doc).unwrap();
        }
        fs::write(
            root.join("README.md"),
            "# x\n\n## Running the tests\n\n```sh\ncargo test --workspace\n```\n",
        )
        .unwrap();
        fs::create_dir_all(root.join(".ci")).unwrap();
        fs::write(
            root.join(".ci/run"),
            "#!/bin/sh\n# cargo test --workspace\n",
        )
        .unwrap();

        let problems = check(root).unwrap();
        let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert!(
            text.iter()
                .any(|p| p.contains("overspill-store -> overspill-explore")),
            "{text:?}"
        );
        assert!(problems.contains(&Problem::MissingCrateDoc {
            krate: "overspill-config".into()
        }));
        assert!(problems.contains(&Problem::MissingCrateDoc {
            krate: "overspill-budget".into()
        }));
        assert!(problems.contains(&Problem::CiSkipsTests {
            command: "cargo test --workspace".into()
        }));
        assert_eq!(problems.len(), 4, "{text:?}");
    }

    #[test]
    fn readme_test_command_is_the_first_line_of_the_block() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join("README.md"),
            "## Running the tests\n\nRun:\n\n```sh\ncargo xtask test\n```\n## Next\n",
        )
        .unwrap();
        assert_eq!(readme_test_command(dir.path()).unwrap(), "cargo xtask test");
    }

    /// The real workspace is tidy: this is how tidy runs as part of the tests.
    #[test]
    fn this_workspace_is_tidy() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let problems = check(root).unwrap();
        let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert!(problems.is_empty(), "{text:#?}");
    }
}
