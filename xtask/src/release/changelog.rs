//! The CHANGELOG rule of a release (Keep a Changelog): the version being
//! released has entries, either already under `## [X.Y.Z] - date` or under
//! `## [Unreleased]`, which the release renames to `## [X.Y.Z] - date` and
//! replaces with a fresh, empty `## [Unreleased]` above it.

use std::fmt;

use super::version::Version;

/// The changelog's file name at the workspace root.
pub const FILE: &str = "CHANGELOG.md";

const UNRELEASED: &str = "Unreleased";

/// What the release will do to the changelog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// `## [Unreleased]` (with `entries` list items) becomes the version's section.
    RenameUnreleased { entries: usize },
    /// The version already has its own section and nothing is unreleased.
    AlreadyPrepared,
}

/// Why the changelog is not ready for the release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangelogProblem {
    /// Neither a `## [X.Y.Z]` section nor unreleased entries.
    NoEntries { version: String },
    /// Both a `## [X.Y.Z]` section and unreleased entries: which ones ship is unclear.
    Ambiguous { version: String, unreleased: usize },
}

impl fmt::Display for ChangelogProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChangelogProblem::NoEntries { version } => write!(
                f,
                "{FILE} has no entries for {version}: list the changes as `- ...` lines under \
                 `## [Unreleased]` (the release renames it to `## [{version}] - <date>`)"
            ),
            ChangelogProblem::Ambiguous {
                version,
                unreleased,
            } => write!(
                f,
                "{FILE} has a `## [{version}]` section and {unreleased} entries under \
                 `## [Unreleased]`: move them into [{version}] or leave them for the next release \
                 by releasing another version"
            ),
        }
    }
}

/// Decides how `text` becomes the changelog of `version`, or why it cannot.
pub fn plan(text: &str, version: &Version) -> Result<Plan, ChangelogProblem> {
    let sections = sections(text);
    let wanted = version.to_string();
    let entries_of = |name: &str| {
        sections
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
            .map(|s| s.entries)
    };
    let unreleased = entries_of(UNRELEASED).unwrap_or(0);
    match entries_of(&wanted) {
        Some(_) if unreleased > 0 => Err(ChangelogProblem::Ambiguous {
            version: wanted,
            unreleased,
        }),
        Some(entries) if entries > 0 => Ok(Plan::AlreadyPrepared),
        _ if unreleased > 0 => Ok(Plan::RenameUnreleased {
            entries: unreleased,
        }),
        _ => Err(ChangelogProblem::NoEntries { version: wanted }),
    }
}

/// The changelog after releasing `version` on `date` (`YYYY-MM-DD`). Unchanged
/// when the plan is [`Plan::AlreadyPrepared`].
pub fn release(text: &str, version: &Version, date: &str) -> Result<String, ChangelogProblem> {
    if plan(text, version)? == Plan::AlreadyPrepared {
        return Ok(text.to_owned());
    }
    let mut out = String::with_capacity(text.len() + 32);
    let mut done = false;
    for line in text.split_inclusive('\n') {
        if !done && heading_name(line).is_some_and(|n| n.eq_ignore_ascii_case(UNRELEASED)) {
            let newline = if line.ends_with("\r\n") { "\r\n" } else { "\n" };
            out.push_str("## [Unreleased]");
            out.push_str(newline);
            out.push_str(newline);
            out.push_str(&format!("## [{version}] - {date}"));
            out.push_str(newline);
            done = true;
        } else {
            out.push_str(line);
        }
    }
    Ok(out)
}

struct Section<'a> {
    name: &'a str,
    entries: usize,
}

/// The `## [name]` sections and how many list items each holds.
fn sections(text: &str) -> Vec<Section<'_>> {
    let mut sections: Vec<Section<'_>> = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        if let Some(name) = heading_name(line) {
            sections.push(Section { name, entries: 0 });
        } else if line.starts_with("## ") {
            // A level-2 heading that is no version closes the previous section.
            sections.push(Section {
                name: "",
                entries: 0,
            });
        } else if let Some(section) = sections.last_mut() {
            let item = line.trim_start();
            if item.starts_with("- ") || item.starts_with("* ") {
                section.entries += 1;
            }
        }
    }
    sections
}

/// `X` of a `## [X]` or `## [X] - date` heading.
fn heading_name(line: &str) -> Option<&str> {
    let rest = line.trim_end().strip_prefix("## [")?;
    let end = rest.find(']')?;
    Some(rest[..end].trim())
}

#[cfg(test)]
mod tests;
