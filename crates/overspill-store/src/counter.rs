//! A number in a file that several processes update in turn (docs/budget.md#one-agent-served-by-several-processes).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A counter kept in one small file, updated under the file's exclusive lock: an update reads
/// the number, decides, and writes the new one before any other process (or thread) reads it.
/// An empty or new file counts 0; a file that does not hold a number is an error, never read
/// as 0.
#[derive(Debug, Clone)]
pub struct CounterFile {
    path: PathBuf,
}

impl CounterFile {
    /// The counter at `path` (made, with its directory, at the first update).
    pub fn new(path: impl Into<PathBuf>) -> CounterFile {
        CounterFile { path: path.into() }
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Calls `decide` with the number, under the lock; when it returns `Some(new)`, `new` is
    /// written before the lock is let go. Gives back the number the file holds after.
    ///
    /// # Errors
    ///
    /// When the file cannot be made, locked, read or written, or holds something that is not
    /// a number.
    pub fn update(&self, decide: &mut dyn FnMut(u64) -> Option<u64>) -> std::io::Result<u64> {
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&self.path)?;
        file.lock()?;
        let outcome = update_locked(&mut file, decide);
        // Closing the file lets the lock go too; unlocking first says so.
        let unlocked = file.unlock();
        let number = outcome?;
        unlocked?;
        Ok(number)
    }
}

fn update_locked(
    file: &mut File,
    decide: &mut dyn FnMut(u64) -> Option<u64>,
) -> std::io::Result<u64> {
    let mut text = String::new();
    file.take(64).read_to_string(&mut text)?;
    let text = text.trim();
    let now = if text.is_empty() {
        0
    } else {
        text.parse::<u64>().map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the counter file does not hold a number; remove it to start from 0",
            )
        })?
    };
    let Some(new) = decide(now) else {
        return Ok(now);
    };
    let digits = new.to_string();
    file.seek(SeekFrom::Start(0))?;
    file.set_len(0)?;
    file.write_all(digits.as_bytes())?;
    file.sync_data()?;
    Ok(new)
}

#[cfg(test)]
mod tests;
