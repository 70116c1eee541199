//! Claude Code's PostToolUse hook (docs/hooks.md#claude-code): its input, the tools whose
//! output overspill replaces, and each one's shape. Claude Code checks a replacement against
//! the tool's own output schema and silently keeps the original when it does not match, so
//! each shape here is the tool's, field for field (Claude Code 2.1.332).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use anyhow::Context;
use overspill::ToolOutput;
use overspill::config::{PatternError, Rule, ServerRules, ToolPattern};
use serde_json::{Map, Value, json};

use super::{open_regular, read_text};
use crate::cmd::agent_pad::{self, AgentPad, GATEWAY_ENTRY};

/// The thresholds without a `[hooks.claude-code.scratchpad]` table (docs/hooks.md#thresholds).
/// A file is read to be changed, and the model needs its exact lines: a Read passes whole up to
/// about a thousand lines of code.
pub const DEFAULT_THRESHOLDS: &[(&str, u64)] = &[
    ("Bash", 5_120),
    ("Read", 10_000),
    ("WebFetch", 5_120),
    ("mcp__*", 5_120),
];

/// The tools whose output shape the hook knows, as Claude Code's hook matcher (a regular
/// expression, whole names only): what `overspill install claude-code` writes.
pub const MATCHER: &str = "^(Bash|Read|WebFetch|mcp__.*)$";

/// A tool whose output shape the hook knows.
enum Tool<'a> {
    Bash,
    Read,
    WebFetch,
    /// A tool of an MCP server (`mcp__<server>__<tool>`).
    Mcp {
        server: &'a str,
    },
}

/// The answer to print for `input`, `None` when the output passes unchanged. `rules` are the
/// configuration's thresholds, if it has them.
///
/// # Errors
/// The input is not a PostToolUse input, names a tool of unknown shape, or a file it names
/// cannot be read; the scratchpad cannot be made.
pub fn answer(
    input: &[u8],
    rules: Option<&ServerRules>,
    pad: &mut AgentPad<'_>,
) -> anyhow::Result<Option<Value>> {
    let input: super::Input = serde_json::from_slice(input)
        .context("the hook input is not Claude Code's PostToolUse JSON")?;
    anyhow::ensure!(
        input.hook_event_name == "PostToolUse",
        "the hook input is of a {} hook; overspill answers PostToolUse",
        input.hook_event_name
    );
    let name = input.tool_name.as_str();
    let tool = match name {
        "Bash" => Tool::Bash,
        "Read" => Tool::Read,
        "WebFetch" => Tool::WebFetch,
        _ => match mcp_server(name) {
            Some(GATEWAY_ENTRY) => {
                tracing::debug!(tool = name, "a tool of overspill's own entry: passed");
                return Ok(None);
            }
            Some(server) => Tool::Mcp { server },
            None => anyhow::bail!(
                "overspill knows no output shape of `{name}` (it replaces Bash, Read, WebFetch \
                 and MCP tools); give the hook the matcher \"{MATCHER}\""
            ),
        },
    };
    let rules = rules_or(rules, DEFAULT_THRESHOLDS)?;
    let Some(min_tokens) = rules.resolve(name).map(|rule| rule.min_tokens) else {
        tracing::debug!(tool = name, "no threshold: passed");
        return Ok(None);
    };
    let response = &input.tool_response;
    let replaced = match tool {
        Tool::Bash => bash(response, min_tokens, pad)?,
        Tool::Read => read(&input, min_tokens, pad)?,
        Tool::WebFetch => web_fetch(response, min_tokens, pad)?,
        Tool::Mcp { server } => mcp(name, server, response, min_tokens, pad)?,
    };
    Ok(replaced.map(|output| {
        json!({"hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "updatedToolOutput": output,
        }})
    }))
}

/// The MCP server of a tool named as the clients name a server's tools
/// (`mcp__<server>__<tool>`); `None` for a tool of the client's own.
pub(super) fn mcp_server(tool: &str) -> Option<&str> {
    let rest = tool.strip_prefix("mcp__")?;
    Some(rest.split("__").next().unwrap_or_default())
}

