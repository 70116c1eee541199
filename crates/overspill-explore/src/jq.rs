//! Running a jq filter over one stored JSON file, bounded, with errors in plain words.
//!
//! [`run`] compiles the filter (`jaq-core` with `jaq-std` and `jaq-json`), instruments it
//! (`guard`), and evaluates it on a thread of its own with a large stack, so
//! deep recursion inside jaq cannot overflow the caller's stack. It returns the results of
//! the requested window as compact JSON lines and how many results there are in all.
//!
//! ```
//! use overspill_explore::jq::{run, Limits, Window};
//!
//! let doc = br#"{"items": [{"n": "a", "ok": true}, {"n": "b", "ok": false}, {"n": "c", "ok": true}]}"#;
//! let out = run(".items[] | select(.ok) | .n", doc, Window::all(), &Limits::default()).unwrap();
//! assert_eq!(out.results, [r#""a""#, r#""c""#]);
//! assert_eq!(out.total, Some(2));
//!
//! let error = run(".items[] | frobnicate", doc, Window::all(), &Limits::default()).unwrap_err();
//! assert!(error.to_string().starts_with("the filter calls `frobnicate`, which jq does not define"));
//! ```

mod document;
pub(crate) mod guard;
mod iterate;
mod natives;
mod ordering;
mod regex;
mod rewrite;
mod text;

use std::fmt::{self, Write as _};

use jaq_core::compile::Compiler;
use jaq_core::load::{self, Arena, File, Loader};
use jaq_core::{Ctx, Vars};
use jaq_json::Val;

pub use self::document::Document;
use self::guard::Data;
pub use self::guard::{Limits, Tripped};
use self::rewrite::NativeNames;

/// The longest filter accepted.
pub const MAX_FILTER_BYTES: usize = 16 << 10;

/// The deepest bracket nesting accepted in a filter's text.
pub const MAX_FILTER_NESTING: usize = 128;

/// Stack of the evaluation thread (reserved address space; only what is used is backed).
const EVAL_STACK_BYTES: usize = 512 << 20;

/// Longest error message quoted from jaq.
const MAX_MESSAGE_CHARS: usize = 300;

/// Which results to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// First result rendered (0-based).
    pub offset: u64,
    /// Most results rendered; `None` for all.
    pub limit: Option<u64>,
}

impl Window {
    /// Every result.
    pub fn all() -> Window {
        Window {
            offset: 0,
            limit: None,
        }
    }
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The window's results, compact JSON, in order.
    pub results: Vec<String>,
    /// All results of the filter, when the run counted them to the end; `None` when a limit
    /// stopped the count after the window was complete (see `counted`).
    pub total: Option<u64>,
    /// Results counted before the count stopped (equals `total` when that is known).
    pub counted: u64,
    /// What stopped the count after the window, if something did.
    pub count_stopped: Option<String>,
    /// The filter called `halt`: the results end there.
    pub halted: bool,
}

/// Why a query produced no outcome.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// The filter does not parse or compile.
    #[error("{0}")]
    Invalid(String),
    /// The filter failed on its input.
    #[error("the filter failed after {results} result(s): {message}")]
    Runtime {
        /// Results produced before the failure.
        results: u64,
        /// jaq's message, cut short.
        message: String,
    },
    /// A bound stopped the run before the window was complete.
    #[error("{message}")]
    Limit {
        /// Which bound.
        limit: LimitKind,
        /// What happened and what to do.
        message: String,
    },
    /// The window's results are more text than a run renders.
    #[error("the results are larger than {bytes} bytes")]
    TooLarge {
        /// Bytes rendered before stopping.
        bytes: usize,
        /// Results rendered before stopping.
        results: u64,
    },
    /// The filter called a jq builtin that `query` does not offer (`input_filename`, `now`,
    /// `$__loc__` …): it sees only the stored file.
    #[error("{message}")]
    Unavailable {
        /// The builtin.
        name: String,
        /// What happened and what to do.
        message: String,
    },
    /// The evaluation could not run (thread creation failed, or jaq panicked).
    #[error("{0}")]
    Internal(String),
}

/// Which bound a [`QueryError::Limit`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    /// An evaluation limit ([`Tripped`]).
    Evaluation(Tripped),
    /// More results than [`Limits::max_results`] with no `limit` given.
    Results,
    /// A result nests deeper than [`Limits::max_nesting`].
    ResultNesting,
}

