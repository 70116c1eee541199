//! Gemma 3, the tokenizer of every Gemini model.
//!
//! The Gemma 3 SentencePiece model (262,144 pieces, Apache-2.0; see
//! `assets/gemma3/NOTICE`) is embedded in the crate and run by `kitoken`, a
//! pure-Rust implementation that needs no C++ toolchain. The tokens equal
//! those of Google's C++ SentencePiece library; the `sentencepiece-parity`
//! feature adds a test that checks this against the library itself.
//!
//! Two adjustments make `kitoken` exact and fast here:
//! - `kitoken` splits text before every run of spaces, as if the model had a
//!   whitespace pre-tokenizer. Gemma 3 has none, and one piece (`> </`)
//!   spans such a split, so this crate removes the split.
//! - Instead, text is cut where no piece can span the cut (see [`cuts`]),
//!   and counted chunk by chunk, each distinct chunk once (see [`tally`]).
//!   That keeps each `kitoken` call short, which keeps BPE fast on long
//!   lines, skips the repeated keys and indentation of JSON and logs, and
//!   lets [`TokenCounter::count_up_to`] stop after O(limit) work.

mod cuts;
mod tally;

use std::sync::LazyLock;

use kitoken::{Definition, Kitoken, Model, SpecialTokenKind};

use self::cuts::CutTable;
use crate::TokenCounter;

/// The Gemma 3 counter, used for Gemini models.
///
/// The model is converted on first use (a fraction of a second), once per
/// process: at the first count or [`prepare`](TokenCounter::prepare), not
/// when the counter is picked; later calls cost nothing.
///
/// ```
/// use overspill_tokens::gemma3;
///
/// assert_eq!(gemma3().name(), "gemma3");
/// assert_eq!(gemma3().count("What is your name?"), 5);
/// ```
pub fn gemma3() -> &'static dyn TokenCounter {
    &GEMMA3_COUNTER
}

/// The Gemma 3 token ids of `text`, exactly as C++ SentencePiece's
/// `EncodeAsIds` gives them (no `<bos>`; text such as `<bos>` is plain
/// text, while user-defined pieces such as `<start_of_turn>` are matched).
///
/// Counting never needs the ids; this is for checking a count by hand and
/// for the parity test.
///
/// ```
/// use overspill_tokens::gemma3_token_ids;
///
/// assert_eq!(gemma3_token_ids("Hello, world!").len(), 4);
/// assert!(gemma3_token_ids("").is_empty());
/// ```
pub fn gemma3_token_ids(text: &str) -> Vec<u32> {
    let mut ids = Vec::new();
    for chunk in GEMMA3.cuts.chunks(text, BATCH_BYTES) {
        ids.extend(GEMMA3.encode_chunk(chunk));
    }
    ids
}

/// The embedded model: `gemma3_cleaned_262144_v2.spiece.model`, 4,689,074
/// bytes, SHA-256 `1299c11d…2e79c` (full provenance in the NOTICE).
const MODEL: &[u8] = include_bytes!("../assets/gemma3/gemma3_cleaned_262144_v2.spiece.model");

/// Batches of text (and the chunks of [`gemma3_token_ids`]) aim at this
/// many bytes: measured fastest among 64 B–8 KiB on JSON and log text, and
/// small enough that `count_up_to` overshoots its limit by little.
const BATCH_BYTES: usize = 4096;

static GEMMA3: LazyLock<Gemma3> = LazyLock::new(Gemma3::load);

static GEMMA3_COUNTER: Gemma3Counter = Gemma3Counter;

/// The counter [`gemma3`] hands out: [`GEMMA3`], loaded when it first counts
/// (a host picking a counter must not wait for the model).
struct Gemma3Counter;

impl TokenCounter for Gemma3Counter {
    fn count(&self, text: &str) -> usize {
        GEMMA3.count(text)
    }

    fn count_up_to(&self, text: &str, limit: usize) -> Option<usize> {
        GEMMA3.count_up_to(text, limit)
    }

    fn name(&self) -> &'static str {
        "gemma3"
    }

    fn fits_within(&self, text: &str, limit: usize) -> bool {
        // Every piece covers at least one byte (byte fallback included), so
        // the model is needed only past that.
        text.len() <= limit || GEMMA3.count_up_to(text, limit).is_some()
    }

    fn prepare(&self) {
        LazyLock::force(&GEMMA3);
    }

    fn is_prepared(&self) -> bool {
        LazyLock::get(&GEMMA3).is_some()
    }
}

