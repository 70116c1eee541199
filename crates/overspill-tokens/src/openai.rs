//! OpenAI's byte-level BPE encodings, `o200k_base` and `cl100k_base`.
//!
//! Counting runs on `bpe-openai`'s tokenizer, which gives the same numbers as
//! `tiktoken-rs` (the reference in this crate's tests) two to four times
//! faster and can stop once a limit is passed, over tables this crate builds
//! from the embedded vocabularies (`tables`).

use std::path::PathBuf;
use std::sync::OnceLock;

use bpe_openai::Tokenizer;

use crate::TokenCounter;

mod tables;
mod tally;

pub use tables::CACHE_VAR;
use tables::Vocabulary;

/// Names a directory to keep the OpenAI encodings' built tables in between processes
/// (docs/tokens.md#where-the-tables-come-from). Without one, the tables go in
/// `$OVERSPILL_CACHE_DIR/tables` when that variable names an absolute path, and otherwise each
/// process builds the tables it uses on first use: about a second for `o200k_base`, half that
/// for `cl100k_base`. With a directory, a process after the first loads a checked copy in tens
/// of milliseconds.
///
/// The directory is created private to the user (mode 0700 on Unix); a copy that is not the
/// user's own, not private, or not exactly as written is ignored and rebuilt. A directory that
/// cannot be written only costs the time. Call it before the first count; returns `false`
/// (and changes nothing) if a directory was already named.
///
/// ```
/// let dir = std::env::temp_dir().join("overspill-doc-tables");
/// assert!(overspill_tokens::keep_tables_in(dir.clone()));
/// assert!(!overspill_tokens::keep_tables_in(dir)); // named once per process
/// ```
pub fn keep_tables_in(dir: PathBuf) -> bool {
    tables::keep_in(dir)
}

/// The `o200k_base` counter: GPT-5, GPT-4.1, GPT-4o, the o-series, and the
/// default for models this crate does not recognise.
///
/// ```
/// use overspill_tokens::o200k;
///
/// assert_eq!(o200k().name(), "o200k_base");
/// assert_eq!(o200k().count("What is your name?"), 5);
/// ```
pub fn o200k() -> &'static dyn TokenCounter {
    &O200K
}

/// The `cl100k_base` counter: GPT-4, GPT-3.5 and older OpenAI models.
///
/// ```
/// use overspill_tokens::cl100k;
///
/// assert_eq!(cl100k().name(), "cl100k_base");
/// assert_eq!(cl100k().count("Hello, world!"), 4);
/// ```
pub fn cl100k() -> &'static dyn TokenCounter {
    &CL100K
}

/// The `cl100k_base` counter as its concrete type, for the Claude counter
/// that scales it.
pub(crate) static CL100K: OpenAiEncoding = OpenAiEncoding::new(&tables::CL100K_BASE);

static O200K: OpenAiEncoding = OpenAiEncoding::new(&tables::O200K_BASE);

/// Texts this long or longer are counted with memos of their repeats.
const REMEMBER_FROM_BYTES: usize = 4096;

/// One OpenAI encoding. Nothing is loaded or built until the first count.
pub(crate) struct OpenAiEncoding {
    vocabulary: &'static Vocabulary,
    tokenizer: OnceLock<Tokenizer>,
    /// The byte length of the encoding's longest token, found on first use.
    longest_token: OnceLock<usize>,
}

impl OpenAiEncoding {
    const fn new(vocabulary: &'static Vocabulary) -> OpenAiEncoding {
        OpenAiEncoding {
            vocabulary,
            tokenizer: OnceLock::new(),
            longest_token: OnceLock::new(),
        }
    }

    fn tokenizer(&self) -> &Tokenizer {
        self.tokenizer.get_or_init(|| self.vocabulary.tokenizer())
    }

    /// No token covers more bytes than this, so a text longer than `limit` times it has more
    /// than `limit` tokens: the bound that keeps `count_up_to` O(limit) even on one huge word.
    fn longest_token_bytes(&self) -> usize {
        *self.longest_token.get_or_init(|| {
            let bpe = &self.tokenizer().bpe;
            (0..bpe.num_tokens())
                .filter_map(|id| u32::try_from(id).ok())
                .map(|id| bpe.token_len(id))
                .max()
                .unwrap_or(1)
                .max(1)
        })
    }
}

impl TokenCounter for OpenAiEncoding {
    fn count(&self, text: &str) -> usize {
        let tokenizer = self.tokenizer();
        if text.len() < REMEMBER_FROM_BYTES {
            return tokenizer.count(text);
        }
        // Large outputs repeat themselves; count each repeat once.
        tally::count(tokenizer, tokenizer.normalize(text).as_str())
    }

    fn count_up_to(&self, text: &str, limit: usize) -> Option<usize> {
        if text.len() > limit.saturating_mul(self.longest_token_bytes()) {
            return None;
        }
        let tokenizer = self.tokenizer();
        // Neither encoding normalizes, so this borrows `text` as it is.
        let text = tokenizer.normalize(text);
        let mut total = 0usize;
        for piece in tokenizer.split(text.as_str()) {
            let remaining = limit - total;
            // A piece no longer than what remains cannot pass the limit
            // (no token is shorter than a byte), so it is counted in full;
            // only a piece that might pass it needs the early-exit count.
            let piece_count = if piece.len() <= remaining {
                tokenizer.bpe.count(piece.as_bytes())
            } else {
                tokenizer
                    .bpe
                    .count_till_limit(piece.as_bytes(), remaining)?
            };
            total += piece_count;
        }
        Some(total)
    }

    fn name(&self) -> &'static str {
        self.vocabulary.name
    }

    fn prepare(&self) {
        self.longest_token_bytes();
    }

    fn is_prepared(&self) -> bool {
        // `prepare` ends with the longest token known, which needs the tables: a count waits
        // for neither once it is set.
        self.longest_token.get().is_some()
    }

    fn fits_within(&self, text: &str, limit: usize) -> bool {
        text.len() <= limit || self.count_up_to(text, limit).is_some()
    }
}

#[cfg(test)]
mod tests;
