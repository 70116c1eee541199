//! The read root: the one validation every exploration read goes through (docs/storage.md "Path
//! safety").
//!
//! A user path is judged in two steps. First lexically, against the read root: it must be
//! relative, contain no NUL, and `..` may only climb while it stays inside. Then physically,
//! on handles: the remaining names are looked up beneath an open handle of the root directory
//! (`openat2` with `RESOLVE_BENEATH` on Linux, a component-by-component walk elsewhere, both
//! by the `cap-std` crate), so a symlink may lead anywhere inside the root but never out of
//! it, whatever is swapped in during the lookup. [`ReadRoot::open`] opens the file in that
//! same lookup and checks its type on the open descriptor: the check and the read are one file
//! descriptor, and nothing is ever reopened by name. A file with more than one hard link is
//! refused on that descriptor too: a link is a second name of the file, which may lie outside
//! the root (docs/storage.md, "Hard links are refused").
//!
//! When the lookup fails, the path is judged once more by name, only to say why: a symlink
//! pointing out (`Escapes`, even when nothing exists behind it, so nothing can be probed), a
//! dangling one, a missing name, an I/O fault.
//!
//! Names starting with `.overspill-` (the metadata directory, temporary files, run markers) are
//! overspill's own and read as not found.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use cap_fs_ext::FollowSymlinks;
use cap_std::fs::Dir;

use crate::atomic::RESERVED_PREFIX;
use crate::error::PathError;
use crate::root_file::{Links, OpenFailure, RootFile, open_regular};
use crate::shared::SharedStore;

/// The longest path below the root that [`ReadRoot::resolve`] looks up; longer is `NotFound`.
const MAX_PATH_BYTES: usize = 4096;
/// A directory that reads are confined to, with an optional base directory inside it that
/// relative paths start from.
///
/// A single agent's read root is its scratchpad dir. An orchestration worker's read root is its
/// session (or run) dir with its scratchpad dir as base, so the file names in its pointers
/// resolve directly and `../../artifacts/x.txt` reaches the run's artifacts.
///
/// ```
/// use overspill_store::{PathError, ReadRoot};
///
/// let run = tempfile::tempdir()?;
/// std::fs::create_dir_all(run.path().join("iteration-1/scratchpad"))?;
/// std::fs::create_dir_all(run.path().join("artifacts"))?;
/// std::fs::write(run.path().join("artifacts/x.txt"), "result")?;
///
/// let root = ReadRoot::new(run.path())?.with_base(run.path().join("iteration-1/scratchpad"))?;
/// let mut file = root.open("../../artifacts/x.txt")?;
/// assert_eq!(file.read_to_end()?, b"result");
/// assert!(matches!(root.open("../../../etc/passwd"), Err(PathError::Escapes)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRoot {
    /// The root as given.
    dir: PathBuf,
    /// The root with every symlink resolved.
    canonical: PathBuf,
    /// Where relative paths start, as normal components below the root.
    base: Vec<OsString>,
    /// Where a file not found here is looked for, when results are shared beyond this machine.
    shared: Option<SharedStore>,
}

impl ReadRoot {
    /// A read root at `dir`, which must be an existing directory (a symlink to one is fine).
    pub fn new(dir: impl Into<PathBuf>) -> Result<ReadRoot, PathError> {
        let dir = dir.into();
        let io_error = |error| PathError::Io {
            path: dir.display().to_string(),
            error,
        };
        let canonical = match fs::canonicalize(&dir) {
            Ok(canonical) => canonical,
            Err(e) if is_missing(&e) => return Err(PathError::NotFound),
            Err(e) => return Err(io_error(e)),
        };
        let meta = fs::metadata(&canonical).map_err(io_error)?;
        if !meta.is_dir() {
            return Err(io_error(io::Error::new(
                io::ErrorKind::NotADirectory,
                "not a directory",
            )));
        }
        Ok(ReadRoot {
            dir,
            canonical,
            base: Vec::new(),
            shared: None,
        })
    }

