//! Release versions and the lock-step rule (docs/releasing.md): every publishable crate
//! carries the workspace version, inherits it, and every internal dependency
//! requirement names that same version.

use std::fmt;
use std::str::FromStr;

use anyhow::{Result, bail};
use semver::VersionReq;

use super::workspace::Workspace;

/// A release version, `MAJOR.MINOR.PATCH`. Pre-releases and build metadata are
/// not released from this workspace (docs/releasing.md).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(semver::Version);

impl FromStr for Version {
    type Err = anyhow::Error;

    fn from_str(text: &str) -> Result<Self> {
        match semver::Version::parse(text) {
            Ok(version) if version.pre.is_empty() && version.build.is_empty() => {
                Ok(Version(version))
            }
            _ => bail!("`{text}` is not a release version: write MAJOR.MINOR.PATCH, e.g. 0.2.0"),
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Version {
    /// The git tag that marks this release.
    pub fn tag(&self) -> String {
        format!("v{self}")
    }

    /// Whether a requirement (`^0.1.0`, `=0.1.0`, `0.1.0` as a manifest writes it) names
    /// exactly this version.
    pub fn is_named_by(&self, requirement: &VersionReq) -> bool {
        let version = &self.0;
        match requirement.comparators.as_slice() {
            [only] => {
                matches!(only.op, semver::Op::Caret | semver::Op::Exact)
                    && only.major == version.major
                    && only.minor == Some(version.minor)
                    && only.patch == Some(version.patch)
                    && only.pre.is_empty()
            }
            _ => false,
        }
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
    let expected = version
        .as_ref()
        .map_or_else(|| "?".to_owned(), ToString::to_string);
    // Without a workspace version only the rules that need none are checked.
    let misses = |requirement: Option<&VersionReq>| {
        version
            .as_ref()
            .is_some_and(|v| !requirement.is_some_and(|r| v.is_named_by(r)))
    };
    let internal = workspace.publishable_names();

    for (dependency, requirement) in &workspace.internal_requirements {
        let requirement = requirement.as_deref().unwrap_or("");
        if misses(VersionReq::parse(requirement).ok().as_ref()) {
            problems.push(LockStepProblem::Requirement {
                where_: "Cargo.toml [workspace.dependencies]".to_owned(),
                dependency: dependency.clone(),
                requirement: display_requirement(requirement),
                workspace: expected.clone(),
            });
        }
    }
    for package in workspace.packages.iter().filter(|p| p.publish) {
        if !package.inherits_version {
            problems.push(LockStepProblem::OwnVersion {
                krate: package.name.clone(),
            });
        }
        if version
            .as_ref()
            .is_some_and(|version| package.version != version.0)
        {
            problems.push(LockStepProblem::Mismatch {
                krate: package.name.clone(),
                version: package.version.to_string(),
                workspace: expected.clone(),
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
            let dropped = dependency.is_dev() && dependency.requirement == VersionReq::STAR;
            if !dropped && misses(Some(&dependency.requirement)) {
                problems.push(LockStepProblem::Requirement {
                    where_: package.name.clone(),
                    dependency: dependency.name.clone(),
                    requirement: display_requirement(&dependency.requirement.to_string()),
                    workspace: expected.clone(),
                });
            }
        }
    }
    (version, problems)
}

fn display_requirement(requirement: &str) -> String {
    match requirement.trim() {
        "" | "*" => "none (path only)".to_owned(),
        other => other.to_owned(),
    }
}

#[cfg(test)]
mod tests;
