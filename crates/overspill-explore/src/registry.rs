//! The registry: which tools exist, their definitions in three export formats, and dispatch
//! of a call by name (docs/tools.md#4-definitions-and-export).
//!
//! Adding an exploration tool is one line in the `RUNNABLE` list of this module; a host adds
//! its own tools ([`HostTool`], e.g. the artifact tools) with [`Registry::with`]. A host picks
//! what to expose with [`Registry::without`] (e.g. no `query`) or [`Registry::only`]; an
//! excluded tool is neither listed nor dispatched.
//!
//! ```no_run
//! # fn demo(ctx: &overspill_explore::ExploreContext) {
//! use overspill_explore::Registry;
//!
//! let registry = Registry::new().without(&["query"]);
//! let mcp_tools = registry.mcp_tools();
//! let text = registry.dispatch(ctx, "head", r#"{"file": "k8s_list_pods-1a2b3c4d5e6f7a8b.json", "lines": 20}"#);
//! # }
//! ```

use std::marker::PhantomData;
use std::sync::Arc;

use overspill_budget::RefusalReason;
use overspill_store::Format;
use serde_json::Value;

use crate::args;
use crate::call::Call;
use crate::context::ExploreContext;
use crate::definitions::Definition;
use crate::delivery::{self, Delivered, Measured};
use crate::error::{TooLarge, ToolError};
use crate::json_tools;
use crate::line_tools;
use crate::tool::{Caller, HostTool, Tool};

/// Every runnable tool, in the order they are listed to the model. One line per tool.
const RUNNABLE: &[&dyn Runnable] = &[
    register::<json_tools::schema::Schema>(),
    register::<json_tools::item_schema::ItemSchema>(),
    register::<json_tools::iterate_over::IterateOver>(),
    register::<json_tools::get_in::GetIn>(),
    register::<json_tools::query::Query>(),
    register::<line_tools::grep::Grep>(),
    register::<line_tools::head::Head>(),
    register::<line_tools::slice::Slice>(),
    register::<line_tools::read::Read>(),
];

/// How many smaller calls the retry search tries before giving up.
const MAX_RETRY_STEPS: usize = 64;

/// The set of tools a host exposes: exploration tools and the host's own, listed, exported and
/// dispatched alike.
#[derive(Clone)]
pub struct Registry {
    tools: Vec<Member>,
}

/// One tool of a registry: an exploration tool (one static entry per tool type) or a host's
/// tool, which holds the host's state.
#[derive(Clone)]
enum Member {
    Exploration(&'static dyn Runnable),
    Host(Arc<dyn Runnable>),
}

impl Member {
    fn runnable(&self) -> &dyn Runnable {
        match self {
            Member::Exploration(tool) => *tool,
            Member::Host(tool) => tool.as_ref(),
        }
    }

    fn name(&self) -> &'static str {
        self.runnable().definition().name
    }
}

impl Registry {
    /// All exploration tools.
    pub fn new() -> Registry {
        Registry {
            tools: RUNNABLE.iter().copied().map(Member::Exploration).collect(),
        }
    }

    /// No tools at all: for a host whose agent explores nothing, which adds its own with
    /// [`Registry::with`].
    pub fn none() -> Registry {
        Registry { tools: Vec::new() }
    }

    /// The same set with the host's tool `tool` listed last; it replaces a tool of the same
    /// name.
    #[must_use]
    pub fn with<T: HostTool>(mut self, tool: T) -> Registry {
        self.tools.retain(|t| t.name() != T::NAME);
        self.tools.push(Member::Host(Arc::new(Hosted(tool))));
        self
    }

    /// The same set without the tools named in `excluded` (unknown names are ignored).
    #[must_use]
    pub fn without(mut self, excluded: &[&str]) -> Registry {
        self.tools.retain(|t| !excluded.contains(&t.name()));
        self
    }

    /// The same set restricted to the tools named in `included`.
    #[must_use]
    pub fn only(mut self, included: &[&str]) -> Registry {
        self.tools.retain(|t| included.contains(&t.name()));
        self
    }