    /// The same root with relative paths starting at `base` instead of at the root.
    ///
    /// `base` is an absolute path, or one starting with [`ReadRoot::dir`], naming a directory
    /// inside the root; it need not exist yet. Paths are still judged against the root, so
    /// from a base two levels down, `../../x` is accepted and `../../../x` is not.
    pub fn with_base(&self, base: impl AsRef<Path>) -> Result<ReadRoot, PathError> {
        let base = base.as_ref();
        let below = self.components_below_root(base).ok_or(PathError::Escapes)?;
        if below.iter().any(|c| is_reserved(c)) {
            return Err(PathError::NotFound);
        }
        // Judge the base like any path: an existing base must not lead out through a symlink.
        match self.locate(&below, &base.display().to_string()) {
            Ok(_) | Err(PathError::NotFound) => {}
            Err(e) => return Err(e),
        }
        Ok(ReadRoot {
            base: below,
            ..self.clone()
        })
    }

    /// The same root, fetching a file it does not find from `shared` into its cache first
    /// (docs/storage.md#a-shared-store): a result stored through another instance is read
    /// here as if stored here. The keys looked up are those of paths below this root, which
    /// must lie in the shared store's cache directory: another directory's files (another
    /// principal's) are never named.
    ///
    /// # Errors
    ///
    /// [`PathError::Escapes`] when the root is not below the shared store's cache directory.
    pub fn with_shared(self, shared: SharedStore) -> Result<ReadRoot, PathError> {
        if !shared.holds(&self.canonical) {
            return Err(PathError::Escapes);
        }
        Ok(ReadRoot {
            shared: Some(shared),
            ..self
        })
    }

    /// The root directory as given to [`ReadRoot::new`].
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The root directory with every symlink resolved; every path [`ReadRoot::resolve`]
    /// returns starts with it.
    pub fn canonical_dir(&self) -> &Path {
        &self.canonical
    }

    /// The base directory relative paths start from (the root itself unless
    /// [`ReadRoot::with_base`] set one).
    pub fn base_dir(&self) -> PathBuf {
        self.base.iter().fold(self.dir.clone(), |p, c| p.join(c))
    }

    /// Validates `user_path` and opens the regular file it names, in one lookup beneath the
    /// root's handle (see the module docs). `~` is an ordinary name, never expanded.
    ///
    /// The open never blocks: a FIFO, socket or device is refused as
    /// [`PathError::NotRegular`], a directory as [`PathError::Directory`], without waiting for
    /// a writer or opening the device. A regular file with more than one hard link is refused as
    /// [`PathError::HardLinks`], judged on the open descriptor: another of its names may lie
    /// outside the root. Read the file through the returned handle.
    ///
    /// With a shared store ([`ReadRoot::with_shared`]), a file not found here is fetched from
    /// it into this directory, then opened as above; a file found is marked as read, so the
    /// cache keeps it longest. A shared store that cannot be read is a [`PathError::Io`]
    /// naming it.
    pub fn open(&self, user_path: &str) -> Result<RootFile, PathError> {
        let Some(shared) = &self.shared else {
            return self.open_here(user_path);
        };
        let found = match self.open_here(user_path) {
            Err(PathError::NotFound) => {
                let parts = self.parts(user_path)?;
                let path = parts.iter().fold(self.canonical.clone(), |p, c| p.join(c));
                // Twice at most: another process's sweep may take the copy between its
                // fetch and its open.
                let mut found = Err(PathError::NotFound);
                for _ in 0..2 {
                    found = match shared.fetch(&path) {
                        Ok(true) => self.open_here(user_path),
                        Ok(false) => return Err(PathError::NotFound),
                        Err(error) => Err(PathError::Io {
                            path: user_path.to_owned(),
                            error: io::Error::other(error.to_string()),
                        }),
                    };
                    if !matches!(found, Err(PathError::NotFound)) {
                        break;
                    }
                }
                found
            }
            found => found,
        };
        if let Ok(file) = &found {
            shared.mark_read(file.path());
        }
        found
    }

    /// [`ReadRoot::open`] in this directory alone.
    fn open_here(&self, user_path: &str) -> Result<RootFile, PathError> {
        let parts = self.parts(user_path)?;
        let (dir, below) = self.locate(&parts, user_path)?;
        let path = self.canonical.join(&below);
        let name = if below.as_os_str().is_empty() {
            Path::new(".")
        } else {
            below.as_path()
        };
        open_regular(&dir, name, path, FollowSymlinks::Yes, Links::One).map_err(|failure| {
            match failure {
                OpenFailure::Directory => PathError::Directory,
                OpenFailure::Special(kind) => PathError::NotRegular { kind },
                OpenFailure::Linked(links) => PathError::HardLinks { links },
                // Changed since the lookup (removed, swapped): say what stands there now.
                OpenFailure::Io(error) => self.explain(&parts, user_path, error),
            }
        })
    }

