//! [`ScratchpadBuilder`]: everything a [`Scratchpad`] is made of, from a [`Config`] or by hand.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::Value;

use crate::artifacts::{self, Run};
use crate::budget::{Baseline, Budget, BudgetSettings, Ledger, MAIN_AGENT_ID};
use crate::config::{
    AgentSettings, Config, LlmSettings, Rule, ScratchpadOverride, ScratchpadSettings, ServerRules,
    ToolFilter, ToolPattern,
};
use crate::error::BuildError;
use crate::explore::FileCache;
use crate::explore::{ExploreContext, Registry};
use crate::observe::Observer;
use crate::prompt;
use crate::role::{Explorer, Kind, Role};
use crate::scratchpad::Scratchpad;
use crate::session::Session;
use crate::store::{DEFAULT_MAX_SESSION_RUNS, Layout, ReadRoot, SharedStore, Store};
use crate::thresholds::Thresholds;
use crate::tokens::{TokenCounter, counter_for};

/// Builds a [`Scratchpad`]. Start from [`Scratchpad::builder`] (by hand) or
/// [`Scratchpad::from_config`]; a setting given by hand wins over the configuration.
///
/// The three modes:
///
/// | mode | call | writes to | reads under |
/// |---|---|---|---|
/// | single agent | (default) | `{memory_dir}/scratchpad/`, or [`scratchpad_dir`](Self::scratchpad_dir) | that dir |
/// | worker | [`worker`](Self::worker) + [`run`](Self::run) | `{memory_dir}[/{session}]/{run}/iteration-{n}/scratchpad/` | the session dir (the run dir without a session) |
/// | coordinator | [`coordinator`](Self::coordinator) + [`run`](Self::run) | `{…}/{run}/artifacts/` via `write_artifact` | — (no budget, no exploration tools) |
///
/// ```
/// use overspill::Scratchpad;
///
/// let memory = tempfile::tempdir()?;
/// let pad = Scratchpad::builder()
///     .memory_dir(memory.path())
///     .provider("openai")
///     .model("gpt-4o")
///     .context_window(128_000)
///     .host_system_prompt("You are an SRE assistant.")
///     .intercept_all(5_120)
///     .build()?;
/// assert_eq!(pad.agent_id(), "main");
/// assert!(memory.path().join("scratchpad").is_dir());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Default)]
#[must_use = "a builder does nothing until `build()`"]
pub struct ScratchpadBuilder {
    config: Option<Config>,
    memory_dir: Option<PathBuf>,
    scratchpad_dir: Option<PathBuf>,
    worker: Option<String>,
    coordinator: bool,
    agent_id: Option<String>,
    session_id: Option<String>,
    trace_id: Option<String>,
    run: Option<(String, u32)>,
    max_session_runs: Option<usize>,
    provider: Option<String>,
    model: Option<String>,
    counter: Option<&'static dyn TokenCounter>,
    context_window: Option<u64>,
    enabled: Option<bool>,
    context_safety_margin: Option<f64>,
    max_extraction_tokens: Option<u64>,
    turn_depth_bonus: Option<u32>,
    host_texts: Vec<String>,
    host_tools: Vec<Value>,
    rules: Vec<(String, ServerRules)>,
    fallback_min_tokens: Option<u64>,
    server_tools: Vec<(String, Vec<String>)>,
    footer: Option<String>,
    excluded_tools: Vec<String>,
    tool_prefix: String,
    cache: Option<Arc<FileCache>>,
    max_reference_bytes: Option<u64>,
    observer: Option<Arc<dyn Observer>>,
    ledger: Option<Arc<dyn Ledger>>,
    shared_store: Option<SharedStore>,
}

/// The [`Ledger`](crate::budget::Ledger) of [`ScratchpadBuilder::shared_budget`]: the store's
/// counter file.
struct FileLedger(overspill_store::CounterFile);

/// The [`Ledger`] of [`ScratchpadBuilder::redis_budget`]: a counter in Redis.
#[cfg(feature = "redis")]
struct RedisLedger(overspill_store::shared::RedisCounter);

