//! `overspill run -- <command>`: the command as if it ran alone (stdin, exit status, signals,
//! stdout and stderr apart), with a large output stored and its pointer printed instead
//! (docs/cli.md#overspill-run).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod support;

use support::{path, run, stderr, stdout};

/// The stored file a pointer names.
fn pointed_file(pointer: &str) -> &str {
    pointer
        .lines()
        .find_map(|line| line.strip_prefix("file: "))
        .unwrap_or_else(|| panic!("not a pointer: {pointer}"))
}

/// Waits up to 30 s for `file` to exist.
fn wait_for(file: &Path) {
    let start = Instant::now();
    while !file.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{} never came",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `overspill run --dir <pad> <flags> -- <command>`, with nothing on its standard input.
fn run_in(pad: &Path, flags: &[&str], command: &[&str]) -> Output {
    run(
        &[&["run", "--dir", path(pad)], flags, &["--"], command].concat(),
        "",
    )
}

#[test]
fn run_of_a_two_megabyte_output_prints_the_pointer_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("pad");
    let out = run_in(&pad, &[], &["python3", "-c", "print('x'*2_000_000)"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let pointer = stdout(&out);
    assert!(
        pointer.starts_with("[overspill] The result of `python3` was too large"),
        "{pointer}"
    );
    assert!(pointer.contains("size: 2,000,001 bytes"), "{pointer}");
    assert!(pointer.ends_with("Start with schema.\n"), "{pointer}");
    let stored = std::fs::read_to_string(pad.join(pointed_file(&pointer))).unwrap();
    assert_eq!(stored.len(), 2_000_001);
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
}

#[test]
fn run_passes_a_failing_commands_status_and_small_outputs_unchanged_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("pad");
    let command = "printf 'out\\tno newline'; printf 'err: \\001 bad' >&2; exit 3";
    let out = run_in(&pad, &[], &["sh", "-c", command]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(out.stdout, b"out\tno newline");
    assert_eq!(out.stderr, b"err: \x01 bad");
    // Nothing was stored, so nothing was built.
    assert!(!pad.exists());
}

#[test]
fn run_keeps_stderr_apart_and_stores_only_the_large_stream() {
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("pad");
    let out = run_in(
        &pad,
        &["--min-tokens", "200", "--tool", "build"],
        &["sh", "-c", "echo small; seq 1 2000 >&2"],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "small\n");
    let pointer = stderr(&out);
    assert!(
        pointer.starts_with("[overspill] The result of `build_stderr`"),
        "{pointer}"
    );
    let stored = std::fs::read_to_string(pad.join(pointed_file(&pointer))).unwrap();
    assert!(
        stored.starts_with("1\n2\n") && stored.ends_with("2000\n"),
        "{stored}"
    );
}

#[test]
fn run_passes_stdin_on_to_the_command() {
    let out = run(&["run", "--dir", "unused", "--", "cat"], "hello\nthere");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "hello\nthere");
}

#[test]
fn run_of_a_missing_command_exits_127_and_says_why() {
    let out = run(&["run", "--", "overspill-no-such-command"], "");
    assert_eq!(out.status.code(), Some(127));
    assert!(
        stderr(&out).contains("cannot run `overspill-no-such-command`"),
        "{}",
        stderr(&out)
    );
}

#[cfg(unix)]
#[test]
fn run_of_a_command_killed_by_a_signal_exits_128_plus_the_signal() {
    let out = run(&["run", "--", "sh", "-c", "echo before; kill -KILL $$"], "");
    assert_eq!(out.status.code(), Some(128 + 9));
    assert_eq!(stdout(&out), "before\n");
}

#[cfg(unix)]
#[test]
fn run_passes_sigterm_sigint_and_sighup_on_to_the_command() {
    for (signal, name) in [("TERM", "TERM"), ("INT", "INT"), ("HUP", "HUP")] {
        let dir = tempfile::tempdir().unwrap();
        let ready = dir.path().join("ready");
        // The command says which signal it got and exits 7: overspill, which got the signal
        // first, must neither die of it nor keep it from the command.
        let script = format!(
            "trap 'echo got {name}; exit 7' {name}; touch '{}'; while :; do sleep 0.05; done",
            ready.display()
        );
        let child = Command::new(env!("CARGO_BIN_EXE_overspill"))
            .args([
                "run",
                "--dir",
                path(&dir.path().join("pad")),
                "--",
                "sh",
                "-c",
            ])
            .arg(&script)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_for(&ready);
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(7), "{signal}: {}", stderr(&out));
        assert_eq!(stdout(&out), format!("got {name}\n"));
    }
}

/// What the kernel says of a running process (`/proc/<pid>/status`).
#[cfg(target_os = "linux")]
fn kilobytes(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("no {field} in {status}"))
}

#[cfg(target_os = "linux")]
#[test]
fn run_holds_a_large_output_in_a_file_not_in_memory_while_the_command_runs() {
    let dir = tempfile::tempdir().unwrap();
    let printed = dir.path().join("printed");
    let go = dir.path().join("go");
    // 48 MB, then the command waits; a threshold no output reaches passes it through after.
    let script = format!(
        "yes 0123456789abcdef0123456789abcdef | head -c 48000000; touch '{}'; \
         while [ ! -e '{}' ]; do sleep 0.05; done",
        printed.display(),
        go.display()
    );
    let child = Command::new(env!("CARGO_BIN_EXE_overspill"))
        .args(["run", "--dir", path(&dir.path().join("pad"))])
        .args(["--min-tokens", "1000000000000", "--", "sh", "-c"])
        .arg(&script)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // The output is in overspill's hands (all but a pipe's buffer) once the command goes on.
    wait_for(&printed);
    std::thread::sleep(Duration::from_millis(200));
    let peak = kilobytes(pid, "VmHWM:");
    std::fs::write(&go, "").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(out.stdout.len(), 48_000_000);
    assert!(
        out.stdout
            .starts_with(b"0123456789abcdef0123456789abcdef\n")
    );
    // At most 4 MiB held, plus the binary itself; 48 MB held would show.
    assert!(
        peak < 32 * 1024,
        "overspill run peaked at {peak} kB while the command ran"
    );
}

#[test]
fn run_and_hook_have_help_with_examples() {
    for command in ["run", "hook"] {
        let out = run(&[command, "--help"], "");
        assert!(out.status.success(), "{command}");
        let help = stdout(&out);
        let examples = help.split("Examples").nth(1).unwrap_or_default();
        assert!(
            examples.contains(&format!("overspill {command} ")),
            "{command}: {help}"
        );
    }
}
