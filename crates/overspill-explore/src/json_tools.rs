//! The JSON tools (`schema`, `item_schema`, `get_in`, `iterate_over`, `query`) and the JSON
//! machinery under them (docs/tools.md#1-common-rules, docs/tools.md).
//!
//! The JSON itself — the lexer, the tape parser, paths and their resolution, merged shapes —
//! is `overspill-json`'s. A stored JSON file is parsed once into an `overspill_json::Tape` — a
//! flat list of values with the lines each one spans — and kept in the file cache
//! ([`document`]). Paths are followed on the tape with `overspill_json::resolve`; merged
//! shapes are drawn by [`tree`] for `schema` and listed by [`keys`] for `item_schema`, in the
//! words of `describe`; [`render`] writes values back as JSON for `get_in` and `iterate_over`;
//! [`crate::jq`] runs `query` filters, bounded and sandboxed. Every walk stops at
//! `overspill_json::MAX_DEPTH` levels, and nothing recurses on the document's own nesting, so
//! a file nested 100,000 levels deep is explored like any other.

mod describe;
pub(crate) mod document;
pub(crate) mod get_in;
pub(crate) mod item_schema;
pub(crate) mod iterate_over;
pub(crate) mod keys;
pub(crate) mod query;
pub(crate) mod reference;
pub(crate) mod render;
pub(crate) mod schema;
#[cfg(test)]
mod test_data;
pub(crate) mod tree;
pub(crate) mod window;