/// The configuration's thresholds of a client's hook, else its `defaults`.
///
/// # Errors
/// The defaults do not compile (a bug, caught by each client's tests).
pub(super) fn rules_or<'a>(
    rules: Option<&'a ServerRules>,
    defaults: &[(&str, u64)],
) -> anyhow::Result<Cow<'a, ServerRules>> {
    Ok(match rules {
        Some(rules) => Cow::Borrowed(rules),
        None => Cow::Owned(thresholds(defaults).context("the default thresholds do not compile")?),
    })
}

/// A table of `(tool pattern, min_tokens)` as the rules a `[hooks.<client>.scratchpad]` table
/// would be.
fn thresholds(table: &[(&str, u64)]) -> Result<ServerRules, PatternError> {
    let rules = table
        .iter()
        .map(|&(pattern, min_tokens)| Ok(Rule::new(ToolPattern::new(pattern)?, min_tokens)))
        .collect::<Result<Vec<_>, PatternError>>()?;
    ServerRules::new(rules)
}

/// Bash: `{stdout, stderr, interrupted, isImage, noOutputExpected}`. Its whole stdout is in
/// `persistedOutputPath` when Claude Code cut it; stdout and stderr are each replaced when over
/// the threshold, as `overspill run` does.
fn bash(
    response: &Value,
    min_tokens: u64,
    pad: &mut AgentPad<'_>,
) -> anyhow::Result<Option<Value>> {
    let fields = response
        .as_object()
        .context("Bash's tool_response is not an object")?;
    if fields.get("isImage").and_then(Value::as_bool) == Some(true) {
        tracing::debug!("Bash printed an image: passed");
        return Ok(None);
    }
    let text = |key: &str| fields.get(key).and_then(Value::as_str).unwrap_or_default();
    let persisted = fields
        .get("persistedOutputPath")
        .and_then(Value::as_str)
        .filter(|path| !path.is_empty());
    let stdout = match persisted {
        Some(path) => {
            let path = Path::new(path);
            let (file, bytes) = open_regular(path)
                .context("Claude Code's file of the whole Bash output (persistedOutputPath)")?;
            if bytes < min_tokens {
                None
            } else {
                store(pad, "", "Bash", read_text(file, path)?, min_tokens)?
            }
        }
        None => store(pad, "", "Bash", text("stdout").to_owned(), min_tokens)?,
    };
    let stderr = store(
        pad,
        "",
        "Bash_stderr",
        text("stderr").to_owned(),
        min_tokens,
    )?;
    if stdout.is_none() && stderr.is_none() {
        return Ok(None);
    }
    let mut shape = Map::new();
    let kept_stdout = stdout.is_none();
    shape.insert(
        "stdout".into(),
        json!(stdout.as_deref().unwrap_or(text("stdout"))),
    );
    shape.insert(
        "stderr".into(),
        json!(stderr.as_deref().unwrap_or(text("stderr"))),
    );
    let interrupted = fields.get("interrupted").and_then(Value::as_bool);
    shape.insert("interrupted".into(), json!(interrupted.unwrap_or(false)));
    shape.insert("isImage".into(), json!(false));
    let quiet = fields.get("noOutputExpected").and_then(Value::as_bool);
    shape.insert("noOutputExpected".into(), json!(quiet.unwrap_or(false)));
    if kept_stdout {
        // The cut stdout stays, with where Claude Code keeps the rest.
        for key in ["persistedOutputPath", "persistedOutputSize"] {
            if let Some(value) = fields.get(key) {
                shape.insert(key.into(), value.clone());
            }
        }
    }
    Ok(Some(Value::Object(shape)))
}

