//! The shape every tool has: [`Tool`] (an exploration tool, which reads a stored output), the
//! [`Extraction`] it returns, and [`HostTool`] (a tool that answers from its host's state, such
//! as the artifact tools). Both go through the one [`crate::Registry`].
//!
//! A tool is a unit struct in its own module implementing [`Tool`]: an `Args` struct read by
//! [`crate::args::parse`] and described by [`crate::args::schema`], a `run` that renders a
//! body and a one-line summary, and a `smaller` that names the next smaller call (counted on
//! what `run` rendered, or its window halved where that cannot be counted). The budget rule
//! and the footer live in [`crate::delivery`], the retry search in the registry; a tool never
//! measures or charges anything itself.

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::call::Call;
use crate::context::ExploreContext;
use crate::error::ToolError;

/// One exploration tool: its name, its description, its line in the system prompt, its
/// arguments (whose type is also its JSON Schema, [`crate::args::schema`]), its `run` and its
/// smaller retry, in one module.
///
/// ```
/// use std::sync::Arc;
/// use overspill_explore::{ExploreContext, Extraction, Tool, ToolError, args};
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
///
/// struct Wc;
///
/// #[derive(Clone, Deserialize, Serialize, JsonSchema)]
/// struct Args {
///     #[schemars(description = args::FILE)]
///     file: String,
/// }
///
/// impl Tool for Wc {
///     const NAME: &'static str = "wc";
///     const DESCRIPTION: &'static str = "Count the lines of a stored output.";
///     const BLURB: &'static str = "how many lines a file has";
///     type Args = Args;
///
///     fn run(ctx: &ExploreContext, args: Args) -> Result<Extraction, ToolError> {
///         let lines = ctx.open(&args.file)?.lines().line_count();
///         Ok(Extraction::new(String::new(), format!("{lines} lines"), lines))
///     }
/// }
///
/// # let dir = tempfile::tempdir()?;
/// # std::fs::write(dir.path().join("a.txt"), "1\n2\n")?;
/// # let budget = Arc::new(overspill_budget::Budget::new(overspill_budget::BudgetSettings::for_window(1000), 0)?);
/// # let ctx = ExploreContext::new(overspill_store::ReadRoot::new(dir.path())?, overspill_tokens::o200k(), budget);
/// let got = Wc::run(&ctx, Args { file: "a.txt".into() })?;
/// assert_eq!(got.summary, "2 lines");
/// assert_eq!(args::schema::<Args>()["required"], serde_json::json!(["file"]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Tool: 'static {
    /// The name the model calls it by, e.g. `head`.
    const NAME: &'static str;

    /// One paragraph for the model: what the tool is for, when to reach for it, what it
    /// returns and how it pages.
    const DESCRIPTION: &'static str;

    /// The tool's line in the system prompt's list of tools, after its name: what it shows, in
    /// a few words and without a final full stop (`the first lines`). Required, so that a new
    /// tool cannot be left out of the prompt.
    const BLURB: &'static str;

    /// Whether the tool reads JSON only (on Markdown or text it could only answer `not_json`),
    /// so a pointer to such a file does not offer it.
    const JSON_ONLY: bool = false;

    /// The arguments: field docs are the descriptions the model reads; `Serialize` renders a
    /// retry's arguments, so optional fields should skip `None`.
    type Args: DeserializeOwned + Serialize + Clone + JsonSchema + 'static;

    /// What the shared `path` argument ([`crate::args::Located`]) means to this tool, for a
    /// tool that takes it: its description in the schema.
    const PATH_DOC: &'static str = "";

    /// What the shared `offset` argument ([`crate::args::Page`]) means to this tool.
    const OFFSET_DOC: &'static str = "";

    /// What the shared `limit` argument ([`crate::args::Page`]) means to this tool.
    const LIMIT_DOC: &'static str = "";

    /// Produces the body and summary for `args`. Never measures or charges.
    ///
    /// # Errors
    /// Any [`ToolError`] other than `TooLarge` (the delivery layer decides size).
    fn run(ctx: &ExploreContext, args: Self::Args) -> Result<Extraction, ToolError>;

    /// The next smaller call after `got` (the result of running `args`) was too large: the
    /// same call with its window halved, a different tool for a call with no window (`read`
    /// offers `head`), or a call that shows part of a unit too large on its own. Never `args`
    /// again, however written: the registry ends the chain at such a call, since a model that
    /// follows it loops. `None` when nothing smaller exists.
    fn smaller(ctx: &ExploreContext, args: &Self::Args, got: &Extraction) -> Option<Call> {
        let _ = (ctx, args, got);
        None
    }

    /// Plain-words advice for a too-large result of `args`, most useful first.
    fn suggestions(args: &Self::Args) -> Vec<String> {
        let _ = args;
        Vec::new()
    }
}