impl LimitKind {
    /// A short name for the limit: `time`, `steps`, `results`, …
    pub fn name(self) -> &'static str {
        match self {
            LimitKind::Evaluation(Tripped::Steps) => "steps",
            LimitKind::Evaluation(Tripped::Time) => "time",
            LimitKind::Evaluation(Tripped::Stack) => "recursion",
            LimitKind::Evaluation(Tripped::ValueSize) => "value_size",
            LimitKind::Evaluation(Tripped::Produced) => "memory",
            LimitKind::Evaluation(Tripped::Nesting) | LimitKind::ResultNesting => "nesting",
            LimitKind::Results => "results",
        }
    }
}

/// Runs `filter` on the JSON document `input` and renders `window` of its results.
///
/// # Errors
/// [`QueryError`]: the filter is invalid, fails, hits a limit before the window is
/// complete, or renders more than [`Limits::max_output_bytes`].
pub fn run(
    filter: &str,
    input: &[u8],
    window: Window,
    limits: &Limits,
) -> Result<Outcome, QueryError> {
    run_with(filter, || Document::parse(input), window, limits)
}

/// [`run`] on a document `load` gives, called on the evaluation thread (whose large stack
/// a deep document may need to parse): the query tool loads it from the file cache, so a
/// file is parsed for jq once, not on every query.
///
/// # Errors
/// Those of [`run`], and whatever `load` returns.
pub fn run_with(
    filter: &str,
    load: impl FnOnce() -> Result<Document, QueryError> + Send,
    window: Window,
    limits: &Limits,
) -> Result<Outcome, QueryError> {
    if filter.len() > MAX_FILTER_BYTES {
        return Err(QueryError::Invalid(format!(
            "the filter is {} bytes long, more than the {MAX_FILTER_BYTES} a query accepts; \
             write a shorter filter",
            filter.len()
        )));
    }
    if rewrite::text_nesting(filter) > MAX_FILTER_NESTING {
        return Err(QueryError::Invalid(format!(
            "the filter nests brackets more than {MAX_FILTER_NESTING} deep; write a flatter filter"
        )));
    }
    let limits = *limits;
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("overspill-query".to_owned())
            .stack_size(EVAL_STACK_BYTES)
            .spawn_scoped(scope, move || evaluate(filter, load, window, limits))
            .map_err(|error| {
                QueryError::Internal(format!("the query could not start ({error}); try again"))
            })?;
        worker.join().unwrap_or_else(|_| {
            Err(QueryError::Internal(
                "the query stopped unexpectedly inside the jq engine; try a simpler filter"
                    .to_owned(),
            ))
        })
    })
}

type Filter = jaq_core::compile::Filter<jaq_core::Native<Data>>;

fn evaluate(
    filter: &str,
    load: impl FnOnce() -> Result<Document, QueryError>,
    window: Window,
    limits: Limits,
) -> Result<Outcome, QueryError> {
    let program = compile(filter)?;
    let input = load()?.into_value();
    // Held while the filter runs, so the guard sees the document as shared, never as a value
    // the filter built (`guard::fresh_bytes`).
    let _document = input.clone();
    guard::arm(limits);
    let outcome = drive(&program, input, window, &limits);
    let tripped = guard::disarm();
    outcome.map_err(|error| match (error, tripped) {
        (Stop::Tripped, Some(tripped)) | (Stop::Halted, Some(tripped)) => limit(tripped, &limits),
        (Stop::Error(error), _) => error,
        (Stop::Tripped | Stop::Halted, None) => {
            QueryError::Internal("the query stopped without a reason; try again".to_owned())
        }
    })
}

enum Stop {
    Error(QueryError),
    Tripped,
    Halted,
}

