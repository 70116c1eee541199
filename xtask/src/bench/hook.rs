//! What a hook call with a small output costs an agent (issue 40, item 5;
//! docs/hooks.md#fast-enough-to-leave-on): `overspill hook claude-code` (the release binary)
//! started as Claude Code starts it, its PostToolUse input of a small Bash output written to its
//! stdin, timed from the start of the process to its exit; beside it `cat` given the same input,
//! the least a hook program can cost. Runs alternate between the two, so a busy moment of the
//! machine falls on both; the figures are the medians (p50).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::json;

use super::scenarios::{Measured, hook};

/// Runs measured of each program (after [`WARM_UP`]); a quick run takes fewer.
const RUNS: usize = 200;
const QUICK_RUNS: usize = 50;
const WARM_UP: usize = 5;

/// Measures the rows of [`hook`]: `overspill` is the release binary, `scratch` (emptied first)
/// the hook's `--dir`, which a small output leaves empty.
pub fn measure(
    overspill: &Path,
    scratch: &Path,
    quick: bool,
) -> Result<BTreeMap<String, Measured>> {
    let runs = if quick { QUICK_RUNS } else { RUNS };
    if scratch.exists() {
        std::fs::remove_dir_all(scratch)
            .with_context(|| format!("could not empty {}", scratch.display()))?;
    }
    std::fs::create_dir_all(scratch)
        .with_context(|| format!("could not make {}", scratch.display()))?;
    eprintln!("xtask bench: {runs} runs of overspill hook claude-code and of cat, small output");
    let input = small_bash_input(scratch);
    let mut hook_command = Command::new(overspill);
    hook_command
        .args(["hook", "claude-code", "--dir"])
        .arg(scratch);
    let mut cat_command = Command::new("cat");
    let mut hook_times = Vec::with_capacity(runs);
    let mut cat_times = Vec::with_capacity(runs);
    for run in 0..WARM_UP + runs {
        let hook_time = time(&mut hook_command, &input, true)?;
        let cat_time = time(&mut cat_command, &input, false)?;
        if run >= WARM_UP {
            hook_times.push(hook_time);
            cat_times.push(cat_time);
        }
    }
    let leftover = std::fs::read_dir(scratch)
        .map(|entries| entries.count())
        .unwrap_or(0);
    let _ = std::fs::remove_dir_all(scratch);
    if leftover > 0 {
        bail!("overspill hook claude-code wrote to its --dir for a small output");
    }
    let time = |duration: Duration| Measured::Time {
        seconds: duration.as_secs_f64(),
        bytes: None,
    };
    Ok(BTreeMap::from([
        (hook::SMALL_OUTPUT.to_owned(), time(median(hook_times))),
        (hook::CAT.to_owned(), time(median(cat_times))),
    ]))
}

/// A PostToolUse input of a Bash command that printed a few lines, as Claude Code writes it.
fn small_bash_input(cwd: &Path) -> Vec<u8> {
    let stdout = "NAME                     READY   STATUS    RESTARTS   AGE\n\
                  api-7c9d8f6b5-x2k4p      1/1     Running   0          3d\n\
                  worker-5f6d7c8b9-q8r7t   1/1     Running   2          3d\n";
    json!({
        "session_id": "0d9a4c52-bench",
        "transcript_path": cwd.join("transcript.jsonl"),
        "cwd": cwd,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "kubectl get pods", "description": "List the pods"},
        "tool_response": {
            "stdout": stdout,
            "stderr": "",
            "interrupted": false,
            "isImage": false,
            "noOutputExpected": false,
        },
        "tool_use_id": "toolu_bench",
    })
    .to_string()
    .into_bytes()
}

/// One run of `command` with `input` on its stdin, from spawn to exit; `quiet` says it must
/// print nothing (a hook's small output passes).
fn time(command: &mut Command, input: &[u8], quiet: bool) -> Result<Duration> {
    let program = command.get_program().to_string_lossy().into_owned();
    let started = Instant::now();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("could not start {program}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input)
            .with_context(|| format!("could not write {program}'s input"))?;
    }
    let output = child
        .wait_with_output()
        .with_context(|| format!("could not wait for {program}"))?;
    let elapsed = started.elapsed();
    if !output.status.success() {
        bail!("{program} failed ({})", output.status);
    }
    if quiet && !output.stdout.is_empty() {
        bail!(
            "{program} answered a small output: {}",
            String::from_utf8_lossy(&output.stdout)
        );
    }
    Ok(elapsed)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

#[cfg(test)]
mod tests;
