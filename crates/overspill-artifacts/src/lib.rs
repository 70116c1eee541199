//! Orchestration artifacts.
//!
//! `overspill-artifacts` owns how a coordinator and its workers hand large
//! content to each other (SPEC §8): the run layout, `write_artifact`,
//! `read_artifact`, plan artifact validation and the `INPUT ARTIFACTS` prompt
//! section.
//!
//! # Architecture invariant
//!
//! This crate builds on `overspill-explore` and the layers below it, and on
//! nothing above. Every write stays inside the run's artifacts directory; a
//! large artifact is explored in place, never copied.
