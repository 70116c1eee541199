//! The overspill configuration.
//!
//! `overspill-config` owns the TOML configuration of docs/configuration.md: the scratchpad
//! settings of an agent and its workers, tool-name patterns, and the per-tool
//! interception thresholds resolved from `[mcp.servers.<name>.scratchpad]`.
//!
//! ```
//! use overspill_config::{Config, ThresholdTable};
//!
//! let config = Config::from_toml_str(r#"
//!     memory_dir = "./.overspill"
//!     [agent.llm]
//!     context_window = 128000
//!     [agent.scratchpad]
//!     enabled = true
//!     [mcp.servers.k8s.scratchpad]
//!     "*" = { min_tokens = 5120 }
//!     "k8s_list_*" = { min_tokens = 2048 }
//! "#)?;
//!
//! // Once the server's tools are known, resolve every threshold once…
//! let table = ThresholdTable::resolve(&config, [("k8s", ["k8s_list_pods", "k8s_get_pod"])]);
//! // …then each tool call is a hash lookup.
//! assert_eq!(table.threshold("k8s", "k8s_list_pods"), Some(2048));
//! assert_eq!(table.threshold("k8s", "k8s_get_pod"), Some(5120));
//!
//! // Typos in scratchpad tables stop loading, with a suggestion.
//! let err = Config::from_toml_str("[agent.scratchpad]\nenabledd = true\n").unwrap_err();
//! assert!(err.to_string().contains("did you mean `enabled`?"));
//! # Ok::<(), overspill_config::ConfigError>(())
//! ```
//!
//! The full reference of keys, defaults and rules is `docs/configuration.md`.
//!
//! # Architecture invariant
//!
//! This crate depends on no other overspill crate but `overspill-json` (for the words of JSON
//! kinds in its messages). It validates and resolves settings; it never counts tokens, touches
//! the scratchpad directory, or decides anything at run time beyond a threshold lookup. A [`Config`] that
//! loads is valid: nothing downstream re-checks it.

mod config;
mod document;
mod error;
mod inventory;
mod load;
mod location;
mod pattern;
mod report;
mod rules;
mod settings;
mod suggest;
mod threshold;
mod upstream;
mod vars;

pub use config::{Config, MemoryDir, MemoryDirSource};
pub use error::ConfigError;
pub use inventory::{ToolInventory, ToolListError};
pub use load::HOOK_CLIENTS;
pub use location::{KeyPath, Location};
pub use pattern::{PatternError, ToolFilter, ToolPattern, reachable};
pub use report::{CheckReport, CheckWarning};
pub use rules::{DEFAULT_MIN_TOKENS, Rule, ServerRules};
pub use settings::{
    AgentSettings, DEFAULT_CONTEXT_SAFETY_MARGIN, DEFAULT_MAX_EXTRACTION_TOKENS,
    DEFAULT_TURN_DEPTH_BONUS, LlmSettings, MAX_CONTEXT_SAFETY_MARGIN, ScratchpadOverride,
    ScratchpadSettings, StoreSettings,
};
pub use threshold::{Resolution, ThresholdClash, ThresholdTable};
pub use upstream::{
    BrokenServer, CommandServer, HttpServer, Lookup, Transport, Upstream, Upstreams,
};
pub use vars::{VarError, expand_vars};
