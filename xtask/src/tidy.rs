//! Workspace hygiene checks that a compiler cannot make (docs/architecture.md#allowed-dependency-graph).

use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use walkdir::WalkDir;

mod circles;
mod flag_docs;
mod links;
mod markdown;
mod tool_docs;

pub use flag_docs::{Facts, FlagDisagreement};

/// The allowed internal dependencies of each crate (docs/architecture.md#allowed-dependency-graph). A crate absent
/// from this table is not a layered crate and is not checked.
pub const LAYERS: &[(&str, &[&str])] = &[
    ("overspill-tokens", &[]),
    ("overspill-config", &["overspill-json"]),
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

/// The README section (a level-2 heading) whose first code block holds the test command.
const TEST_SECTION: &str = "Running the tests";

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
    /// A module's unit tests are not where docs/architecture.md#where-tests-live puts them
    /// (`mod tests;` in the module, its body in the module's `tests.rs`): `what` says how.
    TestLayout { file: String, what: String },
    /// An exploration tool of the registry has no section in docs/tools.md.
    ToolSectionMissing { tool: String },
    /// A tool section of docs/tools.md (a `###` heading opening with inline code, at `line`)
    /// names no tool of the registry.
    ToolSectionWithoutTool { line: usize, name: String },
    /// A second section of docs/tools.md for `tool`, at `line`.
    ToolSectionTwice { line: usize, tool: String },
    /// A tool's section of docs/tools.md has no `| argument | default |` table.
    ToolArgumentsMissing { tool: String },
    /// A tool's table of arguments says otherwise than its definition about `argument`:
    /// `doc` is its default cell (`None`: no row), `definition` what the schema says.
    ToolArgumentDiffers {
        tool: String,
        argument: String,
        doc: Option<String>,
        definition: String,
    },
    /// A page of docs/ (`at`: page and line) states a default for `flag` that the binary's
    /// definition of it does not bear out.
    FlagDocDiffers {
        at: String,
        flag: String,
        what: FlagDisagreement,
    },
    /// docs/mcp-proxy.md does not say that a chain holds at most `max_depth` proxies.
    ChainLimitUnstated { max_depth: u32 },
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
            Problem::ToolSectionMissing { tool } => write!(
                f,
                "docs/tools.md has no section for the tool `{tool}`; add a `### `{tool}`` heading \
                 with its table of arguments (docs/architecture.md#what-cargo-xtask-tidy-checks)"
            ),
            Problem::ToolSectionWithoutTool { line, name } => write!(
                f,
                "docs/tools.md:{line}: the section `{name}` is about no tool of the registry; \
                 name a tool there is, or do not open the heading with inline code"
            ),
            Problem::ToolSectionTwice { line, tool } => write!(
                f,
                "docs/tools.md:{line}: a second section for `{tool}`; keep one per tool"
            ),
            Problem::ToolArgumentsMissing { tool } => write!(
                f,
                "docs/tools.md: the section of `{tool}` has no `| argument | default | |` table; \
                 list each of its arguments there"
            ),
            Problem::ToolArgumentDiffers {
                tool,
                argument,
                doc,
                definition,
            } => match doc {
                None => write!(
                    f,
                    "docs/tools.md: `{tool}`'s table has no row for `{argument}`, {definition} \
                     of the tool; add it"
                ),
                Some(doc) => write!(
                    f,
                    "docs/tools.md: `{tool}`'s table gives `{argument}` the default `{doc}`, but \
                     its definition says {definition}; make the doc say what the tool does \
                     (docs/architecture.md#what-cargo-xtask-tidy-checks)"
                ),
            },
            Problem::FlagDocDiffers { at, flag, what } => {
                write!(f, "{at}: ")?;
                match what {
                    FlagDisagreement::NoCommand { command } => write!(
                        f,
                        "names the command `overspill {command}`, which does not exist"
                    )?,
                    FlagDisagreement::NoFlag { command, stated } => write!(
                        f,
                        "states the default {stated} for `{flag}`, which `{command}` does not have"
                    )?,
                    FlagDisagreement::RowStatesNone { defaults } => write!(
                        f,
                        "the row of `{flag}` states no default, and its definition's is `{}`",
                        defaults.join("` or `")
                    )?,
                    FlagDisagreement::Differs { stated, defaults } => write!(
                        f,
                        "states the default {stated} for `{flag}`, and its definition's is `{}`",
                        defaults.join("` or `")
                    )?,
                }
                write!(
                    f,
                    "; make the doc say what the code does \
                     (docs/architecture.md#what-cargo-xtask-tidy-checks)"
                )
            }
            Problem::ChainLimitUnstated { max_depth } => write!(
                f,
                "docs/mcp-proxy.md does not say that a chain holds at most {max_depth} proxies, \
                 the depth at which `overspill mcp` refuses to start; make the doc say it"
            ),
            Problem::TestLayout { file, what } => write!(
                f,
                "{file}: {what}; a module's unit tests are `#[cfg(test)] mod tests;` with their \
                 body in the module's own `tests.rs` (docs/architecture.md#where-tests-live)"
            ),
        }
    }
}

