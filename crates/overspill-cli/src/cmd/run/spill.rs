//! One output stream of a command under `overspill run`: its bytes held in memory up to a
//! limit, then spilled to a file, so that an output of any size costs bounded memory while the
//! command runs (docs/cli.md#overspill-run).

use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

/// A stream being collected.
#[derive(Debug)]
pub struct Spill {
    /// Bytes held in memory before the stream spills.
    limit: usize,
    /// Where the spill file goes: the scratchpad dir the output may be stored in.
    dir: PathBuf,
    held: Vec<u8>,
    file: Option<File>,
    len: u64,
    /// The first write that failed (a full disk): what follows it is counted, not kept.
    lost: Option<io::Error>,
}

/// A stream once the command has closed it.
#[derive(Debug)]
pub enum Spilled {
    /// All of it, in memory.
    Held(Vec<u8>),
    /// All of it, in an unnamed file.
    File {
        /// The file, written to its end.
        file: File,
        /// Its length.
        len: u64,
    },
}

impl Spill {
    /// A stream that holds up to `limit` bytes in memory and spills the rest into a file
    /// in `dir` (created private if missing), else in the system's temporary directory.
    pub fn new(limit: usize, dir: &Path) -> Spill {
        Spill {
            limit,
            dir: dir.to_owned(),
            held: Vec::new(),
            file: None,
            len: 0,
            lost: None,
        }
    }

    /// Adds the next bytes of the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        self.len += bytes.len() as u64;
        if self.lost.is_some() {
            return;
        }
        if let Err(error) = self.keep(bytes) {
            self.lost = Some(error);
        }
    }

    /// The stream, complete; the error after which its bytes were counted but not kept, if a
    /// write failed.
    pub fn finish(self) -> (Spilled, Option<io::Error>) {
        let spilled = match self.file {
            Some(file) => Spilled::File {
                file,
                len: self.len,
            },
            None => Spilled::Held(self.held),
        };
        (spilled, self.lost)
    }

    fn keep(&mut self, bytes: &[u8]) -> io::Result<()> {
        if let Some(file) = &mut self.file {
            return file.write_all(bytes);
        }
        if self.held.len() + bytes.len() <= self.limit {
            self.held.extend_from_slice(bytes);
            return Ok(());
        }
        match spill_file(&self.dir) {
            Some(mut file) => {
                file.write_all(&self.held)?;
                file.write_all(bytes)?;
                self.held = Vec::new();
                self.file = Some(file);
            }
            // Nowhere to spill: kept in memory rather than lost.
            None => self.held.extend_from_slice(bytes),
        }
        Ok(())
    }
}

impl Spilled {
    /// How many bytes the stream had.
    pub fn len(&self) -> u64 {
        match self {
            Spilled::Held(bytes) => bytes.len() as u64,
            Spilled::File { len, .. } => *len,
        }
    }

    /// The stream as text: `None` when it is not UTF-8.
    ///
    /// # Errors
    /// The spill file cannot be read back.
    pub fn text(&mut self) -> io::Result<Option<String>> {
        let bytes = match self {
            Spilled::Held(bytes) => bytes.clone(),
            Spilled::File { file, len } => {
                file.rewind()?;
                let mut bytes = Vec::with_capacity(usize::try_from(*len).unwrap_or(0));
                file.read_to_end(&mut bytes)?;
                bytes
            }
        };
        Ok(String::from_utf8(bytes).ok())
    }

    /// Writes the stream to `out`, byte for byte.
    ///
    /// # Errors
    /// `out` cannot be written, or the spill file read back.
    pub fn write_to(&mut self, out: &mut impl Write) -> io::Result<()> {
        match self {
            Spilled::Held(bytes) => out.write_all(bytes),
            Spilled::File { file, .. } => {
                file.rewind()?;
                io::copy(file, out).map(|_| ())
            }
        }
    }
}

/// An unnamed file to spill into: in `dir` when it can be made (private, as the store makes
/// it, since what a command prints may be a secret), else in the temporary directory.
fn spill_file(dir: &Path) -> Option<File> {
    let in_dir = overspill::store::Store::open(dir)
        .ok()
        .and_then(|store| tempfile::tempfile_in(store.dir()).ok());
    let file = in_dir.or_else(|| tempfile::tempfile().ok());
    if file.is_none() {
        tracing::warn!(
            "no file to spill a large output into ({} and the temporary directory cannot be \
             written); it is kept in memory",
            dir.display()
        );
    }
    file
}

#[cfg(test)]
mod tests;
