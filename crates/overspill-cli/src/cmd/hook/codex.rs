//! Codex's hooks (docs/hooks.md#codex): what Codex 0.171 lets a hook change, read from its
//! hook schemas (`pre-tool-use.command.output`, `post-tool-use.command.output`) and measured. A
//! PostToolUse hook may block a result with a reason, which the model then gets in the output's
//! place (its `updatedMCPToolOutput` fails in every shape); a shell's output is cut by Codex to
//! about 10 KiB whatever a hook answers after it, so the shell command is rewritten before it
//! runs instead, by PreToolUse (`updatedInput`, which Codex takes only with
//! `permissionDecision: "allow"`), to run under `overspill run`.

use anyhow::Context;
use overspill::config::ServerRules;
use serde_json::{Value, json};

use super::{claude_code, shell};
use crate::cmd::agent_pad::{AgentPad, GATEWAY_ENTRY, PadFlags};

/// The PreToolUse matcher: Codex names every shell tool (`shell`, `exec_command`,
/// `local_shell`, …) `Bash` in a hook's input, with the command as `tool_input.command`.
pub const PRE_MATCHER: &str = "^Bash$";

/// The PostToolUse matcher: the tools of MCP servers (`mcp__<server>__<tool>`).
pub const POST_MATCHER: &str = "^mcp__.*$";

/// The thresholds without a `[hooks.codex.scratchpad]` table: a shell output and an MCP
/// result, as Claude Code's (docs/hooks.md#thresholds).
pub const DEFAULT_THRESHOLDS: &[(&str, u64)] = &[("Bash", 5_120), ("mcp__*", 5_120)];

/// The answer to print for `input`, `None` when the tool call goes on unchanged.
///
/// # Errors
/// The input is not Codex's PreToolUse or PostToolUse JSON, a shell input has no command, or
/// the scratchpad cannot be made.
pub fn answer(
    input: &[u8],
    rules: Option<&ServerRules>,
    flags: &PadFlags,
    pad: &mut AgentPad<'_>,
) -> anyhow::Result<Option<Value>> {
    let input: super::Input =
        serde_json::from_slice(input).context("the hook input is not Codex's hook JSON")?;
    let name = input.tool_name.as_str();
    let rules = claude_code::rules_or(rules, DEFAULT_THRESHOLDS)?;
    match input.hook_event_name.as_str() {
        "PreToolUse" if name == "Bash" => {
            let Some(wrapped) =
                shell::wrapped_command("Codex", name, &input.tool_input, &rules, flags)?
            else {
                return Ok(None);
            };
            // The input's other fields (workdir, timeout) are the tool's; only the command
            // changes (Codex refuses a hook that changes the tool's environment).
            let mut updated = input.tool_input.clone();
            if let Some(fields) = updated.as_object_mut() {
                fields.insert("command".into(), json!(wrapped));
            }
            Ok(Some(json!({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": updated,
            }})))
        }
        "PostToolUse" => {
            let Some(server) = claude_code::mcp_server(name) else {
                tracing::debug!(
                    tool = name,
                    "Codex replaces only an MCP tool's output: passed"
                );
                return Ok(None);
            };
            if server == GATEWAY_ENTRY {
                tracing::debug!(tool = name, "a tool of overspill's own entry: passed");
                return Ok(None);
            }
            let Some(min_tokens) = rules.resolve(name).map(|rule| rule.min_tokens) else {
                tracing::debug!(tool = name, "no threshold: passed");
                return Ok(None);
            };
            let Some(pointer) =
                claude_code::mcp_pointer(name, server, &input.tool_response, min_tokens, pad)?
            else {
                return Ok(None);
            };
            // Codex 0.171 fails every `updatedMCPToolOutput` (a result, a content array, a
            // text: "PostToolUse Failed", the output kept); a block's reason is what the model
            // gets in the output's place (docs/hooks.md#codex).
            Ok(Some(json!({"decision": "block", "reason": pointer})))
        }
        "PreToolUse" => {
            tracing::debug!(tool = name, "only a shell command is rewritten: passed");
            Ok(None)
        }
        other => anyhow::bail!(
            "the hook input is of a {other} hook; overspill answers Codex's PreToolUse and \
             PostToolUse"
        ),
    }
}

#[cfg(test)]
mod tests;
