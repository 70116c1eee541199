//! The overspill scratchpad inside a [rig](https://docs.rs/rig-agent) agent.
//!
//! Wrap the tools whose results can be large in [`InterceptedTool`], and add the scratchpad to
//! the agent builder with [`AgentBuilderExt::scratchpad`]: a large result then reaches the model
//! as a short pointer, the model explores the stored result with overspill's read-only tools,
//! every exploration is charged to the agent's token budget, and the provider's reported usage
//! of each turn keeps that budget honest.
//!
//! ```no_run
//! use overspill::Scratchpad;
//! use overspill_rig::{AgentBuilderExt, InterceptedTool};
//! use rig_agent::AgentBuilder;
//! use rig_core::{DynModel, operation::Completion, tool::tool_definition};
//! # use rig_core::tool::PortableTool;
//! # struct ListPods;
//! # impl PortableTool for ListPods {
//! #     const NAME: &'static str = "k8s_list_pods";
//! #     type Args = serde_json::Value;
//! #     type Output = String;
//! #     type Error = std::convert::Infallible;
//! #     fn description(&self) -> String { "List the cluster's pods as JSON.".into() }
//! #     fn parameters(&self) -> serde_json::Value { serde_json::json!({"type": "object"}) }
//! #     async fn call(&self, _: serde_json::Value) -> Result<String, Self::Error> { Ok(String::new()) }
//! # }
//!
//! const PREAMBLE: &str = "You are an SRE assistant for the production cluster.";
//!
//! # async fn ask(model: DynModel<Completion>, dir: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
//! // 1. One scratchpad per agent; its baseline counts the agent's preamble and tools.
//! let pad = Scratchpad::builder()
//!     .scratchpad_dir(dir)
//!     .provider("openai")
//!     .model("gpt-4o")
//!     .context_window(128_000)
//!     .intercept_all(5_120)
//!     .host_system_prompt(PREAMBLE)
//!     .host_tools(overspill_rig::host_tools([tool_definition(&ListPods)]))
//!     .build()?;
//!
//! // 2. The agent: its tool, wrapped; then the scratchpad (prompt section, tools, usage).
//! let agent = AgentBuilder::new(model)
//!     .preamble(PREAMBLE)
//!     .tool(InterceptedTool::new(ListPods, &pad))
//!     .scratchpad(&pad)
//!     .build();
//!
//! // 3. Run it: the pod list reaches the model as a pointer, which it explores.
//! let turns = pad.effective_turn_limit(4) as usize;
//! let response = agent.prompt("Which pod failed, and why?").max_turns(turns).await?;
//! println!("{}", response.output());
//!
//! // 4. When the agent is done, emit the usage event.
//! if let Some(usage) = pad.finish() {
//!     print!("{}", usage.to_sse());
//! }
//! # Ok(())
//! # }
//! ```
//!
//! `cargo run -p overspill-rig --example k8s_agent` runs this offline, on a scripted model, and
//! prints what the model sees at each step. `docs/facade.md` ("With rig") says more.
//!
//! # What it wires
//!
//! | rig | overspill |
//! |---|---|
//! | [`InterceptedTool`] around a `Tool`, `PortableTool` or `DynamicTool` | [`Scratchpad::intercept`](overspill::Scratchpad::intercept) on its text or JSON result; `overspill://` references in its arguments resolved first |
//! | [`exploration_tools`]: `DynamicTool`s | [`Scratchpad::tool_definitions`](overspill::Scratchpad::tool_definitions) and [`Scratchpad::call`](overspill::Scratchpad::call); `read_artifact` for a worker, `write_artifact` for the coordinator |
//! | the preamble | [`Scratchpad::system_prompt_section`](overspill::Scratchpad::system_prompt_section) appended |
//! | [`UsageFeedback`], an `AgentHook` on every model turn | [`Scratchpad::observe_llm_usage`](overspill::Scratchpad::observe_llm_usage) |
//! | the agent's other tool definitions ([`host_tools`]) | [`ScratchpadBuilder::host_tools`](overspill::ScratchpadBuilder::host_tools), for the baseline |
//!
//! Each agent has its own [`Scratchpad`](overspill::Scratchpad), so its own budget: wrap an
//! agent's tools with that agent's pad. The file work (storing a result, answering an
//! exploration) runs on tokio's blocking pool when a tokio runtime is running, and on the
//! calling task otherwise.
//!
//! # Architecture invariant
//!
//! An adapter, above the facade: it translates between rig's tool, hook and builder types and
//! the `overspill` facade, and decides nothing itself. What is intercepted, what the pointer and
//! the answers say, and what the budget allows are all the facade's; nothing here reaches a
//! lower overspill crate, stores a file or counts a token.

mod agent;
mod exploration;
mod intercepted;
mod offload;
mod usage;

pub use agent::{AgentBuilderExt, host_tools};
pub use exploration::exploration_tools;
pub use intercepted::InterceptedTool;
pub use usage::{UsageFeedback, observe_usage};
