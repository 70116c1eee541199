//! Keep large tool outputs out of an LLM's context window.
//!
//! `overspill` is the facade: it composes the layered crates into a [`Scratchpad`] session
//! that intercepts large tool outputs, hands the model a short pointer, and answers the
//! exploration tools within a per-agent token budget (docs/facade.md#2-intercepting, docs/budget.md, docs/budget.md#the-usage-event).
//!
//! A host adds four things to its agent loop:
//!
//! ```
//! use overspill::{Intercepted, Scratchpad, ToolFormat, ToolOutput};
//!
//! let memory = tempfile::tempdir()?;
//! let config = overspill::config::Config::from_toml_str(&format!(r#"
//!     memory_dir = "{}"
//!     [agent.llm]
//!     provider = "openai"
//!     model = "gpt-4o"
//!     context_window = 128000
//!     [agent.scratchpad]
//!     enabled = true
//!     [mcp.servers.k8s.scratchpad]
//!     "k8s_list_*" = {{ min_tokens = 200 }}
//! "#, memory.path().display()))?;
//!
//! // 1. Build once per agent; offer its tools and its prompt section to the model.
//! let pad = Scratchpad::from_config(&config)
//!     .host_system_prompt("You are an SRE assistant.")
//!     .build()?;
//! let tools = pad.tool_definitions(ToolFormat::OpenAi);
//! let system = format!("You are an SRE assistant.\n\n{}", pad.system_prompt_section());
//! # let _ = (tools, system);
//!
//! // 2. Pass every tool result through `intercept`.
//! let pods: Vec<String> = (0..60).map(|i| format!(r#"{{"name": "api-{i}", "phase": "Running"}}"#)).collect();
//! let result = format!(r#"{{"kind": "PodList", "items": [{}]}}"#, pods.join(","));
//! let for_the_model = match pad.intercept("k8s", "k8s_list_pods", ToolOutput::text(result)) {
//!     Intercepted::Inline(output) => output.as_text().unwrap_or_default().to_owned(),
//!     Intercepted::Pointer(text) | Intercepted::Failed(text) => text,
//! };
//! assert!(for_the_model.contains("items: array[60] of object{name, phase}"));
//!
//! // 3. Route the model's calls to the exploration tools to `call`.
//! let file = for_the_model.lines().find_map(|l| l.strip_prefix("file: ")).unwrap();
//! assert!(pad.handles("grep"));
//! let found = pad.call("grep", &format!(r#"{{"file": "{file}", "pattern": "api-42\"", "context": 0}}"#));
//! assert!(found.contains(r#""name": "api-42""#));
//! pad.observe_llm_usage(3_200, 150);
//!
//! // 4. When the agent finishes, emit the usage event.
//! let usage = pad.finish().expect("something was intercepted");
//! assert!(usage.to_sse().starts_with("event: aura.scratchpad_usage\ndata: {\"agent_id\":\"main\""));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `docs/facade.md` is the host integration guide (modes, thresholds, budget, events, async).
//!
//! # The layers
//!
//! The layers are re-exported whole, so a host depends on this crate alone:
//!
//! | module | crate | owns |
//! |---|---|---|
//! | [`tokens`] | `overspill-tokens` | token counters and provider/model dispatch |
//! | [`config`] | `overspill-config` | the TOML configuration and per-tool thresholds |
//! | [`store`] | `overspill-store` | directory layout, atomic content-addressed writes, the read root |
//! | [`budget`] | `overspill-budget` | the per-agent token account and the usage event |
//! | [`explore`] | `overspill-explore` | the exploration tools, pointer, footers and error JSON |
//! | [`artifacts`] | `overspill-artifacts` | orchestration runs, `write_artifact`, `read_artifact` |
//!
//! # Features
//!
//! - `tokio` (default): [`Scratchpad::intercept_async`], [`Scratchpad::call_async`] and
//!   [`ScratchpadBuilder::build_async`], which run the file work on tokio's blocking pool.
//!
//! # Architecture invariant
//!
//! The facade composes; it owns no storage format, token rule, JSON path rule or tool logic
//! of its own (an `overspill://` reference into JSON is resolved by explore, as `get_in`).
//! Everything a host or the CLI needs is reachable from here, so nothing above this crate
//! reaches around it into a lower layer. The crates below it are synchronous and do not use
//! tokio; its own async calls are behind the `tokio` feature and start no runtime. The crates
//! above it are async: `overspill-mcp` runs on tokio, `overspill-rig` implements rig's async
//! traits.

pub use overspill_artifacts as artifacts;
pub use overspill_budget as budget;
pub use overspill_config as config;
pub use overspill_explore as explore;
pub use overspill_json as json;
pub use overspill_store as store;
pub use overspill_tokens as tokens;

#[cfg(feature = "tokio")]
mod asynchronous;
mod builder;
mod error;
mod format;
mod handling;
mod intercept;
pub mod mcp_result;
mod observe;
mod output;
mod prompt;
pub mod references;
mod role;
mod scratchpad;
mod session;
mod thresholds;

pub use budget::ScratchpadUsage;
pub use builder::ScratchpadBuilder;
pub use error::BuildError;
pub use format::{ToolFormat, UnknownToolFormat, tool_definitions};
pub use intercept::Intercepted;
pub use observe::{Event, Observer, Outcome, UNKNOWN_TOOL};
pub use output::ToolOutput;
pub use references::RefError;
pub use scratchpad::Scratchpad;
