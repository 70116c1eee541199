//! The per-agent context budget.
//!
//! `overspill-budget` owns the token account of one agent (SPEC §7): the usable
//! window, the baseline, atomic check-and-charge of extractions, LLM-reported
//! usage as ground truth, the interception and extraction counters, and the
//! `aura.scratchpad_usage` event (SPEC §9).
//!
//! # Architecture invariant
//!
//! This crate depends only on `overspill-tokens`. It does no I/O and holds no
//! lock across a caller's work; the sum of charged extractions never exceeds
//! `usable − baseline`.