#[cfg(feature = "redis")]
impl Ledger for RedisLedger {
    fn update(
        &self,
        decide: &mut dyn FnMut(u64) -> Option<u64>,
    ) -> Result<u64, crate::budget::LedgerError> {
        self.0.update(decide).map_err(ledger_error)
    }

    fn total(&self) -> Result<u64, crate::budget::LedgerError> {
        self.0.total().map_err(ledger_error)
    }

    fn add_within(
        &self,
        tokens: u64,
        limit: u64,
    ) -> Result<crate::budget::Added, crate::budget::LedgerError> {
        let (added, total) = self.0.add_within(tokens, limit).map_err(ledger_error)?;
        Ok(crate::budget::Added { added, total })
    }
}

/// A Redis ledger's error as the budget reports it.
#[cfg(feature = "redis")]
fn ledger_error(error: overspill_store::shared::RedisError) -> crate::budget::LedgerError {
    crate::budget::LedgerError(error.to_string())
}

impl Ledger for FileLedger {
    fn update(
        &self,
        decide: &mut dyn FnMut(u64) -> Option<u64>,
    ) -> Result<u64, crate::budget::LedgerError> {
        self.0.update(decide).map_err(|error| {
            crate::budget::LedgerError(format!("{}: {error}", self.0.path().display()))
        })
    }
}

impl ScratchpadBuilder {
    /// Keeps the extractions of the agent's budget in the file `path`, which every process
    /// serving the agent shares (several proxy instances on one directory): a charge is
    /// checked against what all of them charged, under the file's lock
    /// (docs/budget.md#one-agent-served-by-several-processes).
    pub fn shared_budget(self, path: impl Into<PathBuf>) -> ScratchpadBuilder {
        let file = overspill_store::CounterFile::new(path);
        self.budget_ledger(Arc::new(FileLedger(file)))
    }

    /// Keeps the extractions of the agent's budget in `counter`, a number in Redis that every
    /// process serving the agent shares, on any machine: a charge is checked against what all
    /// of them charged, with compare and swap
    /// (docs/budget.md#one-agent-served-by-several-machines).
    #[cfg(feature = "redis")]
    pub fn redis_budget(self, counter: overspill_store::shared::RedisCounter) -> ScratchpadBuilder {
        self.budget_ledger(Arc::new(RedisLedger(counter)))
    }

    /// Keeps the extractions of the agent's budget in `ledger`, which every process serving
    /// the agent shares: [`shared_budget`](Self::shared_budget)'s file on one machine, a
    /// [`RedisCounter`](crate::store::shared::RedisCounter) across machines (feature `redis`),
    /// or a ledger of the host's (docs/budget.md#one-agent-served-by-several-processes).
    pub fn budget_ledger(mut self, ledger: Arc<dyn Ledger>) -> ScratchpadBuilder {
        self.ledger = Some(ledger);
        self
    }

    /// Keeps every stored result in `shared` too, and reads there what is not found here
    /// (docs/storage.md#a-shared-store): the agent's directories must lie in its cache
    /// directory. A result is stored, and pointed to, only once it is in the shared store.
    pub fn shared_store(mut self, shared: SharedStore) -> ScratchpadBuilder {
        self.shared_store = Some(shared);
        self
    }

    /// Takes `memory_dir`, the LLM and scratchpad settings (the worker's, once
    /// [`worker`](Self::worker) names one), the per-server thresholds and the agent's
    /// `mcp_filter` from `config`.
    pub fn config(mut self, config: &Config) -> ScratchpadBuilder {
        self.config = Some(config.clone());
        self
    }

    /// The persistence root; the directories of docs/storage.md are laid out under it.
    pub fn memory_dir(mut self, dir: impl Into<PathBuf>) -> ScratchpadBuilder {
        self.memory_dir = Some(dir.into());
        self
    }

    /// A single agent writing straight into `dir`, which is also its read root (what the CLI's
    /// `--dir` means). Overrides the layout under `memory_dir`.
    pub fn scratchpad_dir(mut self, dir: impl Into<PathBuf>) -> ScratchpadBuilder {
        self.scratchpad_dir = Some(dir.into());
        self
    }

