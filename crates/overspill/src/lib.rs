//! Keep large tool outputs out of an LLM's context window.
//!
//! `overspill` is the facade: it composes the layered crates into a
//! `Scratchpad` session that intercepts large tool outputs, hands the model a
//! short pointer, and answers the exploration tools within a per-agent token
//! budget (SPEC §5, §7, §9).
//!
//! The layers are re-exported whole, so a host depends on this crate alone:
//!
//! | module | crate | owns |
//! |---|---|---|
//! | [`tokens`] | `overspill-tokens` | token counters and provider/model dispatch |
//! | [`config`] | `overspill-config` | the TOML configuration and per-tool thresholds |
//!
//! # Architecture invariant
//!
//! The facade composes; it owns no storage format, token rule or tool logic
//! of its own. Everything a host or the CLI needs is reachable from here, so
//! nothing above this crate reaches around it into a lower layer.

pub use overspill_config as config;
pub use overspill_tokens as tokens;