/// A tool that answers from its host's state rather than from a stored output: the artifact
/// tools (`write_artifact`, `read_artifact`) hold their run. It goes through the same
/// [`crate::Registry`] as the exploration tools ([`crate::Registry::with`]): listed and exported
/// with them, its definition made from its name, description and `Args` type, its arguments
/// read once by [`crate::args::parse`], and a call to it dispatched by name.
///
/// ```
/// use overspill_explore::{Caller, HostTool, Registry};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// /// A tool that tells the time of the host.
/// struct Clock(&'static str);
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Args {
///     /// The time zone to tell it in.
///     zone: String,
/// }
///
/// impl HostTool for Clock {
///     const NAME: &'static str = "clock";
///     const DESCRIPTION: &'static str = "Tell the time.";
///     type Args = Args;
///
///     fn answer(&self, _caller: &Caller<'_>, args: Args) -> String {
///         format!("{} in {}", self.0, args.zone)
///     }
/// }
///
/// let registry = Registry::none().with(Clock("noon"));
/// assert_eq!(registry.names(), ["clock"]);
/// let answer = registry.answer(None, "clock", &serde_json::json!({"zone": "UTC"}));
/// assert_eq!(answer, "noon in UTC");
/// ```
pub trait HostTool: Send + Sync + 'static {
    /// The name the model calls it by, e.g. `read_artifact`.
    const NAME: &'static str;

    /// One paragraph for the model: what the tool does and what it returns.
    const DESCRIPTION: &'static str;

    /// The arguments: field docs are the descriptions the model reads.
    type Args: DeserializeOwned + JsonSchema + 'static;

    /// Whether a string argument may be longer than [`crate::args::MAX_STRING_BYTES`]: true
    /// for a tool that keeps what it is given (`write_artifact`'s `content`) and bounds
    /// whatever of it its answer quotes; false (the default) holds it to the exploration
    /// tools' limit.
    const LONG_ARGUMENTS: bool = false;

    /// The text the model receives for `args`, called by `caller`. Never fails: an error is an
    /// answer too.
    fn answer(&self, caller: &Caller<'_>, args: Self::Args) -> String;
}

/// The agent that calls a [`HostTool`], as the registry knows it.
#[derive(Debug, Clone, Copy)]
pub struct Caller<'a> {
    /// The agent's exploration context (its read root, counter and budget); `None` for an
    /// agent that explores nothing (an orchestration coordinator).
    pub ctx: Option<&'a ExploreContext>,
    /// The exploration tools of the registry, which a pointer the tool answers with offers.
    pub tools: &'a [&'static str],
    /// The prefix the host puts before their names (`""` for none).
    pub tool_prefix: &'a str,
}

/// What a tool run produced, before the footer and the budget rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Extraction {
    /// The text the model reads, without a trailing newline.
    pub body: String,
    /// What was returned, for the footer: `lines 1-50 of 1,204`.
    pub summary: String,
    /// Extra facts for the footer (a cut line, lossy UTF-8, a literal search), each short.
    pub notes: Vec<String>,
    /// How many units (lines, matches, items) the body holds; `smaller` counts or halves on it.
    pub returned: u64,
    /// Set when the tool refused to render because the result certainly cannot fit: the
    /// estimated token count of the full result. The body is then empty.
    pub unrendered: Option<u64>,
}

impl Extraction {
    /// A rendered result.
    pub fn new(body: String, summary: impl Into<String>, returned: u64) -> Extraction {
        Extraction {
            body,
            summary: summary.into(),
            notes: Vec::new(),
            returned,
            unrendered: None,
        }
    }

    /// A result the tool did not render because it cannot fit; `estimated_tokens` is what it
    /// would have cost (e.g. `read` estimating a file from its size).
    pub fn unrendered(
        estimated_tokens: u64,
        summary: impl Into<String>,
        returned: u64,
    ) -> Extraction {
        Extraction {
            body: String::new(),
            summary: summary.into(),
            notes: Vec::new(),
            returned,
            unrendered: Some(estimated_tokens),
        }
    }

    /// Keeps the part of a result the tool rendered before it stopped (it stops once what it
    /// rendered cannot fit): the retry counts on it how many units do fit
    /// (`fit::units_that_fit`). Never shown to the model.
    #[must_use]
    pub fn with_rendered_start(mut self, start: String) -> Extraction {
        self.body = start;
        self
    }

    /// Adds a footer note.
    #[must_use]
    pub fn with_note(mut self, note: impl Into<String>) -> Extraction {
        self.notes.push(note.into());
        self
    }

    /// Adds several footer notes.
    #[must_use]
    pub fn with_notes(mut self, notes: impl IntoIterator<Item = String>) -> Extraction {
        self.notes.extend(notes);
        self
    }
}
