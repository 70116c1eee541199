//! Where a text may be cut without changing its Gemma 3 tokens.
//!
//! SentencePiece BPE (the Gemma 3 model has no pre-tokenizer) only ever
//! merges symbols into pieces of its vocabulary, and the user-defined pieces
//! it matches first are vocabulary pieces too. A token that spans the
//! boundary between two adjacent characters contains that character pair,
//! so if no piece contains the pair, no merge can cross the boundary: each
//! side then tokenizes on its own exactly as it does inside the whole text,
//! and cutting there leaves the token sequence unchanged.
//!
//! [`CutTable`] records every adjacent pair found in a piece; [`Chunks`]
//! cuts a text at pairs found in none. Most boundaries in real text qualify
//! (a space after a non-space is one: the model has a single piece, `> </`,
//! with such a pair), so chunks stay close to the target size; a text with
//! no such boundary stays whole.

/// The adjacent character pairs that occur inside some vocabulary piece,
/// written the way the model sees text (a space as `▁`).
pub(super) struct CutTable {
    /// `ascii[left]` has bit `right` set when `left right` occurs in a piece.
    ascii: Box<[u128; 128]>,
    /// Every other pair, as `left << 32 | right`, sorted.
    other: Vec<u64>,
    /// True when some piece could not be read as UTF-8: no boundary is then
    /// known to be safe and texts are never cut.
    opaque: bool,
}

/// How SentencePiece writes a space (U+0020) before tokenizing.
const SPACE_MARK: char = '\u{2581}';

impl CutTable {
    /// Builds the table from the byte strings of every piece the model can
    /// produce or match.
    pub(super) fn from_pieces<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> CutTable {
        let mut table = CutTable {
            ascii: Box::new([0; 128]),
            other: Vec::new(),
            opaque: false,
        };
        for piece in pieces {
            match std::str::from_utf8(piece) {
                Ok(piece) => {
                    let mut chars = piece.chars();
                    let Some(mut left) = chars.next() else {
                        continue;
                    };
                    for right in chars {
                        table.insert(left, right);
                        left = right;
                    }
                }
                // A lone byte (a byte-fallback piece) pairs with nothing.
                Err(_) if piece.len() == 1 => {}
                Err(_) => table.opaque = true,
            }
        }
        table.other.sort_unstable();
        table.other.dedup();
        table
    }

    /// Whether some piece contains `left` immediately followed by `right`,
    /// both as they appear in the input text.
    pub(super) fn joins(&self, left: char, right: char) -> bool {
        let (left, right) = (as_model_sees(left), as_model_sees(right));
        match (u8::try_from(left), u8::try_from(right)) {
            (Ok(l), Ok(r)) if l < 128 && r < 128 => self.ascii[usize::from(l)] >> r & 1 == 1,
            _ => self.other.binary_search(&pair_key(left, right)).is_ok(),
        }
    }

    /// The chunks of `text`, each about `target` bytes or longer, cut only
    /// where no token can cross.
    pub(super) fn chunks<'t>(&self, text: &'t str, target: usize) -> Chunks<'_, 't> {
        Chunks {
            table: self,
            rest: text,
            target: target.max(1),
        }
    }

    /// The number of distinct pairs, for tests and diagnostics.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.ascii
            .iter()
            .map(|row| row.count_ones() as usize)
            .sum::<usize>()
            + self.other.len()
    }

    fn insert(&mut self, left: char, right: char) {
        match (u8::try_from(left), u8::try_from(right)) {
            (Ok(l), Ok(r)) if l < 128 && r < 128 => self.ascii[usize::from(l)] |= 1 << r,
            _ => self.other.push(pair_key(left, right)),
        }
    }
}

/// Iterator over the chunks of a text; see [`CutTable::chunks`].
pub(super) struct Chunks<'a, 't> {
    table: &'a CutTable,
    rest: &'t str,
    target: usize,
}

impl<'t> Iterator for Chunks<'_, 't> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        if self.rest.is_empty() {
            return None;
        }
        let cut = if self.table.opaque || self.rest.len() <= self.target {
            self.rest.len()
        } else {
            self.first_cut_from(self.rest.ceil_char_boundary(self.target))
        };
        let (chunk, rest) = self.rest.split_at(cut);
        self.rest = rest;
        Some(chunk)
    }
}

impl Chunks<'_, '_> {
    /// The first safe boundary at or after byte `from` (a char boundary
    /// inside `rest`), or the end of `rest`.
    fn first_cut_from(&self, from: usize) -> usize {
        let (head, tail) = self.rest.split_at(from);
        let Some(mut left) = head.chars().next_back() else {
            return self.rest.len();
        };
        for (offset, right) in tail.char_indices() {
            if !self.table.joins(left, right) {
                return from + offset;
            }
            left = right;
        }
        self.rest.len()
    }
}

fn as_model_sees(c: char) -> char {
    if c == ' ' { SPACE_MARK } else { c }
}

fn pair_key(left: char, right: char) -> u64 {
    (u64::from(left) << 32) | u64::from(right)
}

#[cfg(test)]
mod tests;