    /// The names of the tools, in listing order.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(Member::name).collect()
    }

    /// The names of the exploration tools only: the tools that read a stored output, which a
    /// pointer offers.
    pub fn exploration_names(&self) -> Vec<&'static str> {
        self.exploration_definitions()
            .into_iter()
            .map(|definition| definition.name)
            .collect()
    }

    /// The definitions of the exploration tools only, in listing order: what the system
    /// prompt lists, each with its [`Definition::blurb`].
    pub fn exploration_definitions(&self) -> Vec<&'static Definition> {
        self.tools
            .iter()
            .filter(|t| matches!(t, Member::Exploration(_)))
            .map(|t| t.runnable().definition())
            .collect()
    }

    /// The definitions of the tools, in listing order.
    pub fn definitions(&self) -> Vec<&'static Definition> {
        self.tools
            .iter()
            .map(|t| t.runnable().definition())
            .collect()
    }

    /// The definition of the tool `name`, if the set holds it.
    pub fn definition(&self, name: &str) -> Option<&'static Definition> {
        self.find(name).map(Runnable::definition)
    }

    /// The tools as MCP tools (`tools/list` entries).
    pub fn mcp_tools(&self) -> Vec<Value> {
        self.definitions()
            .into_iter()
            .map(Definition::to_mcp)
            .collect()
    }

    /// The tools as OpenAI function tools.
    pub fn openai_tools(&self) -> Vec<Value> {
        self.definitions()
            .into_iter()
            .map(Definition::to_openai)
            .collect()
    }

    /// The tools as Anthropic tools.
    pub fn anthropic_tools(&self) -> Vec<Value> {
        self.definitions()
            .into_iter()
            .map(Definition::to_anthropic)
            .collect()
    }

    /// Runs the tool `name` with `arguments` (JSON text) and returns what the model receives:
    /// the extraction with its footer, or an error JSON object. Never fails.
    pub fn dispatch(&self, ctx: &ExploreContext, name: &str, arguments: &str) -> String {
        match args::from_text(arguments) {
            Ok(arguments) => self.dispatch_value(ctx, name, &arguments),
            Err(error) => error.render_within(ctx.counter(), ctx.budget().max_extraction_tokens()),
        }
    }

    /// [`Registry::dispatch`] with already parsed arguments.
    pub fn dispatch_value(&self, ctx: &ExploreContext, name: &str, arguments: &Value) -> String {
        self.answer(Some(ctx), name, arguments)
    }

    /// Runs any tool of the set for an agent with exploration context `ctx`, or with none (an
    /// agent that explores nothing, whose set holds only host tools), and returns what the
    /// model receives. Never fails.
    pub fn answer(&self, ctx: Option<&ExploreContext>, name: &str, arguments: &Value) -> String {
        self.answer_as(ctx, "", name, arguments)
    }

    /// [`Registry::answer`] for a host that puts `tool_prefix` before the exploration tools'
    /// names, so that what a host tool answers (a pointer) names them as the model calls them.
    pub fn answer_as(
        &self,
        ctx: Option<&ExploreContext>,
        tool_prefix: &str,
        name: &str,
        arguments: &Value,
    ) -> String {
        self.answer_counted(ctx, tool_prefix, name, arguments).text
    }

    /// [`Registry::answer_as`], with what the call came to beside the text: for a host that
    /// keeps count of deliveries and refusals (the proxy's metrics).
    pub fn answer_counted(
        &self,
        ctx: Option<&ExploreContext>,
        tool_prefix: &str,
        name: &str,
        arguments: &Value,
    ) -> Answer {
        let runnable = self.runnable(name);
        let tool = runnable.as_ref().ok().map(|tool| tool.definition().name);
        let ran = runnable.and_then(|found| self.run_tool(found, ctx, tool_prefix, arguments));
        match ran {
            Ok(Delivered { text, tokens }) => Answer {
                text,
                tool,
                outcome: Outcome::Delivered { tokens },
            },
            Err(error) => {
                let outcome = match &error {
                    ToolError::TooLarge(body) => Outcome::Refused(body.reason),
                    _ => Outcome::Failed,
                };
                // An error is not charged, but it must not cost more than a result may either.
                let text = match ctx {
                    Some(ctx) => {
                        error.render_within(ctx.counter(), ctx.budget().max_extraction_tokens())
                    }
                    None => error.render(),
                };
                Answer {
                    text,
                    tool,
                    outcome,
                }
            }
        }
    }

    /// Runs a tool and applies the budget rule; `Err` holds the error the model receives.
    ///
    /// # Errors
    /// Every [`ToolError`], including `<tool>_too_large` with its computed retry.
    pub fn call(
        &self,
        ctx: &ExploreContext,
        name: &str,
        arguments: &Value,
    ) -> Result<String, ToolError> {
        self.run(Some(ctx), "", name, arguments)
            .map(|delivered| delivered.text)
    }

    /// Runs the tool `name` for the agent with `ctx` whose host puts `tool_prefix` before the
    /// exploration tools' names.
    fn run(
        &self,
        ctx: Option<&ExploreContext>,
        tool_prefix: &str,
        name: &str,
        arguments: &Value,
    ) -> Result<Delivered, ToolError> {
        let tool = self.runnable(name)?;
        self.run_tool(tool, ctx, tool_prefix, arguments)
    }

    /// The tool `name`, or the error that lists the tools there are.
    fn runnable(&self, name: &str) -> Result<&dyn Runnable, ToolError> {
        self.find(name).ok_or_else(|| {
            ToolError::invalid_argument(
                None,
                format!(
                    "there is no tool `{name}` here; the tools are: {}",
                    self.names().join(", ")
                ),
            )
        })
    }

    /// Runs `tool`, found by [`Registry::runnable`].
    fn run_tool(
        &self,
        tool: &dyn Runnable,
        ctx: Option<&ExploreContext>,
        tool_prefix: &str,
        arguments: &Value,
    ) -> Result<Delivered, ToolError> {
        let tools = self.exploration_names();
        let caller = Caller {
            ctx,
            tools: &tools,
            tool_prefix,
        };
        tool.call(self, &caller, arguments)
    }

    /// The `<tool>_too_large` error for a refused result: the retry found from the tool's own
    /// first smaller call, and plain-words advice.
    fn too_large(
        &self,
        ctx: &ExploreContext,
        refused: &RefusedCall,
        first: Option<Call>,
        mut suggestions: Vec<String>,
    ) -> ToolError {
        let retry = self.retry(ctx, refused, first);
        let limits = &refused.limits;
        if limits.reason == RefusalReason::OverBudget {
            suggestions.push(format!(
                "Only about {} tokens of your budget are left: ask for less at a time, and \
                 prefer grep or narrow windows over whole files.",
                overspill_budget::thousands(limits.remaining_budget_tokens)
            ));
        }
        suggestions.push(
            match retry {
                Some((_, true)) => "The `retry` call fits what you can take now; run it as it is.",
                Some((_, false)) => {
                    "Nothing smaller fits what is left of your budget; finish with what you \
                     already know."
                }
                None => {
                    "No smaller call of the tools you have shows part of this; ask for a \
                     narrower part (a path, a pattern, a filter), or finish with what you \
                     already know."
                }
            }
            .to_owned(),
        );
        ToolError::TooLarge(Box::new(TooLarge {
            tool: refused.call.tool.clone(),
            estimated_tokens: limits.estimated_tokens,
            per_call_limit: limits.per_call_limit,
            remaining_budget_tokens: limits.remaining_budget_tokens,
            reason: limits.reason,
            retry: retry.map(|(call, _)| call),
            suggestions,
        }))
    }

    fn find(&self, name: &str) -> Option<&dyn Runnable> {
        self.tools
            .iter()
            .find(|t| t.name() == name)
            .map(Member::runnable)
    }

    /// The first call in the chain of smaller calls that starts at `first` (the refused tool's
    /// own) and fits now, and `true`; the smallest one tried and `false` when none does (the
    /// budget is nearly spent); `None` when the chain has no call this registry can run. A
    /// tool counts its first smaller call on what it rendered, so it fits as a rule and the
    /// chain is one run long; it goes on (each step the next tool's `smaller`) only where the
    /// tool could not count: a result it did not render, a unit too large on its own. The chain
    /// stops at a call to a tool this registry does not expose (a retry the same host would
    /// refuse is no retry) and at one that is the refused call again: a model that follows such
    /// a retry loops (docs/tools.md#errors, "Retry").
    fn retry(
        &self,
        ctx: &ExploreContext,
        refused: &RefusedCall,
        first: Option<Call>,
    ) -> Option<(Call, bool)> {
        let mut next = first;
        let mut smallest = None;
        for _ in 0..MAX_RETRY_STEPS {
            let Some(call) = next.take() else { break };
            // A retry may switch tools (read → head), but only to one this registry exposes.
            let Some(runner) = self.find(&call.tool) else {
                break;
            };
            let Some(step) = runner.step(ctx, &call.arguments) else {
                break;
            };
            if call.tool == refused.call.tool && step.canonical == refused.call.arguments {
                break;
            }
            if step.fits {
                return Some((call, true));
            }
            next = step.smaller;
            smallest = Some(call);
        }
        smallest.map(|call| (call, false))
    }
}