/// Read: `{type: "text", file: {filePath, content, numLines, startLine, totalLines}}`. The
/// decision is on what the model would get (`content`, which Claude Code may have cut), the
/// whole file is stored as written (a JSON file too, not re-indented), so that a line number
/// the model reads with `slice` is the file's, and the text it copies from there for an Edit is
/// (docs/hooks.md#claude-code).
fn read(
    input: &super::Input,
    min_tokens: u64,
    pad: &mut AgentPad<'_>,
) -> anyhow::Result<Option<Value>> {
    let response = &input.tool_response;
    if response.get("type").and_then(Value::as_str) != Some("text") {
        tracing::debug!("a Read of an image, a PDF or a notebook: passed");
        return Ok(None);
    }
    let file = response
        .get("file")
        .and_then(Value::as_object)
        .context("Read's tool_response has no `file` object")?;
    let content = file
        .get("content")
        .and_then(Value::as_str)
        .context("Read's tool_response has no `file.content` text")?;
    // Fewer bytes than the threshold: fewer tokens too, known without a count.
    if (content.len() as u64) < min_tokens {
        return Ok(None);
    }
    let threshold = usize::try_from(min_tokens).unwrap_or(usize::MAX);
    if pad.counter().is_below(content, threshold) {
        return Ok(None);
    }
    let written = file
        .get("filePath")
        .and_then(Value::as_str)
        .or_else(|| input.tool_input.get("file_path").and_then(Value::as_str))
        .context("Read's input names no file (filePath, file_path)")?;
    let path = match &input.cwd {
        Some(cwd) => cwd.join(written),
        None => PathBuf::from(written),
    };
    let (opened, _) = open_regular(&path).context("the file Read read")?;
    let whole = read_text(opened, &path)?;
    let total_lines = whole.lines().count();
    // Over the threshold already, by what the model would get: stored whatever its count.
    let output = ToolOutput::text(whole)
        .with_min_tokens(0)
        .stored_as_written();
    let Some(pointer) = agent_pad::pointer(pad.get()?, "", "Read", output) else {
        return Ok(None);
    };
    Ok(Some(json!({
        "type": "text",
        "file": {
            "filePath": written,
            "numLines": pointer.lines().count(),
            "startLine": 1,
            "totalLines": file.get("totalLines").cloned().unwrap_or(json!(total_lines)),
            "content": pointer,
        }
    })))
}

/// WebFetch: its own object, with `result` (what the model reads) replaced.
fn web_fetch(
    response: &Value,
    min_tokens: u64,
    pad: &mut AgentPad<'_>,
) -> anyhow::Result<Option<Value>> {
    let result = response
        .get("result")
        .and_then(Value::as_str)
        .context("WebFetch's tool_response has no `result` text")?;
    let Some(pointer) = store(pad, "", "WebFetch", result.to_owned(), min_tokens)? else {
        return Ok(None);
    };
    let mut shape = response.clone();
    if let Some(fields) = shape.as_object_mut() {
        fields.insert("result".into(), json!(pointer));
    }
    Ok(Some(shape))
}

/// An MCP tool of a server not behind overspill: the pointer to its stored result, as a
/// content array of one text block.
fn mcp(
    tool: &str,
    server: &str,
    response: &Value,
    min_tokens: u64,
    pad: &mut AgentPad<'_>,
) -> anyhow::Result<Option<Value>> {
    let Some(pointer) = mcp_pointer(tool, server, response, min_tokens, pad)? else {
        return Ok(None);
    };
    let result = ToolOutput::text(pointer).into_mcp();
    Ok(result.get("content").cloned())
}

/// The pointer that replaces the result of an MCP tool of a server not behind overspill, `None`
/// when it passes: the result (a content array, a text, or a `CallToolResult`) is stored by the
/// rules every MCP result is stored by (docs/facade.md#2-intercepting).
pub(super) fn mcp_pointer(
    tool: &str,
    server: &str,
    response: &Value,
    min_tokens: u64,
    pad: &mut AgentPad<'_>,
) -> anyhow::Result<Option<String>> {
    // What is stored is at most the result's JSON text: its text unescaped, or its
    // structuredContent as written.
    if (response.to_string().len() as u64) < min_tokens {
        return Ok(None);
    }
    let output = match response {
        Value::String(text) => ToolOutput::text(text.clone()),
        Value::Array(content) => ToolOutput::mcp(json!({"content": content})),
        Value::Object(_) => ToolOutput::mcp(response.clone()),
        _ => anyhow::bail!("the tool_response of `{tool}` is neither a text nor an MCP result"),
    };
    let pad = pad.get()?;
    Ok(agent_pad::pointer(
        pad,
        server,
        tool,
        output.with_min_tokens(min_tokens),
    ))
}

/// The pointer that replaces `text`, `None` when it passes: fewer bytes than the threshold
/// (decided before anything is built), or fewer tokens.
fn store(
    pad: &mut AgentPad<'_>,
    server: &str,
    tool: &str,
    text: String,
    min_tokens: u64,
) -> anyhow::Result<Option<String>> {
    if (text.len() as u64) < min_tokens {
        return Ok(None);
    }
    let output = ToolOutput::text(text).with_min_tokens(min_tokens);
    Ok(agent_pad::pointer(pad.get()?, server, tool, output))
}

#[cfg(test)]
mod tests;
