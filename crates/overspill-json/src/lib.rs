//! The one definition of JSON text, positions and paths in overspill.
//!
//! `overspill-json` owns how overspill reads JSON: one lexer (strings, numbers, literals,
//! whitespace with line counting) under both the tape parser ([`parse`], [`parse_window`])
//! and the re-indenter the store writes with ([`reindent`]), so a text the store calls JSON
//! is exactly a text the tools can parse; the one decoder of string escapes ([`unescape`], and
//! [`unescape_in_place`] for a large text in the buffer it arrived in); JSON paths ([`JsonPath`]) and how they are followed
//! on a parsed document ([`resolve`], with the index-or-key rule: `ports.8080` finds the key
//! `"8080"`); and merged shapes ([`Shape`]), what many values look like together.
//!
//! ```
//! use overspill_json::{JsonPath, Reindent, parse, reindent, resolve};
//!
//! let text = r#"{"ports": {"8080": "http"}, "big": 123456789012345678901234567890}"#;
//! let Reindent::Pretty(pretty) = reindent(text) else { panic!("not JSON") };
//! assert!(pretty.text.contains("\"big\": 123456789012345678901234567890"));
//!
//! let src = pretty.text.as_bytes();
//! let tape = parse(src)?;
//! let port = resolve(tape.root(src), &JsonPath::parse("ports.8080")?).expect("a value");
//! assert_eq!((port.str(), port.line()), ("http".into(), 3));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Architecture invariant
//!
//! This crate depends on no other overspill crate. It does no I/O beyond the bytes it is
//! handed, counts no tokens, and writes no text for the model: rendering a value, a shape or a
//! miss for the model is the exploration tools' business. There is no second JSON lexer or
//! path walker in the workspace.

mod lex;
mod parse;
mod path;
mod reindent;
mod resolve;
mod shape;
mod string;
mod tape;

pub use lex::ParseError;
pub use parse::{Found, MAX_BYTES, Target, parse, parse_window};
pub use path::{JsonPath, PathSyntaxError, Segment, is_plain_key};
pub use reindent::{Pretty, Reindent, first_token_byte, is_json, reindent};
pub use resolve::{Instead, MAX_KEYS_LISTED, Miss, resolve};
pub use shape::{MAX_DEPTH, MAX_FIELDS, Shape, SizeRange};
pub use string::{escapes_decode, unescape, unescape_in_place};
pub use tape::{Entries, Items, Kind, NodeRef, Tape};
