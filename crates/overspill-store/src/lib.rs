//! Where tool outputs live on disk.
//!
//! `overspill-store` owns the scratchpad and artifact directory layout,
//! content-addressed atomic writes of intercepted outputs, format detection,
//! and the read root: the one validation every read goes through (SPEC §4).
//!
//! # Architecture invariant
//!
//! This crate depends on no other overspill crate and never counts tokens: a
//! token count is something a caller hands it to record. No path it returns
//! lies outside its read root.
