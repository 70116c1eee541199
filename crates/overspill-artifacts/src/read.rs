//! `read_artifact`: a worker (or the coordinator) loads an artifact of the run (docs/artifacts.md).
//!
//! For a worker the answer depends on its budget:
//!
//! - the artifact fits → its content, with the exploration tools' footer, charged to the
//!   budget by the same rule as every extraction ([`overspill_explore::delivery`]);
//! - it does not fit → a pointer ([`overspill_explore::Pointer`]) whose file reference is the
//!   artifact's path relative to the worker's scratchpad dir (`../../artifacts/x.txt`), which
//!   the read tools resolve in place through the worker's read root. Nothing is copied; the
//!   artifact's tokens count as intercepted, like any output kept out of the context.
//!
//! The coordinator has no budget and always gets the content inline.

use std::borrow::Cow;
use std::fs;
use std::path::{Path, PathBuf};

use overspill_explore::delivery;
use overspill_explore::{Caller, ExploreContext, Extraction, HostTool, Pointer, ToolError};
use overspill_store::{Format, ReadRoot, Stored, count_lines, relative_ref};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::listing::{Available, is_artifact};
use crate::name::check_file_name;
use crate::run::{Run, RunError};
use crate::write::PERSISTENCE_OFF;

/// The name the read is reported under, in footers and pointers.
const TOOL: &str = "read_artifact";

/// The arguments of the `read_artifact` tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReadArtifactArgs {
    /// The artifact's file name, e.g. `task-3-result.txt`.
    #[schemars(length(min = 1, max = 255))]
    pub filename: String,
    /// Another run of this session to read from. Default: the current run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub run_id: Option<String>,
}

/// Who is reading: the coordinator (no budget, always inline) or a worker, through its
/// exploration context (read root, counter, budget).
#[derive(Debug, Clone, Copy)]
pub enum Reader<'a> {
    /// The coordinator: no scratchpad, no budget.
    Coordinator,
    /// A worker: its context's read root must be the run's worker read root, based at its
    /// scratchpad dir ([`Run::open_worker_read_root`]). A pointer offers every exploration
    /// tool, unprefixed.
    Worker(&'a ExploreContext),
    /// A worker whose pointer offers the exploration tools it has (`tools`), named as it calls
    /// them (behind `tool_prefix`): what the `read_artifact` tool passes from its registry.
    WorkerOffering {
        /// As for [`Reader::Worker`].
        ctx: &'a ExploreContext,
        /// The exploration tools the worker has.
        tools: &'a [&'static str],
        /// The prefix of their names (`""` for none).
        tool_prefix: &'a str,
    },
}

/// Reads artifact `filename` of the current run (or of `run_id`, another run of the session)
/// and returns the text the model receives.
///
/// - Not found → `{"found": false, "filename": …, "available": [up to 40 names, newest
///   first], "available_omitted": N}` (`available_omitted` only when more exist; `run_id`
///   added when one was given).
/// - Found, read by the coordinator → the content as it is.
/// - Found, read by a worker, and it fits → the content and a footer, charged.
/// - Found, read by a worker, too large → a pointer to explore it in place.
/// - `filename` or `run_id` with a separator or `..`, or a run outside the session → an
///   `invalid_argument` error object; no persistence → `{"found": false, "filename": …,
///   "error": "…"}`.
pub fn read_artifact(
    run: Option<&Run>,
    reader: Reader<'_>,
    filename: &str,
    run_id: Option<&str>,
) -> String {
    let Some(run) = run else {
        return json!({"found": false, "filename": filename, "error": PERSISTENCE_OFF}).to_string();
    };
    if let Err(error) = check_file_name(filename) {
        return ToolError::invalid_argument(Some("filename"), error.to_string()).render();
    }
    let target = match run_id {
        Some(id) if id != run.run_id() => match run.sibling(id) {
            Ok(target) => Cow::Owned(target),
            Err(error) => {
                return ToolError::invalid_argument(Some("run_id"), run_id_message(&error))
                    .render();
            }
        },
        _ => Cow::Borrowed(run),
    };
    let dir = target.artifacts_dir();
    if !is_artifact(dir, filename) {
        return not_found(&target, filename, run_id);
    }
    let path = dir.join(filename);
    match reader {
        Reader::Coordinator => read_inline(dir, filename),
        Reader::Worker(ctx) => {
            let other_run = (target.run_id() != run.run_id()).then(|| target.run_id());
            read_for_worker(ctx, None, &path, filename, other_run)
        }
        Reader::WorkerOffering {
            ctx,
            tools,
            tool_prefix,
        } => {
            let other_run = (target.run_id() != run.run_id()).then(|| target.run_id());
            read_for_worker(ctx, Some((tools, tool_prefix)), &path, filename, other_run)
        }
    }
}

