//! A regular file opened beneath a directory handle, and the one way its bytes are read.
//!
//! Opening is one operation on handles: the type (and, for the read root, the link count) is
//! checked on the open descriptor, so what is read is what was checked. The open never waits: a
//! FIFO opened for reading with `O_NONBLOCK` returns at once (and is then refused), where a
//! plain open waits for a writer forever.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use cap_fs_ext::{FileTypeExt, FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::fs::{Dir, FileType, OpenOptions};

/// How many times [`RootFile::read_to_end`] reads a file that changed under it before it
/// gives up.
const READ_ATTEMPTS: usize = 3;

/// A regular file opened by [`ReadRoot::open`](crate::ReadRoot::open): the open handle, the
/// name it was found under, and its metadata as of the open.
///
/// Read it through this handle only ([`RootFile::read_to_end`]); [`RootFile::path`] is for
/// naming and keys, and opening it again by name would undo the check.
#[derive(Debug)]
pub struct RootFile {
    file: File,
    path: PathBuf,
    metadata: fs::Metadata,
}

impl RootFile {
    /// The canonical path the file was found under (inside the read root).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's metadata, from the open handle: as of the open, or of the snapshot the last
    /// [`RootFile::read_to_end`] returned.
    pub fn metadata(&self) -> &fs::Metadata {
        &self.metadata
    }

    /// The file's size in bytes, per [`RootFile::metadata`].
    pub fn len(&self) -> u64 {
        self.metadata.len()
    }

    /// Whether the file is empty, per [`RootFile::metadata`].
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file's bytes as of one version of it, read from the start.
    ///
    /// Reads exactly the size the handle reports, then looks again: a file that only grew
    /// meanwhile gives the bytes it had when the read began (an append does not change them);
    /// one that shrank, or was rewritten at the same size, is read again, and after
    /// three tries the answer is an error. [`RootFile::metadata`] then describes the bytes
    /// returned. Nothing here can fault on a file cut short under it, as a memory map would.
    ///
    /// # Errors
    /// The read's I/O error, or `Other` when the file kept changing.
    pub fn read_to_end(&mut self) -> io::Result<Vec<u8>> {
        self.read_with(|size| Ok(vec![0; size]))
    }

    /// [`RootFile::read_to_end`] into a buffer of the caller's making: `make(size)` returns a
    /// buffer of exactly `size` bytes, which the file's bytes then fill (a file cut short is
    /// read again into a new buffer of its new size, so a buffer returned is always full).
    ///
    /// # Errors
    /// As [`RootFile::read_to_end`], and `make`'s error.
    pub fn read_with<B: AsMut<[u8]>>(
        &mut self,
        mut make: impl FnMut(usize) -> io::Result<B>,
    ) -> io::Result<B> {
        for _ in 0..READ_ATTEMPTS {
            let before = self.metadata.clone();
            let size = usize::try_from(before.len())
                .map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "file too large"))?;
            let mut buffer = make(size)?;
            let filled = fill(&self.file, buffer.as_mut())?;
            let after = self.file.metadata()?;
            if filled == size && (after.len() > before.len() || same_version(&before, &after)) {
                return Ok(buffer);
            }
            self.metadata = after;
        }
        Err(io::Error::other(
            "the file kept changing while it was read (cut short or rewritten in place); \
             try again once it is complete",
        ))
    }

    /// The open handle, for a caller that reads in its own way (its position is not reset).
    pub fn into_file(self) -> File {
        self.file
    }
}

/// Which regular files [`open_regular`] accepts, by their number of hard links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Links {
    /// Only a file with one name: what the read root serves. Another name of the file may lie
    /// outside the root or be a reserved record, and nothing overspill writes has a second
    /// name (docs/storage.md, "Hard links are refused").
    One,
    /// Any number: the host's own small files in its own directories (metadata records, run
    /// markers), which a backup made with `cp -al` links and `overspill ls` must still read.
    Any,
}

