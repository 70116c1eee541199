//! Exact, provider-aware token counting.
//!
//! `overspill-tokens` owns every token count overspill makes: the counters for
//! OpenAI's `o200k_base` and `cl100k_base`, the embedded Gemma 3 SentencePiece
//! model for Gemini, the calibrated Claude approximation, and the dispatch from
//! a provider and model id to the right counter (SPEC §3).
//!
//! # Architecture invariant
//!
//! This crate knows nothing of configuration, storage, budgets or tools. It
//! depends on no other overspill crate, does no I/O beyond its embedded data,
//! and never guesses a count from bytes or characters.

mod counter;

pub use counter::TokenCounter;
