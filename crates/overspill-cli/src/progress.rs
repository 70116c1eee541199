//! A one-line progress note for long operations, shown only when stderr is a terminal.

use std::io::{IsTerminal, Write};

/// Inputs smaller than this finish too fast to need a note.
const SHOW_FROM_BYTES: usize = 8 << 20;

/// Prints `overspill: <what> (<size>)…` on stderr while alive, and erases it when dropped.
/// Does nothing when stderr is not a terminal (piped, redirected, CI) or the input is small.
#[must_use = "the note is erased when this is dropped"]
pub struct Progress {
    shown: bool,
}

impl Progress {
    /// Starts a note for working on `bytes` bytes.
    pub fn start(what: &str, bytes: usize) -> Progress {
        let mut stderr = std::io::stderr();
        let shown = bytes >= SHOW_FROM_BYTES && stderr.is_terminal();
        if shown {
            let megabytes = bytes as f64 / 1e6;
            let _ = write!(stderr, "overspill: {what} ({megabytes:.1} MB)…");
            let _ = stderr.flush();
        }
        Progress { shown }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if self.shown {
            let mut stderr = std::io::stderr();
            // Carriage return, then erase the line.
            let _ = write!(stderr, "\r\x1b[2K");
            let _ = stderr.flush();
        }
    }
}