    /// Worker mode: the orchestration worker `name` (its usage event's `agent_id`, and the key
    /// of its `[orchestration.worker.<name>]` settings). Needs a [`run`](Self::run).
    pub fn worker(mut self, name: impl Into<String>) -> ScratchpadBuilder {
        self.worker = Some(name.into());
        self
    }

    /// Coordinator mode: no scratchpad and no budget; exposes `write_artifact` and
    /// `read_artifact` (always inline). Needs a [`run`](Self::run); building it starts the run
    /// (creates its directories and prunes the session's oldest runs).
    pub fn coordinator(mut self) -> ScratchpadBuilder {
        self.coordinator = true;
        self
    }

    /// The `agent_id` of the usage event, if not `main` (single agent) or the worker's name.
    pub fn agent_id(mut self, id: impl Into<String>) -> ScratchpadBuilder {
        self.agent_id = Some(id.into());
        self
    }

    /// The host's session id: adds a `{session_id}/` level to orchestration paths, and goes
    /// into the usage event.
    pub fn session(mut self, session_id: impl Into<String>) -> ScratchpadBuilder {
        self.session_id = Some(session_id.into());
        self
    }

    /// The host's trace id, for the usage event.
    pub fn trace_id(mut self, trace_id: impl Into<String>) -> ScratchpadBuilder {
        self.trace_id = Some(trace_id.into());
        self
    }

    /// The orchestration run and the iteration the agent runs in.
    pub fn run(mut self, run_id: impl Into<String>, iteration: u32) -> ScratchpadBuilder {
        self.run = Some((run_id.into(), iteration));
        self
    }

    /// How many runs a session keeps when the coordinator starts a new one (default 20).
    pub fn max_session_runs(mut self, runs: usize) -> ScratchpadBuilder {
        self.max_session_runs = Some(runs);
        self
    }

    /// The LLM provider (`openai`, `anthropic`, `bedrock`, `gemini`, …): picks the counter.
    pub fn provider(mut self, provider: impl Into<String>) -> ScratchpadBuilder {
        self.provider = Some(provider.into());
        self
    }

    /// The model id (`gpt-4o`, `claude-sonnet-4`, `gemini-2.5-pro`, …): picks the counter.
    pub fn model(mut self, model: impl Into<String>) -> ScratchpadBuilder {
        self.model = Some(model.into());
        self
    }

    /// A token counter to use instead of the one provider and model pick.
    pub fn counter(mut self, counter: &'static dyn TokenCounter) -> ScratchpadBuilder {
        self.counter = Some(counter);
        self
    }

