//! Docs are checked like code: every `docs/<page>.md` (with its `#anchor`) and every
//! repository path that the docs, the READMEs and the code name must exist, every Markdown link
//! a doc writes must lead to a file (and heading) there is, every source file a doc names in
//! backticks must be in the tree, and no code cites a specification outside the repository
//! (docs/architecture.md, "Cross-cutting rules").

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::Problem;
use super::markdown;

/// The directories whose paths the docs and the code may name.
const ROOTS: [&str; 7] = [
    "crates/",
    "xtask/",
    "tests/",
    "fuzz/",
    "docs/",
    ".ci/",
    "examples/",
];

/// The citation of the old specification, which is not in the repository (built from two
/// pieces so that this file does not cite it).
fn outside_spec() -> String {
    ["SPEC", " §"].concat()
}

/// The link problems of the workspace at `root`.
pub fn problems(root: &Path) -> Result<Vec<Problem>> {
    let mut texts: Vec<(PathBuf, String)> = Vec::new();
    for path in markdown_files(root)? {
        let text =
            fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        texts.push((path, text));
    }
    let markdown_count = texts.len();
    // Every Rust file of the repository: the crates, xtask, the workspace tests, the fuzz targets.
    for dir in ["crates", "xtask", "tests", "fuzz"] {
        for path in rust_files(&root.join(dir))? {
            let text =
                fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
            texts.push((path, text));
        }
    }
    let mut anchors: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let tree = file_names(root)?;
    let crates: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    let mut problems = BTreeSet::new();
    for (index, (path, text)) in texts.iter().enumerate() {
        let file = super::shown(root, path);
        let is_doc = index < markdown_count;
        for (line_no, line) in text.lines().enumerate() {
            let at = format!("{file}:{}", line_no + 1);
            if !is_doc && line.contains(&outside_spec()) {
                problems.insert(Problem::OutsideSpec { at: at.clone() });
            }
            // Code names docs in its comments; its strings are data (test fixtures, examples).
            if !is_doc && !line.trim_start().starts_with("//") {
                continue;
            }
            for named in named_paths(line) {
                let (target, anchor) = match named.split_once('#') {
                    Some((target, anchor)) => (target, Some(anchor)),
                    None => (named.as_str(), None),
                };
                // A path may be the repository's, or a crate's own (`tests/agent.rs`).
                let Some(full) = located(root, &crates, target) else {
                    problems.insert(Problem::MissingPath {
                        at: at.clone(),
                        path: named.clone(),
                    });
                    continue;
                };
                if let Some(anchor) = anchor.filter(|_| target.ends_with(".md"))
                    && !has_anchor(&mut anchors, &full, anchor)
                {
                    problems.insert(Problem::MissingAnchor {
                        at: at.clone(),
                        link: named.clone(),
                    });
                }
            }
            if is_doc {
                for name in backticked_source_files(line) {
                    if !tree.iter().any(|known| ends_with_path(known, &name)) {
                        problems.insert(Problem::MissingPath {
                            at: at.clone(),
                            path: name,
                        });
                    }
                }
            }
        }
        if is_doc {
            problems.extend(link_problems(root, path, &file, text, &mut anchors));
        }
    }
    Ok(problems.into_iter().collect())
}

/// The Markdown links of the page at `path` (shown as `file`) that lead to no file, or to no
/// heading of a page: a destination is the page's own heading (`#logs`), a path from the page's
/// directory (`tokens.md#…`), or one from the repository's root (`/docs/…`), as GitHub reads
/// it. Links to other sites are not followed.
fn link_problems(
    root: &Path,
    path: &Path,
    file: &str,
    text: &str,
    anchors: &mut BTreeMap<PathBuf, BTreeSet<String>>,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let dir = path.parent().unwrap_or(root);
    for link in markdown::links(text) {
        let destination = &link.destination;
        let (target, anchor) = match destination.split_once('#') {
            Some((target, anchor)) => (target, Some(anchor)),
            None => (destination.as_str(), None),
        };
        if target.contains(':') {
            continue; // https:, mailto:
        }
        let at = format!("{file}:{}", link.line);
        let full = match target {
            "" => path.to_path_buf(),
            _ => match target.strip_prefix('/') {
                Some(from_root) => root.join(from_root),
                None => dir.join(target),
            },
        };
        if !full.exists() {
            problems.push(Problem::MissingPath {
                at,
                path: destination.clone(),
            });
            continue;
        }
        let page = target.is_empty() || target.ends_with(".md");
        if let Some(anchor) = anchor.filter(|_| page)
            && !has_anchor(anchors, &full, anchor)
        {
            problems.push(Problem::MissingAnchor {
                at,
                link: destination.clone(),
            });
        }
    }
    problems
}

