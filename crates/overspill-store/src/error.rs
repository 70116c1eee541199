//! The crate's error types: one per concern (storing, reading paths, laying out runs).
//!
//! Each message states its cause (the operating system's error) once, and no error returns it
//! again from `source()`: the cause is the variant's `error` field, and a chain printer such
//! as anyhow's `{:#}` prints it once (docs/architecture.md, "Cross-cutting rules").

use std::io;
use std::path::PathBuf;

use crate::shared::ObjectsError;

/// Why a user-supplied path was refused by [`crate::ReadRoot`].
///
/// Messages are written for the model that sent the path: they say what to do next and never
/// print a path outside the read root (not even a symlink's target).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The path was empty.
    #[error(
        "the path is empty; pass a file name from a pointer or a path relative to the read root"
    )]
    Empty,
    /// The path contained a NUL byte.
    #[error(
        "the path contains a NUL byte; pass a file name from a pointer or a path relative to the read root"
    )]
    Nul,
    /// The path was absolute.
    #[error(
        "absolute paths are not accepted; pass a file name from a pointer or a path relative to the read root"
    )]
    Absolute,
    /// The path, lexically or through a symlink, leads outside the read root.
    #[error(
        "the path leads outside the directory you may read; use a file name from a pointer or a path relative to it"
    )]
    Escapes,
    /// The path is (or goes through) a symbolic link whose target does not exist.
    #[error(
        "the path is a symbolic link whose target does not exist; use a file name from a pointer"
    )]
    Dangling,
    /// Nothing exists at the path (inside the read root).
    #[error("no such file under the read root; use a file name exactly as a pointer gives it")]
    NotFound,
    /// The path names a directory where a file is read ([`crate::ReadRoot::open`]).
    #[error("the path is a directory, not a file; name a file inside it")]
    Directory,
    /// The path names a FIFO, socket or device, which is never opened for reading: it could
    /// wait forever or never end.
    #[error("the path is {kind}, not a regular file; only regular files can be read")]
    NotRegular {
        /// What stands there: `a FIFO (named pipe)`, `a socket`, `a device`, ….
        kind: &'static str,
    },
    /// The path names a regular file with more than one hard link, which is never read: its
    /// other names may lie outside the read root or be overspill's reserved records, and
    /// nothing overspill writes has a second name (docs/storage.md, "Hard links are refused").
    #[error(
        "the file has {links} hard links; overspill reads only files with one link, since \
         another of its names may lie outside the directory you may read. Ask the user to copy \
         the file in instead of linking it (`cp` without `-l`)"
    )]
    HardLinks {
        /// How many names the file has.
        links: u64,
    },
    /// A genuine I/O fault, e.g. permission denied; not a judgement on the path.
    #[error("cannot access `{path}`: {error}; check the file's permissions or try again")]
    Io {
        /// The path as the caller gave it (inside the read root, or the root itself).
        path: String,
        /// The operating system's error, stated in the message (not returned by `source()`).
        error: io::Error,
    },
}

impl PathError {
    /// The docs/tools.md#1-common-rules error code a tool reports for this error: `not_found`,
    /// `path_outside_root`, `io_error` or `invalid_argument` (a malformed path, or one naming
    /// something other than a regular file with one link).
    ///
    /// ```
    /// use overspill_store::PathError;
    ///
    /// assert_eq!(PathError::Escapes.code(), "path_outside_root");
    /// assert_eq!(PathError::NotFound.code(), "not_found");
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            PathError::Empty
            | PathError::Nul
            | PathError::Directory
            | PathError::NotRegular { .. }
            | PathError::HardLinks { .. } => "invalid_argument",
            PathError::Absolute | PathError::Escapes => "path_outside_root",
            PathError::Dangling | PathError::NotFound => "not_found",
            PathError::Io { .. } => "io_error",
        }
    }
}

/// Why writing or listing stored outputs failed. Messages name the host's own directories;
/// they are meant for the host and its operator.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A directory could not be created.
    #[error("cannot create directory {}: {error}; check that its parent exists and is writable", dir.display())]
    CreateDir {
        /// The directory.
        dir: PathBuf,
        /// The operating system's error, stated in the message (not returned by `source()`).
        error: io::Error,
    },
    /// A stored output, companion or metadata record could not be written.
    #[error("cannot write {}: {error}; check free disk space and the directory's permissions", path.display())]
    Write {
        /// The file's final path.
        path: PathBuf,
        /// The operating system's error, stated in the message (not returned by `source()`).
        error: io::Error,
    },
    /// The metadata directory could not be read.
    #[error("cannot read stored-output metadata in {}: {error}; check the directory's permissions", dir.display())]
    ReadMetadata {
        /// The metadata directory.
        dir: PathBuf,
        /// The operating system's error, stated in the message (not returned by `source()`).
        error: io::Error,
    },
    /// A stored output, companion or metadata record was written here but not to the shared
    /// store: it is not stored, since another instance could not read it.
    #[error(transparent)]
    Shared(#[from] ObjectsError),
}

impl StoreError {
    /// Why the write failed, without the host's paths (for a notice that must not show them):
    /// the operating system's error, or what the shared store said (its URL, no credential).
    pub fn reason(&self) -> String {
        match self {
            StoreError::CreateDir { error, .. }
            | StoreError::Write { error, .. }
            | StoreError::ReadMetadata { error, .. } => error.to_string(),
            StoreError::Shared(error) => error.to_string(),
        }
    }

    /// Whether it was the shared store that failed, rather than this machine's directory.
    pub fn is_shared(&self) -> bool {
        matches!(self, StoreError::Shared(_))
    }
}

/// Why a [`crate::Layout`] could not be built or acted on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// A run or session id cannot be used as a directory name.
    #[error("invalid {what} `{id}`: {reason}")]
    InvalidId {
        /// `run id` or `session id`.
        what: &'static str,
        /// The id as given.
        id: String,
        /// What is wrong with it and what to use instead.
        reason: &'static str,
    },
    /// The operation needs an orchestration layout, or a single-agent one.
    #[error("{0}")]
    WrongRole(&'static str),
    /// A directory could not be created, read or removed.
    #[error("cannot {action} {}: {error}; check the directory's permissions", dir.display())]
    Io {
        /// `create`, `read` or `remove`.
        action: &'static str,
        /// The directory.
        dir: PathBuf,
        /// The operating system's error, stated in the message (not returned by `source()`).
        error: io::Error,
    },
}
