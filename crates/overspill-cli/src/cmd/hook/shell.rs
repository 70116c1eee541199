//! A shell command rewritten to run under `overspill run` (docs/hooks.md#a-shell-command-under-overspill-run):
//! for clients whose hooks cannot replace a shell's output after it ran (Codex, Gemini CLI) but
//! may change the command before it runs. The command still runs in the user's shell, with its
//! exit status and small outputs unchanged; a large stdout or stderr reaches the model as the
//! pointer, before the client cuts it.

use std::path::Path;

use anyhow::Context;
use overspill::config::ServerRules;
use serde_json::Value;

use crate::cmd::agent_pad::PadFlags;

/// The command of `client`'s shell tool `tool`, whose input is `tool_input`, as it runs under
/// `overspill run` with the threshold `rules` give `tool`; `None` when it runs as it is (no
/// threshold, already under `overspill run`, or empty).
///
/// # Errors
/// The input has no `command` text, or overspill's own path cannot be found.
pub fn wrapped_command(
    client: &str,
    tool: &str,
    tool_input: &Value,
    rules: &ServerRules,
    flags: &PadFlags,
) -> anyhow::Result<Option<String>> {
    let Some(min_tokens) = rules.resolve(tool).map(|rule| rule.min_tokens) else {
        tracing::debug!("no threshold for {tool}: the command runs as it is");
        return Ok(None);
    };
    let command = tool_input
        .get("command")
        .and_then(Value::as_str)
        .with_context(|| format!("{client}'s {tool} input has no `command` text"))?;
    let program = std::env::current_exe().context("cannot find overspill's own path")?;
    Ok(under_run(command, &program, flags, min_tokens, tool))
}

/// `command` as it runs under `overspill run`: `program` (this binary) with the agent's
/// scratchpad `flags`, the threshold `min_tokens`, and `tool` as the name the pointer gives the
/// output; the command itself in `$SHELL -c`, the shell the client would have run it in. `None`
/// when it already runs under `overspill run`, or is empty.
pub fn under_run(
    command: &str,
    program: &Path,
    flags: &PadFlags,
    min_tokens: u64,
    tool: &str,
) -> Option<String> {
    if command.trim().is_empty() || runs_under_overspill(command) {
        return None;
    }
    let mut words = vec![
        quote(&program.to_string_lossy()),
        "run".to_owned(),
        "--min-tokens".to_owned(),
        min_tokens.to_string(),
        "--tool".to_owned(),
        quote(tool),
    ];
    words.extend(flags.to_args().iter().map(|arg| quote(arg)));
    words.push("--".to_owned());
    // The client runs a command in the user's shell; the same shell reads it here, so that its
    // syntax (bash's `[[`, arrays, `source`) means what it meant.
    words.push("\"${SHELL:-/bin/sh}\"".to_owned());
    words.push("-c".to_owned());
    words.push(quote(command));
    Some(words.join(" "))
}

/// Whether `command` is already one `under_run` wrote: a hook that runs twice (two installs, a
/// client that asks again) must not wrap it twice.
fn runs_under_overspill(command: &str) -> bool {
    let words = words(command);
    let program = words
        .first()
        .and_then(|first| Path::new(first).file_name())
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    program == "overspill" && words.get(1).map(String::as_str) == Some("run")
}

/// `program` and `args` as one command line of a POSIX shell: what a client that runs a hook
/// through its shell is given.
pub fn command_line(program: &str, args: &[String]) -> String {
    std::iter::once(program)
        .chain(args.iter().map(String::as_str))
        .map(quote)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of a command line as [`command_line`] writes it (plain words, single quotes, and
/// `\'` between them); a word in double quotes is read as far as its closing quote.
pub fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut started = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                started = true;
                for inner in chars.by_ref() {
                    if inner == c {
                        break;
                    }
                    word.push(inner);
                }
            }
            '\\' => {
                started = true;
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            c if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                started = true;
                word.push(c);
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// `text` as one word of a POSIX shell: in single quotes, each `'` closed, escaped and reopened.
fn quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@%+,".contains(&b));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests;
