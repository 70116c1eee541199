//! The `overspill` command line (docs/cli.md).
//!
//! The binary only drives the `overspill` facade: argument parsing, printing
//! and exit codes live here, behaviour lives in the libraries.

/// `eprintln!` for a line that may find stderr closed (a supervisor that stopped reading it):
/// the line is lost, but the process goes on, where `eprintln!` would panic.
macro_rules! tell {
    ($($line:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($line)*);
    }};
}

mod cmd;
mod input;
mod progress;
mod style;

use std::process::ExitCode;

use clap::Parser;

/// Keep large tool outputs out of an LLM's context window.
#[derive(Debug, Parser)]
#[command(
    name = "overspill",
    version,
    about,
    propagate_version = true,
    after_help = "Start with `overspill tour`. In every command, --dir DIR is the scratchpad \
                  dir itself: outputs are written straight into it, and tools read under it.\n\n\
                  Examples:\n  \
                  overspill tour\n  \
                  kubectl get pods -A -o json | overspill intercept --dir ./pad --tool k8s_list_pods\n  \
                  overspill tool schema --dir ./pad --args '{\"file\": \"k8s_list_pods-1a2b3c4d5e6f7a8b.json\"}'\n  \
                  overspill ls --dir ./pad"
)]
struct Cli {
    #[command(subcommand)]
    command: cmd::Command,
}

fn main() -> ExitCode {
    // clap exits with status 2 on usage errors, as docs/cli.md asks.
    let cli = Cli::parse();
    log_to_stderr(cli.command.log_format());
    keep_tables();
    match cli.command.run() {
        Ok(code) => code,
        // A reader that stopped early (`overspill tools | head`) is not a failure.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            tell!("{}", report(&err));
            ExitCode::FAILURE
        }
    }
}

/// The token counters' tables are built once per machine and kept in the user's cache directory
/// (`OVERSPILL_CACHE_DIR`, read by overspill-tokens itself, names another), so a command after
/// the first does not build them again (docs/tokens.md#where-the-tables-come-from).
fn keep_tables() {
    let named = std::env::var_os(overspill::tokens::CACHE_VAR).is_some_and(|dir| !dir.is_empty());
    if !named && let Some(dir) = overspill_mcp::cache_dir() {
        overspill::tokens::keep_tables_in(dir.join("tables"));
    }
}

/// The libraries' diagnostics (`tracing`) go to stderr, one line each: warnings and errors by
/// default (the proxy renaming its tools after a clash, a request a server left unanswered),
/// more or less with `OVERSPILL_LOG=error|warn|info|debug|trace|off` (docs/cli.md). As JSON
/// (`overspill mcp --log-format json`), one object per line with a timestamp, and `info` by
/// default: a line per answered request for an operator's log pipeline (docs/mcp-proxy.md#logs).
fn log_to_stderr(format: cmd::LogFormat) {
    use tracing::level_filters::LevelFilter;
    let json = format == cmd::LogFormat::Json;
    let level = std::env::var("OVERSPILL_LOG")
        .ok()
        .and_then(|level| level.parse::<LevelFilter>().ok())
        .unwrap_or(if json {
            LevelFilter::INFO
        } else {
            LevelFilter::WARN
        });
    let text = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr)
        // A line it cannot write is dropped: by default the subscriber reports that with
        // `eprint!`, which panics on a closed stderr, and a panic in the proxy's stop would
        // leave it running after SIGTERM.
        .log_internal_errors(false)
        .with_ansi(false);
    let _ = if json {
        text.json().flatten_event(true).try_init()
    } else {
        text.with_target(false).without_time().try_init()
    };
}

/// The line a failed command prints on stderr: the error and each cause after it. Every
/// error of the workspace states its cause in its message and returns none from `source()`
/// (docs/architecture.md, "Cross-cutting rules"), so each cause is printed once.
fn report(err: &anyhow::Error) -> String {
    format!("overspill: {err:#}")
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests;
