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
    spawn_with_env(args, stdin, &[])
}

/// [`spawn`] with the variables `env` set.
pub fn spawn_with_env(args: &[&str], stdin: &str, env: &[(&str, &Path)]) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_overspill"))
        .args(args)
        .envs(env.iter().copied())
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

/// [`run`] with the variables `env` set.
pub fn run_with_env(args: &[&str], stdin: &str, env: &[(&str, &Path)]) -> Output {
    spawn_with_env(args, stdin, env).wait_with_output().unwrap()
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

/// An MCP server in POSIX sh (so that any user can run it): `numbers`, whose result is about
/// 20,000 tokens of text, `where`, which says `$GREETING` and its working directory, and
/// `slow`, which answers after two seconds.
pub const NUMBERS_SERVER: &str = r#"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  [ -z "$id" ] && continue
  case "$line" in
    *'"initialize"'*) result='{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"numbers","version":"0"}}' ;;
    *'"tools/list"'*) result='{"tools":[{"name":"numbers","inputSchema":{"type":"object"}},{"name":"where","inputSchema":{"type":"object"}},{"name":"slow","inputSchema":{"type":"object"}}]}' ;;
    *'"name":"where"'*) result="{\"content\":[{\"type\":\"text\",\"text\":\"$GREETING in $(pwd)\"}]}" ;;
    *'"name":"slow"'*) sleep 2; result='{"content":[{"type":"text","text":"slept well"}]}' ;;
    *'"tools/call"'*) result="{\"content\":[{\"type\":\"text\",\"text\":\"$(seq 1 20000 | tr '\n' ' ')\"}]}" ;;
    *) result='{}' ;;
  esac
  printf '{"jsonrpc":"2.0","id":%s,"result":%s}\n' "$id" "$result"
done
"#;

/// An `mcpServers` entry of [`NUMBERS_SERVER`] greeting with `greeting`.
pub fn numbers(greeting: &str) -> serde_json::Value {
    serde_json::json!({"command": "sh", "args": ["-c", NUMBERS_SERVER],
                       "env": {"GREETING": greeting}})
}

/// `overspill install` / `uninstall` with HOME in `home` (the records, backups and servers
/// files go under it).
pub fn installer(home: &Path, args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_overspill"))
        .args(args)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_DATA_HOME")
        .env_remove("CODEX_HOME")
        .output()
        .unwrap();
    // Nothing a configuration holds as a secret is ever printed.
    assert!(
        !stdout(&output).contains("s3cret") && !stderr(&output).contains("s3cret"),
        "a secret was printed: {} {}",
        stdout(&output),
        stderr(&output)
    );
    output
}
