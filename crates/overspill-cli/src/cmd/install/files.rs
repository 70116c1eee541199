//! Reading and writing the files `install` touches, safely while their client runs
//! (docs/clients.md#while-the-client-runs): a client's file is edited where it really is (a
//! symbolic link is followed, never replaced), from what it holds at the moment of the write
//! (read, edit, and before the new file takes its place, read again: a change the client made
//! meanwhile means the edit is made again on it), and replaced in one rename, with its
//! permissions. overspill's own files are private to the user.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// How often an edit is made again because the client wrote the file meanwhile, before
/// giving up (a client does not rewrite its file that often; one that does is still running
/// a burst of writes that the user can wait out).
const ATTEMPTS: usize = 20;

/// The file a path stands for: itself, or where its symbolic links lead (a link that leads
/// nowhere is followed as far as it goes, so that the file is made where the link points).
pub fn real_path(path: &Path) -> PathBuf {
    let mut path = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&path) {
            Ok(target) => {
                path = match path.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            Err(_) => break,
        }
    }
    path
}

/// What a file holds now: `None` when there is no such file.
pub fn read(path: &Path) -> anyhow::Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => bail!("cannot read {}: {error}", path.display()),
    }
}

/// Edits the file at `path` (links followed): `edit` is given what the file holds (`None`
/// when it does not exist) and gives the new contents, or `None` to leave the file as it is.
/// The new file replaces the old only if the old is still what `edit` was given; otherwise
/// `edit` is called again on what the file holds then. Gives what `edit` last gave, and what
/// it was given.
pub fn edit<T>(
    path: &Path,
    mut edit: impl FnMut(Option<&[u8]>) -> anyhow::Result<Option<(Vec<u8>, T)>>,
) -> anyhow::Result<(Option<T>, Option<Vec<u8>>)> {
    let path = real_path(path);
    for _ in 0..ATTEMPTS {
        let before = read(&path)?;
        let Some((bytes, said)) = edit(before.as_deref())? else {
            return Ok((None, before));
        };
        let permissions = std::fs::metadata(&path)
            .ok()
            .map(|metadata| metadata.permissions());
        let file = prepared(&path, &bytes, permissions)?;
        // The client may have written the file while this edit was made: its write is kept
        // by making the edit again on it.
        if read(&path)? != before {
            continue;
        }
        file.persist(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        return Ok((Some(said), before));
    }
    bail!(
        "{} kept changing while overspill edited it ({ATTEMPTS} tries): is its client writing \
         it without pause? Try again in a moment",
        path.display()
    )
}

/// Writes a file only its owner can read (it may hold the servers' secrets), in one rename.
pub fn write_private(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    #[cfg(unix)]
    let permissions = {
        use std::os::unix::fs::PermissionsExt;
        Some(std::fs::Permissions::from_mode(0o600))
    };
    #[cfg(not(unix))]
    let permissions = None;
    prepared(path, bytes, permissions)?
        .persist(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Removes a file of overspill's; one that is already gone is no error.
pub fn remove(path: &Path) -> anyhow::Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => bail!("cannot remove {}: {error}", path.display()),
    }
}

/// `bytes` written and synced to a new file beside `path` (with `permissions` when given),
/// ready to be renamed over it: a reader sees the old file or the new one, never a part.
fn prepared(
    path: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> anyhow::Result<tempfile::NamedTempFile> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in {}", dir.display()))?;
    if let Some(permissions) = permissions {
        file.as_file()
            .set_permissions(permissions)
            .with_context(|| format!("cannot set the permissions of {}", path.display()))?;
    }
    file.write_all(bytes)
        .and_then(|()| file.as_file().sync_all())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(file)
}

#[cfg(test)]
mod tests;
