//! What a release needs to know about the workspace: its version, its crates
//! (as `cargo metadata` resolves them) and how their manifests are written.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use cargo_metadata::{DependencyKind, MetadataCommand};
use semver::VersionReq;

/// The workspace at one moment.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The directory holding the root `Cargo.toml`.
    pub root: PathBuf,
    /// Where cargo builds (and `cargo package` writes `.crate` files).
    pub target_dir: PathBuf,
    /// `[workspace.package] version`, as written.
    pub version: Option<String>,
    /// `[workspace.dependencies]` entries on publishable members: name and the
    /// `version` written beside the path (if any).
    pub internal_requirements: Vec<(String, Option<String>)>,
    /// Every member, in the order cargo lists them.
    pub packages: Vec<Package>,
}

/// One workspace member.
#[derive(Debug, Clone)]
pub struct Package {
    pub name: String,
    pub version: semver::Version,
    /// False for `publish = false`.
    pub publish: bool,
    /// The directory holding the crate's `Cargo.toml`.
    pub dir: PathBuf,
    pub description: Option<String>,
    pub license: Option<String>,
    pub license_file: Option<String>,
    pub repository: Option<String>,
    pub readme: Option<String>,
    pub keywords: Vec<String>,
    pub categories: Vec<String>,
    pub dependencies: Vec<Dependency>,
    /// Whether the manifest says `version.workspace = true`.
    pub inherits_version: bool,
    /// Dependencies written `{ workspace = true }`, by package name, any section.
    pub inherited_dependencies: BTreeSet<String>,
}

/// One dependency edge as cargo resolves it.
#[derive(Debug, Clone)]
pub struct Dependency {
    /// The package name (renames already undone).
    pub name: String,
    /// The requirement (`*` for none: a path alone).
    pub requirement: VersionReq,
    pub kind: DependencyKind,
}

impl Dependency {
    /// Whether this is a dev-dependency.
    pub fn is_dev(&self) -> bool {
        self.kind == DependencyKind::Development
    }
}

impl Workspace {
    /// Reads the workspace whose root manifest is `root/Cargo.toml`.
    pub fn load(root: &Path) -> Result<Workspace> {
        let manifest = root.join("Cargo.toml");
        let metadata = MetadataCommand::new()
            .cargo_path(crate::cargo::program())
            .manifest_path(&manifest)
            .current_dir(root)
            .no_deps()
            .exec()
            .with_context(|| format!("reading the workspace of {}", manifest.display()))?;
        let root_text = fs::read_to_string(&manifest)
            .with_context(|| format!("reading {}", manifest.display()))?;
        let root_doc: toml::Table = toml::from_str(&root_text)
            .with_context(|| format!("parsing {}", manifest.display()))?;

        let packages = metadata
            .packages
            .into_iter()
            .map(package)
            .collect::<Result<Vec<Package>>>()?;
        let publishable: BTreeSet<String> = packages
            .iter()
            .filter(|p| p.publish)
            .map(|p| p.name.clone())
            .collect();
        let workspace = root_doc.get("workspace").and_then(toml::Value::as_table);
        let version = workspace
            .and_then(|w| w.get("package"))
            .and_then(|p| p.get("version"))
            .and_then(toml::Value::as_str)
            .map(str::to_owned);
        let mut internal_requirements = Vec::new();
        if let Some(deps) = workspace
            .and_then(|w| w.get("dependencies"))
            .and_then(toml::Value::as_table)
        {
            for (key, spec) in deps {
                let name = spec
                    .get("package")
                    .and_then(toml::Value::as_str)
                    .unwrap_or(key);
                if publishable.contains(name) {
                    let version = spec
                        .get("version")
                        .and_then(toml::Value::as_str)
                        .map(str::to_owned);
                    internal_requirements.push((name.to_owned(), version));
                }
            }
        }
        Ok(Workspace {
            root: root.to_path_buf(),
            target_dir: metadata.target_directory.into_std_path_buf(),
            version,
            internal_requirements,
            packages,
        })
    }

    /// The names of the members that `cargo publish` may upload.
    pub fn publishable_names(&self) -> BTreeSet<&str> {
        self.packages
            .iter()
            .filter(|p| p.publish)
            .map(|p| p.name.as_str())
            .collect()
    }

    /// The member called `name`.
    pub fn package(&self, name: &str) -> Option<&Package> {
        self.packages.iter().find(|p| p.name == name)
    }
}

