//! Where each line of a file starts, so `head` and `slice` cost what they return (docs/performance.md).
//!
//! Built once per file with `memchr` (GB/s) and cached with it. The index is sparse: it keeps
//! the start of every [`STRIDE`]th line and finds the others with a short forward `memchr`,
//! so it costs 8 bytes per 64 lines (about 0.5 MB for a 115 MB, 3.7 M-line file).
//!
//! Lines are numbered from 1. A line's bytes exclude its `\n` and a `\r` before it. A final
//! line without a newline counts; an empty file has no lines, and a file ending in `\n` has no
//! empty line after it.

use std::ops::Range;

/// Lines between two checkpoints.
pub const STRIDE: u64 = 64;

/// The sparse start-of-line index of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    /// `checkpoints[k]` is the byte offset where line `k * STRIDE + 1` starts.
    checkpoints: Vec<usize>,
    lines: u64,
    len: usize,
}

impl LineIndex {
    /// Indexes `bytes`.
    pub fn build(bytes: &[u8]) -> LineIndex {
        let mut checkpoints = vec![0];
        let mut newlines: u64 = 0;
        for at in memchr::memchr_iter(b'\n', bytes) {
            newlines += 1;
            if newlines.is_multiple_of(STRIDE) && at + 1 < bytes.len() {
                checkpoints.push(at + 1);
            }
        }
        let unterminated = bytes.last().is_some_and(|&b| b != b'\n');
        LineIndex {
            checkpoints,
            lines: newlines + u64::from(unterminated),
            len: bytes.len(),
        }
    }

    /// How many lines the file has.
    pub fn line_count(&self) -> u64 {
        self.lines
    }

    /// Bytes this index occupies, for the cache's accounting.
    pub fn heap_bytes(&self) -> usize {
        self.checkpoints.capacity() * std::mem::size_of::<usize>()
    }

    /// The byte range of line `number` (1-based) in `bytes`, without its line ending; `None`
    /// past the last line. `bytes` must be the buffer the index was built from.
    pub fn line(&self, bytes: &[u8], number: u64) -> Option<Range<usize>> {
        let start = self.line_start(bytes, number)?;
        Some(start..line_end(bytes, start))
    }

    /// The lines `first..=last` (1-based, `last` clamped to the end) with their numbers.
    pub fn lines<'a>(&self, bytes: &'a [u8], first: u64, last: u64) -> Lines<'a> {
        let last = last.min(self.lines);
        let next = if first >= 1 && first <= last {
            self.line_start(bytes, first)
        } else {
            None
        };
        Lines {
            bytes,
            next,
            number: first,
            last,
        }
    }

    /// The byte offset where line `number` starts.
    fn line_start(&self, bytes: &[u8], number: u64) -> Option<usize> {
        if number == 0 || number > self.lines || bytes.len() != self.len {
            return None;
        }
        let zero_based = number - 1;
        let checkpoint = usize::try_from(zero_based / STRIDE).ok()?;
        let mut at = *self.checkpoints.get(checkpoint)?;
        for _ in 0..zero_based % STRIDE {
            at += memchr::memchr(b'\n', bytes.get(at..)?)? + 1;
        }
        Some(at)
    }
}

/// The lines `1..=last` of `bytes`, found by scanning from the top without an index: for a
/// caller that may stop after a few lines of a huge file and must not pay for indexing it.
pub fn lines_from_top(bytes: &[u8], last: u64) -> Lines<'_> {
    Lines {
        bytes,
        next: (!bytes.is_empty() && last >= 1).then_some(0),
        number: 1,
        last,
    }
}

/// Iterator over numbered lines; see [`LineIndex::lines`].
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    bytes: &'a [u8],
    next: Option<usize>,
    number: u64,
    last: u64,
}

impl<'a> Iterator for Lines<'a> {
    type Item = (u64, &'a [u8]);

    fn next(&mut self) -> Option<(u64, &'a [u8])> {
        let start = self.next?;
        if self.number > self.last {
            return None;
        }
        let end = line_end(self.bytes, start);
        let newline = memchr::memchr(b'\n', &self.bytes[start..]).map(|i| start + i);
        self.next = newline.map(|n| n + 1).filter(|&n| n < self.bytes.len());
        let item = (self.number, &self.bytes[start..end]);
        self.number += 1;
        Some(item)
    }
}

/// The end of the line starting at `start`: before its `\n`, or its `\r\n`.
pub fn line_end(bytes: &[u8], start: usize) -> usize {
    let rest = bytes.get(start..).unwrap_or_default();
    match memchr::memchr(b'\n', rest) {
        Some(i) if i > 0 && rest[i - 1] == b'\r' => start + i - 1,
        Some(i) => start + i,
        None => bytes.len(),
    }
}

#[cfg(test)]
mod tests;
