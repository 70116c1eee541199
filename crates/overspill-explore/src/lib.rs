//! The read-only exploration tools.
//!
//! `overspill-explore` owns the tools a model uses to look into a stored
//! output (`head`, `slice`, `grep`, `schema`, `item_schema`, `get_in`,
//! `iterate_over`, `read`, `query`), their definitions, JSON paths, schema
//! inference, footers, error JSON and the pointer text (SPEC §5, §6).
//!
//! # Architecture invariant
//!
//! This crate depends on `overspill-tokens`, `overspill-store` and
//! `overspill-budget` only. Its tools never write, never execute anything and
//! read only through the store's read root; every result is measured and
//! charged before the model sees it.

pub mod json;
