//! The packaging tools, pinned by version and hash (`packaging/dist-tools.txt`), in a Python
//! virtual environment under the target directory: maturin builds the wheel (and with it the
//! binary), ziglang is the linker for glibc 2.17. Both come from PyPI, so a machine with Python
//! and Rust needs nothing else.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The hashed requirements, from the workspace root.
const REQUIREMENTS: &str = "packaging/dist-tools.txt";

/// The installed tools.
pub struct Tools {
    bin: PathBuf,
}

impl Tools {
    /// A `maturin` command with the environment's tools first on `PATH` (maturin finds zig
    /// there, as `python-zig`).
    pub fn maturin(&self) -> Command {
        let mut command = Command::new(self.bin.join(executable("maturin")));
        let path = std::env::var_os("PATH").unwrap_or_default();
        let paths = std::iter::once(self.bin.clone()).chain(std::env::split_paths(&path));
        if let Ok(joined) = std::env::join_paths(paths) {
            command.env("PATH", joined);
        }
        command
    }
}

/// Installs the pinned tools into `<target>/dist-tools` unless they are there already.
pub fn install(root: &Path, target_dir: &Path) -> Result<Tools> {
    let venv = target_dir.join("dist-tools");
    let bin = venv.join(if cfg!(windows) { "Scripts" } else { "bin" });
    let stamp = venv.join("pinned");
    let requirements = root.join(REQUIREMENTS);
    let wanted = fs::read_to_string(&requirements)
        .with_context(|| format!("cannot read {}", requirements.display()))?;
    if fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) {
        return Ok(Tools { bin });
    }
    let python = if cfg!(windows) { "python" } else { "python3" };
    run(
        Command::new(python).args(["-m", "venv"]).arg(&venv),
        "create the packaging tools' virtual environment (needs Python 3 with venv)",
    )?;
    run(
        Command::new(bin.join(executable("python")))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--require-hashes",
                "-r",
            ])
            .arg(&requirements),
        "install maturin and ziglang from PyPI",
    )?;
    fs::write(&stamp, wanted).with_context(|| format!("cannot write {}", stamp.display()))?;
    Ok(Tools { bin })
}

fn executable(name: &str) -> String {
    if cfg!(windows) {
        format!("{name}.exe")
    } else {
        name.to_owned()
    }
}

fn run(command: &mut Command, what: &str) -> Result<()> {
    let status = command.status().with_context(|| format!("cannot {what}"))?;
    if !status.success() {
        bail!("could not {what} ({status})");
    }
    Ok(())
}
