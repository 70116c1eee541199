//! Gemini CLI's hooks (docs/hooks.md#gemini-cli), as Gemini CLI 0.61 reads their answers
//! (`DefaultHookOutput` and `BeforeToolHookOutput` in its bundle). Its AfterTool hook cannot
//! replace a result: it may deny it, which the model gets as `Tool result blocked: <reason>` with
//! an error, or add context after it. Its BeforeTool hook may change the tool's input
//! (`hookSpecificOutput.tool_input`), so a shell command is rewritten to run under `overspill
//! run`: its whole output is seen before Gemini CLI keeps only its head and tail, and the
//! model gets the pointer as the command's own output.

use anyhow::Context;
use overspill::config::ServerRules;
use serde_json::{Value, json};

use super::{claude_code, shell};
use crate::cmd::agent_pad::PadFlags;

/// Gemini CLI's shell tool.
const SHELL_TOOL: &str = "run_shell_command";

/// The BeforeTool matcher install writes: the shell tool alone.
pub const MATCHER: &str = "^run_shell_command$";

/// The thresholds without a `[hooks.gemini-cli.scratchpad]` table (docs/hooks.md#thresholds).
pub const DEFAULT_THRESHOLDS: &[(&str, u64)] = &[(SHELL_TOOL, 5_120)];

/// The answer to print for `input`, `None` when the tool call goes on unchanged.
///
/// # Errors
/// The input is not Gemini CLI's BeforeTool JSON, or the shell input has no command.
pub fn answer(
    input: &[u8],
    rules: Option<&ServerRules>,
    flags: &PadFlags,
) -> anyhow::Result<Option<Value>> {
    let input: super::Input =
        serde_json::from_slice(input).context("the hook input is not Gemini CLI's hook JSON")?;
    anyhow::ensure!(
        input.hook_event_name == "BeforeTool",
        "the hook input is of a {} hook; overspill answers Gemini CLI's BeforeTool",
        input.hook_event_name
    );
    if input.tool_name != SHELL_TOOL {
        tracing::debug!(
            tool = input.tool_name,
            "only a shell command is rewritten: passed"
        );
        return Ok(None);
    }
    let rules = claude_code::rules_or(rules, DEFAULT_THRESHOLDS)?;
    let Some(wrapped) =
        shell::wrapped_command("Gemini CLI", SHELL_TOOL, &input.tool_input, &rules, flags)?
    else {
        return Ok(None);
    };
    // Gemini CLI merges these fields into the tool's parameters.
    Ok(Some(json!({"hookSpecificOutput": {
        "hookEventName": "BeforeTool",
        "tool_input": {"command": wrapped},
    }})))
}

#[cfg(test)]
mod tests;
