//! JSON machinery shared by the JSON tools: paths, shapes and windows over arrays.

#[cfg(feature = "json-dev")]
pub mod jq;
#[cfg(feature = "json-dev")]
pub(crate) mod jq_guard;
#[cfg(feature = "json-dev")]
pub mod parse;
#[cfg(feature = "json-dev")]
pub mod path;
#[cfg(feature = "json-dev")]
pub mod render;
#[cfg(feature = "json-dev")]
pub mod resolve;
#[cfg(feature = "json-dev")]
pub mod shape;
#[cfg(feature = "json-dev")]
pub mod tape;
#[cfg(feature = "json-dev")]
pub mod tree;