/// Why [`open_regular`] opened nothing.
#[derive(Debug)]
pub(crate) enum OpenFailure {
    /// A directory stands at the name.
    Directory,
    /// A FIFO, socket or device stands at the name; the kind, for the message.
    Special(&'static str),
    /// A regular file with this many hard links, opened with [`Links::One`].
    Linked(u64),
    /// The lookup or the open failed.
    Io(io::Error),
}

impl From<io::Error> for OpenFailure {
    fn from(error: io::Error) -> OpenFailure {
        OpenFailure::Io(error)
    }
}

/// Opens `name` beneath `dir` for reading as a regular file, without blocking, following a
/// symlink at the end of `name` only when `follow` says so (and never out of `dir`: the
/// handle's lookup stays beneath it), with as many hard links as `links` accepts.
///
/// The type is checked twice: by `stat` before the open, so that a device is not opened at all
/// in the ordinary case, and on the open descriptor, which settles it when the name was
/// swapped in between. The link count is checked once, on the descriptor's `fstat`, the
/// metadata the returned file keeps: a link made or removed by name afterwards changes nothing
/// that was judged.
pub(crate) fn open_regular(
    dir: &Dir,
    name: &Path,
    path: PathBuf,
    follow: FollowSymlinks,
    links: Links,
) -> Result<RootFile, OpenFailure> {
    let before = match follow {
        FollowSymlinks::Yes => dir.metadata(name)?,
        FollowSymlinks::No => dir.symlink_metadata(name)?,
    };
    check_regular(before.file_type())?;
    let mut options = OpenOptions::new();
    options.read(true).follow(follow).nonblock(true);
    let file = dir.open_with(name, &options)?;
    check_regular(file.metadata()?.file_type())?;
    let file = file.into_std();
    let metadata = file.metadata()?;
    if links == Links::One {
        check_one_link(&metadata)?;
    }
    Ok(RootFile {
        file,
        path,
        metadata,
    })
}

/// The bytes of `name` in the host's own directory `dir` (a metadata record, a run marker):
/// a regular file of at most `max_bytes`, never a symlink, never waited on.
///
/// # Errors
/// `NotFound` when nothing is there; `InvalidData` for anything but a regular file of at most
/// `max_bytes`; the I/O error of the open or the read.
pub(crate) fn read_small(dir: &Path, name: &str, max_bytes: u64) -> io::Result<Vec<u8>> {
    let dir = Dir::open_ambient_dir(dir, cap_std::ambient_authority())?;
    read_small_in(&dir, name, max_bytes)
}

/// [`read_small`] in an open directory.
pub(crate) fn read_small_in(dir: &Dir, name: &str, max_bytes: u64) -> io::Result<Vec<u8>> {
    let mut file = match open_regular(
        dir,
        Path::new(name),
        PathBuf::from(name),
        FollowSymlinks::No,
        Links::Any,
    ) {
        Ok(file) => file,
        Err(OpenFailure::Io(error)) => return Err(error),
        Err(OpenFailure::Directory) => return Err(not_small("a directory")),
        Err(OpenFailure::Special(kind)) => return Err(not_small(kind)),
        // `Links::Any` accepts every count.
        Err(OpenFailure::Linked(_)) => return Err(not_small("a file with hard links")),
    };
    if file.len() > max_bytes {
        return Err(not_small("larger than overspill ever writes one"));
    }
    file.read_to_end()
}

fn not_small(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{what}, not one of overspill's own small files; remove it"),
    )
}

/// Reads `file` from its start into `buffer` until the buffer is full or the file ends;
/// returns how many bytes were read.
fn fill(mut file: &File, buffer: &mut [u8]) -> io::Result<usize> {
    file.seek(SeekFrom::Start(0))?;
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// `Ok` for a regular file; otherwise what stands there instead.
fn check_regular(file_type: FileType) -> Result<(), OpenFailure> {
    if file_type.is_file() {
        Ok(())
    } else if file_type.is_dir() {
        Err(OpenFailure::Directory)
    } else if file_type.is_fifo() {
        Err(OpenFailure::Special("a FIFO (named pipe)"))
    } else if file_type.is_socket() {
        Err(OpenFailure::Special("a socket"))
    } else if file_type.is_char_device() || file_type.is_block_device() {
        Err(OpenFailure::Special("a device"))
    } else if file_type.is_symlink() {
        // Only with `FollowSymlinks::No`: the caller asked for no link here.
        Err(OpenFailure::Special("a symbolic link"))
    } else {
        Err(OpenFailure::Special("not a regular file"))
    }
}

/// `Ok` for a file with one name, per the open descriptor's metadata.
///
/// Off Unix the count is not available in stable Rust, and every file passes.
fn check_one_link(metadata: &fs::Metadata) -> Result<(), OpenFailure> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if metadata.nlink() > 1 {
            return Err(OpenFailure::Linked(metadata.nlink()));
        }
    }
    #[cfg(not(unix))]
    let _ = metadata;
    Ok(())
}

/// Whether two looks at one open file saw the same version: same size, modification time and,
/// on Unix, change time (which every write moves and no user can set back).
fn same_version(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    #[cfg(unix)]
    use std::os::unix::fs::MetadataExt;
    #[cfg(unix)]
    let changed_alike = a.ctime() == b.ctime() && a.ctime_nsec() == b.ctime_nsec();
    #[cfg(not(unix))]
    let changed_alike = true;
    a.len() == b.len() && a.modified().ok() == b.modified().ok() && changed_alike
}

#[cfg(test)]
mod tests;
