//! The package metadata every published crate carries, so that its crates.io
//! page says what it is, under which licence, and where it comes from.

use std::fmt;

use super::workspace::Package;

/// crates.io accepts at most five keywords and five categories.
const MAX_TAGS: usize = 5;
/// crates.io's keyword length limit.
const MAX_KEYWORD_LEN: usize = 20;

/// One missing or unusable metadata field of one crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataProblem {
    pub krate: String,
    pub field: &'static str,
    pub fix: String,
}

impl fmt::Display for MetadataProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: missing or unusable `{}` metadata: {}",
            self.krate, self.field, self.fix
        )
    }
}

/// What is wrong with the publishing metadata of `package`. The readme is
/// looked up on disk, relative to the crate's directory.
pub fn problems(package: &Package) -> Vec<MetadataProblem> {
    let mut problems = Vec::new();
    let mut push = |field: &'static str, fix: String| {
        problems.push(MetadataProblem {
            krate: package.name.clone(),
            field,
            fix,
        });
    };
    if is_blank(&package.description) {
        push(
            "description",
            "add `description = \"...\"`: one sentence saying what the crate does".to_owned(),
        );
    }
    if is_blank(&package.license) && is_blank(&package.license_file) {
        push(
            "license",
            "add `license.workspace = true` (an SPDX expression in [workspace.package])".to_owned(),
        );
    }
    if is_blank(&package.repository) {
        push("repository", "add `repository.workspace = true`".to_owned());
    }
    match package.readme.as_deref() {
        None | Some("") => push(
            "readme",
            "add `readme = \"README.md\"` and the file beside Cargo.toml".to_owned(),
        ),
        Some(readme) if !package.dir.join(readme).is_file() => push(
            "readme",
            format!(
                "`{readme}` does not exist in {}; create it or fix the path",
                package.dir.display()
            ),
        ),
        Some(_) => {}
    }
    check_tags(&package.keywords, "keywords", is_keyword, &mut push);
    check_tags(&package.categories, "categories", is_category, &mut push);
    problems
}

fn check_tags(
    tags: &[String],
    field: &'static str,
    valid: fn(&str) -> bool,
    push: &mut impl FnMut(&'static str, String),
) {
    if tags.is_empty() {
        push(field, format!("add 1 to {MAX_TAGS} {field}"));
    } else if tags.len() > MAX_TAGS {
        push(
            field,
            format!("crates.io accepts at most {MAX_TAGS}, found {}", tags.len()),
        );
    }
    for tag in tags.iter().filter(|t| !valid(t)) {
        push(
            field,
            format!(
                "`{tag}` is not accepted by crates.io (ASCII letters, digits, `-`, `_`, `+`; starts with a letter; keywords at most {MAX_KEYWORD_LEN} characters)"
            ),
        );
    }
}

fn is_blank(value: &Option<String>) -> bool {
    value.as_deref().is_none_or(|v| v.trim().is_empty())
}

fn is_keyword(keyword: &str) -> bool {
    keyword.len() <= MAX_KEYWORD_LEN
        && keyword.starts_with(|c: char| c.is_ascii_alphabetic())
        && keyword
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+'))
}

/// A category slug (`development-tools`, `command-line-utilities::...`). Whether
/// crates.io knows the slug is only checked by crates.io itself.
fn is_category(category: &str) -> bool {
    category.split("::").all(|part| {
        part.starts_with(|c: char| c.is_ascii_lowercase())
            && part
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    })
}

#[cfg(test)]
mod tests;