/// A refused call as the retry search needs it: the call as the tool read it, and the limits
/// it went over.
struct RefusedCall {
    call: Call,
    limits: delivery::Refused,
}

/// One candidate retry, run once: whether it fits, and the tool's next smaller call if not.
struct Step {
    /// The candidate's arguments as its tool read them.
    canonical: Value,
    fits: bool,
    smaller: Option<Call>,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::new()
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.names())
            .finish()
    }
}

/// The definitions of all runnable tools.
pub fn tools() -> Vec<&'static Definition> {
    Registry::new().definitions()
}

/// Whether the tool `name` can read a file stored as `format`; a pointer lists only those.
pub fn reads_format(name: &str, format: Format) -> bool {
    format == Format::Json
        || !RUNNABLE
            .iter()
            .any(|tool| tool.definition().name == name && tool.json_only())
}

/// Runs one tool of the full set; see [`Registry::dispatch`].
pub fn dispatch(ctx: &ExploreContext, name: &str, arguments: &str) -> String {
    Registry::new().dispatch(ctx, name, arguments)
}

/// What the model receives for one call, and what the call came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The extraction with its footer, or the error object.
    pub text: String,
    /// The tool's name as the registry has it; `None` when it has no such tool (the name
    /// called is the caller's, so a counter should not take it as a label).
    pub tool: Option<&'static str>,
    /// Delivered (and charged), refused, or failed.
    pub outcome: Outcome,
}

