//! The version bump: rewrites the root `Cargo.toml` in place, keeping its
//! comments and layout, so that `[workspace.package] version` and the version
//! beside every internal `[workspace.dependencies]` path name the release.

use std::collections::BTreeSet;

use anyhow::{Context, Result, bail};

use super::version::Version;

/// The root manifest `text` with the workspace version and the internal
/// requirements (entries whose package is in `internal`) set to `to`. The
/// result is parsed back and checked, so a layout this edit does not know
/// fails here instead of producing a half-bumped manifest.
pub fn bump_root_manifest(text: &str, internal: &BTreeSet<&str>, to: &Version) -> Result<String> {
    let to_text = to.to_string();
    let mut out = String::with_capacity(text.len());
    let mut table = String::new();
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            table = header(trimmed).unwrap_or_default();
            out.push_str(line);
            continue;
        }
        let key = trimmed.split('=').next().unwrap_or("").trim();
        let rewritten = match table.as_str() {
            "workspace.package" if key == "version" => set_version(line, &to_text),
            "workspace.dependencies" if internal.contains(unquote(key)) => {
                set_version(line, &to_text)
            }
            t if key == "version"
                && t.strip_prefix("workspace.dependencies.")
                    .is_some_and(|name| internal.contains(unquote(name))) =>
            {
                set_version(line, &to_text)
            }
            _ => None,
        };
        out.push_str(rewritten.as_deref().unwrap_or(line));
    }
    verify(&out, internal, &to_text)?;
    Ok(out)
}

/// `workspace.package` for `[workspace.package]  # comment`.
fn header(line: &str) -> Option<String> {
    let inner = line.strip_prefix('[')?;
    let end = inner.find(']')?;
    Some(inner[..end].trim().to_owned())
}

fn unquote(key: &str) -> &str {
    key.trim().trim_matches('"')
}

/// The line with the string after its `version =` replaced by `to`, keeping an
/// operator (`=`, `^`) written before the old version.
fn set_version(line: &str, to: &str) -> Option<String> {
    let at = find_version_key(line)?;
    let after_key = &line[at + "version".len()..];
    let eq = after_key.find('=')?;
    let after_eq = &after_key[eq + 1..];
    let open = after_eq.find('"')?;
    let value_start = at + "version".len() + eq + 1 + open + 1;
    let close = line[value_start..].find('"')? + value_start;
    let old = &line[value_start..close];
    let operator: String = old
        .chars()
        .take_while(|c| matches!(c, '=' | '^' | ' '))
        .collect();
    Some(format!(
        "{}{operator}{to}{}",
        &line[..value_start],
        &line[close..]
    ))
}

/// Where the key `version` (not `version-foo` or `foo_version`) starts in `line`.
fn find_version_key(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut from = 0;
    while let Some(found) = line[from..].find("version") {
        let at = from + found;
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(at + "version".len()).copied();
        let boundary_before = before.is_none_or(|b| matches!(b, b' ' | b'\t' | b'{' | b','));
        let boundary_after = after.is_none_or(|b| matches!(b, b' ' | b'\t' | b'='));
        if boundary_before && boundary_after {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

fn verify(text: &str, internal: &BTreeSet<&str>, to: &str) -> Result<()> {
    let doc: toml::Table = toml::from_str(text).context("the bumped Cargo.toml does not parse")?;
    let workspace = doc.get("workspace");
    let version = workspace
        .and_then(|w| w.get("package"))
        .and_then(|p| p.get("version"))
        .and_then(toml::Value::as_str);
    if version != Some(to) {
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
        let bare = requirement.map(|r| r.trim_start_matches(['=', '^', ' ']));
        if bare != Some(to) {
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
