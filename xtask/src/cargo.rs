//! How xtask runs cargo: always the cargo that runs xtask (cargo names itself in `CARGO` for
//! the programs it starts), so a task never mixes the toolchain `cargo +nightly xtask` chose with
//! the default one on `PATH`.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The cargo executable: `$CARGO`, else `cargo` on `PATH` (xtask run by hand).
pub fn program() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// A cargo command run in `dir`.
pub fn command(dir: &Path) -> Command {
    let mut command = Command::new(program());
    command.current_dir(dir);
    command
}

/// Runs `cargo <args>` in `dir`, echoing it first; fails unless it succeeds.
pub fn run(dir: &Path, args: &[&str]) -> Result<()> {
    let shown = args.join(" ");
    eprintln!("xtask: cargo {shown}");
    let status = command(dir)
        .args(args)
        .status()
        .with_context(|| format!("could not start `cargo {shown}`"))?;
    if !status.success() {
        bail!("`cargo {shown}` failed ({status})");
    }
    Ok(())
}