    /// Validates `user_path` as [`ReadRoot::open`] does and returns the canonical path of the
    /// existing file or directory it names, for display and comparison.
    ///
    /// Never open the returned path by name to read it: what the name leads to may change
    /// after it was judged. [`ReadRoot::open`] judges and opens in one step.
    pub fn resolve(&self, user_path: &str) -> Result<PathBuf, PathError> {
        let parts = self.parts(user_path)?;
        let (_, below) = self.locate(&parts, user_path)?;
        if below.as_os_str().is_empty() {
            return Ok(self.canonical.clone());
        }
        Ok(self.canonical.join(below))
    }

    /// The lexical step: `user_path` as normal components below the root.
    fn parts(&self, user_path: &str) -> Result<Vec<OsString>, PathError> {
        if user_path.is_empty() {
            return Err(PathError::Empty);
        }
        if user_path.contains('\0') {
            return Err(PathError::Nul);
        }
        let mut parts = self.base.clone();
        for component in Path::new(user_path).components() {
            match component {
                Component::Prefix(_) | Component::RootDir => return Err(PathError::Absolute),
                Component::CurDir => {}
                Component::ParentDir => {
                    parts.pop().ok_or(PathError::Escapes)?;
                }
                Component::Normal(name) => parts.push(name.to_owned()),
            }
        }
        if parts.iter().any(|c| is_reserved(c)) {
            return Err(PathError::NotFound);
        }
        // No file system holds a relative path this long (Linux's PATH_MAX is 4,096 bytes);
        // refusing it here keeps a hostile 100,000-component path from costing a walk of
        // every ancestor.
        if parts.iter().map(|c| c.len() + 1).sum::<usize>() > MAX_PATH_BYTES {
            return Err(PathError::NotFound);
        }
        Ok(parts)
    }

