//! Counting a large text by remembering what repeats in it.
//!
//! Tool outputs repeat themselves: JSON keys, indentation, punctuation, log
//! levels, often whole lines. Two memos exploit that without changing the
//! count:
//! - a line memo: the text is cut after newlines where no piece of either
//!   encoding can cross (see [`LineCuts`]), and each distinct short segment
//!   is split and counted once;
//! - a piece memo: each distinct short piece of the pre-tokenizer is
//!   byte-pair encoded once.
//!
//! The total is a sum of exact counts over a partition of the text at
//! piece boundaries, so it equals the plain count.

use std::collections::HashMap;

use bpe_openai::Tokenizer;

/// Segments longer than this are rarely repeated and are not remembered.
const LONGEST_REMEMBERED_SEGMENT: usize = 256;

/// Segments are remembered for at least this many lookups, and then only
/// while at least one lookup in `SEGMENT_HIT_RATIO` finds its segment.
const SEGMENT_TRIAL: usize = 4096;
const SEGMENT_HIT_RATIO: usize = 8;

/// Pieces longer than this are rarely repeated and are not remembered.
const LONGEST_REMEMBERED_PIECE: usize = 64;

/// At most this many distinct segments, and as many pieces, are remembered
/// per count, which bounds the memory a count takes (a few MB) whatever the
/// text.
const MOST_REMEMBERED: usize = 1 << 16;

/// The exact count of `text` (already normalized for `tokenizer`).
pub(super) fn count(tokenizer: &Tokenizer, text: &str) -> usize {
    let mut segments: HashMap<&str, usize> = HashMap::with_capacity(1024);
    let mut pieces: HashMap<&str, usize> = HashMap::with_capacity(1024);
    let mut total = 0;
    let mut lookups = 0usize;
    let mut hits = 0usize;
    for segment in LineCuts::new(text) {
        // Lines that never repeat (logs with timestamps) only cost hashing:
        // stop remembering segments once they have shown they rarely hit.
        let remembering = lookups < SEGMENT_TRIAL || hits * SEGMENT_HIT_RATIO >= lookups;
        let remembered = remembering && segment.len() <= LONGEST_REMEMBERED_SEGMENT;
        if remembered {
            lookups += 1;
            if let Some(&known) = segments.get(segment) {
                hits += 1;
                total += known;
                continue;
            }
        }
        let mut segment_count = 0;
        for piece in tokenizer.split(segment) {
            segment_count += if piece.len() > LONGEST_REMEMBERED_PIECE {
                tokenizer.bpe.count(piece.as_bytes())
            } else if let Some(&known) = pieces.get(piece) {
                known
            } else {
                let piece_count = tokenizer.bpe.count(piece.as_bytes());
                if pieces.len() < MOST_REMEMBERED {
                    pieces.insert(piece, piece_count);
                }
                piece_count
            };
        }
        if remembered && segments.len() < MOST_REMEMBERED {
            segments.insert(segment, segment_count);
        }
        total += segment_count;
    }
    total
}

/// Cuts a text right after each newline that both pre-tokenizers always end
/// a piece at, so each segment splits into exactly the pieces it has inside
/// the whole text.
///
/// A piece that contains a newline is either a whitespace run (`\s*[\r\n]+`
/// and the `\s+` forms) or punctuation followed by line ends (`[\r\n]*`,
/// and `[\r\n/]*` in `o200k_base`). Such a piece ends at a newline when
/// what follows is spaces or tabs and then a character that is neither
/// whitespace nor, right after the newline, `/`: no newline follows that
/// could extend the run, and no `/` that could extend the punctuation.
/// From there on, the pre-tokenizer's anchored matching sees the same text
/// in the segment as in the whole, and no match before the cut reaches past
/// it.
pub(super) struct LineCuts<'t> {
    rest: &'t str,
}

impl<'t> LineCuts<'t> {
    pub(super) fn new(text: &'t str) -> LineCuts<'t> {
        LineCuts { rest: text }
    }
}

impl<'t> Iterator for LineCuts<'t> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        if self.rest.is_empty() {
            return None;
        }
        let mut from = 0;
        let cut = loop {
            let Some(newline) = self.rest[from..].find('\n') else {
                break self.rest.len();
            };
            let after = from + newline + 1;
            if is_safe_cut(&self.rest[after..]) {
                break after;
            }
            from = after;
        };
        let (segment, rest) = self.rest.split_at(cut);
        self.rest = rest;
        Some(segment)
    }
}

/// Whether the text right after a newline starts with `[ \t]*` and then a
/// non-whitespace character, which is not `/` when the run is empty.
fn is_safe_cut(after: &str) -> bool {
    let indent = after.len() - after.trim_start_matches([' ', '\t']).len();
    match after[indent..].chars().next() {
        Some('/') if indent == 0 => false,
        Some(c) => !c.is_whitespace(),
        None => false,
    }
}

#[cfg(test)]
mod tests;
