//! The npm packages, in the pattern large native command-line tools use: a launcher package
//! `overspill` whose `optionalDependencies` name one package per platform, each gated by npm's
//! `os`, `cpu` and `libc` so that npm installs only the one that runs here. No package has an
//! install script: they install offline and with `--ignore-scripts`
//! (docs/releasing.md#the-npm-packages).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::{Built, PLATFORMS, Platform};

/// The npm scope of the platform packages.
pub const SCOPE: &str = "@overspill";

/// Packs the launcher and `platform`'s package into `out`; returns the two `.tgz` files.
pub fn write(built: &Built<'_>, out: &Path) -> Result<Vec<PathBuf>> {
    let staging = out.join("staging");
    let launcher = staging.join("overspill");
    fs::create_dir_all(launcher.join("bin"))?;
    fs::copy(
        built.root.join("packaging/npm/overspill.js"),
        launcher.join("bin/overspill.js"),
    )
    .context("cannot copy packaging/npm/overspill.js")?;
    make_executable(&launcher.join("bin/overspill.js"))?;
    write_common(built.root, &launcher, false)?;
    write_json(
        &launcher.join("package.json"),
        &launcher_manifest(built.version),
    )?;

    let native = staging.join(built.platform.npm_name);
    fs::create_dir_all(native.join("bin"))?;
    let installed = native.join("bin").join(built.platform.executable());
    fs::copy(built.binary, &installed)
        .with_context(|| format!("cannot copy {} into the package", built.binary.display()))?;
    make_executable(&installed)?;
    write_common(built.root, &native, true)?;
    write_json(
        &native.join("package.json"),
        &platform_manifest(built.version, built.platform),
    )?;

    let packed = vec![pack(&launcher, out)?, pack(&native, out)?];
    fs::remove_dir_all(&staging)?;
    Ok(packed)
}

/// The launcher's `package.json`: its command, and every platform package at this version.
pub fn launcher_manifest(version: &str) -> Value {
    let optional: serde_json::Map<String, Value> = PLATFORMS
        .iter()
        .map(|platform| (package_name(platform), json!(version)))
        .collect();
    json!({
        "name": "overspill",
        "version": version,
        "description": "Keeps large tool outputs out of an LLM's context window: an MCP proxy that stores them and hands the model a pointer and read-only tools to explore them.",
        "keywords": ["mcp", "llm", "agents", "context-window", "tokens"],
        "homepage": "https://github.com/overspill-rs/overspill",
        "repository": { "type": "git", "url": "git+https://github.com/overspill-rs/overspill.git" },
        "license": "MIT OR Apache-2.0",
        "bin": { "overspill": "bin/overspill.js" },
        "files": ["bin/overspill.js", "README.md", "LICENSE-MIT", "LICENSE-APACHE"],
        "engines": { "node": ">=18" },
        "optionalDependencies": optional,
    })
}

/// A platform package's `package.json`: the binary, and the os/cpu/libc npm installs it on.
pub fn platform_manifest(version: &str, platform: &Platform) -> Value {
    let mut manifest = json!({
        "name": package_name(platform),
        "version": version,
        "description": format!("The overspill binary for {}; installed by the `overspill` package.", platform.describe),
        "homepage": "https://github.com/overspill-rs/overspill",
        "repository": { "type": "git", "url": "git+https://github.com/overspill-rs/overspill.git" },
        "license": "MIT OR Apache-2.0",
        "files": [format!("bin/{}", platform.executable()), "README.md", "LICENSE-MIT", "LICENSE-APACHE", "notices/"],
        "os": [platform.npm_os],
        "cpu": [platform.npm_cpu],
        "preferUnplugged": true,
    });
    if let (Some(libc), Value::Object(fields)) = (platform.npm_libc, &mut manifest) {
        fields.insert("libc".to_owned(), json!([libc]));
    }
    manifest
}

/// `@overspill/linux-x64-gnu`: the name the launcher looks the binary up by.
pub fn package_name(platform: &Platform) -> String {
    format!("{SCOPE}/{}", platform.npm_name)
}

/// The README (npm's page), the licences and, for a package with the binary, the notices of
/// the data it embeds.
fn write_common(root: &Path, package: &Path, notices: bool) -> Result<()> {
    fs::copy(root.join("packaging/README.md"), package.join("README.md"))
        .context("cannot copy packaging/README.md")?;
    super::archive::copy_licences(root, package, notices)
}

fn write_json(path: &Path, value: &Value) -> Result<()> {
    let text = serde_json::to_string_pretty(value)? + "\n";
    fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot make {} executable", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<()> {
    Ok(())
}

/// `npm pack` of `package` into `out`; returns the `.tgz` it wrote.
fn pack(package: &Path, out: &Path) -> Result<PathBuf> {
    let npm = if cfg!(windows) { "npm.cmd" } else { "npm" };
    let output = Command::new(npm)
        .arg("pack")
        .arg("--pack-destination")
        .arg(out)
        .args(["--json", "--silent"])
        .current_dir(package)
        .output()
        .context("cannot run `npm pack` (the npm packages need Node.js and npm)")?;
    if !output.status.success() {
        bail!(
            "`npm pack` of {} failed ({}): {}",
            package.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let report: Value = serde_json::from_slice(&output.stdout)
        .context("`npm pack --json` printed something other than JSON")?;
    let file = report
        .get(0)
        .and_then(|entry| entry.get("filename"))
        .and_then(Value::as_str)
        .context("`npm pack --json` named no file")?;
    Ok(out.join(file))
}
