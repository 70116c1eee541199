//! What the CLI's test binaries share: running the built `overspill` with arguments and a
//! standard input, and reading what it printed.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// Starts the binary with `args`, writes `stdin` to it and closes it; stdout and stderr are
/// piped. A child that fails on its arguments exits without reading: that is not the test's
/// error.
pub fn spawn(args: &[&str], stdin: &str) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_overspill"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the overspill binary runs");
    if let Err(error) = child.stdin.take().unwrap().write_all(stdin.as_bytes()) {
        assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "{error}");
    }
    child
}

/// Runs the binary with `args` and `stdin` to its end.
pub fn run(args: &[&str], stdin: &str) -> Output {
    spawn(args, stdin).wait_with_output().unwrap()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

pub fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}