/// The `read_artifact` tool: [`read_artifact`] in the run it holds (`None` when persistence
/// is off), through the one [`overspill_explore::Registry`]. An agent with an exploration
/// context reads as a worker (with its budget); one without, as the coordinator.
#[derive(Debug, Clone)]
pub struct ReadArtifact {
    run: Option<Run>,
}

impl ReadArtifact {
    /// The tool reading `run`'s artifacts.
    pub fn new(run: Option<Run>) -> ReadArtifact {
        ReadArtifact { run }
    }
}

impl HostTool for ReadArtifact {
    const NAME: &'static str = TOOL;
    const DESCRIPTION: &'static str = "Load an artifact of this run: a file listed under INPUT \
        ARTIFACTS in your task, a result another task produced (`task-…-result.txt`), or a \
        `coordinator-…` file. Pass `filename` exactly as listed, without directories. A small \
        artifact comes back as its content. One too large for your remaining budget comes back \
        as a pointer instead: explore it in place with the read tools (schema, grep, slice, …), \
        passing the `file` the pointer gives. If the file does not exist, the answer lists the \
        available artifacts, newest first. `run_id` reads from an earlier run of the same \
        session.";
    type Args = ReadArtifactArgs;

    fn answer(&self, caller: &Caller<'_>, args: ReadArtifactArgs) -> String {
        let reader = match caller.ctx {
            Some(ctx) => Reader::WorkerOffering {
                ctx,
                tools: caller.tools,
                tool_prefix: caller.tool_prefix,
            },
            None => Reader::Coordinator,
        };
        read_artifact(
            self.run.as_ref(),
            reader,
            &args.filename,
            args.run_id.as_deref(),
        )
    }
}

/// The `found: false` answer, listing what the run holds.
fn not_found(run: &Run, filename: &str, run_id: Option<&str>) -> String {
    let available = match run.available() {
        Ok(available) => available,
        Err(error) => {
            tracing::warn!(%error, "could not list artifacts");
            Available::default()
        }
    };
    let mut out = Map::new();
    out.insert("found".to_owned(), json!(false));
    out.insert("filename".to_owned(), json!(filename));
    if let Some(run_id) = run_id {
        out.insert("run_id".to_owned(), json!(run_id));
    }
    available.insert_into(&mut out);
    Value::Object(out).to_string()
}

/// The coordinator's read: the whole content, decoded lossily if it is not UTF-8. Opened
/// through a read root at the artifacts dir, like every read: never out of it, never a FIFO
/// or device waited on, even one swapped in since [`is_artifact`] looked, never a file with a
/// second hard link. What stands at the name is refused with the code a worker's read gives
/// (`invalid_argument`); anything else is an `io_error`.
fn read_inline(dir: &Path, filename: &str) -> String {
    let opened = ReadRoot::new(dir).and_then(|root| root.open(filename));
    let bytes = match opened {
        Ok(mut file) => file.read_to_end(),
        Err(error) => {
            let message = format!("cannot read artifact `{filename}`: {error}");
            let error = if error.code() == "invalid_argument" {
                ToolError::invalid_argument(Some("filename"), message)
            } else {
                ToolError::Io {
                    file: filename.to_owned(),
                    message,
                }
            };
            return error.render();
        }
    };
    match bytes {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        },
        Err(error) => io_error(filename, &error),
    }
}

