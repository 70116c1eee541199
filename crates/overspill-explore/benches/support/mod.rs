//! What the exploration benches share: the context they run tools in and the generated sequences they read.
//!
//! Each test or bench binary uses part of it, so what one leaves unused is not dead.
#![allow(dead_code)]

pub mod context;
pub mod sequence;
