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

#[cfg(feature = "json-dev")]
pub mod document;
#[cfg(feature = "json-dev")]
pub mod get_in;
#[cfg(feature = "json-dev")]
pub mod item_schema;
#[cfg(feature = "json-dev")]
pub mod iterate_over;
#[cfg(feature = "json-dev")]
pub mod jq;
#[cfg(feature = "json-dev")]
pub(crate) mod jq_guard;
#[cfg(feature = "json-dev")]
pub mod keys;
#[cfg(feature = "json-dev")]
pub mod outline;
#[cfg(feature = "json-dev")]
pub mod parse;
#[cfg(feature = "json-dev")]
pub mod path;
#[cfg(feature = "json-dev")]
pub mod query;
#[cfg(feature = "json-dev")]
pub mod render;
#[cfg(feature = "json-dev")]
pub mod resolve;
#[cfg(feature = "json-dev")]
pub mod schema;
#[cfg(feature = "json-dev")]
pub mod shape;
#[cfg(feature = "json-dev")]
pub mod tape;
#[cfg(all(test, feature = "json-dev"))]
mod test_data;
#[cfg(feature = "json-dev")]
pub mod tree;
#[cfg(feature = "json-dev")]
pub mod window;
