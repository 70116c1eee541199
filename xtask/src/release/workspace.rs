//! What a release needs to know about the workspace: its version, its crates
//! (as `cargo metadata` resolves them) and how their manifests are written.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

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
    pub version: String,
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
#[derive(Debug, Clone, Deserialize)]
pub struct Dependency {
    /// The package name (renames already undone).
    pub name: String,
    /// The requirement as cargo normalises it: `^0.1.0`, `=0.1.0`, `*` for none.
    #[serde(rename = "req")]
    pub requirement: String,
    /// `None` for normal, `Some("dev")`, `Some("build")`.
    pub kind: Option<String>,
}

impl Dependency {
    /// Whether this is a dev-dependency.
    pub fn is_dev(&self) -> bool {
        self.kind.as_deref() == Some("dev")
    }
}

impl Workspace {
    /// Reads the workspace whose root manifest is `root/Cargo.toml`.
    pub fn load(root: &Path) -> Result<Workspace> {
        let manifest = root.join("Cargo.toml");
        let output = crate::cargo::command(root)
            .args([
                "metadata",
                "--no-deps",
                "--format-version",
                "1",
                "--manifest-path",
            ])
            .arg(&manifest)
            .output()
            .context("could not start `cargo metadata`")?;
        if !output.status.success() {
            bail!(
                "`cargo metadata` failed for {}:\n{}",
                manifest.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        let metadata: Metadata = serde_json::from_slice(&output.stdout)
            .context("`cargo metadata` printed JSON this xtask does not understand")?;
        let root_text = fs::read_to_string(&manifest)
            .with_context(|| format!("reading {}", manifest.display()))?;
        let root_doc: toml::Table = toml::from_str(&root_text)
            .with_context(|| format!("parsing {}", manifest.display()))?;

        let mut packages = Vec::new();
        for raw in metadata.packages {
            packages.push(raw.into_package()?);
        }
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
            target_dir: metadata.target_directory,
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

#[derive(Deserialize)]
struct Metadata {
    packages: Vec<RawPackage>,
    target_directory: PathBuf,
}

#[derive(Deserialize)]
struct RawPackage {
    name: String,
    version: String,
    /// `null` means any registry; `[]` means `publish = false`.
    publish: Option<Vec<String>>,
    manifest_path: PathBuf,
    description: Option<String>,
    license: Option<String>,
    license_file: Option<String>,
    repository: Option<String>,
    readme: Option<String>,
    keywords: Vec<String>,
    categories: Vec<String>,
    dependencies: Vec<Dependency>,
}

impl RawPackage {
    fn into_package(self) -> Result<Package> {
        let text = fs::read_to_string(&self.manifest_path)
            .with_context(|| format!("reading {}", self.manifest_path.display()))?;
        let doc: toml::Table = toml::from_str(&text)
            .with_context(|| format!("parsing {}", self.manifest_path.display()))?;
        let dir = self
            .manifest_path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        Ok(Package {
            name: self.name,
            version: self.version,
            publish: self.publish.is_none_or(|registries| !registries.is_empty()),
            dir,
            description: self.description,
            license: self.license,
            license_file: self.license_file,
            repository: self.repository,
            readme: self.readme,
            keywords: self.keywords,
            categories: self.categories,
            dependencies: self.dependencies,
            inherits_version: inherits_version(&doc),
            inherited_dependencies: inherited_dependencies(&doc),
        })
    }
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
            version: version.to_owned(),
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
                    requirement: (*req).to_owned(),
                    kind: None,
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
