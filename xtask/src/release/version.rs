//! Release versions and the lock-step rule (docs/releasing.md): every publishable crate
//! carries the workspace version, inherits it, and every internal dependency
//! requirement names that same version.

use std::fmt;
use std::str::FromStr;

use anyhow::{Result, bail};

use super::workspace::Workspace;

/// A release version, `MAJOR.MINOR.PATCH`. Pre-releases and build metadata are
/// not released from this workspace (docs/releasing.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    major: u64,
    minor: u64,
    patch: u64,
}

impl FromStr for Version {
    type Err = anyhow::Error;

    fn from_str(text: &str) -> Result<Self> {
        let parts: Vec<&str> = text.split('.').collect();
        let number = |part: &str| -> Option<u64> {
            let plain = !part.is_empty()
                && part.bytes().all(|b| b.is_ascii_digit())
                && (part == "0" || !part.starts_with('0'));
            plain.then(|| part.parse().ok()).flatten()
        };
        match parts.as_slice() {
            [major, minor, patch] => match (number(major), number(minor), number(patch)) {
                (Some(major), Some(minor), Some(patch)) => Ok(Version {
                    major,
                    minor,
                    patch,
                }),
                _ => bail!(not_a_version(text)),
            },
            _ => bail!(not_a_version(text)),
        }
    }
}

fn not_a_version(text: &str) -> String {
    format!("`{text}` is not a release version: write MAJOR.MINOR.PATCH, e.g. 0.2.0")
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl Version {
    /// The git tag that marks this release.
    pub fn tag(&self) -> String {
        format!("v{self}")
    }
}

/// One way the workspace breaks the lock-step rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockStepProblem {
    /// The root manifest has no usable `[workspace.package] version`.
    NoWorkspaceVersion { found: Option<String> },
    /// A publishable crate writes its own `version` instead of inheriting it.
    OwnVersion { krate: String },
    /// A publishable crate's version differs from the workspace version.
    Mismatch {
        krate: String,
        version: String,
        workspace: String,
    },
    /// An internal dependency does not go through `[workspace.dependencies]`.
    NotInherited { krate: String, dependency: String },
    /// An internal requirement (in `where_`) names another version, or none.
    Requirement {
        where_: String,
        dependency: String,
        requirement: String,
        workspace: String,
    },
}

impl fmt::Display for LockStepProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockStepProblem::NoWorkspaceVersion { found: None } => write!(
                f,
                "Cargo.toml has no `[workspace.package] version`: the crates release in \
                 lock-step from that one version; add it"
            ),
            LockStepProblem::NoWorkspaceVersion { found: Some(found) } => write!(
                f,
                "Cargo.toml: `[workspace.package] version = \"{found}\"` is not MAJOR.MINOR.PATCH"
            ),
            LockStepProblem::OwnVersion { krate } => write!(
                f,
                "{krate} sets its own version: write `version.workspace = true` in its \
                 [package] so every release bumps it with the others"
            ),
            LockStepProblem::Mismatch {
                krate,
                version,
                workspace,
            } => write!(
                f,
                "version mismatch: {krate} is at {version} but the workspace is at {workspace}; \
                 the crates release in lock-step"
            ),
            LockStepProblem::NotInherited { krate, dependency } => write!(
                f,
                "{krate} depends on {dependency} without `{{ workspace = true }}`: its version \
                 requirement would not follow the release; use the [workspace.dependencies] entry"
            ),
            LockStepProblem::Requirement {
                where_,
                dependency,
                requirement,
                workspace,
            } => write!(
                f,
                "{where_}: the requirement on {dependency} is `{requirement}` but the workspace is \
                 at {workspace}; write `version = \"{workspace}\"` beside its path"
            ),
        }
    }
}

/// Checks the lock-step rule and returns the workspace version when it holds.
pub fn check(workspace: &Workspace) -> (Option<Version>, Vec<LockStepProblem>) {
    let mut problems = Vec::new();
    let version = match &workspace.version {
        Some(text) => match text.parse::<Version>() {
            Ok(version) => Some(version),
            Err(_) => {
                problems.push(LockStepProblem::NoWorkspaceVersion {
                    found: Some(text.clone()),
                });
                None
            }
        },
        None => {
            problems.push(LockStepProblem::NoWorkspaceVersion { found: None });
            None
        }
    };
    let expected = version.map(|v| v.to_string());
    let expected = expected.as_deref().unwrap_or("?");
    let internal = workspace.publishable_names();

    for (dependency, requirement) in &workspace.internal_requirements {
        let requirement = requirement.as_deref().unwrap_or("");
        if version.is_some() && !names_version(requirement, expected) {
            problems.push(LockStepProblem::Requirement {
                where_: "Cargo.toml [workspace.dependencies]".to_owned(),
                dependency: dependency.clone(),
                requirement: display_requirement(requirement),
                workspace: expected.to_owned(),
            });
        }
    }
    for package in workspace.packages.iter().filter(|p| p.publish) {
        if !package.inherits_version {
            problems.push(LockStepProblem::OwnVersion {
                krate: package.name.clone(),
            });
        }
        if version.is_some() && package.version != expected {
            problems.push(LockStepProblem::Mismatch {
                krate: package.name.clone(),
                version: package.version.clone(),
                workspace: expected.to_owned(),
            });
        }
        for dependency in &package.dependencies {
            if !internal.contains(dependency.name.as_str()) {
                continue;
            }
            if !package.inherited_dependencies.contains(&dependency.name) {
                problems.push(LockStepProblem::NotInherited {
                    krate: package.name.clone(),
                    dependency: dependency.name.clone(),
                });
            }
            // A dev-dependency without a version is dropped by `cargo publish`; any
            // other internal requirement ships and must name the release.
            let dropped = dependency.is_dev() && dependency.requirement == "*";
            if version.is_some() && !dropped && !names_version(&dependency.requirement, expected) {
                problems.push(LockStepProblem::Requirement {
                    where_: package.name.clone(),
                    dependency: dependency.name.clone(),
                    requirement: display_requirement(&dependency.requirement),
                    workspace: expected.to_owned(),
                });
            }
        }
    }
    (version, problems)
}

/// Whether a requirement as cargo writes it (`^0.1.0`, `=0.1.0`, `0.1.0`) names `version`.
fn names_version(requirement: &str, version: &str) -> bool {
    let bare = requirement
        .trim()
        .trim_start_matches(['^', '='])
        .trim_start();
    bare == version
}

fn display_requirement(requirement: &str) -> String {
    match requirement.trim() {
        "" | "*" => "none (path only)".to_owned(),
        other => other.to_owned(),
    }
}

#[cfg(test)]
mod tests;