/// Runs every check over the workspace at `root`, whose binary defines what `facts` says
/// ([`Facts::of_binary`]).
pub fn check(root: &Path, facts: &Facts) -> Result<Vec<Problem>> {
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
            problems.extend(problems_in_sources(root, &files, |file, items| {
                let chained = chained_errors(items).into_iter().map(|item| {
                    let file = file.to_owned();
                    Problem::ErrorSourceChained { file, item }
                });
                let misplaced = misplaced_tests(items).into_iter().map(|what| {
                    let file = file.to_owned();
                    Problem::TestLayout { file, what }
                });
                chained.chain(misplaced).collect()
            })?);
        }
    }
    problems.extend(links::problems(root)?);
    problems.extend(doc_fact_problems(root, facts)?);
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

/// Where docs/ under `root` states what the code does not: docs/tools.md against the tools'
/// definitions, the flags' defaults and the chain's limit against `facts`.
pub fn doc_fact_problems(root: &Path, facts: &Facts) -> Result<Vec<Problem>> {
    let mut problems = tool_docs::problems(root)?;
    problems.extend(flag_docs::problems(root, facts)?);
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
    markdown::first_code_line(&readme, TEST_SECTION).context("README.md's test command")
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
/// says to. A symbolic link is listed, not followed.
pub(crate) fn files_below(dir: &Path, skipped: impl Fn(&str) -> bool) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let walk = WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            let name = entry.file_name().to_str().unwrap_or_default();
            // `dir` itself may be hidden (a temporary directory); only what is below it is left out.
            entry.depth() == 0
                || !entry.file_type().is_dir()
                || !(skipped(name) || name.starts_with('.'))
        });
    for entry in walk {
        let entry = entry.with_context(|| format!("listing {}", dir.display()))?;
        if !entry.file_type().is_dir() {
            files.push(entry.into_path());
        }
    }
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
        // A `tests.rs` is its module's tests, which the module's doc covers.
        if !opens_with_module_doc(&source) && !path.ends_with("tests.rs") {
            problems.push(Problem::MissingModuleDoc {
                file: shown(root, path),
            });
        }
    }
    problems.sort_by_key(ToString::to_string);
    Ok(problems)
}

/// What is wrong with the test modules among `items`, one line each.
fn misplaced_tests(items: &[syn::Item]) -> Vec<String> {
    let mut found = Vec::new();
    for item in items {
        let syn::Item::Mod(module) = item else {
            continue;
        };
        if module.attrs.iter().any(|attr| attr.path().is_ident("path")) {
            found.push(format!(
                "`mod {}` is read from another file through `#[path]`",
                module.ident
            ));
        }
        if module.ident == "tests" && module.content.is_some() {
            found.push("`mod tests` is written inline".to_owned());
        }
        if let Some((_, inner)) = &module.content {
            found.extend(misplaced_tests(inner));
        }
    }
    found
}

/// What `check` finds in each of `files`, given the file's name as shown and its items. A file
/// syn cannot parse does not compile either; the compiler reports it.
fn problems_in_sources(
    root: &Path,
    files: &[PathBuf],
    check: impl Fn(&str, &[syn::Item]) -> Vec<Problem>,
) -> Result<Vec<Problem>> {
    let mut problems = Vec::new();
    for path in files {
        let source =
            fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        if let Ok(file) = syn::parse_file(&source) {
            problems.extend(check(&shown(root, path), &file.items));
        }
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
mod tests;