/// The loaded model with what the chunked counting needs to stay exact.
struct Gemma3 {
    tokenizer: Kitoken,
    cuts: CutTable,
    /// The most text bytes one token can cover: a text of `b` bytes has at
    /// least `ceil(b / longest_token_bytes)` tokens.
    longest_token_bytes: usize,
    /// For each token id, the bytes it covers as the model sees text (a
    /// space as the three-byte `▁`); 0 for ids no text produces.
    token_model_bytes: Vec<u16>,
}

impl Gemma3 {
    #[expect(
        clippy::expect_used,
        reason = "the model is embedded at build time and pinned by tests; it cannot fail at run time"
    )]
    fn load() -> Gemma3 {
        let mut definition = Definition::from_sentencepiece_slice(MODEL)
            .expect("the embedded Gemma 3 model converts");
        // See the module comment: Gemma 3 has no whitespace pre-tokenizer.
        definition.config.split.clear();
        let pieces = model_pieces(&definition).expect("the embedded Gemma 3 model is a BPE model");
        let cuts = CutTable::from_pieces(pieces.iter().map(|&(_, bytes)| bytes));
        let longest_token_bytes = pieces
            .iter()
            .map(|&(_, bytes)| text_bytes(bytes))
            .max()
            .unwrap_or(1)
            .max(1);
        let mut token_model_bytes = Vec::new();
        for &(id, bytes) in &pieces {
            let id = id as usize;
            if token_model_bytes.len() <= id {
                token_model_bytes.resize(id + 1, 0);
            }
            token_model_bytes[id] = u16::try_from(bytes.len()).unwrap_or(0);
        }
        let tokenizer =
            Kitoken::from_definition(definition).expect("the embedded Gemma 3 model loads");
        Gemma3 {
            tokenizer,
            cuts,
            longest_token_bytes,
            token_model_bytes,
        }
    }

    fn encode_chunk(&self, chunk: &str) -> Vec<u32> {
        // Only user-defined pieces are matched as units, as in SentencePiece;
        // control pieces (`<bos>`, `<eos>`, `<pad>`) in text stay text.
        // Encoding cannot fail, nor skip text: every byte has a piece to fall
        // back to (pinned by a test).
        self.tokenizer
            .encode(chunk, USER_DEFINED)
            .unwrap_or_default()
    }

    fn token_model_bytes(&self, id: u32) -> usize {
        self.token_model_bytes
            .get(id as usize)
            .map_or(0, |&length| usize::from(length))
    }

    fn count_up_to_with(&self, text: &str, batch_bytes: usize, limit: usize) -> Option<usize> {
        if text.len().div_ceil(self.longest_token_bytes) > limit {
            return None;
        }
        tally::count_up_to(self, text, batch_bytes, limit)
    }
}

const USER_DEFINED: &[SpecialTokenKind] = &[SpecialTokenKind::Priority];

impl TokenCounter for Gemma3 {
    fn count(&self, text: &str) -> usize {
        // A text never has more than usize::MAX tokens, so this is Some.
        tally::count_up_to(self, text, BATCH_BYTES, usize::MAX).unwrap_or(usize::MAX)
    }

    fn count_up_to(&self, text: &str, limit: usize) -> Option<usize> {
        self.count_up_to_with(text, BATCH_BYTES, limit)
    }

    fn name(&self) -> &'static str {
        "gemma3"
    }

    fn fits_within(&self, text: &str, limit: usize) -> bool {
        // Every piece covers at least one byte (byte fallback included).
        text.len() <= limit || self.count_up_to(text, limit).is_some()
    }
}

/// The text of every piece a BPE model can produce or match in text: the
/// vocabulary and the special pieces. `None` for other kinds of model, where
/// the reasoning behind the cuts does not hold.
fn model_pieces(definition: &Definition) -> Option<Vec<(u32, &[u8])>> {
    let Model::BytePair { vocab, .. } = &definition.model else {
        return None;
    };
    let pieces = vocab
        .iter()
        .map(|token| (token.id, &token.bytes[..]))
        .chain(
            definition
                .specials
                .iter()
                .map(|special| (special.id, &special.bytes[..])),
        )
        .collect();
    Some(pieces)
}

/// How many bytes of input text a piece covers: its own bytes, with each
/// `▁` (three bytes) standing for one space.
fn text_bytes(piece: &[u8]) -> usize {
    let marks = piece
        .windows(3)
        .filter(|w| *w == "\u{2581}".as_bytes())
        .count();
    piece.len() - 2 * marks
}

#[cfg(test)]
mod tests;