/// What one call came to, for a host that keeps count (docs/tools.md#1-common-rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// A result was delivered and `tokens` charged to the budget (0 for a host tool's answer).
    Delivered {
        /// The tokens charged.
        tokens: u64,
    },
    /// Refused (`<tool>_too_large`): over the per-call limit, or within it but more than
    /// the budget has left.
    Refused(RefusalReason),
    /// Any other tool error: a bad argument, a missing file, a path outside the root.
    Failed,
}

impl Outcome {
    /// `delivered`, `over_call_limit`, `over_budget` or `failed`: for logs and metric labels.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Delivered { .. } => "delivered",
            Outcome::Refused(reason) => reason.as_str(),
            Outcome::Failed => "failed",
        }
    }
}

/// A tool with its types erased, so the registry can hold them in one list. Each method
/// parses the call's arguments once and works on the typed `Args` from there.
trait Runnable: Send + Sync {
    fn definition(&self) -> &'static Definition;
    fn json_only(&self) -> bool;
    /// Runs a call and delivers its result, or refuses it with the retry `registry` finds.
    fn call(
        &self,
        registry: &Registry,
        caller: &Caller<'_>,
        arguments: &Value,
    ) -> Result<Delivered, ToolError>;
    /// Runs a candidate retry and measures it; `None` when it does not parse or run, or is a
    /// host's tool (which no retry names).
    fn step(&self, ctx: &ExploreContext, arguments: &Value) -> Option<Step>;
}

