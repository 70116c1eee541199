//! Exact, provider-aware token counting.
//!
//! `overspill-tokens` owns every token count overspill makes: the counters for
//! OpenAI's `o200k_base` and `cl100k_base`, the embedded Gemma 3 SentencePiece
//! model for Gemini, the calibrated Claude approximation, and the dispatch from
//! a provider and model id to the right counter (docs/tokens.md).
//!
//! # Architecture invariant
//!
//! This crate knows nothing of configuration, storage, budgets or tools. It
//! depends on no other overspill crate, does no I/O beyond its embedded data
//! and, when the host names one ([`keep_tables_in`]), a cache directory of
//! the tables it builds from that data, and never guesses a count from bytes
//! or characters.
//!
//! # Example
//!
//! ```
//! use overspill_tokens::{TokenCounter, counter_for};
//!
//! let counter = counter_for("openai", "gpt-4o");
//! assert_eq!(counter.name(), "o200k_base");
//!
//! let output = r#"{"items": [{"name": "api-7d9f", "phase": "Running"}]}"#;
//! let tokens = counter.count(output);
//! assert_eq!(tokens, 21);
//!
//! // Stop counting as soon as the count passes a limit...
//! assert_eq!(counter.count_up_to(output, 10), None);
//! assert_eq!(counter.count_up_to(output, 21), Some(21));
//! // ...or decide "below the interception threshold?" without tokenizing
//! // when the byte length already proves it.
//! assert!(counter.is_below(output, 5120));
//! ```
//!
//! # Counters
//!
//! | function | name | engine |
//! |---|---|---|
//! | [`o200k()`] | `o200k_base` | `bpe-openai` (same counts as `tiktoken`) over the embedded vocabulary |
//! | [`cl100k()`] | `cl100k_base` | `bpe-openai` over the embedded vocabulary |
//! | [`gemma3()`] | `gemma3` | `kitoken` over the embedded Gemma 3 model |
//! | [`claude()`] | `claude≈cl100k×1.1` | `ceil(cl100k_base × 1.1)` |
//!
//! Each is a process-wide singleton built on first use: the OpenAI encodings
//! build their search tables from the embedded vocabulary then (about a
//! second for `o200k_base`), or load them from [`keep_tables_in`]'s
//! directory; [`TokenCounter::prepare`] does it ahead of the first count. [`counter_for`]
//! picks one from a provider and model id; [`Provider::ALL`] lists the
//! provider names. Which methods take which shortcuts, and why every answer
//! is still exact, is described on [`TokenCounter`].
//!
//! # Features
//!
//! - `sentencepiece-parity` (off by default): adds Google's C++
//!   SentencePiece library (built from source; needs cmake and a C++17
//!   compiler) as the reference for a test that compares every Gemma 3
//!   token id with it. Nothing in the library uses it.

mod claude;
mod counter;
mod gemma;
mod openai;
mod route;

pub use claude::claude;
pub use counter::TokenCounter;
pub use gemma::{gemma3, gemma3_token_ids};
pub use openai::{CACHE_VAR, cl100k, keep_tables_in, o200k};
pub use route::{Provider, UnknownProvider, counter_for, counter_for_provider};
