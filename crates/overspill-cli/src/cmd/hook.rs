//! `overspill hook <client> [--servers FILE | --dir DIR] [--config FILE] [--provider P]
//! [--model M]`: a client's tool hook (docs/hooks.md). It reads the hook's input on stdin and,
//! when the tool's output is over its threshold, stores it in the agent's scratchpad and prints
//! the answer that makes the client give the model the pointer instead, in the tool's own
//! shape. Otherwise, and on anything it cannot read, it prints nothing and exits 0: a hook
//! never breaks a tool call.

mod claude_code;
mod codex;
mod gemini_cli;
mod shell;

/// What a hook reads of its client's input: the fields Claude Code, Codex and Gemini CLI name
/// alike; other fields are ignored. A hook that runs before its tool has no `tool_response`,
/// and a client that sends no `cwd` leaves it out.
#[derive(Debug, serde::Deserialize)]
struct Input {
    hook_event_name: String,
    tool_name: String,
    #[serde(default)]
    tool_input: Value,
    #[serde(default)]
    tool_response: Value,
    /// The session's working directory, against which a relative path is read.
    #[serde(default)]
    cwd: Option<std::path::PathBuf>,
}

use std::fs::File;
use std::io::{Read, Write};
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use serde_json::Value;

use super::agent_pad::{AgentPad, PadFlags};

pub const EXAMPLES: &str = "Reads the hook input on stdin; prints the client's answer with the \
pointer (one JSON line) when the output is over its threshold, else nothing. Always exits 0: a \
reason why an output passed unchanged goes to stderr (OVERSPILL_LOG=debug for every decision).\n\n\
Examples (in Claude Code's settings.json, a PostToolUse hook with the matcher \
\"^(Bash|Read|WebFetch|mcp__.*)$\", which `overspill install claude-code` writes):\n  \
overspill hook claude-code --servers ~/.config/overspill/clients/claude-code-1a2b3c4d.json \
--provider anthropic\n  \
overspill hook claude-code --dir ./pad < input.json";

/// Arguments of `overspill hook`.
#[derive(Debug, Args)]
pub struct HookArgs {
    /// The client whose hook input is read.
    client: Client,
    #[command(flatten)]
    pad: PadFlags,
}

/// The clients whose hooks overspill answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Client {
    /// Claude Code's PostToolUse hook.
    ClaudeCode,
    /// Codex's PreToolUse (a shell command) and PostToolUse (an MCP tool's output) hooks.
    Codex,
    /// Gemini CLI's BeforeTool hook (a shell command).
    GeminiCli,
}

/// One hook of a client's settings: its event and the matcher of the tools it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    pub name: &'static str,
    pub matcher: &'static str,
}

impl Client {
    /// Its name on the command line and in `[hooks.<client>.scratchpad]`.
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::Codex => "codex",
            Client::GeminiCli => "gemini-cli",
        }
    }

    /// The hooks install writes in the client's settings, each running `overspill hook
    /// <client>`.
    pub fn events(self) -> &'static [Event] {
        match self {
            Client::ClaudeCode => &[Event {
                name: "PostToolUse",
                matcher: claude_code::MATCHER,
            }],
            Client::Codex => &[
                Event {
                    name: "PreToolUse",
                    matcher: codex::PRE_MATCHER,
                },
                Event {
                    name: "PostToolUse",
                    matcher: codex::POST_MATCHER,
                },
            ],
            Client::GeminiCli => &[Event {
                name: "BeforeTool",
                matcher: gemini_cli::MATCHER,
            }],
        }
    }

    /// The arguments of the hook's command that goes with a gateway of `flags`: `hook <client>`
    /// and the flags, so that it stores where that gateway explores
    /// (docs/hooks.md#one-scratchpad-per-agent).
    pub fn args(self, flags: &PadFlags) -> Vec<String> {
        let mut args = vec!["hook".to_owned(), self.name().to_owned()];
        args.extend(flags.to_args());
        args
    }
}

/// `program` and `args` as the one shell line Codex and Gemini CLI run a hook command as.
pub fn command_line(program: &str, args: &[String]) -> String {
    shell::command_line(program, args)
}

/// The words of a hook's command line, as [`command_line`] writes it.
pub fn command_words(line: &str) -> Vec<String> {
    shell::words(line)
}

