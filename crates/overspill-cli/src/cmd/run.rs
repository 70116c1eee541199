//! `overspill run [--min-tokens N] [--tool NAME] [--dir DIR | --servers FILE] [--config FILE]
//! [--provider P] [--model M] -- <command> [args…]`: runs a command as if it ran alone, except
//! that a stdout or stderr over the threshold is stored in the agent's scratchpad and its
//! pointer printed in its place (docs/cli.md#overspill-run).

mod signals;
mod spill;

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::Path;
use std::process::{ExitCode, ExitStatus, Stdio};

use clap::Args;
use overspill::ToolOutput;
use overspill::config::DEFAULT_MIN_TOKENS;
use tokio::io::AsyncReadExt;

use super::agent_pad::{self, AgentPad, PadFlags};
use signals::Relay;
use spill::{Spill, Spilled};

pub const EXAMPLES: &str = "Runs the command with its stdin, exit status and signals, and prints \
its stdout and stderr when it ends: each as it was, byte for byte, or, when it has --min-tokens \
tokens or more, the pointer to where it was stored (and a newline). Exit status: the command's; \
128+N when a signal N ended it; 127 when it cannot be found, 126 when it cannot be run.\n\n\
Examples:\n  \
overspill run -- kubectl get pods -A -o json\n  \
overspill run --servers ~/.config/overspill/clients/claude-code-1a2b3c4d.json -- cargo test\n  \
overspill run --dir ./pad --min-tokens 2000 --tool build_log -- make";

/// Arguments of `overspill run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Store an output from this many tokens on.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MIN_TOKENS)]
    min_tokens: u64,
    /// What the pointer and the stored file call stdout (default: the command's file name);
    /// stderr is NAME_stderr.
    #[arg(long, value_name = "NAME")]
    tool: Option<String>,
    #[command(flatten)]
    pad: PadFlags,
    /// The command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

/// Outputs larger than this are passed through rather than stored: storing reads the output
/// into memory once (the proxy's limit for one message, docs/mcp-proxy.md#large-messages).
const MAX_STORED_BYTES: u64 = 256 << 20;

/// Held in memory before a stream spills to a file: the threshold's size in bytes (no token is
/// shorter than a byte, so a smaller output passes without a count), within these bounds.
const MIN_HOLD_BYTES: u64 = 64 << 10;
const MAX_HOLD_BYTES: u64 = 4 << 20;

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let config = args.pad.config()?;
    let dir = args.pad.dir(config.as_ref())?;
    let Some(program) = args.command.first() else {
        return Ok(super::usage_error("give the command to run after `--`"));
    };
    let tool = args.tool.clone().unwrap_or_else(|| program_name(program));
    let hold = usize::try_from(args.min_tokens.clamp(MIN_HOLD_BYTES, MAX_HOLD_BYTES))
        .unwrap_or(usize::MAX);
    let streams = [Spill::new(hold, &dir), Spill::new(hold, &dir)];
    let ended = match supervise(&args.command, streams) {
        Ok(ended) => ended,
        Err(error) => {
            tell!(
                "overspill run: cannot run `{}`: {error}",
                program.to_string_lossy()
            );
            let code = if error.kind() == io::ErrorKind::NotFound {
                127
            } else {
                126
            };
            return Ok(ExitCode::from(code));
        }
    };

    let mut store = Store {
        pad: AgentPad::new(&args.pad, config.as_ref()),
        min_tokens: args.min_tokens,
    };
    let [out, err] = ended.streams;
    let stderr_tool = format!("{tool}_stderr");
    // A reader that went away is not the command's failure: its status still stands.
    let _ = store.deliver(out, &tool, &mut io::stdout().lock());
    let _ = store.deliver(err, &stderr_tool, &mut io::stderr().lock());
    Ok(exit_code(ended.status))
}

/// What the command left when it ended.
struct Ended {
    status: ExitStatus,
    /// Its stdout and stderr, in that order.
    streams: [(Spilled, Option<io::Error>); 2],
}

