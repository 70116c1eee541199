//! Where overspill keeps a user's own files when no flag or configuration names a directory
//! (docs/mcp-proxy.md#where-results-are-stored), by each platform's convention (the
//! `directories` crate): sign-ins in the configuration directory, stored results and logs in
//! the state directory. Never the working directory, which a client may start the proxy in
//! anywhere (Claude Desktop starts it in `/`). Also where other programs' files are, for
//! `overspill install`: the home directory and the platform's configuration directory. What can
//! be rebuilt (the token counters' tables) goes in the cache directory.

use std::path::PathBuf;

use directories::{BaseDirs, ProjectDirs};

fn project() -> Option<ProjectDirs> {
    ProjectDirs::from("", "", "overspill")
}

/// The user's configuration directory for overspill: `$XDG_CONFIG_HOME/overspill` (else
/// `~/.config/overspill`) on Linux, `~/Library/Application Support/overspill` on macOS,
/// `%APPDATA%\overspill\config` on Windows. `None` without a home directory.
pub fn config_dir() -> Option<PathBuf> {
    project().map(|dirs| dirs.config_dir().to_owned())
}

/// The user's state directory for overspill: `$XDG_STATE_HOME/overspill` (else
/// `~/.local/state/overspill`) on Linux; where a platform has no state directory, its local
/// data directory (`~/Library/Application Support/overspill` on macOS,
/// `%LOCALAPPDATA%\overspill\data` on Windows). `None` without a home directory.
pub fn state_dir() -> Option<PathBuf> {
    let dirs = project()?;
    Some(
        dirs.state_dir()
            .unwrap_or_else(|| dirs.data_local_dir())
            .to_owned(),
    )
}

/// The user's data directory for overspill, for what it keeps of its own (the copy of the
/// binary that `overspill install` gives clients to start): `$XDG_DATA_HOME/overspill` (else
/// `~/.local/share/overspill`) on Linux, `~/Library/Application Support/overspill` on macOS,
/// `%APPDATA%\overspill\data` on Windows. `None` without a home directory.
pub fn data_dir() -> Option<PathBuf> {
    project().map(|dirs| dirs.data_dir().to_owned())
}

/// The user's cache directory for overspill, for what can be rebuilt (the token counters'
/// tables): `$XDG_CACHE_HOME/overspill` (else `~/.cache/overspill`) on Linux,
/// `~/Library/Caches/overspill` on macOS, `%LOCALAPPDATA%\overspill\cache` on Windows. `None`
/// without a home directory.
pub fn cache_dir() -> Option<PathBuf> {
    project().map(|dirs| dirs.cache_dir().to_owned())
}

/// The user's home directory. `None` without one.
pub fn home_dir() -> Option<PathBuf> {
    BaseDirs::new().map(|dirs| dirs.home_dir().to_owned())
}

/// The platform's configuration directory, where other programs keep theirs:
/// `$XDG_CONFIG_HOME` (else `~/.config`) on Linux, `~/Library/Application Support` on macOS,
/// `%APPDATA%` on Windows. `None` without a home directory.
pub fn platform_config_dir() -> Option<PathBuf> {
    BaseDirs::new().map(|dirs| dirs.config_dir().to_owned())
}

#[cfg(test)]
mod tests;
