//! The overspill configuration.
//!
//! `overspill-config` owns the TOML configuration of SPEC §2: the scratchpad
//! settings of an agent and its workers, tool-name patterns, and the per-tool
//! interception thresholds resolved from `[mcp.servers.<name>.scratchpad]`.
//!
//! # Architecture invariant
//!
//! This crate depends on no other overspill crate. It validates and resolves
//! settings; it never counts tokens, touches the scratchpad directory, or
//! decides anything at run time beyond a threshold lookup.