    /// The physical step: looks `parts` up beneath a handle of the root and returns the handle
    /// and the canonical path below it (empty for the root itself).
    ///
    /// The root is opened by its canonical path on each call: the root is the host's choice,
    /// only the names below it come from the model, and a root removed and created again
    /// (`Scratchpad::cleanup`) keeps working.
    fn locate(&self, parts: &[OsString], user_path: &str) -> Result<(Dir, PathBuf), PathError> {
        let dir = Dir::open_ambient_dir(&self.canonical, cap_std::ambient_authority()).map_err(
            |error| {
                if is_missing(&error) {
                    PathError::NotFound
                } else {
                    PathError::Io {
                        path: user_path.to_owned(),
                        error,
                    }
                }
            },
        )?;
        let lookup: PathBuf = if parts.is_empty() {
            PathBuf::from(".")
        } else {
            parts.iter().collect()
        };
        let below = match dir.canonicalize(&lookup) {
            Ok(below) => below,
            Err(error) => {
                let by_name = self.judge_by_name(parts, user_path)?;
                // By name the path leads inside: through a symlink with an absolute target, or
                // out of the root and back in, neither of which a lookup beneath the root's
                // handle follows (or it changed since). Look up the name it leads to, which
                // holds no symlink, beneath the handle like any other.
                let lookup = if by_name.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    by_name
                };
                dir.canonicalize(&lookup)
                    .map_err(|_| classify(error, user_path))?
            }
        };
        let below = if below == Path::new(".") {
            PathBuf::new()
        } else {
            below
        };
        // A symlink inside the root may lead to overspill's own names.
        if below.components().any(|c| is_reserved(c.as_os_str())) {
            return Err(PathError::NotFound);
        }
        Ok((dir, below))
    }

    /// Why `parts`, looked up without fault, could not be opened (`failure`): judged again by
    /// name, since it changed in between. This only picks the error to report; nothing it looks
    /// at is ever read.
    fn explain(&self, parts: &[OsString], user_path: &str, failure: io::Error) -> PathError {
        match self.judge_by_name(parts, user_path) {
            Err(error) => error,
            Ok(_) => classify(failure, user_path),
        }
    }

    /// The judgement by name: `parts` are normal components below the canonical root; the
    /// real (canonical) path must lie inside it, and is returned relative to the root. Used
    /// when a lookup beneath the root's handle failed, to say why or to find the name to look
    /// up instead; never to read.
    fn judge_by_name(&self, parts: &[OsString], user_path: &str) -> Result<PathBuf, PathError> {
        let io_error = |error| PathError::Io {
            path: user_path.to_owned(),
            error,
        };
        let candidate = parts.iter().fold(self.canonical.clone(), |p, c| p.join(c));
        match fs::canonicalize(&candidate) {
            Ok(real) => return self.inside(real),
            Err(e) if is_missing(&e) => {}
            Err(e) => return Err(io_error(e)),
        }
        // Something along the way does not exist: judge the nearest existing entry.
        for len in (0..=parts.len()).rev() {
            let prefix = parts[..len]
                .iter()
                .fold(self.canonical.clone(), |p, c| p.join(c));
            let meta = match fs::symlink_metadata(&prefix) {
                Ok(meta) => meta,
                Err(e) if is_missing(&e) => continue,
                Err(e) => return Err(io_error(e)),
            };
            return match fs::canonicalize(&prefix) {
                Ok(real) => {
                    let below = self.inside(real)?;
                    if len == parts.len() {
                        // Created since the first look.
                        Ok(below)
                    } else {
                        Err(PathError::NotFound)
                    }
                }
                // The entry exists but does not resolve: a symlink to nowhere.
                Err(e) if is_missing(&e) && meta.file_type().is_symlink() => {
                    Err(PathError::Dangling)
                }
                Err(e) if is_missing(&e) => Err(PathError::NotFound),
                Err(e) => Err(io_error(e)),
            };
        }
        // Not even the root exists any more.
        Err(PathError::NotFound)
    }

    /// `real` relative to the canonical root, if it lies inside it and outside overspill's
    /// reserved names.
    fn inside(&self, real: PathBuf) -> Result<PathBuf, PathError> {
        let below = real
            .strip_prefix(&self.canonical)
            .map_err(|_| PathError::Escapes)?;
        if below.components().any(|c| is_reserved(c.as_os_str())) {
            return Err(PathError::NotFound);
        }
        Ok(below.to_owned())
    }

    /// `path` as normal components below the root, if it lies inside it lexically (compared
    /// with both the root as given and the canonical root).
    fn components_below_root(&self, path: &Path) -> Option<Vec<OsString>> {
        let path = lexical(&std::path::absolute(path).ok()?)?;
        for root in [&self.dir, &self.canonical] {
            let Some(root) = std::path::absolute(root).ok().as_deref().and_then(lexical) else {
                continue;
            };
            if let Ok(rest) = path.strip_prefix(&root) {
                return Some(
                    rest.components()
                        .map(|c| c.as_os_str().to_owned())
                        .collect(),
                );
            }
        }
        None
    }
}

/// Lexically normalised absolute path (`.` dropped, `..` applied); `None` if `..` would climb
/// above the file-system root.
fn lexical(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                if !out.pop() || out.as_os_str().is_empty() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}

/// Whether a lookup failed because no such file can be there: absent, a file where a directory
/// was expected, or a name past the file system's limits (`ENAMETOOLONG`), which no file has.
fn is_missing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory | io::ErrorKind::InvalidFilename
    )
}

/// The error for a failed lookup beneath the root's handle whose path, judged by name, was
/// fine: it changed in between.
fn classify(failure: io::Error, user_path: &str) -> PathError {
    if is_escape(&failure) {
        PathError::Escapes
    } else if is_missing(&failure) {
        PathError::NotFound
    } else {
        PathError::Io {
            path: user_path.to_owned(),
            error: failure,
        }
    }
}

/// Whether a lookup beneath the root's handle failed because the path leads out of it:
/// `cap-std` reports that as `PermissionDenied` with no OS error code, where a real
/// permission fault carries `EACCES`.
fn is_escape(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::PermissionDenied && e.raw_os_error().is_none()
}

/// A name overspill keeps for itself (compared ignoring ASCII case, for case-insensitive file
/// systems).
fn is_reserved(name: &std::ffi::OsStr) -> bool {
    let bytes = name.as_encoded_bytes();
    bytes.len() >= RESERVED_PREFIX.len()
        && bytes[..RESERVED_PREFIX.len()].eq_ignore_ascii_case(RESERVED_PREFIX.as_bytes())
}

#[cfg(test)]
mod tests;
