//! Counting Gemma 3 tokens chunk by chunk, remembering repeated chunks.
//!
//! Text is cut at every safe boundary (see [`super::cuts`]), which in JSON
//! and logs gives short chunks that repeat a lot: keys, punctuation runs,
//! indentation, log levels. Each distinct chunk is tokenized once and its
//! count remembered. Chunks not seen before are gathered into batches of a
//! few KiB and tokenized in one call; since no token crosses a chunk
//! boundary, the batch's tokens are then shared out to its chunks by their
//! byte lengths, and those counts are remembered too.
//!
//! The total is always the sum of exact counts of a partition of the text
//! at safe cuts, so it equals the count of the whole text. A remembered
//! count is stored only when the tokens fell exactly on the chunk
//! boundaries; otherwise the batch still counts, it just teaches nothing.

use std::collections::HashMap;

use super::Gemma3;

/// Chunks longer than this are rarely repeated and are not remembered.
const LONGEST_REMEMBERED_CHUNK: usize = 64;

/// At most this many distinct chunks are remembered per count, which bounds
/// the memory a count takes (about 2 MB) whatever the text.
const MOST_REMEMBERED_CHUNKS: usize = 1 << 16;

/// Counts the tokens of `text` up to `limit`: `Some(exact count)` when it
/// is at most `limit`, else `None` (after about `limit` tokens of work).
/// Batches of unseen chunks are tokenized once they reach `batch_bytes`.
pub(super) fn count_up_to(
    model: &Gemma3,
    text: &str,
    batch_bytes: usize,
    limit: usize,
) -> Option<usize> {
    let mut tally = Tally {
        model,
        text,
        memo: HashMap::new(),
        batch: Vec::new(),
        total: 0,
    };
    let mut offset = 0;
    for chunk in model.cuts.chunks(text, 1) {
        let start = offset;
        offset += chunk.len();
        if let Some(&known) = tally.memo.get(chunk) {
            tally.flush();
            tally.total += known as usize;
        } else {
            tally.batch.push(start..offset);
            if offset - tally.batch_start() >= batch_bytes {
                tally.flush();
            }
        }
        if tally.total > limit {
            return None;
        }
    }
    tally.flush();
    (tally.total <= limit).then_some(tally.total)
}

struct Tally<'m, 't> {
    model: &'m Gemma3,
    text: &'t str,
    /// Token counts of chunks seen before.
    memo: HashMap<&'t str, u32>,
    /// Adjacent chunks not seen before, as byte ranges of `text`.
    batch: Vec<std::ops::Range<usize>>,
    total: usize,
}

impl Tally<'_, '_> {
    fn batch_start(&self) -> usize {
        self.batch.first().map_or(0, |chunk| chunk.start)
    }

    /// Tokenizes the pending batch, adds its count, and remembers the
    /// counts of its short chunks.
    fn flush(&mut self) {
        let (Some(first), Some(last)) = (self.batch.first(), self.batch.last()) else {
            return;
        };
        let ids = self.model.encode_chunk(&self.text[first.start..last.end]);
        self.total += ids.len();
        self.remember(&ids);
        self.batch.clear();
    }

    /// Shares the batch's tokens out to its chunks: a chunk's tokens are the
    /// ones whose lengths add up to the chunk's length as the model sees it.
    fn remember(&mut self, ids: &[u32]) {
        let mut ids = ids.iter();
        for range in &self.batch {
            let chunk = &self.text[range.clone()];
            let mut left = model_bytes(chunk);
            let mut tokens = 0u32;
            while left > 0 {
                let Some(&id) = ids.next() else { return };
                let length = self.model.token_model_bytes(id);
                if length == 0 || length > left {
                    // A token crossing a cut would mean the cut was unsafe;
                    // the count above is still exact, but nothing here can
                    // be trusted to remember.
                    return;
                }
                left -= length;
                tokens += 1;
            }
            if chunk.len() <= LONGEST_REMEMBERED_CHUNK && self.memo.len() < MOST_REMEMBERED_CHUNKS {
                self.memo.insert(chunk, tokens);
            }
        }
    }
}

/// The length of `chunk` as the model sees it: each space becomes the
/// three-byte `▁`.
fn model_bytes(chunk: &str) -> usize {
    chunk.len() + 2 * chunk.bytes().filter(|&b| b == b' ').count()
}

#[cfg(test)]
mod tests;
