//! Atomic, no-clobber file writes and private directories (SPEC §4, §13).
//!
//! A file is written to a hidden temporary file in its final directory, flushed to disk, then
//! given its final name in one step that fails if the name is taken (`renameat2(NOREPLACE)` or
//! a hard link, through `tempfile`). A reader therefore sees either no file or the whole file,
//! a crash leaves at most a hidden temporary file, and of two writers racing on one
//! content-addressed name exactly one creates it.

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

/// Writes `content` under `dir/name` (mode 0600) unless a file of that size already has the
/// name. `dir` must exist.
pub(crate) fn write_if_absent(dir: &Path, name: &str, content: &[u8]) -> io::Result<Written> {
    let path = dir.join(name);
    let occupied = match fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_file() && meta.len() == content.len() as u64 => {
            return Ok(Written::Existed);
        }
        Ok(_) => true,
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(e),
    };
    // tempfile creates the file with mode 0600 and removes it if we fail before persisting.
    let mut temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)?;
    temp.write_all(content)?;
    // Flush before naming, so a power cut cannot leave an empty file under the final name.
    temp.as_file().sync_data()?;
    if occupied {
        tracing::warn!(
            file = name,
            "replacing a stored file whose size does not match its name"
        );
        temp.persist(&path).map_err(|e| e.error)?;
        return Ok(Written::Replaced);
    }
    match temp.persist_noclobber(&path) {
        Ok(_) => Ok(Written::Created),
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Ok(Written::Existed),
        Err(e) => {
            // A filesystem with neither renameat2 nor hard links: rename, unless a racing
            // writer got there first (its file holds the same content).
            tracing::debug!(error = %e.error, "no-clobber rename unavailable; falling back to rename");
            if fs::symlink_metadata(&path).is_ok() {
                return Ok(Written::Existed);
            }
            e.file.persist(&path).map_err(|e| e.error)?;
            Ok(Written::Created)
        }
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
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn write_if_absent_creates_then_reports_existing() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            write_if_absent(dir.path(), "a.txt", b"abc").unwrap(),
            Written::Created
        );
        assert_eq!(
            write_if_absent(dir.path(), "a.txt", b"abc").unwrap(),
            Written::Existed
        );
        assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), b"abc");
        assert_eq!(names(dir.path()), ["a.txt"]);
    }

    #[test]
    fn write_if_absent_replaces_a_file_of_the_wrong_size() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), b"ab").unwrap();
        assert_eq!(
            write_if_absent(dir.path(), "a.txt", b"abc").unwrap(),
            Written::Replaced
        );
        assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), b"abc");
        assert_eq!(names(dir.path()), ["a.txt"]);
    }

    #[cfg(unix)]
    #[test]
    fn written_files_are_0600_and_created_dirs_0700() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("x/y");
        create_private_dir_all(&nested).unwrap();
        write_if_absent(&nested, "f", b"1").unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir.path().join("x")), 0o700);
        assert_eq!(mode(&nested), 0o700);
        assert_eq!(mode(&nested.join("f")), 0o600);
    }

    #[test]
    fn sweep_removes_only_stale_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join(format!("{TEMP_PREFIX}old"));
        let fresh = dir.path().join(format!("{TEMP_PREFIX}fresh"));
        let kept = dir.path().join("tool-0123456789abcdef.txt");
        for p in [&old, &fresh, &kept] {
            fs::write(p, b"x").unwrap();
        }
        let long_ago = SystemTime::now() - Duration::from_secs(2 * 60 * 60);
        for p in [&old, &kept] {
            fs::File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        }
        sweep_stale_temp_files(dir.path());
        assert!(!old.exists());
        assert!(fresh.exists());
        assert!(kept.exists());
    }
}