/// The largest hook input, or file named by one, that is read: the proxy's limit for one
/// message (docs/mcp-proxy.md#large-messages). Storing reads an output into memory once.
const MAX_BYTES: u64 = 256 << 20;

pub fn run(args: HookArgs) -> anyhow::Result<ExitCode> {
    let client = args.client.name();
    match std::panic::catch_unwind(AssertUnwindSafe(|| answer(&args))) {
        Ok(Ok(Some(answer))) => {
            let mut stdout = std::io::stdout().lock();
            if let Err(error) = writeln!(stdout, "{answer}").and_then(|()| stdout.flush()) {
                tracing::warn!("overspill hook {client}: cannot write the answer: {error}");
            }
        }
        Ok(Ok(None)) => {}
        Ok(Err(error)) => {
            note(
                client,
                &format!("{error:#}; the tool's output passes unchanged"),
            );
        }
        // The panic's message is already on stderr.
        Err(_) => note(
            client,
            "it failed inside; the tool's output passes unchanged",
        ),
    }
    Ok(ExitCode::SUCCESS)
}

/// The file in overspill's state directory where a hook says why an output passed unchanged:
/// the clients keep a hook's stderr out of sight (Claude Code shows it only in its debug log).
pub const LOG_FILE: &str = "hooks.log";

/// The size past which the log starts again, the previous one kept as `hooks.log.1`.
const LOG_LIMIT: u64 = 1 << 20;

/// Says why the hook of `client` let an output pass: on stderr, and in [`LOG_FILE`]. A log
/// that cannot be written is no reason to fail the tool call either.
fn note(client: &str, why: &str) {
    tracing::warn!("overspill hook {client}: {why}");
    let Some(dir) = overspill_mcp::state_dir() else {
        return;
    };
    let line = format!(
        "{} overspill hook {client}: {why}\n",
        jiff::Timestamp::now()
    );
    if let Err(error) = append_to_log(&dir, &line) {
        tracing::warn!(
            "overspill hook {client}: cannot write {}: {error}",
            dir.join(LOG_FILE).display()
        );
    }
}

fn append_to_log(dir: &Path, line: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(LOG_FILE);
    if std::fs::metadata(&path).is_ok_and(|metadata| metadata.len() > LOG_LIMIT) {
        std::fs::rename(&path, dir.join(format!("{LOG_FILE}.1")))?;
    }
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    log.write_all(line.as_bytes())
}

/// The answer to print, `None` when the output passes unchanged.
fn answer(args: &HookArgs) -> anyhow::Result<Option<Value>> {
    let mut input = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_BYTES + 1)
        .read_to_end(&mut input)
        .context("cannot read the hook input")?;
    anyhow::ensure!(
        input.len() as u64 <= MAX_BYTES,
        "the hook input is larger than {} MiB",
        MAX_BYTES >> 20
    );
    let config = args.pad.config()?;
    let rules = config
        .as_ref()
        .and_then(|config| config.hook_rules(args.client.name()));
    let mut pad = AgentPad::new(&args.pad, config.as_ref());
    match args.client {
        Client::ClaudeCode => claude_code::answer(&input, rules, &mut pad),
        Client::Codex => codex::answer(&input, rules, &args.pad, &mut pad),
        Client::GeminiCli => gemini_cli::answer(&input, rules, &args.pad),
    }
}

/// A file a hook input names, opened only if it is a regular file (a FIFO or a device would
/// never end), with its length.
fn open_regular(path: &Path) -> anyhow::Result<(File, u64)> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Opening a FIFO for reading waits for a writer; this returns at once, and the check
        // below refuses it.
        let nonblock = i32::try_from(rustix::fs::OFlags::NONBLOCK.bits()).unwrap_or(0);
        options.custom_flags(nonblock);
    }
    let file = options
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let metadata = file
        .metadata()
        .with_context(|| format!("cannot read {}", path.display()))?;
    anyhow::ensure!(
        metadata.is_file(),
        "{} is not a regular file",
        path.display()
    );
    Ok((file, metadata.len()))
}

/// The text of a file opened by [`open_regular`], up to [`MAX_BYTES`].
fn read_text(file: File, path: &Path) -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    anyhow::ensure!(
        bytes.len() as u64 <= MAX_BYTES,
        "{} is larger than {} MiB",
        path.display(),
        MAX_BYTES >> 20
    );
    String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("{} is not UTF-8 text", path.display()))
}
