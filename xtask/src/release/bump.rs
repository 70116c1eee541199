//! The version bump: rewrites the root `Cargo.toml` in place, keeping its
//! comments and layout, so that `[workspace.package] version` and the version
//! beside every internal `[workspace.dependencies]` path name the release.

use std::collections::BTreeSet;

use anyhow::{Context, Result, bail};
use toml_edit::{DocumentMut, Item, Value};

use super::version::Version;

/// The root manifest `text` with the workspace version and the internal
/// requirements (entries whose package is in `internal`) set to `to`. The
/// result is parsed back and checked, so a layout this edit does not know
/// fails here instead of producing a half-bumped manifest.
pub fn bump_root_manifest(text: &str, internal: &BTreeSet<&str>, to: &Version) -> Result<String> {
    let to_text = to.to_string();
    let mut doc: DocumentMut = text.parse().context("Cargo.toml does not parse")?;
    if let Some(workspace) = doc.get_mut("workspace").and_then(Item::as_table_like_mut) {
        if let Some(version) = workspace
            .get_mut("package")
            .and_then(Item::as_table_like_mut)
            .and_then(|package| package.get_mut("version"))
            .and_then(Item::as_value_mut)
        {
            set_version(version, &to_text);
        }
        if let Some(dependencies) = workspace
            .get_mut("dependencies")
            .and_then(Item::as_table_like_mut)
        {
            for (key, spec) in dependencies.iter_mut() {
                let Some(spec) = spec.as_table_like_mut() else {
                    continue;
                };
                let name = spec
                    .get("package")
                    .and_then(Item::as_str)
                    .unwrap_or(key.get());
                if !internal.contains(name) {
                    continue;
                }
                if let Some(version) = spec.get_mut("version").and_then(Item::as_value_mut) {
                    set_version(version, &to_text);
                }
            }
        }
    }
    let out = doc.to_string();
    verify(&out, internal, to)?;
    Ok(out)
}

/// Sets a version string to `to`, keeping an operator (`=`, `^`) written before
/// the old version and the spacing and comment around it.
fn set_version(value: &mut Value, to: &str) {
    let Some(old) = value.as_str() else {
        return;
    };
    let operator: String = old
        .chars()
        .take_while(|c| matches!(c, '=' | '^' | ' '))
        .collect();
    let decor = value.decor().clone();
    *value = Value::from(format!("{operator}{to}"));
    *value.decor_mut() = decor;
}

fn verify(text: &str, internal: &BTreeSet<&str>, to: &Version) -> Result<()> {
    let doc: toml::Table = toml::from_str(text).context("the bumped Cargo.toml does not parse")?;
    let workspace = doc.get("workspace");
    let version = workspace
        .and_then(|w| w.get("package"))
        .and_then(|p| p.get("version"))
        .and_then(toml::Value::as_str);
    if version != Some(to.to_string().as_str()) {
        bail!(
            "could not set `[workspace.package] version` to {to} in Cargo.toml (found {version:?}); \
             set it by hand"
        );
    }
    let deps = workspace
        .and_then(|w| w.get("dependencies"))
        .and_then(toml::Value::as_table);
    for (key, spec) in deps.into_iter().flatten() {
        let name = spec
            .get("package")
            .and_then(toml::Value::as_str)
            .unwrap_or(key);
        if !internal.contains(name) {
            continue;
        }
        let requirement = spec.get("version").and_then(toml::Value::as_str);
        let names = requirement
            .and_then(|r| semver::VersionReq::parse(r).ok())
            .is_some_and(|r| to.is_named_by(&r));
        if !names {
            bail!(
                "could not set the version of `{key}` in [workspace.dependencies] to {to} \
                 (found {requirement:?}); write `version = \"{to}\"` beside its path by hand"
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
