//! `overspill tour`: the main job on embedded data, start to finish, offline, in seconds.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use overspill::budget::thousands;
use overspill::config::DEFAULT_MIN_TOKENS;
use overspill::{Intercepted, Scratchpad, ToolOutput};
use serde_json::{Value, json};

use crate::style::Style;

pub const EXAMPLES: &str = "Examples:\n  \
overspill tour\n  \
overspill tour --dir ./tour-pad    # keep the stored output, then explore it yourself:\n  \
overspill tool grep --dir ./tour-pad --args '{\"file\": \"<name from the pointer>\", \"pattern\": \"OOMKilled\"}'";

/// The bundled tool output: `gen_samples.py pods 450`, a 1.7 MB `kubectl get pods -A -o json`.
/// It lives inside this crate so that the crate's package ships it.
const POD_LIST: &str = include_str!("../../assets/tour/pods.json");

/// The tool the pod list is attributed to.
const TOOL: &str = "k8s_list_pods";

/// The first pod of the bundled list whose phase is `Failed` (a test holds the tour to it).
const FAILED_POD: usize = 80;

/// Lines of one result shown before the rest is elided (for the tour's display only).
const SHOWN_LINES: usize = 32;

/// Arguments of `overspill tour`.
#[derive(Debug, Args)]
pub struct TourArgs {
    /// Store the pod list in DIR and keep it, instead of a temporary dir removed at the end.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// One exploration step: why, which tool, which arguments (given the stored file's name).
struct Step {
    why: &'static str,
    tool: &'static str,
    arguments: fn(&str) -> Value,
}

const STEPS: [Step; 6] = [
    Step {
        why: "what is in it? The structure, with line ranges",
        tool: "schema",
        arguments: |file| json!({"file": file, "max_depth": 3}),
    },
    Step {
        why: "what does each pod carry, and how many have each key?",
        tool: "item_schema",
        arguments: |file| json!({"file": file, "path": "$.items"}),
    },
    Step {
        why: "a window of pods, only the fields that matter",
        tool: "iterate_over",
        arguments: |file| json!({"file": file, "path": "$.items", "fields": "metadata.name,metadata.namespace,status.phase", "offset": FAILED_POD - 2, "limit": 5}),
    },
    Step {
        why: "the failed pod's status, in full",
        tool: "get_in",
        arguments: |file| json!({"file": file, "path": format!("$.items[{FAILED_POD}].status")}),
    },
    Step {
        why: "which containers are crash-looping? (a regex over the stored lines)",
        tool: "grep",
        arguments: |file| json!({"file": file, "pattern": "back-off \\S+ restarting failed", "context": 0, "max_matches": 4}),
    },
    Step {
        why: "how many pods are in each phase? (jq)",
        tool: "query",
        arguments: |file| json!({"file": file, "filter": ".items | group_by(.status.phase) | map({phase: .[0].status.phase, pods: length})"}),
    },
];

pub fn run(args: TourArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let style = Style::for_stdout();
    let temp = match &args.dir {
        Some(_) => None,
        None => Some(tempfile::tempdir()?),
    };
    let dir: PathBuf = match (&args.dir, &temp) {
        (Some(dir), _) => dir.clone(),
        (None, temp) => temp
            .as_ref()
            .map(|t| t.path().to_owned())
            .context("no directory for the tour")?,
    };
    let pad = Scratchpad::builder()
        .scratchpad_dir(&dir)
        .provider("openai")
        .model("gpt-4o")
        .context_window(128_000)
        .intercept_all(DEFAULT_MIN_TOKENS)
        .build()?;
    let counter = pad.counter();
    let usable = pad.budget().map_or(0, |b| b.usable());

    writeln!(out, "{}\n", style.bold("overspill tour"))?;
    let Intercepted::Pointer(pointer) = pad.intercept("k8s", TOOL, ToolOutput::text(POD_LIST))
    else {
        anyhow::bail!(
            "the bundled pod list was not intercepted into {}",
            dir.display()
        );
    };
    let raw_tokens = pad.budget().map_or(0, |b| b.tokens_intercepted());
    writeln!(
        out,
        "A tool, `{TOOL}`, returned a Kubernetes pod list: {} bytes, {} tokens ({}).\n\
         The model (gpt-4o) has a 128,000-token context window, {} of it usable: the list would \
         fill it {:.1} times over.",
        thousands(POD_LIST.len() as u64),
        thousands(raw_tokens),
        counter.name(),
        thousands(usable),
        raw_tokens as f64 / usable.max(1) as f64,
    )?;

    let pointer_tokens = counter.count(&pointer) as u64;
    heading(
        &mut out,
        style,
        1,
        "intercept",
        &format!(
            "overspill stores it and the model receives this pointer instead ({} tokens):",
            thousands(pointer_tokens)
        ),
    )?;
    writeln!(out, "{pointer}")?;

    let file = overspill::explore::stored_file(&pointer)
        .unwrap_or_default()
        .to_owned();
    for (n, step) in STEPS.iter().enumerate() {
        heading(&mut out, style, n + 2, step.tool, step.why)?;
        let arguments = (step.arguments)(&file);
        writeln!(
            out,
            "{}",
            style.cyan(&format!("$ {} {arguments}", step.tool))
        )?;
        let before = pad.budget().map_or(0, |b| b.tokens_extracted());
        let text = pad.call_value(step.tool, &arguments);
        write!(out, "{}", shown(&text, style))?;
        let after = pad.budget().map_or(0, |b| b.tokens_extracted());
        let hint = pad.window_hint().map(|h| h.to_string()).unwrap_or_default();
        writeln!(
            out,
            "{}",
            style.dim(&format!(
                "↳ {} tokens into the model's context · {hint}",
                thousands(after - before)
            ))
        )?;
    }

    let extracted = pad.budget().map_or(0, |b| b.tokens_extracted());
    heading(
        &mut out,
        style,
        STEPS.len() + 2,
        "finish",
        "the host emits the usage event:",
    )?;
    if let Some(usage) = pad.finish() {
        write!(out, "{}", usage.to_sse())?;
    }
    let seen = pointer_tokens + extracted;
    let saved = raw_tokens.saturating_sub(seen);
    writeln!(
        out,
        "{}",
        style.green(&format!(
            "The model saw {} tokens (pointer {} + {} extractions {}) instead of the {} tokens \
             of the raw output: {} tokens saved ({:.1}% less).",
            thousands(seen),
            thousands(pointer_tokens),
            STEPS.len(),
            thousands(extracted),
            thousands(raw_tokens),
            thousands(saved),
            100.0 * saved as f64 / raw_tokens.max(1) as f64,
        ))
    )?;
    match temp {
        Some(temp) => writeln!(out,
            "\n{}",
            style.dim(&format!(
                "The stored output was in {}, removed now; `overspill tour --dir DIR` keeps it.",
                temp.path().display()
            ))
        )?,
        None => writeln!(out,
            "\nThe stored output stays in {}. Explore it yourself:\n  {}",
            dir.display(),
            style.cyan(&format!(
                "overspill tool grep --dir {} --args '{{\"file\": \"{file}\", \"pattern\": \"OOMKilled\"}}'",
                dir.display()
            ))
        )?,
    }
    Ok(ExitCode::SUCCESS)
}

fn heading(
    out: &mut impl Write,
    style: Style,
    n: usize,
    name: &str,
    what: &str,
) -> std::io::Result<()> {
    writeln!(out, "\n{} {what}", style.bold(&format!("{n}. {name}:")))
}

/// A result as the tour shows it: whole when short, else its first lines and its footer.
fn shown(text: &str, style: Style) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= SHOWN_LINES + 2 {
        return format!("{text}\n");
    }
    let mut out = lines[..SHOWN_LINES].join("\n");
    out.push('\n');
    out.push_str(&style.dim(&format!(
        "   … {} more lines (the model sees them; the tour skips them)",
        lines.len() - SHOWN_LINES - 1
    )));
    out.push('\n');
    if let Some(footer) = lines.last() {
        out.push_str(footer);
        out.push('\n');
    }
    out
}
