//! `cargo xtask dist` (docs/releasing.md#packages-without-rust): the `overspill` binary for one
//! platform, and every package that carries it to a machine without Rust: the PyPI wheel
//! (maturin, `bindings = "bin"`), the npm platform package and launcher, and a tarball with its
//! SHA-256. Linux binaries are linked by zig against glibc 2.17 (manylinux2014), so one binary
//! runs on every Linux released since 2014; the check reads the glibc versions the binary asks
//! for.
//!
//! The release workflow (`.github/workflows/release.yml`) runs it once per platform; here it
//! builds for the host.

mod archive;
mod elf;
mod npm;
mod platform;
mod tools;

#[cfg(all(test, target_os = "linux"))]
mod installed;
#[cfg(test)]
mod tests;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::release::workspace::Workspace;
pub use archive::{binary_size_in, name as archive_name};
pub use platform::{PLATFORMS, Platform};

/// What `cargo xtask dist` was asked to do (its `--help` is this type's).
#[derive(Debug, Clone, Default, PartialEq, Eq, clap::Args)]
#[command(
    about = "The binary and its packages without Rust (npm, PyPI wheel, tarball) for the host \
             platform",
    long_about = "The binary and its packages without Rust for one platform. Builds the binary \
                  with maturin (zig and glibc 2.17 on Linux), then writes the packages.",
    after_help = "Writes:
  <out>/pypi/overspill-<version>-…whl        the wheel (uvx overspill, pipx install overspill)
  <out>/npm/overspill-<version>.tgz          the npm launcher
  <out>/npm/overspill-<platform>-<version>.tgz  the npm platform package
  <out>/overspill-<version>-<target>.tar.gz  the binary, README and licenses
  <out>/overspill-<version>-<target>.tar.gz.sha256, <out>/SHA256SUMS"
)]
pub struct Options {
    /// The Rust target to build for (default: the host's); one of the platforms of
    /// docs/releasing.md
    #[arg(long, value_name = "TRIPLE")]
    pub target: Option<String>,
    /// Where the packages go (default: target/dist), emptied first
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// The version every package carries: the workspace's.
pub fn version(root: &Path) -> Result<String> {
    Workspace::load(root)?
        .version
        .context("the workspace has no [workspace.package] version")
}

/// The files one `dist` run wrote, as its `SHA256SUMS` lists them.
#[derive(Debug)]
pub struct Packages {
    pub tarball: PathBuf,
    pub wheel: PathBuf,
    pub npm_launcher: PathBuf,
    pub npm_platform: PathBuf,
}

/// What `dist` made of `version` in `out`, read from its `SHA256SUMS`: one of each package, or
/// an error saying what is missing.
pub fn packages(out: &Path, version: &str) -> Result<Packages> {
    let sums = out.join("SHA256SUMS");
    let sums = fs::read_to_string(&sums)
        .with_context(|| format!("no packages in {}: run `cargo xtask dist`", out.display()))?;
    let files: Vec<&str> = sums
        .lines()
        .filter_map(|line| line.split_once("  ").map(|(_, file)| file))
        .collect();
    let launcher = format!("npm/overspill-{version}.tgz");
    let one = |what: &str, wanted: &dyn Fn(&str) -> bool| -> Result<PathBuf> {
        match files.iter().filter(|file| wanted(file)).collect::<Vec<_>>()[..] {
            [file] => Ok(out.join(file)),
            ref found => bail!(
                "{} lists {found:?} as {what}",
                out.join("SHA256SUMS").display()
            ),
        }
    };
    Ok(Packages {
        tarball: one("the tarball", &|file| {
            file.starts_with(&archive::name(version, "")) && file.ends_with(".tar.gz")
        })?,
        wheel: one("the wheel", &|file| {
            file.starts_with("pypi/") && file.ends_with(".whl")
        })?,
        npm_launcher: one("the npm launcher", &|file| *file == launcher)?,
        npm_platform: one("the npm platform package", &|file| {
            file.starts_with("npm/") && file.ends_with(".tgz") && *file != launcher
        })?,
    })
}

/// Builds the binary and writes every package for it under `--out`.
pub fn run(root: &Path, options: &Options) -> Result<()> {
    let version = version(root)?;
    let target = match &options.target {
        Some(target) => target.clone(),
        None => host_target()?,
    };
    let platform = Platform::for_target(&target)?;
    let target_dir = target_dir(root);
    let out = options
        .out
        .clone()
        .unwrap_or_else(|| target_dir.join("dist"));
    // Only a directory `dist` made (or an empty one) is emptied: `--out ~` must not wipe a home.
    let empty = fs::read_dir(&out).map_or(true, |mut entries| entries.next().is_none());
    if out.exists() && !empty && !out.join("SHA256SUMS").is_file() {
        bail!(
            "{} is not empty and holds no earlier `dist` output (SHA256SUMS); name a new or \
             empty directory with --out",
            out.display()
        );
    }
    if out.exists() {
        fs::remove_dir_all(&out).with_context(|| format!("cannot empty {}", out.display()))?;
    }
    fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;

    let tools = tools::install(root, &target_dir)?;
    let binary = build(root, &tools, platform, &target_dir, &out.join("pypi"))?;
    if let Some(most) = platform.max_glibc {
        let needed = elf::highest_glibc(&fs::read(&binary)?)
            .with_context(|| format!("cannot read the ELF of {}", binary.display()))?;
        match needed {
            Some(needed) if needed > most => bail!(
                "{} needs glibc {}.{}, more than the {}.{} it is built for",
                binary.display(),
                needed.0,
                needed.1,
                most.0,
                most.1
            ),
            _ => eprintln!(
                "dist: the binary needs glibc {} (at most {}.{})",
                needed.map_or("nothing".to_owned(), |(major, minor)| format!(
                    "{major}.{minor}"
                )),
                most.0,
                most.1
            ),
        }
    }
    let built = Built {
        root,
        version: &version,
        platform,
        binary: &binary,
    };
    let tarball = archive::write(&built, &out)?;
    let npm_packages = npm::write(&built, &out.join("npm"))?;

    let mut files = vec![tarball];
    files.extend(files_in(&out.join("pypi"))?);
    files.extend(npm_packages);
    archive::write_sums(&out, &files)?;
    eprintln!("dist: {version} for {target} in {}", out.display());
    for file in &files {
        let size = fs::metadata(file)?.len();
        eprintln!(
            "  {:>9} bytes  {}",
            size,
            file.strip_prefix(&out).unwrap_or(file).display()
        );
    }
    Ok(())
}

/// The target cargo builds for when none is named.
pub fn host_target() -> Result<String> {
    let output = Command::new("rustc")
        .arg("-vV")
        .output()
        .context("cannot run `rustc -vV` to learn the host target")?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_owned)
        .context("`rustc -vV` printed no host line")
}