/// A worker's read: inline and charged when it fits, a pointer otherwise (offering `offered`
/// tools behind their prefix, or every exploration tool). `other_run` names the run read from
/// when it is not the current one (for the footer).
fn read_for_worker(
    ctx: &ExploreContext,
    offered: Option<(&[&str], &str)>,
    path: &Path,
    filename: &str,
    other_run: Option<&str>,
) -> String {
    let reference = match reference_from_base(ctx, path) {
        Ok(reference) => reference,
        Err(answer) => return answer,
    };
    let file = match ctx.open(&reference) {
        Ok(file) => file,
        Err(error) => return error.render(),
    };
    let bytes = file.bytes();
    let (text, lossy) = match std::str::from_utf8(bytes) {
        Ok(text) => (Cow::Borrowed(text), false),
        Err(_) => (String::from_utf8_lossy(bytes), true),
    };
    let lines = count_lines(&text);
    // A cheap first look, bounded by the limit: most large artifacts stop here.
    let limit = usize::try_from(ctx.token_limit()).unwrap_or(usize::MAX);
    if ctx.counter().count_up_to(&text, limit).is_some() {
        let noun = if lines == 1 { "line" } else { "lines" };
        let lines_shown = format!("{} {noun}", overspill_budget::thousands(lines as u64));
        let summary = match other_run {
            Some(run_id) => format!("{filename} of run {run_id} ({lines_shown})"),
            None => format!("{filename} ({lines_shown})"),
        };
        let mut extraction = Extraction::new(
            text.trim_end_matches('\n').to_owned(),
            summary,
            lines as u64,
        );
        if lossy {
            extraction = extraction.with_note("invalid UTF-8 shown as \u{FFFD}");
        }
        // Refused (too large with its footer, or a concurrent call spent the budget): point.
        if let Ok(answer) = delivery::deliver(ctx, TOOL, &extraction) {
            return answer.text;
        }
    }
    let tokens = ctx.counter().count(&text) as u64;
    ctx.budget().record_intercepted(tokens);
    let stored = Stored {
        file_name: reference,
        path: path.to_owned(),
        format: Format::detect(&text),
        bytes: file.size(),
        lines,
        companions: Vec::new(),
        already_existed: true,
    };
    let pointer = Pointer::new(TOOL, &stored, tokens, ctx.counter()).with_content(&text);
    match offered {
        Some((tools, prefix)) => pointer.with_tools(tools).with_tool_prefix(prefix).render(),
        None => pointer.render(),
    }
}

/// The artifact's path relative to the worker's base dir, checked to resolve to the artifact
/// through the worker's read root. Computed on canonical paths, so it is right however the
/// host spelled the directories.
fn reference_from_base(ctx: &ExploreContext, path: &Path) -> Result<String, String> {
    let root = ctx.root();
    let filename = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let canonical_target = fs::canonicalize(path).map_err(|error| io_error(&filename, &error))?;
    let base = root.base_dir();
    let below = base
        .strip_prefix(root.dir())
        .map(Path::to_owned)
        .unwrap_or_default();
    let canonical_base: PathBuf = root.canonical_dir().join(below);
    let reference = relative_ref(&canonical_base, &canonical_target);
    match reference {
        Some(reference)
            if root
                .resolve(&reference)
                .is_ok_and(|p| p == canonical_target) =>
        {
            Ok(reference)
        }
        _ => Err(ToolError::PathOutsideRoot {
            file: filename.clone(),
            message: format!(
                "artifact `{filename}` lies outside the directories this worker may read; the host \
                 must give the worker the run's read root (its session dir, or its run dir)"
            ),
        }
        .render()),
    }
}

/// The message for a refused `run_id`.
fn run_id_message(error: &RunError) -> String {
    match error {
        RunError::Layout(error) => {
            format!("{error}; pass a run id of this session, or leave `run_id` out")
        }
        other => other.to_string(),
    }
}

fn io_error(filename: &str, error: &std::io::Error) -> String {
    ToolError::Io {
        file: filename.to_owned(),
        message: format!(
            "cannot read artifact `{filename}`: {error}; try again, or check the file's permissions"
        ),
    }
    .render()
}

#[cfg(test)]
mod tests;