fn drive(program: &Filter, input: Val, window: Window, limits: &Limits) -> Result<Outcome, Stop> {
    let ctx = Ctx::<Data>::new(&program.lut, Vars::new([]));
    let mut results = Vec::new();
    let mut bytes = 0usize;
    let mut index = 0u64;
    let end = window.limit.map(|n| window.offset.saturating_add(n));
    let in_window = |i: u64| i >= window.offset && end.is_none_or(|end| i < end);
    let window_done = |i: u64| end.is_some_and(|end| i >= end);
    let mut count_stopped = None;
    let mut halted = false;
    for result in program.id.run((ctx, input)) {
        if guard::check_time().is_err() || guard::tripped().is_some() {
            if window_done(index) {
                count_stopped = Some(stopped_count(guard::tripped()));
                break;
            }
            return Err(Stop::Tripped);
        }
        let value = match result {
            Ok(value) => value,
            Err(exn) => match exn.get_err() {
                Ok(error) => {
                    if window_done(index) {
                        count_stopped = Some("an error in the filter stopped the count".to_owned());
                        break;
                    }
                    // An error may quote a value as large or as deep as any: only its start is
                    // written (writing stops at the cap, before it recurses further).
                    let mut capped = Capped {
                        text: String::new(),
                        room: 8 * MAX_MESSAGE_CHARS,
                    };
                    let _ = write!(capped, "{error}");
                    let text = capped.text;
                    // An error raised with a string value displays as JSON; show the text.
                    let text = serde_json::from_str::<String>(&text).unwrap_or(text);
                    if let Some(name) = guard::refused() {
                        return Err(Stop::Error(QueryError::Unavailable {
                            name,
                            message: shorten(&text),
                        }));
                    }
                    return Err(Stop::Error(QueryError::Runtime {
                        results: index,
                        message: shorten(&text),
                    }));
                }
                Err(other) => {
                    if other.get_halt().is_err() {
                        return Err(Stop::Error(QueryError::Internal(
                            "the jq engine reported an internal control-flow error; try a \
                             simpler filter"
                                .to_owned(),
                        )));
                    }
                    if guard::tripped().is_some() {
                        if window_done(index) {
                            count_stopped = Some(stopped_count(guard::tripped()));
                            break;
                        }
                        return Err(Stop::Halted);
                    }
                    halted = true;
                    break;
                }
            },
        };
        if in_window(index) {
            // Rendering recurses on the value's nesting: check all it can reach first.
            let room = limits.max_output_bytes.saturating_sub(bytes);
            if guard::nests_deeper_within(&value, limits.max_nesting, room) {
                return Err(Stop::Error(QueryError::Limit {
                    limit: LimitKind::ResultNesting,
                    message: format!(
                        "result {index} nests deeper than {} levels, too deep to show; select a \
                         part of it (e.g. `| keys` or `| .field`)",
                        limits.max_nesting
                    ),
                }));
            }
            let mut text = Capped {
                text: String::new(),
                room: limits.max_output_bytes.saturating_sub(bytes),
            };
            if write!(text, "{value}").is_err() {
                return Err(Stop::Error(QueryError::TooLarge {
                    bytes: limits.max_output_bytes,
                    results: index.saturating_sub(window.offset),
                }));
            }
            bytes += text.text.len() + 1;
            results.push(text.text);
        }
        index += 1;
        if index > limits.max_results {
            if window_done(index) {
                count_stopped = Some(format!(
                    "counting stopped at {} results",
                    crate::numbered::thousands(limits.max_results)
                ));
                break;
            }
            return Err(Stop::Error(QueryError::Limit {
                limit: LimitKind::Results,
                message: format!(
                    "the filter produces more than {} results; pass `limit` (e.g. 50) to read \
                     them in pages, or narrow the filter (`first(…)`, `limit(n; …)`, `select(…)`)",
                    crate::numbered::thousands(limits.max_results)
                ),
            }));
        }
    }
    Ok(Outcome {
        results,
        total: count_stopped.is_none().then_some(index),
        counted: index,
        count_stopped,
        halted,
    })
}

fn stopped_count(tripped: Option<Tripped>) -> String {
    let what = match tripped {
        Some(Tripped::Time) => "the time limit",
        Some(Tripped::Steps) => "the step limit",
        _ => "an evaluation limit",
    };
    format!("{what} stopped the count")
}

fn limit(tripped: Tripped, limits: &Limits) -> QueryError {
    let message = match tripped {
        Tripped::Steps => format!(
            "the filter ran for more than {} evaluation steps without finishing (an endless \
             generator such as repeat(.) or range(1e12), or a walk over a very large file); \
             bound it with first(…), limit(n; …) or a narrower path such as .items[0:100]",
            crate::numbered::thousands(limits.max_steps)
        ),
        Tripped::Time => format!(
            "the filter ran for more than {} seconds; bound it with first(…) or limit(n; …), \
             or query a narrower part of the file",
            limits.max_time.as_secs()
        ),
        Tripped::Stack => "the filter recursed too deeply; a recursive definition probably \
             never reaches its base case"
            .to_owned(),
        Tripped::ValueSize => format!(
            "the filter built a single value larger than {} MB; build smaller values",
            limits.max_value_bytes >> 20
        ),
        Tripped::Produced => format!(
            "the filter built more than {} MB of values in total; select less, or project \
             fewer fields",
            limits.max_produced_bytes >> 20
        ),
        Tripped::Nesting => format!(
            "the filter built a value nested deeper than {} levels",
            limits.max_nesting
        ),
    };
    QueryError::Limit {
        limit: LimitKind::Evaluation(tripped),
        message,
    }
}

struct Capped {
    text: String,
    room: usize,
}

impl fmt::Write for Capped {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.text.len() + s.len() > self.room {
            // Keep what fits (an error message is shown cut), then stop the writer.
            let mut end = self.room.saturating_sub(self.text.len()).min(s.len());
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            self.text.push_str(&s[..end]);
            return Err(fmt::Error);
        }
        self.text.push_str(s);
        Ok(())
    }
}