struct Entry<T>(PhantomData<fn() -> T>);

impl<T: Tool> Entry<T> {
    const RUNNABLE: &'static dyn Runnable = &Entry::<T>(PhantomData);
    const DEFINITION: &'static Definition = &Definition {
        name: T::NAME,
        description: T::DESCRIPTION,
        blurb: Some(T::BLURB),
        parameters: args::owned_schema::<T::Args>,
    };
}

/// The registry line of a tool.
const fn register<T: Tool>() -> &'static dyn Runnable {
    Entry::<T>::RUNNABLE
}

impl<T: Tool> Runnable for Entry<T> {
    fn definition(&self) -> &'static Definition {
        Entry::<T>::DEFINITION
    }

    fn json_only(&self) -> bool {
        T::JSON_ONLY
    }

    fn call(
        &self,
        registry: &Registry,
        caller: &Caller<'_>,
        arguments: &Value,
    ) -> Result<Delivered, ToolError> {
        let Some(ctx) = caller.ctx else {
            return Err(ToolError::invalid_argument(
                None,
                format!(
                    "`{}` reads stored outputs, and this agent has none",
                    T::NAME
                ),
            ));
        };
        let args = args::parse::<T::Args>(T::NAME, arguments)?;
        let limit = ctx.token_limit();
        let mut got = T::run(ctx, args.clone())?;
        let mut delivered = delivery::deliver(ctx, T::NAME, &got);
        if let Err(refused) = &delivered
            && refused.reason == RefusalReason::OverBudget
            && ctx.token_limit() < limit
        {
            // Other processes serving the agent had spent more than this one knew when the
            // tool cut its result to fit, and the charge told it: cut again, once, to what is
            // left (docs/budget.md#one-agent-served-by-several-processes).
            got = T::run(ctx, args.clone())?;
            delivered = delivery::deliver(ctx, T::NAME, &got);
        }
        delivered.map_err(|limits| {
            // Two calls are the same call when their arguments, as the tool reads them
            // (defaults filled in, numbers as numbers), are equal.
            let refused = RefusedCall {
                call: Call::new(T::NAME, &args),
                limits,
            };
            registry.too_large(
                ctx,
                &refused,
                T::smaller(ctx, &args, &got),
                T::suggestions(&args),
            )
        })
    }

    fn step(&self, ctx: &ExploreContext, arguments: &Value) -> Option<Step> {
        let args = args::parse::<T::Args>(T::NAME, arguments).ok()?;
        let got = T::run(ctx, args.clone()).ok()?;
        let fits = matches!(delivery::measure(ctx, T::NAME, &got), Measured::Fits { .. });
        Some(Step {
            canonical: Call::new(T::NAME, &args).arguments,
            smaller: (!fits).then(|| T::smaller(ctx, &args, &got)).flatten(),
            fits,
        })
    }
}

/// A host's tool, as the registry holds it.
struct Hosted<T>(T);

impl<T: HostTool> Hosted<T> {
    const DEFINITION: &'static Definition = &Definition {
        name: T::NAME,
        description: T::DESCRIPTION,
        blurb: None,
        parameters: args::owned_schema::<T::Args>,
    };
}

impl<T: HostTool> Runnable for Hosted<T> {
    fn definition(&self) -> &'static Definition {
        Hosted::<T>::DEFINITION
    }

    fn json_only(&self) -> bool {
        false
    }

    fn call(
        &self,
        _registry: &Registry,
        caller: &Caller<'_>,
        arguments: &Value,
    ) -> Result<Delivered, ToolError> {
        let args = if T::LONG_ARGUMENTS {
            args::parse_any_length::<T::Args>(T::NAME, arguments)?
        } else {
            args::parse::<T::Args>(T::NAME, arguments)?
        };
        Ok(Delivered {
            text: self.0.answer(caller, args),
            tokens: 0,
        })
    }

    fn step(&self, _ctx: &ExploreContext, _arguments: &Value) -> Option<Step> {
        None
    }
}

#[cfg(test)]
mod tests;
