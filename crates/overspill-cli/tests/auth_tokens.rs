//! Named bearer tokens as a user meets them: `overspill auth token NAME [--append FILE]`, and
//! `overspill mcp --listen --auth-tokens FILE` admitting each principal, reading the file
//! again on SIGHUP, and never writing a token or a hash on its stderr.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::{BufRead, Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use overspill_mcp::Tokens;
use support::{NUMBERS_SERVER, path, run, stderr, stdout};

/// `overspill auth token NAME ARGS…`: the token it printed on stdout, and the whole output.
fn issue(name: &str, args: &[&str]) -> (String, Output) {
    let out = run(&[&["auth", "token", name], args].concat(), "");
    (stdout(&out).trim().to_owned(), out)
}

#[test]
fn auth_token_prints_a_new_token_on_stdout_and_its_line_on_stderr() {
    let (token, out) = issue("alice", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(token.len(), 64, "{token}");
    assert!(token.bytes().all(|byte| byte.is_ascii_hexdigit()));
    let said = stderr(&out);
    assert!(!said.contains(&token), "the token is on stderr too: {said}");
    let line = said
        .lines()
        .find(|line| line.starts_with("alice sha256:"))
        .unwrap_or_else(|| panic!("no line for the file: {said}"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tokens");
    std::fs::write(&file, line).unwrap();
    let tokens = Tokens::load(&file).unwrap();
    assert_eq!(tokens.principal(&token).unwrap().name(), "alice");

    let (again, _) = issue("alice", &[]);
    assert_ne!(again, token, "each token is new");
}

#[test]
#[cfg(unix)]
fn auth_token_append_creates_a_0600_file_and_refuses_a_name_it_already_has() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tokens");
    let (alice, out) = issue("alice", &["--append", path(&file)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    // A file edited by hand, without a line end at its end.
    let mut edited = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    write!(edited, "# the CI robots follow").unwrap();
    let (robot, out) = issue("ci-bot", &["--append", path(&file)]);
    assert!(out.status.success(), "{}", stderr(&out));

    let before = std::fs::read_to_string(&file).unwrap();
    let (_, out) = issue("ALICE", &["--append", path(&file)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("line 1"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty(), "no token for a refused name");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);

    let tokens = Tokens::load(&file).unwrap();
    assert_eq!(tokens.len(), 2);
    assert_eq!(tokens.principal(&alice).unwrap().name(), "alice");
    assert_eq!(tokens.principal(&robot).unwrap().name(), "ci-bot");
}

#[test]
fn auth_token_refuses_a_reserved_or_unsafe_name_with_what_a_name_may_be() {
    for name in ["shared", "local", "../etc", "a b", ""] {
        let (token, out) = issue(name, &[]);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        assert!(token.is_empty(), "{name}");
        let said = stderr(&out);
        assert!(
            said.contains("reserved") || said.contains("A-Z a-z 0-9 . _ -"),
            "{name}: {said}"
        );
    }
}

#[test]
fn mcp_refuses_auth_tokens_with_auth_token_env_and_a_bad_file_by_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tokens");
    std::fs::write(&file, "# team\nalice not-a-hash\n").unwrap();
    let pad = dir.path().join("pad");
    let base = [
        "mcp",
        "--listen",
        "127.0.0.1:0",
        "--dir",
        path(&pad),
        "--auth-tokens",
        path(&file),
    ];
    let both = run(
        &[&base[..], &["--auth-token-env", "TOKEN", "--", "true"]].concat(),
        "",
    );
    assert_eq!(both.status.code(), Some(2));
    assert!(
        stderr(&both).contains("cannot be used with"),
        "{}",
        stderr(&both)
    );

    let bad = run(&[&base[..], &["--", "true"]].concat(), "");
    assert_eq!(bad.status.code(), Some(2));
    let said = stderr(&bad);
    assert!(
        said.contains("line 2") && said.contains("sha256:"),
        "{said}"
    );
    assert!(!said.contains("not-a-hash"), "{said}");
}

/// A `--listen` proxy whose stderr is kept, line by line, as it comes.
struct Listening {
    child: std::process::Child,
    address: String,
    said: Arc<Mutex<String>>,
}

impl Listening {
    fn start(args: &[&str]) -> Listening {
        let mut child = Command::new(env!("CARGO_BIN_EXE_overspill"))
            .args(["mcp", "--listen", "127.0.0.1:0"])
            .args(args)
            .env("OVERSPILL_LOG", "trace")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let said = Arc::new(Mutex::new(String::new()));
        let (found, address) = std::sync::mpsc::channel();
        let reader = std::io::BufReader::new(child.stderr.take().unwrap());
        let keep = Arc::clone(&said);
        std::thread::spawn(move || {
            for line in reader.lines().map_while(Result::ok) {
                if let Some((_, url)) = line.split_once("serving MCP on http://") {
                    let _ = found.send(url.split('/').next().unwrap().to_owned());
                }
                keep.lock().unwrap().push_str(&format!("{line}\n"));
            }
        });
        let address = address
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no address announced: {}", said.lock().unwrap()));
        Listening {
            child,
            address,
            said,
        }
    }

    /// The status of an `initialize` with `token` as its bearer.
    fn initialize(&self, token: &str) -> u16 {
        let mut connection = std::net::TcpStream::connect(&self.address).unwrap();
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
        write!(
            connection,
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Authorization: Bearer {token}\r\nContent-Length: {}\r\n\r\n{body}",
            self.address,
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        connection.read_to_string(&mut response).unwrap();
        response
            .split(' ')
            .nth(1)
            .and_then(|status| status.parse().ok())
            .unwrap_or_else(|| panic!("no status in {response}"))
    }

    fn hang_up(&self) {
        let sent = Command::new("kill")
            .args(["-HUP", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    }

    /// Waits until `done` holds, 30 s at most (else fails saying `what`).
    fn until(&self, what: &str, done: impl Fn() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !done() {
            assert!(
                Instant::now() < deadline,
                "{what}; stderr:\n{}",
                self.said.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the proxy (SIGTERM) and returns all it said on stderr.
    fn stop(mut self) -> String {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "the proxy did not stop");
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(100));
        self.said.lock().unwrap().clone()
    }
}

/// Appends `name`'s new token to `file` with `overspill auth token`: the token.
fn add(file: &Path, name: &str) -> String {
    let (token, out) = issue(name, &["--append", path(file)]);
    assert!(out.status.success(), "{}", stderr(&out));
    token
}

#[test]
#[cfg(unix)]
fn mcp_listen_admits_each_principal_reloads_the_file_on_sighup_and_never_logs_a_token_or_hash() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tokens");
    let alice = add(&file, "alice");
    let proxy = Listening::start(&[
        "--auth-tokens",
        path(&file),
        "--dir",
        path(&dir.path().join("pad")),
        "--",
        "sh",
        "-c",
        NUMBERS_SERVER,
    ]);
    assert!(
        proxy.said.lock().unwrap().contains("1 principal(s)"),
        "{}",
        proxy.said.lock().unwrap()
    );
    assert_eq!(proxy.initialize(&alice), 200);

    // A principal added to the file gets in after SIGHUP, without a restart.
    let bob = add(&file, "bob");
    assert_eq!(proxy.initialize(&bob), 401, "before SIGHUP");
    proxy.hang_up();
    proxy.until("bob is not admitted after SIGHUP", || {
        proxy.initialize(&bob) == 200
    });

    // A broken file is refused with a warning; the principals read before stay.
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}carol {bob}\n")).unwrap();
    proxy.hang_up();
    proxy.until("no warning about the broken file", || {
        proxy
            .said
            .lock()
            .unwrap()
            .contains("the tokens file is refused")
    });
    assert_eq!(proxy.initialize(&alice), 200);
    assert_eq!(proxy.initialize(&bob), 200);

    let said = proxy.stop();
    for principal in ["principal=alice", "principal=bob"] {
        assert!(said.contains(principal), "{principal} not in:\n{said}");
    }
    let hashes: Vec<String> = text
        .lines()
        .filter_map(|line| Some(line.split_once("sha256:")?.1.to_owned()))
        .collect();
    assert_eq!(hashes.len(), 2);
    for secret in [&alice, &bob].into_iter().chain(&hashes) {
        assert!(
            !said.contains(secret.as_str()),
            "a secret on stderr:\n{said}"
        );
        assert!(!said.contains(&secret[..16]), "a secret on stderr:\n{said}");
    }
}
