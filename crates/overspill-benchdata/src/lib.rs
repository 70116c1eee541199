//! Deterministic large tool outputs for overspill's benches (docs/performance.md).
//!
//! `overspill-benchdata` owns the inputs every bench and `cargo xtask bench` measure: pod lists
//! like `kubectl get pods -A -o json`, service logs, and log-search results with escaped JSON
//! inside strings. They have the shapes of `shared/data/gen_samples.py` and come in any size:
//! the generator streams items until the output reaches the size asked for, so a 110 MB pod
//! list costs a few hundred milliseconds and no more memory than one item.
//!
//! The same [`Shape`] and size always give the same bytes, on every machine and in every
//! version of the toolchain: the random numbers come from a fixed SplitMix64 sequence of our
//! own rather than from a crate whose stream may change in a minor release.
//!
//! ```
//! use overspill_benchdata::{Shape, generate};
//!
//! let mut log = Vec::new();
//! generate(Shape::Log, 4_096, &mut log)?;
//! assert!(log.len() >= 4_096);
//! assert!(log.starts_with(b"2026-11-12T00:00:00."));
//!
//! let mut again = Vec::new();
//! generate(Shape::Log, 4_096, &mut again)?;
//! assert_eq!(log, again);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Architecture invariant
//!
//! This crate depends on no overspill crate and is never published: benches and `xtask` use it
//! as a dev-dependency, so no layer of docs/architecture.md#allowed-dependency-graph can reach it from its normal dependencies.

mod logs;
mod pods;
mod random;
mod search;

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

pub use random::SplitMix64;

/// The kinds of tool output the benches use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shape {
    /// A pod list, pretty-printed with two spaces as the store writes JSON.
    PodsPretty,
    /// The same pod list on one line, as most MCP servers return it.
    PodsCompact,
    /// A service log: timestamped INFO/DEBUG/WARN/ERROR lines with request ids.
    Log,
    /// A log-search API result whose hits carry JSON inside a string (`message`).
    SearchHits,
}

impl Shape {
    /// Every shape, in the order reports list them.
    pub const ALL: [Shape; 4] = [
        Shape::PodsPretty,
        Shape::PodsCompact,
        Shape::Log,
        Shape::SearchHits,
    ];

    /// The file name stem, e.g. `pods-pretty`.
    pub fn stem(self) -> &'static str {
        match self {
            Shape::PodsPretty => "pods-pretty",
            Shape::PodsCompact => "pods-compact",
            Shape::Log => "app",
            Shape::SearchHits => "search-hits",
        }
    }

    /// The file extension the store would give this output.
    pub fn extension(self) -> &'static str {
        match self {
            Shape::Log => "log",
            Shape::PodsPretty | Shape::PodsCompact | Shape::SearchHits => "json",
        }
    }

    /// The file name of this shape at `bytes`, e.g. `pods-pretty-10MB.json`.
    pub fn file_name(self, bytes: u64) -> String {
        format!("{}-{}.{}", self.stem(), size_label(bytes), self.extension())
    }
}

/// One megabyte as the benches count it (10^6 bytes, as the report prints MB).
pub const MB: u64 = 1_000_000;

/// Writes `shape` to `out` until at least `bytes` bytes are written (the last item is
/// finished, and the document closed, so the output is a little longer).
///
/// # Errors
///
/// Whatever writing to `out` returns.
pub fn generate(shape: Shape, bytes: u64, out: &mut impl Write) -> io::Result<()> {
    let mut out = CountingWriter {
        inner: out,
        written: 0,
    };
    match shape {
        Shape::PodsPretty => pods::write(&mut out, bytes, true),
        Shape::PodsCompact => pods::write(&mut out, bytes, false),
        Shape::Log => logs::write(&mut out, bytes),
        Shape::SearchHits => search::write(&mut out, bytes),
    }
}

/// Inputs of benches run as tests are at most this large.
pub const TEST_MODE_BYTES: u64 = 200_000;

/// `bytes` when the process runs as a benchmark, [`TEST_MODE_BYTES`] at most otherwise.
///
/// `cargo bench` passes `--bench` to every bench binary; `cargo test --all-targets` runs the
/// same binaries without it, and criterion then runs each benchmark once as a test. Those runs
/// check that the benches work, in a debug build, so they get small inputs: the workspace's
/// test command stays fast while every bench still runs in CI.
pub fn bench_bytes(bytes: u64) -> u64 {
    if std::env::args().any(|arg| arg == "--bench") {
        bytes
    } else {
        bytes.min(TEST_MODE_BYTES)
    }
}

/// The directory the bench inputs live in: `$OVERSPILL_BENCH_DATA` when set, otherwise
/// `bench-data/` in the Cargo target directory (`$CARGO_TARGET_DIR`, or `target/` at the
/// workspace root).
pub fn data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("OVERSPILL_BENCH_DATA") {
        return PathBuf::from(dir);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    target.join("bench-data")
}

/// The path of `shape` at `bytes` in [`data_dir`], generated first if it is not there.
///
/// Generation goes through a temporary file renamed into place, so an interrupted run never
/// leaves a truncated input that a later run would measure.
///
/// # Errors
///
/// When the directory cannot be created or the file cannot be written.
pub fn ensure(shape: Shape, bytes: u64) -> io::Result<PathBuf> {
    ensure_in(&data_dir(), shape, bytes)
}

/// [`ensure`] in a directory of the caller's.
///
/// # Errors
///
/// When the directory cannot be created or the file cannot be written.
pub fn ensure_in(dir: &Path, shape: Shape, bytes: u64) -> io::Result<PathBuf> {
    let path = dir.join(shape.file_name(bytes));
    if path.is_file() {
        return Ok(path);
    }
    fs::create_dir_all(dir)?;
    let partial = dir.join(format!(".{}.partial", shape.file_name(bytes)));
    let mut file = BufWriter::with_capacity(1 << 20, fs::File::create(&partial)?);
    generate(shape, bytes, &mut file)?;
    file.into_inner()
        .map_err(io::IntoInnerError::into_error)?
        .sync_all()?;
    fs::rename(&partial, &path)?;
    Ok(path)
}

/// `1MB`, `10MB`, `110MB`; sizes that are not whole megabytes print in bytes.
fn size_label(bytes: u64) -> String {
    if bytes >= MB && bytes.is_multiple_of(MB) {
        format!("{}MB", bytes / MB)
    } else {
        format!("{bytes}B")
    }
}

/// The workspace root, two levels above this crate.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A writer that knows how much went through it, so generators can stop at a size.
pub(crate) struct CountingWriter<'a, W: Write> {
    inner: &'a mut W,
    pub(crate) written: u64,
}

impl<W: Write> Write for CountingWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests;