/// Runs `command` with overspill's stdin, collects its stdout and stderr into `streams`, and
/// passes on the signals overspill gets, until the command has ended and closed both.
fn supervise(command: &[OsString], streams: [Spill; 2]) -> io::Result<Ended> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let mut relay = Relay::listen()?;
        let (program, args) = command
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no command"))?;
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .stdin(Stdio::inherit())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let pid = child.id().unwrap_or(0);
        let [out, err] = streams;
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let ended = async {
            let (out, err) = tokio::join!(collect(stdout, out), collect(stderr, err));
            let status = child.wait().await?;
            Ok(Ended {
                status,
                streams: [out.finish(), err.finish()],
            })
        };
        tokio::pin!(ended);
        loop {
            tokio::select! {
                ended = &mut ended => return ended,
                () = relay.pass_on(pid) => {}
            }
        }
    })
}

/// Reads `stream` to its end into `spill`. A read error ends the stream as the command's own
/// end would.
async fn collect(stream: Option<impl tokio::io::AsyncRead + Unpin>, mut spill: Spill) -> Spill {
    let Some(mut stream) = stream else {
        return spill;
    };
    let mut buffer = vec![0u8; 64 << 10];
    loop {
        match stream.read(&mut buffer).await {
            Ok(0) => return spill,
            Ok(read) => spill.push(buffer.get(..read).unwrap_or_default()),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => {
                tracing::warn!("overspill run: cannot read the command's output: {error}");
                return spill;
            }
        }
    }
}

/// Where the outputs go when one is over its threshold.
struct Store<'a> {
    pad: AgentPad<'a>,
    min_tokens: u64,
}

impl Store<'_> {
    /// Writes to `out` what the model gets for one stream: its pointer, or the stream itself.
    fn deliver(
        &mut self,
        (mut stream, lost): (Spilled, Option<io::Error>),
        tool: &str,
        out: &mut impl Write,
    ) -> io::Result<()> {
        if let Some(error) = &lost {
            tracing::warn!(
                "overspill run: the output of `{tool}` could not all be kept ({error}); it is \
                 printed as far as it was"
            );
        }
        let pointer = match lost {
            None => self.pointer(&mut stream, tool),
            Some(_) => None,
        };
        match pointer {
            Some(pointer) => writeln!(out, "{pointer}"),
            None => stream.write_to(out),
        }?;
        out.flush()
    }

    /// The pointer that replaces `stream`, when it is over the threshold and could be stored.
    fn pointer(&mut self, stream: &mut Spilled, tool: &str) -> Option<String> {
        // Fewer bytes than the threshold: fewer tokens too, known without a count.
        if stream.len() < self.min_tokens {
            return None;
        }
        if stream.len() > MAX_STORED_BYTES {
            tracing::warn!(
                "overspill run: the output of `{tool}` ({} bytes) is too large to store; it \
                 passes unchanged",
                stream.len()
            );
            return None;
        }
        let text = match stream.text() {
            Ok(Some(text)) => text,
            // Not text: passed as it is, as an image is.
            Ok(None) => return None,
            Err(error) => {
                tracing::warn!("overspill run: cannot read the output of `{tool}` back: {error}");
                return None;
            }
        };
        let pad = match self.pad.get() {
            Ok(pad) => pad,
            Err(error) => {
                tracing::warn!("overspill run: {error:#}; the output passes unchanged");
                return None;
            }
        };
        let output = ToolOutput::text(text).with_min_tokens(self.min_tokens);
        agent_pad::pointer(pad, "", tool, output)
    }
}

/// `kubectl` for `/usr/bin/kubectl`, `script` for `./script.py`.
fn program_name(program: &OsString) -> String {
    Path::new(program)
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .filter(|stem| !stem.is_empty())
        .unwrap_or_else(|| "command".to_owned())
}

/// The command's exit status as a shell gives it: its code, or 128+N after signal N.
fn exit_code(status: ExitStatus) -> ExitCode {
    let code = status.code().or_else(|| {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            status.signal().map(|signal| 128 + signal)
        }
        #[cfg(not(unix))]
        None
    });
    ExitCode::from(
        code.and_then(|code| u8::try_from(code & 0xff).ok())
            .unwrap_or(1),
    )
}
