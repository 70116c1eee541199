//! Atomic, no-clobber file writes and private directories (docs/storage.md, docs/security.md).
//!
//! A file is written to a hidden temporary file in its final directory, flushed to disk, then
//! given its final name in one step that fails if the name is taken (`renameat2(NOREPLACE)`).
//! A reader therefore sees either no file or the whole file, a crash leaves at most a hidden
//! temporary file, and of two writers racing on one content-addressed name exactly one creates
//! it. No file is ever given a second name, not even for a moment (a link then an unlink, as
//! `tempfile`'s own fallback does): the read root refuses files with more than one hard link
//! (docs/storage.md, "Hard links are refused"), and a file being written must not be one.

use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::time::{Duration, SystemTime};

/// Every name overspill keeps for itself inside a directory it manages starts with this; the
/// read root refuses such names (see [`crate::ReadRoot`]).
pub const RESERVED_PREFIX: &str = ".overspill-";

/// Prefix of in-flight temporary files.
pub(crate) const TEMP_PREFIX: &str = ".overspill-tmp-";

/// Temporary files older than this are left over from a crash; [`sweep_stale_temp_files`]
/// removes them.
pub(crate) const STALE_TEMP_AGE: Duration = Duration::from_secs(60 * 60);

/// What [`write_if_absent`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Written {
    /// The name was free; the file now holds the content.
    Created,
    /// A file of the same size already had the name (content-addressed: the same content).
    Existed,
    /// Something else had the name (a truncated file, a symlink); it was atomically replaced.
    Replaced,
}

/// Creates `dir` and any missing parents with mode 0700; existing directories are left as they
/// are.
pub(crate) fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Atomically writes `content` to `dir/name` (mode 0600), replacing whatever the name held.
///
/// The content goes to a temporary file in `dir`, is flushed, then renamed over the name, so
/// a reader sees the old file or the new one, never a part. `dir` must exist. This is the
/// one replacing writer of the workspace: artifacts use it for `write_artifact`.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// overspill_store::write_replacing(dir.path(), "notes.txt", b"first")?;
/// overspill_store::write_replacing(dir.path(), "notes.txt", b"second")?;
/// assert_eq!(std::fs::read(dir.path().join("notes.txt"))?, b"second");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_replacing(dir: &Path, name: &str, content: &[u8]) -> io::Result<()> {
    let mut temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)?;
    temp.write_all(content)?;
    temp.as_file().sync_data()?;
    temp.persist(dir.join(name)).map_err(|e| e.error)?;
    Ok(())
}

/// Writes `content` under `dir/name` (mode 0600) unless a file of that size, with no other
/// name, already has the name. `dir` must exist.
///
/// A file of that size with more than one hard link (a backup made with `cp -al`, a `ln`) is
/// replaced by a fresh copy, since the read root refuses it: the other names keep the old file.
pub(crate) fn write_if_absent(dir: &Path, name: &str, content: &[u8]) -> io::Result<Written> {
    write_new(dir, name, content, Flush::Yes)
}

/// Whether a new file's bytes reach the disk before it gets its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flush {
    /// `fsync` first: a power cut cannot leave a partial file under the name.
    Yes,
    /// Not: for a copy that can be had again and is discarded after a restart of the machine
    /// (the shared store's cache, docs/storage.md#a-shared-store).
    No,
}

/// [`write_if_absent`], flushed as `flush` says.
pub(crate) fn write_new(
    dir: &Path,
    name: &str,
    content: &[u8],
    flush: Flush,
) -> io::Result<Written> {
    let path = dir.join(name);
    let occupied = match fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_file() && meta.len() == content.len() as u64 => {
            if links(&meta) == 1 {
                return Ok(Written::Existed);
            }
            tracing::warn!(
                file = name,
                links = links(&meta),
                "replacing a stored file that has other hard links, so the tools can read it \
                 again; its other names keep the old copy"
            );
            true
        }
        Ok(_) => {
            tracing::warn!(
                file = name,
                "replacing a stored file whose size does not match its name"
            );
            true
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(e),
    };
    // tempfile creates the file with mode 0600 and removes it if we fail before persisting.
    let mut temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)?;
    temp.write_all(content)?;
    // Flush before naming, so a power cut cannot leave an empty file under the final name.
    if flush == Flush::Yes {
        temp.as_file().sync_data()?;
    }
    if occupied {
        temp.persist(&path).map_err(|e| e.error)?;
        return Ok(Written::Replaced);
    }
    match name_if_free(temp, &path)? {
        Naming::Named => Ok(Written::Created),
        Naming::Taken => Ok(Written::Existed),
    }
}