fn shorten(message: &str) -> String {
    if message.chars().count() <= MAX_MESSAGE_CHARS {
        return message.to_owned();
    }
    let cut: String = message.chars().take(MAX_MESSAGE_CHARS).collect();
    format!("{cut}…")
}

/// Compiles `code` into an instrumented program.
fn compile(code: &str) -> Result<Filter, QueryError> {
    // Syntax first, with jaq's own loader, for its error positions.
    let arena = Arena::default();
    if let Err(errors) = Loader::new([]).load(&arena, File { code, path: () }) {
        return Err(QueryError::Invalid(load_errors(code, errors)));
    }
    let Some(term) = load::parse(code, |p| p.term()) else {
        return Err(QueryError::Invalid(
            "the filter does not parse; check its brackets and quotes".to_owned(),
        ));
    };
    let funs = natives::natives();
    let names = NativeNames::of(&funs);
    let main = load::parse::Def {
        name: "__overspill_main",
        args: Vec::new(),
        body: names.term(term),
    };
    let mut prelude = rewrite::prelude(&names);
    prelude.push(names.def(main));
    let modules = Loader::new(prelude)
        .load(
            &arena,
            File {
                code: "__overspill_main",
                path: (),
            },
        )
        .map_err(|errors| QueryError::Invalid(load_errors(code, errors)))?;
    Compiler::default()
        .with_funs(funs)
        .compile(modules)
        .map_err(|errors| {
            let undefined: Vec<(&str, jaq_core::compile::Undefined)> =
                errors.into_iter().flat_map(|(_, e)| e).collect();
            QueryError::Invalid(undefined_message(&undefined))
        })
}

fn load_errors(code: &str, errors: load::Errors<&str, ()>) -> String {
    let mut parts = Vec::new();
    for (_, error) in errors {
        match error {
            load::Error::Io(_) => parts.push(
                "modules cannot be loaded in query (no `include` or `import`): a filter sees \
                 only the stored file"
                    .to_owned(),
            ),
            load::Error::Lex(items) => {
                for (expect, found) in items {
                    let expected = match expect {
                        load::lex::Expect::Digit => "a digit",
                        load::lex::Expect::Ident => "a name",
                        load::lex::Expect::Delim("(") => "a closing parenthesis",
                        load::lex::Expect::Delim("[") => "a closing bracket",
                        load::lex::Expect::Delim("{") => "a closing brace",
                        load::lex::Expect::Delim(_) => "a closing quote",
                        load::lex::Expect::Escape => "a valid escape sequence",
                        load::lex::Expect::Unicode => "a 4-digit hexadecimal code point",
                        _ => "a valid token",
                    };
                    parts.push(format!("expected {expected} {}", position(code, found)));
                }
            }
            load::Error::Parse(items) => {
                for (expect, found) in items {
                    parts.push(format!(
                        "expected {} {}",
                        expect.as_str(),
                        position(code, found)
                    ));
                }
            }
        }
    }
    format!("the filter does not parse: {}", parts.join("; "))
}

/// `at "…" (character N)` or `at the end`.
fn position(code: &str, found: &str) -> String {
    if found.is_empty() {
        return "at the end of the filter".to_owned();
    }
    let range = load::span(code, found);
    let at = code.get(..range.start).map_or(0, |s| s.chars().count());
    let shown: String = found.chars().take(20).collect();
    format!("at `{shown}` (character {})", at + 1)
}

fn undefined_message(undefined: &[(&str, jaq_core::compile::Undefined)]) -> String {
    let mut parts = Vec::new();
    for (name, what) in undefined {
        let name = *name;
        let sentence = match (name, what) {
            ("$ENV", _) | ("env", _) => {
                "`$ENV` is not available: a filter sees only the stored file, not the environment"
                    .to_owned()
            }
            ("input" | "inputs", _) => {
                format!("`{name}` is not available: the file is the only input, and it is `.`")
            }
            ("input_filename" | "$__prog_args" | "get_search_list" | "input_line_number", _) => {
                format!("`{name}` is not available in query")
            }
            (_, jaq_core::compile::Undefined::Var) => {
                format!(
                    "the filter uses the variable `{name}`, which is not bound (bind it with `… as {name}`)"
                )
            }
            (_, jaq_core::compile::Undefined::Filter(arity)) => format!(
                "the filter calls `{name}`, which jq does not define with {arity} argument(s)"
            ),
            (_, other) => format!("the filter uses the undefined {} `{name}`", other.as_str()),
        };
        if !parts.contains(&sentence) {
            parts.push(sentence);
        }
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests;
