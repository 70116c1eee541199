//! The JSON tools (`schema`, `item_schema`, `get_in`, `iterate_over`, `query`) and the JSON
//! machinery under them (SPEC §6.1, §6.2).
//!
//! A stored JSON file is parsed once by [`parse`] into a [`tape::Tape`] — a flat list of
//! values with the lines each one spans — and kept in the file cache. Paths ([`path`]) are
//! followed on the tape ([`resolve`]); [`shape`] merges many values into one shape, which
//! [`tree`] draws for `schema` and [`keys`] lists for `item_schema`; [`render`] writes values
//! back as JSON for `get_in` and `iterate_over`; [`jq`] runs `query` filters, bounded and
//! sandboxed. Every walk stops at [`shape::MAX_DEPTH`] levels, and nothing recurses on the
//! document's own nesting, so a file nested 100,000 levels deep is explored like any other.

pub mod document;
pub mod get_in;
pub mod item_schema;
pub mod iterate_over;
pub mod jq;
pub mod jq_guard;
mod jq_natives;
mod jq_ordering;
mod jq_regex;
mod jq_rewrite;
mod jq_text;
pub mod keys;
pub mod outline;
pub mod parse;
pub mod path;
pub mod query;
pub mod render;
pub mod resolve;
pub mod schema;
pub mod shape;
pub mod tape;
#[cfg(test)]
mod test_data;
pub mod tree;
pub mod window;