/// A new file at `path` whose bytes `fill` writes into a hidden temporary file in `temp_dir`
/// (on the same file system) first; it gets the name only when `fill` returns `true` (flushed
/// first as `flush` says), unless the name is taken by then (another writer's copy of the same
/// bytes, which stays). `path`'s directory is made (0700) only then. `Ok(false)` when `fill`
/// returned `false`: nothing is made or named.
pub(crate) fn fill_new(
    temp_dir: &Path,
    path: &Path,
    flush: Flush,
    fill: impl FnOnce(&mut fs::File) -> io::Result<bool>,
) -> io::Result<bool> {
    let mut temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(temp_dir)?;
    if !fill(temp.as_file_mut())? {
        return Ok(false);
    }
    if flush == Flush::Yes {
        temp.as_file().sync_data()?;
    }
    if let Some(dir) = path.parent() {
        create_private_dir_all(dir)?;
    }
    name_if_free(temp, path)?;
    Ok(true)
}

/// What [`name_if_free`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Naming {
    /// The temporary file now has the name.
    Named,
    /// Something had the name already; the temporary file is gone.
    Taken,
}

/// Gives the flushed temporary file `temp` the name `path` unless the name is taken, in one
/// rename that refuses to replace (`renameat2(RENAME_NOREPLACE)`, `renameatx_np(RENAME_EXCL)`
/// on Apple systems), never through a second link.
#[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
fn name_if_free(temp: tempfile::NamedTempFile, path: &Path) -> io::Result<Naming> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    use rustix::io::Errno;

    let temp = temp.into_temp_path();
    match renameat_with(CWD, &*temp, CWD, path, RenameFlags::NOREPLACE) {
        Ok(()) => {
            // The name is gone; keep the guard from removing whatever may take it later.
            temp.keep().map_err(|e| e.error)?;
            Ok(Naming::Named)
        }
        Err(Errno::EXIST) => Ok(Naming::Taken),
        // The file system cannot refuse to replace (NFS, some FUSE file systems).
        Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP) => rename_unless_taken(temp, path),
        Err(error) => Err(error.into()),
    }
}

/// [`name_if_free`] on Windows: a move that refuses to replace (`MoveFileExW` without
/// `MOVEFILE_REPLACE_EXISTING`).
#[cfg(windows)]
fn name_if_free(temp: tempfile::NamedTempFile, path: &Path) -> io::Result<Naming> {
    match temp.persist_noclobber(path) {
        Ok(_) => Ok(Naming::Named),
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Ok(Naming::Taken),
        Err(e) => Err(e.error),
    }
}

/// [`name_if_free`] on the other systems, which have no rename that refuses to replace.
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_vendor = "apple",
    windows
)))]
fn name_if_free(temp: tempfile::NamedTempFile, path: &Path) -> io::Result<Naming> {
    rename_unless_taken(temp.into_temp_path(), path)
}

/// The naming where the file system cannot rename without replacing: a plain rename unless
/// the name exists. Two writers that both pass the check both rename, and the second replaces
/// the first's file with the same bytes (the names are content-addressed): both report
/// [`Naming::Named`], and no file has two names at any moment.
fn rename_unless_taken(temp: tempfile::TempPath, path: &Path) -> io::Result<Naming> {
    match fs::symlink_metadata(path) {
        Ok(_) => return Ok(Naming::Taken),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    temp.persist(path).map_err(|e| e.error)?;
    Ok(Naming::Named)
}

/// How many names (hard links) the file of `meta` has; 1 where the count is not available.
fn links(meta: &fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::nlink(meta)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        1
    }
}

/// Removes temporary files in `dir` left by writers that crashed more than an hour ago.
/// Best effort: errors are logged, never returned.
pub(crate) fn sweep_stale_temp_files(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            continue;
        }
        let stale = entry
            .metadata()
            .ok()
            .filter(fs::Metadata::is_file)
            .and_then(|m| m.modified().ok())
            .is_some_and(|modified| {
                now.duration_since(modified)
                    .is_ok_and(|age| age > STALE_TEMP_AGE)
            });
        if stale && let Err(error) = fs::remove_file(entry.path()) {
            tracing::debug!(%error, "could not remove a stale temporary file");
        }
    }
}

#[cfg(test)]
mod tests;