/// Whether the page at `full` has a heading whose anchor is `anchor` (each page read once).
fn has_anchor(
    anchors: &mut BTreeMap<PathBuf, BTreeSet<String>>,
    full: &Path,
    anchor: &str,
) -> bool {
    anchors
        .entry(full.to_path_buf())
        .or_insert_with(|| markdown::anchors(&fs::read_to_string(full).unwrap_or_default()))
        .contains(anchor)
}

/// The repository paths a line names: text starting with one of [`ROOTS`], up to a character
/// a path does not hold, without trailing punctuation.
pub fn named_paths(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    for root in ROOTS {
        let mut rest = line;
        let mut offset = 0;
        while let Some(at) = rest.find(root) {
            let start = offset + at;
            let before = line[..start].chars().next_back();
            let path: String = line[start..]
                .chars()
                .take_while(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '#')
                })
                .collect();
            let path = path.trim_end_matches(['.', '#', '-']).to_owned();
            // A path that continues another word (`../crates/`, `target/tests/`) or holds a
            // placeholder (`crates/<name>/`) is not one of this repository's.
            let standalone = before
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-')));
            let placeholder = line[start + path.len()..].starts_with(['<', '*', '{']);
            if standalone && !placeholder && path.len() > root.len() {
                found.push(path);
            }
            offset = start + root.len();
            rest = &line[offset..];
        }
    }
    found
}

/// Where `target` is: under `root`, or under one of the `crates`.
fn located(root: &Path, crates: &[PathBuf], target: &str) -> Option<PathBuf> {
    std::iter::once(root.to_path_buf())
        .chain(crates.iter().cloned())
        .map(|base| base.join(target))
        .find(|path| path.exists())
}

/// The `*.rs` file names a doc line puts in backticks (`relay.rs`, `oauth/store.rs`).
fn backticked_source_files(line: &str) -> Vec<String> {
    line.split('`')
        .skip(1)
        .step_by(2)
        .filter(|token| {
            token.ends_with(".rs")
                && token.len() > 3
                && token
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '-' | '.'))
                && !ROOTS.iter().any(|root| token.starts_with(root))
        })
        .map(str::to_owned)
        .collect()
}

/// Whether `path` ends with the path `name` (whole components).
fn ends_with_path(path: &str, name: &str) -> bool {
    path == name || path.ends_with(&format!("/{name}"))
}

/// docs/*.md, README.md and every crate's README.md.
fn markdown_files(root: &Path) -> Result<Vec<PathBuf>> {
    let mut files = vec![root.join("README.md")];
    for dir in [root.join("docs"), root.join("crates")] {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            } else if path.join("README.md").exists() {
                files.push(path.join("README.md"));
            }
        }
    }
    files.retain(|path| path.exists());
    files.sort();
    Ok(files)
}

/// Every `.rs` file below `dir`, tests and benches included (their comments cite docs too).
fn rust_files(dir: &Path) -> Result<Vec<PathBuf>> {
    Ok(walk(dir)?
        .into_iter()
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .collect())
}

/// Every file of the tree (outside `target`, hidden directories and `node_modules`), as paths
/// relative to `root`.
fn file_names(root: &Path) -> Result<Vec<String>> {
    Ok(walk(root)?
        .iter()
        .map(|path| super::shown(root, path))
        .collect())
}

/// Every file below `dir` but in `target` and `node_modules`.
fn walk(dir: &Path) -> Result<Vec<PathBuf>> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    super::files_below(dir, |name| matches!(name, "target" | "node_modules"))
}

#[cfg(test)]
mod tests;
