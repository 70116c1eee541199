//! The platforms overspill ships for: one Rust target each, and what its packages are called
//! and built with (docs/releasing.md#platforms).

use anyhow::{Result, bail};

/// One platform's target and the names its packages carry.
#[derive(Debug, PartialEq, Eq)]
pub struct Platform {
    /// The Rust target triple.
    pub target: &'static str,
    /// npm's `os` and `cpu` (Node's `process.platform` and `process.arch`).
    pub npm_os: &'static str,
    pub npm_cpu: &'static str,
    /// npm's `libc` where Linux has two (`glibc`, `musl`).
    pub npm_libc: Option<&'static str>,
    /// The platform package's name after `@overspill/`, as the launcher looks it up.
    pub npm_name: &'static str,
    /// What maturin is told beyond the target: zig and the manylinux/musllinux policy on Linux.
    pub maturin: &'static [&'static str],
    /// The newest glibc the binary may ask for (glibc targets only).
    pub max_glibc: Option<(u32, u32)>,
    /// Where it runs, in words, for the package descriptions.
    pub describe: &'static str,
}

const ZIG_GLIBC_2_17: &[&str] = &["--zig", "--compatibility", "manylinux2014"];
const ZIG_MUSL: &[&str] = &["--zig", "--compatibility", "musllinux_1_2"];

/// Every platform the release workflow builds.
pub const PLATFORMS: [Platform; 7] = [
    Platform {
        target: "x86_64-unknown-linux-gnu",
        npm_os: "linux",
        npm_cpu: "x64",
        npm_libc: Some("glibc"),
        npm_name: "linux-x64-gnu",
        maturin: ZIG_GLIBC_2_17,
        max_glibc: Some((2, 17)),
        describe: "Linux x86_64 with glibc 2.17 or newer",
    },
    Platform {
        target: "aarch64-unknown-linux-gnu",
        npm_os: "linux",
        npm_cpu: "arm64",
        npm_libc: Some("glibc"),
        npm_name: "linux-arm64-gnu",
        maturin: ZIG_GLIBC_2_17,
        max_glibc: Some((2, 17)),
        describe: "Linux arm64 with glibc 2.17 or newer",
    },
    Platform {
        target: "x86_64-unknown-linux-musl",
        npm_os: "linux",
        npm_cpu: "x64",
        npm_libc: Some("musl"),
        npm_name: "linux-x64-musl",
        maturin: ZIG_MUSL,
        max_glibc: None,
        describe: "Linux x86_64, statically linked (musl)",
    },
    Platform {
        target: "aarch64-unknown-linux-musl",
        npm_os: "linux",
        npm_cpu: "arm64",
        npm_libc: Some("musl"),
        npm_name: "linux-arm64-musl",
        maturin: ZIG_MUSL,
        max_glibc: None,
        describe: "Linux arm64, statically linked (musl)",
    },
    Platform {
        target: "x86_64-apple-darwin",
        npm_os: "darwin",
        npm_cpu: "x64",
        npm_libc: None,
        npm_name: "darwin-x64",
        maturin: &[],
        max_glibc: None,
        describe: "macOS on Intel",
    },
    Platform {
        target: "aarch64-apple-darwin",
        npm_os: "darwin",
        npm_cpu: "arm64",
        npm_libc: None,
        npm_name: "darwin-arm64",
        maturin: &[],
        max_glibc: None,
        describe: "macOS on Apple silicon",
    },
    Platform {
        target: "x86_64-pc-windows-msvc",
        npm_os: "win32",
        npm_cpu: "x64",
        npm_libc: None,
        npm_name: "win32-x64",
        maturin: &[],
        max_glibc: None,
        describe: "Windows x86_64",
    },
];

impl Platform {
    /// The platform of `target`, or an error listing the ones there are.
    pub fn for_target(target: &str) -> Result<&'static Platform> {
        match PLATFORMS.iter().find(|platform| platform.target == target) {
            Some(platform) => Ok(platform),
            None => {
                let known: Vec<&str> = PLATFORMS.iter().map(|platform| platform.target).collect();
                bail!(
                    "overspill is not packaged for {target}; the platforms are: {}",
                    known.join(", ")
                )
            }
        }
    }

    /// The binary's file name.
    pub fn executable(&self) -> &'static str {
        if self.npm_os == "win32" {
            "overspill.exe"
        } else {
            "overspill"
        }
    }
}