/// Cargo's target directory: `CARGO_TARGET_DIR` or the workspace's `target/`, absolute (maturin
/// runs cargo from `packaging/pypi`, where a relative path would mean another directory).
pub fn target_dir(root: &Path) -> PathBuf {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    std::path::absolute(&dir).unwrap_or(dir)
}

/// The binary a package carries and where it comes from: what each package writer reads.
#[derive(Debug, Clone, Copy)]
struct Built<'a> {
    /// The workspace root.
    root: &'a Path,
    version: &'a str,
    platform: &'a Platform,
    /// The binary built for `platform`.
    binary: &'a Path,
}

/// The Cargo profile of the binary the packages carry: `release` with fat LTO and one codegen
/// unit, for a smaller binary (the workspace's `Cargo.toml`, `[profile.shipped]`).
const PROFILE: &str = "shipped";

/// Builds the wheel with maturin (which builds the binary), and returns the binary it built.
fn build(
    root: &Path,
    tools: &tools::Tools,
    platform: &Platform,
    target_dir: &Path,
    wheels: &Path,
) -> Result<PathBuf> {
    // PEP 639 takes licence files from inside the project only: copy them in for the wheel.
    let licenses = root.join("packaging/pypi/licenses");
    if licenses.exists() {
        fs::remove_dir_all(&licenses)?;
    }
    archive::copy_licences(root, &licenses, true)?;
    let mut command = tools.maturin();
    command
        .current_dir(root.join("packaging/pypi"))
        .env("CARGO_TARGET_DIR", target_dir)
        .args([
            "build",
            "--profile",
            PROFILE,
            "--target",
            platform.target,
            "--out",
        ])
        .arg(wheels)
        .args(platform.maturin);
    eprintln!("dist: maturin build for {}", platform.target);
    let status = command
        .status()
        .context("cannot run maturin (installed by xtask under target/dist-tools)")?;
    if !status.success() {
        bail!("maturin build for {} failed ({status})", platform.target);
    }
    let binary = target_dir
        .join(platform.target)
        .join(PROFILE)
        .join(platform.executable());
    if !binary.is_file() {
        bail!(
            "maturin reported success but {} is missing",
            binary.display()
        );
    }
    Ok(binary)
}

/// The files directly in `dir`, sorted.
fn files_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        if path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}
