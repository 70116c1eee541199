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
    ("overspill-store", &[]),
    ("overspill-budget", &["overspill-tokens"]),
    (
        "overspill-explore",
        &["overspill-tokens", "overspill-store", "overspill-budget"],
    ),
    (
        "overspill-artifacts",
        &[
            "overspill-tokens",
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

/// The page whose layer table must say what [`LAYERS`] enforces.
const ARCHITECTURE: &str = "docs/architecture.md";

/// The heading of that table.
const LAYER_HEADING: &str = "## Allowed dependency graph";

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
    /// A source file of a layered crate does not open with a `//!` doc comment.
    MissingModuleDoc { path: String },
    /// The layer table of docs/architecture.md says something else than [`LAYERS`] about
    /// `krate` (`None`: no row for it, or a row for a crate `LAYERS` does not have).
    LayerTableDiffers {
        krate: String,
        documented: Option<Vec<String>>,
        enforced: Option<Vec<String>>,
    },
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
            Problem::MissingModuleDoc { path } => write!(
                f,
                "{path}: a module must open with a `//!` doc saying what it holds"
            ),
            Problem::LayerTableDiffers {
                krate,
                documented,
                enforced,
            } => {
                let list = |deps: &Option<Vec<String>>| match deps {
                    None => "no row".to_owned(),
                    Some(deps) if deps.is_empty() => "nothing".to_owned(),
                    Some(deps) => deps.join(", "),
                };
                write!(
                    f,
                    "{krate}: the layer table of {ARCHITECTURE} says it may depend on {}, LAYERS in \
                     xtask/src/tidy.rs says {}; change both in the same commit",
                    list(documented),
                    list(enforced)
                )
            }
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
        problems.extend(undocumented_modules(root, &dir.join("src"))?);
    }
    problems.extend(layer_table_problems(
        &fs::read_to_string(root.join(ARCHITECTURE)).unwrap_or_default(),
    ));
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

/// The source files under `src` (a crate's `src/`) that do not open with a `//!` doc; `lib.rs`
/// is [`Problem::MissingCrateDoc`]'s.
fn undocumented_modules(root: &Path, src: &Path) -> Result<Vec<Problem>> {
    let mut problems = Vec::new();
    let mut folders = vec![src.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().map(|entry| entry.path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") && path != src.join("lib.rs")
            {
                let source = fs::read_to_string(&path)
                    .with_context(|| format!("reading {}", path.display()))?;
                if !opens_with_doc(&source) {
                    let shown = path.strip_prefix(root).unwrap_or(&path);
                    problems.push(Problem::MissingModuleDoc {
                        path: shown.display().to_string(),
                    });
                }
            }
        }
    }
    Ok(problems)
}

/// Where the layer table of docs/architecture.md (`| `crate` | deps |` rows under
/// [`LAYER_HEADING`]) and [`LAYERS`] disagree. A dependency is written as the crate's name or
/// its short name (`store` for `overspill-store`); `—` is none.
pub fn layer_table_problems(page: &str) -> Vec<Problem> {
    let mut documented: Vec<(String, Vec<String>)> = Vec::new();
    if let Some(start) = page.find(LAYER_HEADING) {
        let rows = page[start..]
            .lines()
            .skip(1)
            .skip_while(|line| !line.starts_with('|'))
            .take_while(|line| line.starts_with('|'));
        for row in rows {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let (Some(krate), Some(deps)) = (cells.get(1), cells.get(2)) else {
                continue;
            };
            let Some(krate) = krate.strip_prefix('`').and_then(|k| k.strip_suffix('`')) else {
                continue;
            };
            let mut deps: Vec<String> = deps
                .split(',')
                .map(|dep| dep.trim().trim_matches('`'))
                .filter(|dep| !dep.is_empty() && *dep != "—" && *dep != "-")
                .map(|dep| {
                    if dep.starts_with("overspill") {
                        dep.to_owned()
                    } else {
                        format!("overspill-{dep}")
                    }
                })
                .collect();
            deps.sort();
            documented.push((krate.to_owned(), deps));
        }
    }
    let mut problems = Vec::new();
    for (krate, allowed) in LAYERS {
        let mut enforced: Vec<String> = allowed.iter().map(|dep| (*dep).to_owned()).collect();
        enforced.sort();
        let row = documented.iter().find(|(name, _)| name == krate);
        if row.map(|(_, deps)| deps) != Some(&enforced) {
            problems.push(Problem::LayerTableDiffers {
                krate: (*krate).to_owned(),
                documented: row.map(|(_, deps)| deps.clone()),
                enforced: Some(enforced),
            });
        }
    }
    for (krate, deps) in &documented {
        if !is_internal(krate) {
            problems.push(Problem::LayerTableDiffers {
                krate: krate.clone(),
                documented: Some(deps.clone()),
                enforced: None,
            });
        }
    }
    problems
}

fn is_internal(package: &str) -> bool {
    LAYERS.iter().any(|(name, _)| *name == package)
}

/// Whether a source file opens (after blank lines and inner attributes) with a `//!` doc.
fn opens_with_doc(source: &str) -> bool {
    source
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with("#!["))
        .is_some_and(|line| line.starts_with("//!"))
}