/// A member as `cargo metadata` describes it, with what only its manifest's text says.
fn package(member: cargo_metadata::Package) -> Result<Package> {
    let manifest = &member.manifest_path;
    let text = fs::read_to_string(manifest).with_context(|| format!("reading {manifest}"))?;
    let doc: toml::Table = toml::from_str(&text).with_context(|| format!("parsing {manifest}"))?;
    let dir = manifest
        .parent()
        .map(|dir| dir.as_std_path().to_path_buf())
        .unwrap_or_default();
    Ok(Package {
        name: member.name.to_string(),
        version: member.version,
        // `None` is any registry; `[]` is `publish = false`.
        publish: member
            .publish
            .is_none_or(|registries| !registries.is_empty()),
        dir,
        description: member.description,
        license: member.license,
        license_file: member.license_file.map(|path| path.into_string()),
        repository: member.repository,
        readme: member.readme.map(|path| path.into_string()),
        keywords: member.keywords,
        categories: member.categories,
        dependencies: member
            .dependencies
            .into_iter()
            .map(|dependency| Dependency {
                name: dependency.name,
                requirement: dependency.req,
                kind: dependency.kind,
            })
            .collect(),
        inherits_version: inherits_version(&doc),
        inherited_dependencies: inherited_dependencies(&doc),
    })
}

fn inherits_version(doc: &toml::Table) -> bool {
    doc.get("package")
        .and_then(|p| p.get("version"))
        .and_then(|v| v.get("workspace"))
        .and_then(toml::Value::as_bool)
        .unwrap_or(false)
}

/// Package names of every dependency written `{ workspace = true }`, including
/// the `[target.'cfg(..)'.*dependencies]` tables.
fn inherited_dependencies(doc: &toml::Table) -> BTreeSet<String> {
    const SECTIONS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    let mut tables: Vec<&toml::Table> = SECTIONS
        .iter()
        .filter_map(|s| doc.get(*s).and_then(toml::Value::as_table))
        .collect();
    if let Some(targets) = doc.get("target").and_then(toml::Value::as_table) {
        for target in targets.values() {
            tables.extend(
                SECTIONS
                    .iter()
                    .filter_map(|s| target.get(*s).and_then(toml::Value::as_table)),
            );
        }
    }
    let mut names = BTreeSet::new();
    for table in tables {
        for (key, spec) in table {
            let inherited = spec
                .get("workspace")
                .and_then(toml::Value::as_bool)
                .unwrap_or(false);
            if inherited {
                // A rename (`package = "..."`) can only sit in the workspace entry,
                // so the key is the name cargo metadata reports unless that entry renames.
                names.insert(key.clone());
            }
        }
    }
    names
}

/// Synthetic workspaces for the unit tests of the release checks.
#[cfg(test)]
pub mod test_support {
    use super::*;

    /// A publishable crate at `version` whose metadata is complete and whose
    /// internal dependencies are inherited from the workspace.
    pub fn package(name: &str, version: &str, deps: &[(&str, &str)]) -> Package {
        Package {
            name: name.to_owned(),
            version: version.parse().unwrap(),
            publish: true,
            dir: PathBuf::from("/nonexistent").join(name),
            description: Some(format!("The {name} crate.")),
            license: Some("MIT OR Apache-2.0".to_owned()),
            license_file: None,
            repository: Some("https://example.org/overspill".to_owned()),
            readme: Some("README.md".to_owned()),
            keywords: vec!["llm".to_owned(), "context-window".to_owned()],
            categories: vec!["development-tools".to_owned()],
            dependencies: deps
                .iter()
                .map(|(name, req)| Dependency {
                    name: (*name).to_owned(),
                    requirement: req.parse().unwrap(),
                    kind: DependencyKind::Normal,
                })
                .collect(),
            inherits_version: true,
            inherited_dependencies: deps.iter().map(|(n, _)| (*n).to_owned()).collect(),
        }
    }

    /// A workspace at `version` holding `packages`, its `[workspace.dependencies]`
    /// naming `version` for each of them.
    pub fn workspace(version: &str, packages: Vec<Package>) -> Workspace {
        Workspace {
            root: PathBuf::from("/nonexistent"),
            target_dir: PathBuf::from("/nonexistent/target"),
            version: Some(version.to_owned()),
            internal_requirements: packages
                .iter()
                .map(|p| (p.name.clone(), Some(version.to_owned())))
                .collect(),
            packages,
        }
    }
}

#[cfg(test)]
mod tests;
