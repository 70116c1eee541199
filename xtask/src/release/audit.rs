//! What may ship in a `.crate`: the files each crate embeds (with their licence
//! notices) must be there, and nothing large or stray may come along.

use std::fmt;
use std::path::Path;

/// Any packaged file above this size must be listed in [`REQUIRED_FILES`] as large.
pub const LARGE_FILE_LIMIT: u64 = 256 * 1024;

/// crates.io rejects uploads above 10 MB (compressed).
pub const CRATE_SIZE_LIMIT: u64 = 10 * 1000 * 1000;

/// A file that must be in a crate's package.
#[derive(Debug, Clone, Copy)]
pub struct RequiredFile {
    pub krate: &'static str,
    /// Relative to the crate's directory, `/`-separated.
    pub path: &'static str,
    /// Whether it may exceed [`LARGE_FILE_LIMIT`].
    pub large: bool,
}

/// The files crates embed at build time (`include_bytes!`/`include_str!`) and
/// the notices that must travel with them (docs/tokens.md: the Gemma 3 model ships
/// with its NOTICE). The only place that allows a large file into a package.
pub const REQUIRED_FILES: &[RequiredFile] = &[
    RequiredFile {
        krate: "overspill-tokens",
        path: "assets/openai/o200k_base.tiktoken.gz",
        large: true,
    },
    RequiredFile {
        krate: "overspill-tokens",
        path: "assets/openai/cl100k_base.tiktoken.gz",
        large: true,
    },
    RequiredFile {
        krate: "overspill-tokens",
        path: "assets/openai/NOTICE",
        large: false,
    },
    RequiredFile {
        krate: "overspill-tokens",
        path: "assets/openai/LICENSE-MIT",
        large: false,
    },
    RequiredFile {
        krate: "overspill-tokens",
        path: "assets/gemma3/gemma3_cleaned_262144_v2.spiece.model",
        large: true,
    },
    RequiredFile {
        krate: "overspill-tokens",
        path: "assets/gemma3/NOTICE",
        large: false,
    },
    RequiredFile {
        krate: "overspill-tokens",
        path: "assets/gemma3/LICENSE-APACHE-2.0",
        large: false,
    },
    // The pod list `overspill tour` intercepts (docs/cli.md); generated, so no notice.
    RequiredFile {
        krate: "overspill-cli",
        path: "assets/tour/pods.json",
        large: true,
    },
];

/// Files cargo writes into every package itself.
pub const GENERATED: &[&str] = &[
    "Cargo.toml",
    "Cargo.toml.orig",
    "Cargo.lock",
    ".cargo_vcs_info.json",
];

/// One entry of a package listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackagedFile {
    /// As `cargo package --list` prints it.
    pub path: String,
    /// Bytes on disk; `None` for a file cargo generates.
    pub size: Option<u64>,
}

/// One thing that must not (or must) be in a package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditProblem {
    /// A file above the limit that is not a known embedded asset.
    TooLarge {
        krate: String,
        path: String,
        size: u64,
    },
    /// Build output, VCS data, editor or profiler leftovers.
    Stray {
        krate: String,
        path: String,
        why: &'static str,
    },
    /// An embedded asset or its notice is missing.
    Missing { krate: String, path: String },
    /// The compressed package is over crates.io's limit.
    CrateTooLarge { krate: String, size: u64 },
}

impl fmt::Display for AuditProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuditProblem::TooLarge { krate, path, size } => write!(
                f,
                "{krate} would package `{path}` ({}), over the {} limit for files that are not \
                 known embedded assets: exclude it in the crate's Cargo.toml, or list it in \
                 REQUIRED_FILES in xtask/src/release/audit.rs if the crate needs it",
                human_size(*size),
                human_size(LARGE_FILE_LIMIT)
            ),
            AuditProblem::Stray { krate, path, why } => write!(
                f,
                "{krate} would package `{path}` ({why}): delete it, or add it to .gitignore or \
                 to `exclude` in the crate's Cargo.toml"
            ),
            AuditProblem::Missing { krate, path } => write!(
                f,
                "{krate} does not package `{path}`, which it must ship: check `include`/`exclude` \
                 in its Cargo.toml and that the file is committed"
            ),
            AuditProblem::CrateTooLarge { krate, size } => write!(
                f,
                "{krate}'s .crate is {}, over crates.io's {} upload limit",
                human_size(*size),
                human_size(CRATE_SIZE_LIMIT)
            ),
        }
    }
}

/// Audits the file list of `krate`'s package.
pub fn audit(krate: &str, files: &[PackagedFile]) -> Vec<AuditProblem> {
    let required: Vec<&RequiredFile> = REQUIRED_FILES.iter().filter(|r| r.krate == krate).collect();
    let mut problems = Vec::new();
    for file in files {
        if let Some(why) = stray(&file.path) {
            problems.push(AuditProblem::Stray {
                krate: krate.to_owned(),
                path: file.path.clone(),
                why,
            });
            continue;
        }
        let may_be_large = required.iter().any(|r| r.large && r.path == file.path);
        if let Some(size) = file.size
            && size > LARGE_FILE_LIMIT
            && !may_be_large
        {
            problems.push(AuditProblem::TooLarge {
                krate: krate.to_owned(),
                path: file.path.clone(),
                size,
            });
        }
    }
    for needed in required {
        if !files.iter().any(|f| f.path == needed.path) {
            problems.push(AuditProblem::Missing {
                krate: krate.to_owned(),
                path: needed.path.to_owned(),
            });
        }
    }
    problems
}

/// Audits the size of a built `.crate`.
pub fn audit_crate_size(krate: &str, size: u64) -> Option<AuditProblem> {
    (size > CRATE_SIZE_LIMIT).then(|| AuditProblem::CrateTooLarge {
        krate: krate.to_owned(),
        size,
    })
}

/// Why `path` has no place in a package, if it has none.
fn stray(path: &str) -> Option<&'static str> {
    if GENERATED.contains(&path) {
        return None;
    }
    let components: Vec<&str> = path.split('/').collect();
    let name = components.last().copied().unwrap_or(path);
    let dirs = &components[..components.len().saturating_sub(1)];
    if dirs.contains(&"target") {
        return Some("a build output directory");
    }
    if components.iter().any(|c| *c == ".git" || *c == ".hg") {
        return Some("version control data");
    }
    if dirs.iter().any(|d| d.starts_with('.')) || name.starts_with('.') {
        return Some("a hidden file");
    }
    let extension = Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    match extension {
        "profraw" | "profdata" => Some("profiler output"),
        "crate" => Some("a packaged crate"),
        "orig" | "rej" => Some("a patch leftover"),
        "swp" | "swo" | "bak" | "tmp" => Some("an editor or temporary file"),
        _ if name.ends_with('~') => Some("an editor backup"),
        _ => None,
    }
}

/// `4.5 MiB`, `12.0 KiB`, `812 B`.
pub fn human_size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b >= KIB * KIB {
        format!("{:.1} MiB", b / (KIB * KIB))
    } else if b >= KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{bytes} B")
    }
}

#[cfg(test)]
mod tests;