    /// The token counter [`build`](Self::build) gives the scratchpad: the one set with
    /// [`counter`](Self::counter), else the one the provider and model (set here over the
    /// configuration's) pick. A host can [`prepare`](TokenCounter::prepare) it before any
    /// scratchpad exists.
    ///
    /// ```
    /// use overspill::Scratchpad;
    ///
    /// let builder = Scratchpad::builder().provider("anthropic").model("claude-sonnet-4");
    /// assert_eq!(builder.token_counter().name(), "claude≈cl100k×1.1");
    /// ```
    pub fn token_counter(&self) -> &'static dyn TokenCounter {
        self.counter.unwrap_or_else(|| {
            let llm = self.llm_settings(self.settings());
            counter_for(
                llm.provider.as_deref().unwrap_or("other"),
                llm.model.as_deref().unwrap_or(""),
            )
        })
    }

    /// The model's context window in tokens.
    pub fn context_window(mut self, tokens: u64) -> ScratchpadBuilder {
        self.context_window = Some(tokens);
        self
    }

    /// Whether the scratchpad is on, over the configuration's `enabled` (which is `false` when
    /// not written): for a host that is itself the switch, such as the MCP proxy, which runs
    /// to intercept and takes only thresholds, `memory_dir` and the LLM settings from the
    /// configuration.
    pub fn enabled(mut self, on: bool) -> ScratchpadBuilder {
        self.enabled = Some(on);
        self
    }

    /// The fraction of the window kept free for reasoning and output (default 0.20).
    pub fn context_safety_margin(mut self, margin: f64) -> ScratchpadBuilder {
        self.context_safety_margin = Some(margin);
        self
    }

    /// The most tokens one exploration result may cost (default 10,000).
    pub fn max_extraction_tokens(mut self, tokens: u64) -> ScratchpadBuilder {
        self.max_extraction_tokens = Some(tokens);
        self
    }

    /// Extra agent turns while the scratchpad is active (default 6).
    pub fn turn_depth_bonus(mut self, turns: u32) -> ScratchpadBuilder {
        self.turn_depth_bonus = Some(turns);
        self
    }

    /// The host's system prompt (or any other text the model sees on every turn), counted
    /// into the baseline. May be called several times.
    pub fn host_system_prompt(mut self, text: impl Into<String>) -> ScratchpadBuilder {
        self.host_texts.push(text.into());
        self
    }

    /// The host's own tool definitions (MCP, OpenAI or Anthropic shape), counted into the
    /// baseline. May be called several times.
    pub fn host_tools(mut self, tools: impl IntoIterator<Item = Value>) -> ScratchpadBuilder {
        self.host_tools.extend(tools);
        self
    }

    /// Interception rules for `server`, replacing any the configuration has for it.
    pub fn server_rules(
        mut self,
        server: impl Into<String>,
        rules: ServerRules,
    ) -> ScratchpadBuilder {
        self.rules.push((server.into(), rules));
        self
    }

    /// For hosts without configured thresholds: every tool of a server that has no rules of
    /// its own is intercepted from `min_tokens` tokens (`"*" = { min_tokens = N }`).
    pub fn intercept_all(mut self, min_tokens: u64) -> ScratchpadBuilder {
        self.fallback_min_tokens = Some(min_tokens);
        self
    }

    /// The tools `server` offers, resolved once into exact thresholds at build; the same as
    /// calling [`Scratchpad::set_server_tools`] afterwards.
    pub fn server_tools<T: Into<String>>(
        mut self,
        server: impl Into<String>,
        tools: impl IntoIterator<Item = T>,
    ) -> ScratchpadBuilder {
        self.server_tools
            .push((server.into(), tools.into_iter().map(Into::into).collect()));
        self
    }

    /// The largest stored file an `overspill://` reference may insert into a tool call
    /// (default [`DEFAULT_MAX_REFERENCE_BYTES`](crate::references::DEFAULT_MAX_REFERENCE_BYTES),
    /// 50 MB); a larger one is refused with [`RefError::TooLarge`](crate::RefError::TooLarge).
    pub fn max_reference_bytes(mut self, bytes: u64) -> ScratchpadBuilder {
        self.max_reference_bytes = Some(bytes);
        self
    }

    /// The marker of the footer the host appends to tool outputs it persisted (e.g.
    /// `"\n\n[Tool output saved to artifact: "`): the marker and everything after it are cut
    /// before counting, hashing and storing.
    pub fn persistence_footer(mut self, marker: impl Into<String>) -> ScratchpadBuilder {
        self.footer = Some(marker.into());
        self
    }

    /// Exploration tools not to expose (e.g. `["query"]`): neither listed nor answered.
    pub fn without_tools<T: Into<String>>(
        mut self,
        tools: impl IntoIterator<Item = T>,
    ) -> ScratchpadBuilder {
        self.excluded_tools
            .extend(tools.into_iter().map(Into::into));
        self
    }

    /// The prefix the host puts before the exploration tools' names when it registers them
    /// (`sp_` → `sp_grep`, `sp_head` …), for hosts whose other tools already use those names.
    /// The pointer and the prompt section then name the tools as the model sees them; the host
    /// strips the prefix before [`Scratchpad::call`](crate::Scratchpad::call).
    pub fn tool_prefix(mut self, prefix: impl Into<String>) -> ScratchpadBuilder {
        self.tool_prefix = prefix.into();
        self
    }

    /// A file cache to share with other agents of the process (each has its own by default).
    pub fn file_cache(mut self, cache: Arc<FileCache>) -> ScratchpadBuilder {
        self.cache = Some(cache);
        self
    }

    /// Tells `observer` of every tool result the scratchpad judges and every exploration call
    /// it answers ([`Event`](crate::Event)), for a host that keeps count (metrics).
    pub fn observer(mut self, observer: Arc<dyn Observer>) -> ScratchpadBuilder {
        self.observer = Some(observer);
        self
    }

    /// Validates the settings, creates the directories and returns the scratchpad. Counts no
    /// token, so it never waits for the counter's tables: the budget's baseline is counted when
    /// the budget first needs it (the first exploration call), and a host that wants the tables
    /// ready by then [`prepare`](TokenCounter::prepare)s the [`token_counter`](Self::token_counter)
    /// on a thread of its own (docs/tokens.md#the-first-answer-does-not-wait).
    ///
    /// # Errors
    /// A [`BuildError`] naming the setting to change: no directory, no context window, a
    /// scratchpad disabled in the configuration, a worker or coordinator without a run, bad
    /// ids or budget settings, or a directory that cannot be created.
    pub fn build(self) -> Result<Scratchpad, BuildError> {
        let kind = self.kind()?;
        let agent = self.agent_name();
        let settings = self.settings();
        let enabled = self
            .enabled
            .or(settings.map(|settings| settings.scratchpad.enabled));
        if enabled == Some(false) && kind != Kind::Coordinator {
            return Err(BuildError::Disabled { agent });
        }
        if let Some(marker) = &self.footer
            && marker.is_empty()
        {
            return Err(BuildError::EmptyFooterMarker);
        }
        // What was set by hand over the configuration, merged as the configuration merges a
        // worker's tables over the agent's.
        let llm = self.llm_settings(settings);
        let counter = self.token_counter();
        let memory_dir = self
            .memory_dir
            .clone()
            .or_else(|| self.config.as_ref()?.memory_dir().map(PathBuf::from));
        let run = match (&self.run, &memory_dir) {
            (Some((run_id, iteration)), Some(memory)) => Some(Run::new(
                memory,
                self.session_id.as_deref(),
                run_id,
                *iteration,
            )?),
            (Some(_), None) => return Err(BuildError::NoDirectory { agent }),
            (None, _) => None,
        };

        let excluded: Vec<&str> = self.excluded_tools.iter().map(String::as_str).collect();
        // One registry answers every tool the agent has: the exploration tools it explores
        // with, then the artifact tools of its role.
        let registry = match kind {
            Kind::Single => Registry::new().without(&excluded),
            Kind::Worker => artifacts::with_artifact_tools(
                Registry::new().without(&excluded),
                run.as_ref(),
                false,
            ),
            Kind::Coordinator => {
                artifacts::with_artifact_tools(Registry::none(), run.as_ref(), true)
            }
        };
        let prompt = prompt::section(kind, &registry.exploration_definitions(), &self.tool_prefix);

        let role = match (kind, run) {
            (Kind::Coordinator, Some(run)) => {
                run.start(self.max_session_runs.unwrap_or(DEFAULT_MAX_SESSION_RUNS))?;
                Role::Coordinator { run }
            }
            (Kind::Worker, Some(run)) => {
                run.worker_layout().create_dirs()?;
                let store = Store::open(run.worker_scratchpad_dir())?;
                let root = run
                    .open_worker_read_root()
                    .map_err(|error| BuildError::ReadRoot {
                        dir: run.worker_read_root_dir().to_owned(),
                        error,
                    })?;
                let explorer = self.explorer(
                    &agent, settings, &llm, store, root, counter, &prompt, &registry,
                )?;
                Role::Worker { explorer, run }
            }
            (Kind::Single, _) => {
                let mut single_layout = None;
                let (dir, root) = match (&self.scratchpad_dir, &memory_dir) {
                    (Some(dir), _) => {
                        let store = Store::open(dir)?;
                        let root = ReadRoot::new(dir).map_err(|error| BuildError::ReadRoot {
                            dir: dir.clone(),
                            error,
                        })?;
                        (store, root)
                    }
                    (None, Some(memory)) => {
                        let layout = Layout::single_agent(memory);
                        layout.create_dirs()?;
                        let store = Store::open(layout.read_root_dir())?;
                        let root =
                            layout
                                .open_read_root()
                                .map_err(|error| BuildError::ReadRoot {
                                    dir: layout.read_root_dir().to_owned(),
                                    error,
                                })?;
                        single_layout = Some(layout);
                        (store, root)
                    }
                    (None, None) => return Err(BuildError::NoDirectory { agent }),
                };
                let explorer = self.explorer(
                    &agent, settings, &llm, dir, root, counter, &prompt, &registry,
                )?;
                Role::Single {
                    explorer,
                    layout: single_layout,
                }
            }
            (_, None) => {
                return Err(BuildError::Mode(
                    "a worker or coordinator needs its run: call .run(run_id, iteration) and set memory_dir",
                ));
            }
        };

        let thresholds = self.thresholds(settings);
        for (server, tools) in &self.server_tools {
            thresholds.set_server_tools(server, tools.clone());
        }
        Ok(Scratchpad::from_inner(Session {
            role,
            agent_id: self.agent_id.clone().unwrap_or(agent),
            session_id: self.session_id,
            trace_id: self.trace_id,
            counter,
            registry,
            thresholds,
            footer: self.footer,
            prompt,
            finished: AtomicBool::new(false),
            max_reference_bytes: self
                .max_reference_bytes
                .unwrap_or(crate::references::DEFAULT_MAX_REFERENCE_BYTES),
            tool_prefix: std::sync::RwLock::new(std::sync::Arc::from(self.tool_prefix)),
            observer: self.observer,
        }))
    }

    /// The role from the mode calls, checked for consistency.
    fn kind(&self) -> Result<Kind, BuildError> {
        match (&self.worker, self.coordinator, &self.run) {
            (Some(_), true, _) => Err(BuildError::Mode(
                "an agent is either a worker or the coordinator: call .worker(name) or .coordinator(), not both",
            )),
            (Some(name), false, _)
                if name.trim().is_empty() || name.chars().any(char::is_control) =>
            {
                Err(BuildError::InvalidWorker {
                    name: name.clone(),
                    reason: "it is empty or holds control characters; use the worker's configured name",
                })
            }
            (Some(_), false, None) | (None, true, None) => Err(BuildError::Mode(
                "a worker or coordinator needs its run: call .run(run_id, iteration) and set memory_dir",
            )),
            (Some(_), false, Some(_)) => Ok(Kind::Worker),
            (None, true, Some(_)) => Ok(Kind::Coordinator),
            (None, false, Some(_)) => Err(BuildError::Mode(
                "a run needs a role: call .worker(name) or .coordinator() as well as .run(..)",
            )),
            (None, false, None) => Ok(Kind::Single),
        }
    }

    /// `main`, or the worker's name.
    fn agent_name(&self) -> String {
        self.worker
            .clone()
            .unwrap_or_else(|| MAIN_AGENT_ID.to_owned())
    }

    /// The configured settings of this agent, if built from a configuration.
    fn settings(&self) -> Option<&AgentSettings> {
        let config = self.config.as_ref()?;
        Some(match &self.worker {
            Some(name) => config.effective(name),
            None => config.agent(),
        })
    }

    /// The LLM settings set by hand, each unset one taken from the configuration.
    fn llm_settings(&self, settings: Option<&AgentSettings>) -> LlmSettings {
        let own = LlmSettings {
            provider: self.provider.clone(),
            model: self.model.clone(),
            context_window: self.context_window,
        };
        match settings {
            Some(settings) => own.merged_over(&settings.llm),
            None => own,
        }
    }

    /// The scratchpad settings set by hand over the configuration's (or the defaults).
    fn scratchpad_settings(&self, settings: Option<&AgentSettings>) -> ScratchpadSettings {
        let own = ScratchpadOverride {
            enabled: self.enabled,
            context_safety_margin: self.context_safety_margin,
            max_extraction_tokens: self.max_extraction_tokens,
            turn_depth_bonus: self.turn_depth_bonus,
        };
        own.apply_to(&settings.map_or_else(ScratchpadSettings::default, |s| s.scratchpad.clone()))
    }

    /// What an exploring agent has: its store, its read context and its budget, whose
    /// baseline holds the prompt section and every tool it is given (counted when the budget
    /// first needs it).
    #[allow(clippy::too_many_arguments)] // the parts built before it; two call sites
    fn explorer(
        &self,
        agent: &str,
        settings: Option<&AgentSettings>,
        llm: &LlmSettings,
        store: Store,
        root: ReadRoot,
        counter: &'static dyn TokenCounter,
        prompt: &str,
        registry: &Registry,
    ) -> Result<Explorer, BuildError> {
        let (store, root) = match &self.shared_store {
            Some(shared) => {
                let dir = root.dir().to_owned();
                let root = root
                    .with_shared(shared.clone())
                    .map_err(|error| BuildError::ReadRoot { dir, error })?;
                (store.with_shared(shared.clone())?, root)
            }
            None => (store, root),
        };
        let context_window = llm
            .context_window
            .ok_or_else(|| BuildError::NoContextWindow {
                agent: agent.to_owned(),
            })?;
        let scratchpad = self.scratchpad_settings(settings);
        let budget_settings = BudgetSettings {
            context_window,
            context_safety_margin: scratchpad.context_safety_margin,
            max_extraction_tokens: scratchpad.max_extraction_tokens,
            turn_depth_bonus: scratchpad.turn_depth_bonus,
        };
        // Counted at the budget's first need, not now: building a scratchpad waits for no token
        // table (docs/budget.md#a-baseline-counted-later).
        let definitions = registry.definitions();
        let prompt = prompt.to_owned();
        let host_texts = self.host_texts.clone();
        let host_tools = self.host_tools.clone();
        let baseline = move || {
            definitions
                .iter()
                .fold(Baseline::new(counter).system_prompt(&prompt), |b, d| {
                    b.tool(d.name, d.description, &d.input_schema())
                })
                .host_texts(host_texts.iter().map(String::as_str))
                .tool_values(&host_tools)
                .total()
        };
        let budget = Budget::with_baseline_later(budget_settings, baseline)?;
        let budget = Arc::new(match &self.ledger {
            Some(ledger) => budget.with_ledger(Arc::clone(ledger)),
            None => budget,
        });
        let ctx = ExploreContext::new(root, counter, Arc::clone(&budget));
        let ctx = match &self.cache {
            Some(cache) => ctx.with_cache(Arc::clone(cache)),
            None => ctx,
        };
        Ok(Explorer { store, ctx, budget })
    }

    fn thresholds(&self, settings: Option<&AgentSettings>) -> Thresholds {
        let mut rules: HashMap<String, ServerRules> = self
            .config
            .iter()
            .flat_map(Config::servers)
            .map(|(name, rules)| (name.to_owned(), rules.clone()))
            .collect();
        rules.extend(self.rules.iter().cloned());
        let fallback = self.fallback_min_tokens.and_then(|min_tokens| {
            let star = ToolPattern::new("*").ok()?;
            ServerRules::new(vec![Rule::new(star, min_tokens)]).ok()
        });
        let filter: Option<ToolFilter> = settings.and_then(|s| s.mcp_filter.clone());
        Thresholds::new(rules, fallback, filter)
    }
}

impl std::fmt::Debug for ScratchpadBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScratchpadBuilder")
            .field("memory_dir", &self.memory_dir)
            .field("scratchpad_dir", &self.scratchpad_dir)
            .field("worker", &self.worker)
            .field("coordinator", &self.coordinator)
            .field("run", &self.run)
            .field("context_window", &self.context_window)
            .finish_non_exhaustive()
    }
}

impl Scratchpad {
    /// A builder with nothing set; see [`ScratchpadBuilder`].
    pub fn builder() -> ScratchpadBuilder {
        ScratchpadBuilder::default()
    }

    /// A builder with `config`'s settings for the main agent (call
    /// [`ScratchpadBuilder::worker`] for a worker's).
    pub fn from_config(config: &Config) -> ScratchpadBuilder {
        ScratchpadBuilder::default().config(config)
    }
}