/// Whether `lib.rs` opens with a `//!` crate doc that has its `# Architecture invariant` section.
fn opens_with_crate_doc(source: &str) -> bool {
    opens_with_doc(source)
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
        let rows = rows_of_layers();
        let rows: Vec<(&str, &str)> = rows.iter().map(|(k, d)| (*k, d.as_str())).collect();
        fs::create_dir_all(root.join("docs")).unwrap();
        fs::write(root.join(ARCHITECTURE), table(&rows)).unwrap();
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

    /// The table as the page writes it: short names, `—`, one row per layered crate.
    fn table(rows: &[(&str, &str)]) -> String {
        let mut page =
            format!("# A\n\n{LAYER_HEADING} (SPEC §1)\n\n| crate | may depend on |\n|---|---|\n");
        for (krate, deps) in rows {
            page.push_str(&format!("| `{krate}` | {deps} |\n"));
        }
        page + "\nAfter the table.\n"
    }

    fn rows_of_layers() -> Vec<(&'static str, String)> {
        LAYERS
            .iter()
            .map(|(krate, deps)| {
                let short: Vec<&str> = deps
                    .iter()
                    .map(|dep| dep.strip_prefix("overspill-").unwrap_or(dep))
                    .collect();
                let deps = if short.is_empty() {
                    "—".to_owned()
                } else {
                    short.join(", ")
                };
                (*krate, deps)
            })
            .collect()
    }

    #[test]
    fn a_layer_table_that_says_what_layers_enforces_passes() {
        let rows = rows_of_layers();
        let rows: Vec<(&str, &str)> = rows.iter().map(|(k, d)| (*k, d.as_str())).collect();
        assert_eq!(layer_table_problems(&table(&rows)), []);
    }

    #[test]
    fn a_layer_table_that_differs_from_layers_names_the_crate() {
        let mut rows = rows_of_layers();
        // One edge more in the page, one crate's row gone, one crate the code does not know.
        rows[0].1 = "store".to_owned();
        rows.remove(1);
        rows.push(("overspill-extra", "—".to_owned()));
        let rows: Vec<(&str, &str)> = rows.iter().map(|(k, d)| (*k, d.as_str())).collect();
        let problems = layer_table_problems(&table(&rows));
        let krates: Vec<&str> = problems
            .iter()
            .map(|problem| match problem {
                Problem::LayerTableDiffers { krate, .. } => krate.as_str(),
                _ => "",
            })
            .collect();
        assert_eq!(krates, [LAYERS[0].0, LAYERS[1].0, "overspill-extra"]);
        assert!(
            problems[0].to_string().contains("overspill-store"),
            "{}",
            problems[0]
        );
        assert!(
            problems[1].to_string().contains("no row"),
            "{}",
            problems[1]
        );
    }

    #[test]
    fn a_module_without_a_doc_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("crates/x/src");
        fs::create_dir_all(src.join("inner")).unwrap();
        fs::write(src.join("lib.rs"), "pub mod a;\n").unwrap();
        fs::write(src.join("a.rs"), "#![allow(dead_code)]\n\n//! Holds a.\n").unwrap();
        fs::write(src.join("inner/b.rs"), "use std::fs;\n").unwrap();
        let problems = undocumented_modules(dir.path(), &src).unwrap();
        assert_eq!(
            problems,
            [Problem::MissingModuleDoc {
                path: "crates/x/src/inner/b.rs".to_owned()
            }]
        );
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
