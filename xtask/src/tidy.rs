//! Workspace hygiene checks that a compiler cannot make (docs/architecture.md#allowed-dependency-graph).

use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

mod circles;
mod links;

/// The allowed internal dependencies of each crate (docs/architecture.md#allowed-dependency-graph). A crate absent
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

/// The heading of docs/architecture.md whose table states `LAYERS` for readers.
const LAYER_TABLE_HEADING: &str = "## Allowed dependency graph";

/// The README heading whose first code block holds the test command.
const TEST_HEADING: &str = "## Running the tests";

/// One thing tidy found wrong.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Problem {
    /// `krate` depends on `dependency`, which docs/architecture.md#allowed-dependency-graph does not allow.
    ForbiddenEdge {
        krate: String,
        dependency: String,
        section: String,
    },
    /// A library crate's `src/lib.rs` does not open with a `//!` doc comment.
    MissingCrateDoc { krate: String },
    /// A layered crate of docs/architecture.md#allowed-dependency-graph is not in the workspace.
    MissingCrate { krate: String },
    /// `.ci/run` no longer runs the README's test command.
    CiSkipsTests { command: String },
    /// The layer table of docs/architecture.md says otherwise than `LAYERS` about `krate`
    /// (`table` is `None` when the table has no row for it).
    LayerTableDiffers {
        krate: String,
        table: Option<Vec<String>>,
        layers: Option<Vec<String>>,
    },
    /// A source file does not open with a `//!` doc saying what the module is for.
    MissingModuleDoc { file: String },
    /// A doc or a source file names a repository path (or a source file, in backticks) that
    /// does not exist.
    MissingPath { at: String, path: String },
    /// A `docs/<page>.md#anchor` link whose page has no such heading.
    MissingAnchor { at: String, link: String },
    /// Code cites the old specification, which is not in the repository.
    OutsideSpec { at: String },
    /// Modules of `krate` that use each other in a circle.
    ModuleCircle { krate: String, modules: Vec<String> },
    /// A `thiserror` error (`item`: `Enum::Variant` or `Struct`) returns a cause from
    /// `source()` without being `#[error(transparent)]`, where the workspace's errors state
    /// their cause in the message only.
    ErrorSourceChained { file: String, item: String },
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
                "{krate} -> {dependency} ([{section}]) breaks the layer graph of docs/architecture.md#allowed-dependency-graph; \
                 move the shared code down a layer or depend on the facade instead"
            ),
            Problem::MissingCrateDoc { krate } => write!(
                f,
                "{krate}: src/lib.rs must open with a `//!` crate doc saying what it owns, with a `# Architecture invariant` section"
            ),
            Problem::MissingCrate { krate } => {
                write!(
                    f,
                    "{krate}: the crate of docs/architecture.md#allowed-dependency-graph is missing from crates/"
                )
            }
            Problem::CiSkipsTests { command } => write!(
                f,
                ".ci/run does not run the README's test command `{command}`; add it back"
            ),
            Problem::LayerTableDiffers {
                krate,
                table,
                layers,
            } => {
                let list = |deps: &Option<Vec<String>>| match deps {
                    None => "no row".to_owned(),
                    Some(deps) if deps.is_empty() => "—".to_owned(),
                    Some(deps) => deps.join(", "),
                };
                write!(
                    f,
                    "docs/architecture.md's layer table gives {krate} {} but LAYERS in \
                     xtask/src/tidy.rs gives {}; change both in the same commit",
                    list(table),
                    list(layers)
                )
            }
            Problem::MissingModuleDoc { file } => write!(
                f,
                "{file} must open with a `//!` doc saying what the module is for"
            ),
            Problem::MissingPath { at, path } => write!(
                f,
                "{at}: `{path}` does not exist; name the file as it is now, or drop the mention"
            ),
            Problem::MissingAnchor { at, link } => write!(
                f,
                "{at}: {link} names a heading the page does not have; link a heading it has"
            ),
            Problem::OutsideSpec { at } => write!(
                f,
                "{at}: cites the specification, which is not in the repository; cite the page of \
                 docs/ that says it (docs/<page>.md#section), and write it there if it is not"
            ),
            Problem::ModuleCircle { krate, modules } => write!(
                f,
                "{krate}: the modules {} use each other in a circle; give the shared concept \
                 one owner that the others use",
                modules.join(", ")
            ),
            Problem::ErrorSourceChained { file, item } => write!(
                f,
                "{file}: `{item}` returns its cause from `source()` (a `#[source]` or `#[from]` \
                 field, or one named `source`), so a chain printer such as anyhow's `{{:#}}` \
                 prints it after the message that states it; state the cause in the message, \
                 name the field `error` and drop the attribute, or make the variant \
                 `#[error(transparent)]` (docs/architecture.md, Cross-cutting rules)"
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
    let architecture = fs::read_to_string(root.join("docs/architecture.md"))
        .context("reading docs/architecture.md")?;
    problems.extend(layer_table_problems(&architecture)?);
    for dir in ["crates", "xtask"] {
        let dir = root.join(dir);
        if dir.is_dir() {
            let files = source_files(root, &dir)?;
            problems.extend(module_doc_problems(root, &files)?);
            problems.extend(error_source_problems(root, &files)?);
        }
    }
    problems.extend(links::problems(root)?);
    for krate in fs::read_dir(root.join("crates")).context("listing crates/")? {
        let dir = krate?.path();
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        if dir.join("src").is_dir() {
            problems.extend(circles::problems(&name, &dir.join("src"))?);
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

/// Where docs/architecture.md's layer table (under `## Allowed dependency graph`) differs
/// from `LAYERS`. A row reads `` | `overspill-x` | a, b | ``: `a` names `overspill-a` (or the
/// crate `a` itself, as `overspill`), `—` no crate, `all of the above` every crate of the rows
/// above it.
pub fn layer_table_problems(architecture: &str) -> Result<Vec<Problem>> {
    let Some(start) = architecture.find(LAYER_TABLE_HEADING) else {
        bail!("docs/architecture.md has no `{LAYER_TABLE_HEADING}` section");
    };
    let full = |short: &str| -> String {
        let long = format!("overspill-{short}");
        if LAYERS.iter().any(|(name, _)| *name == long) {
            long
        } else {
            short.to_owned()
        }
    };
    let mut table: Vec<(String, Vec<String>)> = Vec::new();
    for line in architecture[start..].lines().skip(1) {
        if line.starts_with("## ") {
            break;
        }
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        let [krate, deps] = cells.as_slice() else {
            continue;
        };
        let Some(krate) = krate.strip_prefix('`').and_then(|k| k.strip_suffix('`')) else {
            continue;
        };
        let mut deps: Vec<String> = match *deps {
            "—" | "-" => Vec::new(),
            "all of the above" => table.iter().map(|(name, _)| name.clone()).collect(),
            listed => listed
                .split(',')
                .map(|d| full(d.trim().trim_matches('`')))
                .collect(),
        };
        deps.sort();
        table.push((krate.to_owned(), deps));
    }
    let mut problems = Vec::new();
    for (krate, allowed) in LAYERS {
        let mut layers: Vec<String> = allowed.iter().map(|d| (*d).to_owned()).collect();
        layers.sort();
        let row = table.iter().find(|(name, _)| name == krate).map(|(_, d)| d);
        if row != Some(&layers) {
            problems.push(Problem::LayerTableDiffers {
                krate: (*krate).to_owned(),
                table: row.cloned(),
                layers: Some(layers),
            });
        }
    }
    for (krate, deps) in &table {
        if !is_internal(krate) {
            problems.push(Problem::LayerTableDiffers {
                krate: krate.clone(),
                table: Some(deps.clone()),
                layers: None,
            });
        }
    }
    Ok(problems)
}

/// Every `src/**/*.rs` file below `dir` (skipping `target`, `tests`, `benches`, `fixtures`
/// and hidden directories), in path order.
fn source_files(root: &Path, dir: &Path) -> Result<Vec<PathBuf>> {
    let skipped = |name: &str| matches!(name, "target" | "tests" | "benches" | "fixtures");
    Ok(files_below(dir, skipped)?
        .into_iter()
        .filter(|path| {
            path.strip_prefix(root)
                .is_ok_and(|rel| rel.components().any(|c| c.as_os_str() == "src"))
                && path.extension().is_some_and(|e| e == "rs")
        })
        .collect())
}

/// Every file below `dir`, in path order, leaving out hidden directories and those `skipped`
/// says to.
pub(crate) fn files_below(dir: &Path, skipped: impl Fn(&str) -> bool) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in fs::read_dir(&at).with_context(|| format!("listing {}", at.display()))? {
            let path = entry?.path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if path.is_dir() {
                if !skipped(name) && !name.starts_with('.') {
                    pending.push(path);
                }
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// `path` relative to `root`, for a problem's message.
pub(crate) fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Every file of `files` that does not open with a `//!` doc (after `#![…]` attributes and
/// blank lines).
fn module_doc_problems(root: &Path, files: &[PathBuf]) -> Result<Vec<Problem>> {
    let mut problems = Vec::new();
    for path in files {
        let source =
            fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        if !opens_with_module_doc(&source) {
            problems.push(Problem::MissingModuleDoc {
                file: shown(root, path),
            });
        }
    }
    problems.sort_by_key(ToString::to_string);
    Ok(problems)
}

/// Every `thiserror` error in `files` that returns a cause from `source()` other than through
/// `#[error(transparent)]`.
fn error_source_problems(root: &Path, files: &[PathBuf]) -> Result<Vec<Problem>> {
    let mut problems = Vec::new();
    for path in files {
        let source =
            fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        // A file syn cannot parse does not compile either; the compiler reports it.
        let Ok(file) = syn::parse_file(&source) else {
            continue;
        };
        let file_name = shown(root, path);
        problems.extend(chained_errors(&file.items).into_iter().map(|item| {
            Problem::ErrorSourceChained {
                file: file_name.clone(),
                item,
            }
        }));
    }
    Ok(problems)
}

/// The errors among `items` (and inline modules) that chain a cause: `Enum::Variant` or
/// `Struct`.
fn chained_errors(items: &[syn::Item]) -> Vec<String> {
    let mut found = Vec::new();
    for item in items {
        match item {
            syn::Item::Enum(e) if derives_error(&e.attrs) => {
                for variant in &e.variants {
                    if chains_a_cause(&variant.attrs, &variant.fields) {
                        found.push(format!("{}::{}", e.ident, variant.ident));
                    }
                }
            }
            syn::Item::Struct(s)
                if derives_error(&s.attrs) && chains_a_cause(&s.attrs, &s.fields) =>
            {
                found.push(s.ident.to_string());
            }
            syn::Item::Mod(syn::ItemMod {
                content: Some((_, items)),
                ..
            }) => found.extend(chained_errors(items)),
            _ => {}
        }
    }
    found
}

/// Whether `attrs` hold a `#[derive(…Error…)]`.
fn derives_error(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("derive")
            && attr
                .parse_args_with(
                    syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
                )
                .is_ok_and(|paths| {
                    paths
                        .iter()
                        .any(|p| p.segments.last().is_some_and(|s| s.ident == "Error"))
                })
    })
}

/// Whether a variant or struct (its `attrs` and `fields`) returns a cause from `source()`
/// without being transparent: thiserror's source is a `#[source]` or `#[from]` field, or a
/// field named `source`.
fn chains_a_cause(attrs: &[syn::Attribute], fields: &syn::Fields) -> bool {
    let transparent = attrs.iter().any(|attr| {
        attr.path().is_ident("error")
            && attr
                .parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "transparent")
    });
    !transparent
        && fields.iter().any(|field| {
            field.ident.as_ref().is_some_and(|ident| ident == "source")
                || field
                    .attrs
                    .iter()
                    .any(|attr| attr.path().is_ident("source") || attr.path().is_ident("from"))
        })
}

/// Whether a source file opens with a `//!` doc.
fn opens_with_module_doc(source: &str) -> bool {
    source
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with("#!["))
        .is_some_and(|line| line.starts_with("//!"))
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
        let rows: String = LAYERS
            .iter()
            .map(|(krate, deps)| {
                let deps = if deps.is_empty() {
                    "—".to_owned()
                } else {
                    deps.join(", ")
                };
                format!("| `{krate}` | {deps} |\n")
            })
            .collect();
        fs::create_dir_all(root.join("docs")).unwrap();
        fs::write(
            root.join("docs/architecture.md"),
            format!("## Allowed dependency graph\n\n| crate | may depend on |\n|---|---|\n{rows}"),
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
        // The empty lib.rs is a module without its doc too.
        assert!(problems.contains(&Problem::MissingModuleDoc {
            file: "crates/overspill-config/src/lib.rs".into()
        }));
        assert_eq!(problems.len(), 5, "{text:?}");
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

    const TABLE: &str = "# A\n\n## Allowed dependency graph (docs/architecture.md#allowed-dependency-graph)\n\n| crate | may depend on (internal) |\n|---|---|\n| `overspill-tokens` | — |\n| `overspill-json` | — |\n| `overspill-store` | json |\n\n## Next\n| `overspill-x` | y |\n";

    #[test]
    fn a_layer_table_that_differs_from_layers_is_reported_per_crate() {
        let problems = layer_table_problems(TABLE).unwrap();
        let named: Vec<&str> = problems
            .iter()
            .map(|p| match p {
                Problem::LayerTableDiffers { krate, .. } => krate.as_str(),
                _ => "",
            })
            .collect();
        // The three rows agree; every other crate of LAYERS has no row.
        assert!(!named.contains(&"overspill-tokens") && !named.contains(&"overspill-store"));
        assert!(named.contains(&"overspill-budget") && !named.contains(&"overspill-x"));
        let wrong = TABLE.replace(
            "| `overspill-store` | json |",
            "| `overspill-store` | tokens |",
        );
        let problems = layer_table_problems(&wrong).unwrap();
        assert!(problems.iter().any(|p| p.to_string().starts_with(
            "docs/architecture.md's layer table gives overspill-store overspill-tokens but LAYERS"
        )));
    }

    #[test]
    fn an_error_that_returns_its_cause_from_source_is_reported_unless_transparent() {
        let source = r#"
            #[derive(Debug, thiserror::Error)]
            pub enum E {
                #[error("cannot read {}: {error}", path.display())]
                Fine { path: std::path::PathBuf, error: std::io::Error },
                #[error(transparent)]
                Wrapped(#[from] Inner),
                #[error("cannot write: {source}")]
                Named { source: std::io::Error },
                #[error("cannot list: {0}")]
                Marked(#[source] std::io::Error),
                #[error("{0}")]
                Converted(#[from] Other),
            }
            mod inner {
                #[derive(thiserror::Error, Debug)]
                #[error("lost: {source}")]
                pub struct Lost { source: std::io::Error }
            }
            #[derive(Debug)]
            pub struct NotAnError { source: String }
        "#;
        let file = syn::parse_file(source).unwrap();
        assert_eq!(
            chained_errors(&file.items),
            ["E::Named", "E::Marked", "E::Converted", "Lost"]
        );
    }

    #[test]
    fn a_module_without_a_doc_comment_is_reported() {
        assert!(opens_with_module_doc(
            "#![allow(x)]\n\n//! Owns a thing.\nfn f() {}\n"
        ));
        assert!(!opens_with_module_doc("use std::fs;\n//! Late.\n"));
        assert!(!opens_with_module_doc(
            "/// An item doc is not a module doc.\nfn f() {}\n"
        ));
    }
}
