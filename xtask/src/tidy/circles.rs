//! No circles between a crate's modules: a module that uses a sibling (or a sibling's child)
//! which, directly or through others, uses it back is one concept in two files, or two
//! concepts without an owner (docs/architecture.md, "Cross-cutting rules"). A module and its
//! own children may refer to each other (`super::` in a child is how Rust nests code).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use anyhow::{Context, Result};
use petgraph::algo::tarjan_scc;
use petgraph::graphmap::DiGraphMap;

use super::Problem;

/// The module circles of the crate whose `src` is `src`.
pub fn problems(krate: &str, src: &Path) -> Result<Vec<Problem>> {
    let modules = modules(src)?;
    let known: BTreeSet<&str> = modules.keys().map(String::as_str).collect();
    let mut uses: DiGraphMap<&str, ()> = DiGraphMap::new();
    for (module, file) in &modules {
        let text = fs::read_to_string(file).with_context(|| format!("reading {file}"))?;
        for target in references(module, &code_of(&text)) {
            let Some(found) = longest_module(&known, &target) else {
                continue;
            };
            if !related(module, found) {
                uses.add_edge(module.as_str(), found, ());
            }
        }
    }
    Ok(circles(&uses)
        .into_iter()
        .map(|modules| Problem::ModuleCircle {
            krate: krate.to_owned(),
            modules,
        })
        .collect())
}

/// Every module of a crate (`""` for the root, `a::b` for `a/b.rs` or `a/b/mod.rs`) and the
/// file that holds it. Test files (`tests.rs`, `*_tests.rs`) are left out.
fn modules(src: &Path) -> Result<BTreeMap<String, String>> {
    let mut found = BTreeMap::new();
    for path in super::files_below(src, |_| false)? {
        let Some(relative) = path.strip_prefix(src).ok().and_then(|p| p.to_str()) else {
            continue;
        };
        let Some(stem) = relative.strip_suffix(".rs") else {
            continue;
        };
        if stem == "tests" || stem.ends_with("/tests") || stem.ends_with("_tests") {
            continue;
        }
        let stem = stem
            .trim_end_matches("/mod")
            .trim_start_matches("lib")
            .trim_start_matches("main");
        let module = stem.replace('/', "::");
        found.insert(module, path.display().to_string());
    }
    Ok(found)
}

/// A file's code without its comments and its `#[cfg(test)]` part (which starts at the first
/// such line at the left margin).
fn code_of(text: &str) -> String {
    text.lines()
        .take_while(|line| !line.starts_with("#[cfg(test)]"))
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module paths a module's code names through `crate::`, `super::` and `self::`, with
/// `use` groups (`crate::{a, b::{c, d}}`) spread out.
fn references(module: &str, code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (keyword, base) in [
        ("crate::", String::new()),
        ("super::", parent(module).to_owned()),
        ("self::", module.to_owned()),
    ] {
        let mut rest = code;
        while let Some(at) = rest.find(keyword) {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + keyword.len()..];
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut paths = Vec::new();
            tree(rest, &base, &mut paths);
            found.extend(paths);
        }
    }
    found
}

/// Reads a use tree (or a plain path) at the start of `text` under `prefix` into `out`.
/// Returns how many bytes it took.
fn tree(text: &str, prefix: &str, out: &mut Vec<String>) -> usize {
    let join = |prefix: &str, segment: &str| {
        if prefix.is_empty() {
            segment.to_owned()
        } else {
            format!("{prefix}::{segment}")
        }
    };
    let mut at = 0;
    let mut path = prefix.to_owned();
    loop {
        let rest = &text[at..];
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        if let Some(group) = trimmed.strip_prefix('{') {
            at += 1;
            let mut inner = group;
            loop {
                let used = tree(inner, &path, out);
                at += used;
                inner = &inner[used..];
                let skipped = inner.trim_start();
                at += inner.len() - skipped.len();
                inner = skipped;
                if let Some(after) = inner.strip_prefix(',') {
                    at += 1;
                    inner = after;
                    continue;
                }
                if inner.starts_with('}') {
                    at += 1;
                }
                return at;
            }
        }
        let ident: String = trimmed
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if ident.is_empty() {
            out.push(path);
            return at;
        }
        at += ident.len();
        if ident != "self" {
            path = join(&path, &ident);
        }
        if text[at..].starts_with("::") {
            at += 2;
        } else {
            out.push(path);
            return at;
        }
    }
}

/// The parent of a module (`""` is the root's, and its own).
fn parent(module: &str) -> &str {
    module.rsplit_once("::").map_or("", |(parent, _)| parent)
}

/// The longest known module that `path` is or lies in; `None` for the root.
fn longest_module<'a>(known: &BTreeSet<&'a str>, path: &str) -> Option<&'a str> {
    let mut candidate = path;
    loop {
        if let Some(found) = known.get(candidate) {
            return (!found.is_empty()).then_some(*found);
        }
        candidate = candidate.rsplit_once("::")?.0;
    }
}

/// Whether one module is the other, or an ancestor of it.
fn related(a: &str, b: &str) -> bool {
    let within = |inner: &str, outer: &str| {
        outer.is_empty() || inner == outer || inner.starts_with(&format!("{outer}::"))
    };
    within(a, b) || within(b, a)
}

/// The strongly connected groups of more than one module, each sorted, in order.
fn circles(uses: &DiGraphMap<&str, ()>) -> Vec<Vec<String>> {
    let mut found: Vec<Vec<String>> = tarjan_scc(uses)
        .into_iter()
        .filter(|group| group.len() > 1)
        .map(|group| {
            let mut group: Vec<String> = group.into_iter().map(str::to_owned).collect();
            group.sort();
            group
        })
        .collect();
    found.sort();
    found
}

#[cfg(test)]
mod tests;
