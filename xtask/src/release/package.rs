//! Running `cargo package` over the publishable crates: the file listing (with
//! sizes, audited), the `.crate` files, and the verifying build.

use std::fs;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use super::audit::{self, AuditProblem, GENERATED, PackagedFile, human_size};
use super::workspace::{Package, Workspace};

/// How to call `cargo package`.
#[derive(Debug, Clone, Copy)]
pub struct Packaging {
    /// Pass `--allow-dirty` (only for dry runs).
    pub allow_dirty: bool,
    /// Skip the verifying build.
    pub no_verify: bool,
}

/// Lists, audits, packages and (unless told not to) verifies the crates of
/// `order`, printing what each package holds.
pub fn run(workspace: &Workspace, order: &[String], how: Packaging) -> Result<()> {
    let mut problems: Vec<AuditProblem> = Vec::new();
    println!("packaged files (cargo package --list):");
    for name in order {
        let package = workspace
            .package(name)
            .with_context(|| format!("{name} is not a workspace member"))?;
        let files = list(workspace, package, how)?;
        print_listing(package, &files);
        problems.extend(audit::audit(name, &files));
    }
    fail_on(&problems)?;

    println!("packaging (cargo package --no-verify) ...");
    cargo_package(workspace, order, how, false)?;
    for name in order {
        let Some(package) = workspace.package(name) else {
            continue;
        };
        let file = workspace
            .target_dir
            .join("package")
            .join(format!("{}-{}.crate", package.name, package.version));
        let size = fs::metadata(&file)
            .with_context(|| format!("cargo package did not write {}", file.display()))?
            .len();
        println!("  {:<24} {:>10} compressed", package.name, human_size(size));
        problems.extend(audit::audit_crate_size(name, size));
    }
    fail_on(&problems)?;

    if how.no_verify {
        println!("  skip verifying build (--no-verify)");
    } else {
        println!(
            "verifying (cargo package: builds each crate from its package; takes minutes) ..."
        );
        cargo_package(workspace, order, how, true)?;
        println!("  ok  every crate builds from its package");
    }
    Ok(())
}

fn fail_on(problems: &[AuditProblem]) -> Result<()> {
    if problems.is_empty() {
        return Ok(());
    }
    bail!(
        "{} packaging problem(s); nothing was changed{}",
        problems.len(),
        super::bullets(problems)
    )
}

/// `cargo package --list` for one crate, each file with its size on disk.
fn list(workspace: &Workspace, package: &Package, how: Packaging) -> Result<Vec<PackagedFile>> {
    let mut command = cargo(workspace);
    command.args(["package", "--list", "--quiet", "-p", &package.name]);
    if how.allow_dirty {
        command.arg("--allow-dirty");
    }
    let output = command
        .stderr(Stdio::piped())
        .output()
        .context("could not start `cargo package --list`")?;
    if !output.status.success() {
        bail!(
            "`cargo package --list -p {}` failed:\n{}",
            package.name,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let stdout = String::from_utf8(output.stdout).context("cargo printed non-UTF-8 paths")?;
    stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|path| sized(package, path.trim()))
        .collect()
}

/// The size of a listed file: on disk in the crate, or (for a readme or licence
/// file that lives elsewhere and cargo copies in) at the path the manifest gives.
fn sized(package: &Package, path: &str) -> Result<PackagedFile> {
    if GENERATED.contains(&path) {
        return Ok(PackagedFile {
            path: path.to_owned(),
            size: None,
        });
    }
    let copied = [&package.readme, &package.license_file]
        .into_iter()
        .flatten()
        .map(|p| package.dir.join(p))
        .find(|p| p.file_name().and_then(|n| n.to_str()) == Some(path));
    let on_disk = package.dir.join(path);
    let source = if on_disk.is_file() {
        on_disk
    } else if let Some(copied) = copied {
        copied
    } else {
        bail!(
            "cargo packages `{path}` for {} but it is not in {}",
            package.name,
            package.dir.display()
        );
    };
    let size = fs::metadata(&source)
        .with_context(|| format!("reading the size of {}", source.display()))?
        .len();
    Ok(PackagedFile {
        path: path.to_owned(),
        size: Some(size),
    })
}

fn print_listing(package: &Package, files: &[PackagedFile]) {
    let total: u64 = files.iter().filter_map(|f| f.size).sum();
    println!(
        "  {} {}: {} files, {}",
        package.name,
        package.version,
        files.len(),
        human_size(total)
    );
    for file in files {
        let size = file
            .size
            .map(human_size)
            .unwrap_or_else(|| "(cargo)".to_owned());
        println!("    {size:>10}  {}", file.path);
    }
}

/// `cargo package` over every crate of `order` in one invocation, so that each
/// crate resolves its unpublished siblings from the packages made just before it.
fn cargo_package(
    workspace: &Workspace,
    order: &[String],
    how: Packaging,
    verify: bool,
) -> Result<()> {
    let mut command = cargo(workspace);
    command.args(["package", "--quiet"]);
    for name in order {
        command.args(["-p", name]);
    }
    if !verify {
        command.arg("--no-verify");
    }
    if how.allow_dirty {
        command.arg("--allow-dirty");
    }
    let status = command
        .status()
        .context("could not start `cargo package`")?;
    if !status.success() {
        bail!(
            "`cargo package{}` failed ({status}); see cargo's message above",
            if verify { "" } else { " --no-verify" }
        );
    }
    Ok(())
}

fn cargo(workspace: &Workspace) -> Command {
    crate::cargo::command(&workspace.root)
}
