//! The system-prompt section that tells the model how pointers and tools work.
//!
//! Its text depends only on the tools exposed and the agent's role, so it is the same on every
//! turn and its tokens are counted once, into the baseline (docs/budget.md).

use crate::explore::Definition;
use crate::role::Kind;

/// The section for `role` when the exploration tools `tools` are exposed, their names behind
/// `prefix`: one line per tool, in the order given, with its [`Definition::blurb`].
pub(crate) fn section(role: Kind, tools: &[&Definition], prefix: &str) -> String {
    if role == Kind::Coordinator {
        return "## Artifacts\n\
                Workers do not see this conversation. To hand a worker content that is too \
                large or too exact to restate in a task (a runbook draft, literal values), save \
                it with `write_artifact` and list the returned filename in the task's \
                `artifacts`. `read_artifact` shows an artifact of the run, such as a worker's \
                result."
            .to_owned();
    }
    let mut out = String::from(
        "## Large tool results\n\
         A tool result too large for your context is stored on disk, and you get a pointer \
         instead: a short text starting with `[overspill]` that names the stored file, its size \
         in tokens and its shape. Nothing is lost; read only the parts you need with these \
         tools, passing the pointer's file name as `file`:\n",
    );
    for tool in tools {
        let name = tool.name;
        match tool.blurb {
            Some(blurb) => out.push_str(&format!("- {prefix}{name}: {blurb}.\n")),
            None => out.push_str(&format!("- {prefix}{name}\n")),
        }
    }
    if role == Kind::Worker {
        out.push_str(
            "Load the files listed under INPUT ARTIFACTS, and other results of this run, with \
             `read_artifact`; a large one comes back as a pointer you explore the same way.\n",
        );
    }
    out.push_str(
        "Every result ends with a footer: what it returned, its token cost and how much of \
         your context budget is left. A result that would not fit comes back as an error such \
         as `get_in_too_large` with a ready-to-run smaller `retry` call: run it, or narrow the \
         request. Prefer grep and narrow windows to reading whole files.\n\
         To pass a stored result to another tool without reading it, give an argument the \
         exact string `overspill://<file>`, optionally with `#$.items[3]` or `#L10-L80`.",
    );
    out
}

#[cfg(test)]
mod tests;
