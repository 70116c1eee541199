//! The command a client is given to start overspill (docs/clients.md#the-command-the-client-starts):
//! one that still works after a Node or Python upgrade, a switch of nvm's version, or a
//! cleaned npx or uv cache. `overspill` when that name on `PATH` is this binary installed on
//! its own (`cargo install`, a tarball); otherwise a copy of this binary at a fixed place in the
//! user's data directory, `<data dir>/bin/overspill`, which each install brings up to date.

use std::path::{Path, PathBuf};

use anyhow::Context;

/// Directory names that belong to a language's package tools or version managers: a binary
/// under one of them moves or goes away with them (an npx cache, a global npm install inside
/// one Node version, a Python environment).
const RUNTIME_DIRS: &[&str] = &[
    "node_modules",
    "_npx",
    ".npm",
    ".nvm",
    ".fnm",
    ".volta",
    "site-packages",
    ".pyenv",
    ".rye",
];

/// Whether `exe` lives where a package tool keeps it: under one of [`RUNTIME_DIRS`], in uv's
/// cache (`archive-v*`), or in a Python virtual environment (a `pyvenv.cfg` beside its
/// `bin`).
pub fn in_package_tree(exe: &Path) -> bool {
    exe.ancestors().any(|dir| {
        let name = dir
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or_default();
        RUNTIME_DIRS.contains(&name)
            || name.starts_with("archive-v")
            || dir.join("pyvenv.cfg").is_file()
    })
}

/// The program the client is to start, for this binary `exe` (its real path): `overspill` when
/// `on_path` (what that name on `PATH` is, its real path) is `exe` outside a package tree; else
/// the stable copy in `data` (placed now); else `exe` itself.
pub fn program(exe: &Path, on_path: Option<&Path>, data: Option<&Path>) -> anyhow::Result<String> {
    let named_overspill = exe.file_stem().is_some_and(|stem| stem == "overspill");
    if on_path == Some(exe) && named_overspill && !in_package_tree(exe) {
        return Ok("overspill".to_owned());
    }
    let Some(data) = data else {
        return Ok(exe.to_string_lossy().into_owned());
    };
    let copy = data.join("bin").join(if cfg!(windows) {
        "overspill.exe"
    } else {
        "overspill"
    });
    if copy.canonicalize().ok().as_deref() != Some(exe) {
        place_copy(exe, &copy)?;
    }
    Ok(copy.to_string_lossy().into_owned())
}

/// This binary's real path, and what `overspill` on `PATH` is.
pub fn this_binary() -> anyhow::Result<(PathBuf, Option<PathBuf>)> {
    let exe = std::env::current_exe()
        .and_then(|exe| exe.canonicalize())
        .context("cannot find this program's own path")?;
    let name = exe.file_name().unwrap_or_default().to_string_lossy();
    let on_path = std::env::var_os("PATH")
        .and_then(|path| overspill_mcp::find_on_path(&name, &path))
        .and_then(|found| found.canonicalize().ok());
    Ok((exe, on_path))
}

/// Puts `exe` at `copy` in one rename (a client starting the old copy meanwhile still starts
/// a whole program): a hard link where the file system allows, else a copy, executable.
fn place_copy(exe: &Path, copy: &Path) -> anyhow::Result<()> {
    let dir = copy.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let temporary = dir.join(format!(".overspill-{}.new", std::process::id()));
    let _ = std::fs::remove_file(&temporary);
    if std::fs::hard_link(exe, &temporary).is_err() {
        std::fs::copy(exe, &temporary)
            .with_context(|| format!("cannot copy {} to {}", exe.display(), dir.display()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&temporary, std::fs::Permissions::from_mode(0o755))
                .with_context(|| format!("cannot make {} executable", temporary.display()))?;
        }
    }
    std::fs::rename(&temporary, copy).with_context(|| format!("cannot write {}", copy.display()))
}

#[cfg(test)]
mod tests;
