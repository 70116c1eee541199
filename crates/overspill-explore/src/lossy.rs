//! Bytes → text for display: invalid UTF-8 becomes U+FFFD (docs/tools.md#1-common-rules), counted in characters.
//!
//! "Characters" are the Unicode scalar values of the lossy text, where each maximal invalid
//! byte sequence is one U+FFFD — exactly what `String::from_utf8_lossy` yields — so `slice`'s
//! `start_char`/`max_chars` and the cut notes agree on positions, whatever the bytes are.

/// The replacement character shown for invalid bytes.
pub const REPLACEMENT: char = char::REPLACEMENT_CHARACTER;

/// A piece of a line, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The decoded text.
    pub text: String,
    /// Whether any invalid byte was replaced.
    pub lossy: bool,
    /// Whether the byte limit stopped the piece before the text (or the requested characters)
    /// ended.
    pub truncated: bool,
}

/// The number of characters in the lossy decoding of `bytes`: each run of invalid bytes is
/// one U+FFFD, as the tools show it and as jaq counts it.
pub fn char_count(bytes: &[u8]) -> usize {
    bytes
        .utf8_chunks()
        .map(|chunk| chunk.valid().chars().count() + usize::from(!chunk.invalid().is_empty()))
        .sum()
}

/// The characters `start..start + max` of the lossy decoding of `bytes` (`max = None`: to the
/// end), stopping early once more than `max_bytes` bytes of text have been produced.
pub fn piece(bytes: &[u8], start: u64, max: Option<u64>, max_bytes: usize) -> Piece {
    let mut text = String::new();
    let mut lossy = false;
    let mut truncated = false;
    let mut skipped = 0u64;
    let mut taken = 0u64;
    let limit = max.unwrap_or(u64::MAX);
    'chunks: for chunk in bytes.utf8_chunks() {
        let replaced = (!chunk.invalid().is_empty()).then_some((REPLACEMENT, true));
        for (c, is_replacement) in chunk.valid().chars().map(|c| (c, false)).chain(replaced) {
            if skipped < start {
                skipped += 1;
                continue;
            }
            if taken == limit {
                break 'chunks;
            }
            if text.len() >= max_bytes {
                truncated = true;
                break 'chunks;
            }
            lossy |= is_replacement;
            text.push(c);
            taken += 1;
        }
    }
    Piece {
        text,
        lossy,
        truncated,
    }
}

/// The lossy decoding of at most the first `max_bytes` bytes of `bytes`, cut back to a
/// character boundary so a character split by the limit is not mistaken for invalid bytes.
pub fn prefix(bytes: &[u8], max_bytes: usize) -> Piece {
    let mut end = max_bytes.min(bytes.len());
    // Step back over continuation bytes (at most 3 for valid UTF-8).
    let mut steps = 0;
    while end < bytes.len() && end > 0 && steps < 3 && bytes[end] & 0xC0 == 0x80 {
        end -= 1;
        steps += 1;
    }
    Piece {
        truncated: end < bytes.len(),
        ..decode(&bytes[..end])
    }
}

/// The lossy decoding of all of `bytes`.
pub fn decode(bytes: &[u8]) -> Piece {
    match std::str::from_utf8(bytes) {
        Ok(text) => Piece {
            text: text.to_owned(),
            lossy: false,
            truncated: false,
        },
        Err(_) => Piece {
            text: String::from_utf8_lossy(bytes).into_owned(),
            lossy: true,
            truncated: false,
        },
    }
}

#[cfg(test)]
mod tests;
