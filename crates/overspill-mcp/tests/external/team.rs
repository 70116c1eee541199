//! Issue 32's and 39's acceptance tests with real outside parts: `overspill mcp --listen` as a
//! team service, behind Debian's `haproxy` (two instances, affinity on `Mcp-Session-Id`, round
//! robin without it for the 2026-07-28 revision's requests) and scraped by Debian's
//! `prometheus`, each started here on loopback, with the official Python MCP SDK's Streamable
//! HTTP client driving the sessions (tests/fixtures/team/sessions.py), plain HTTP requests as
//! the 2026-07-28 client, and the FastMCP fixture tests/fixtures/mcp/big_server.py upstream
//! (the Python SDK 2.x, which speaks both revisions).
//!
//! Beside the other external tests' parts they need `bash tests/fixtures/team/prepare.sh`
//! (haproxy and prometheus, unpacked under target/).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// What the team tests run with: the workspace, the prepared installs and the proxy binary.
pub(crate) struct Outside {
    pub(crate) root: PathBuf,
    /// The venv of the MCP tests (the Python SDK, FastMCP).
    pub(crate) python: PathBuf,
    /// tests/fixtures/team/prepare.sh's directory (`bin/haproxy`, `bin/prometheus`).
    pub(crate) team: PathBuf,
    pub(crate) overspill: PathBuf,
}

/// The external tests' parts ([`super::outside`]) and haproxy and prometheus, or `None` when
/// the external tests are not asked for.
pub(crate) fn outside(what: &str) -> Option<Outside> {
    let shared = super::outside(what)?;
    let team = std::env::var_os("OVERSPILL_TEAM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| shared.root.join("target/team-external"));
    assert!(
        team.join(".prepared").exists(),
        "OVERSPILL_EXTERNAL_TESTS=1 but {} is not prepared: run `bash tests/fixtures/team/prepare.sh`",
        team.display()
    );
    Some(Outside {
        python: shared.prepared.join("venv/bin/python"),
        root: shared.root,
        team,
        overspill: shared.overspill,
    })
}

impl Outside {
    /// `overspill mcp --listen 127.0.0.1:0 [FLAGS…] --dir DIR -- python big_server.py`.
    pub(crate) fn gateway(&self, dir: &Path, flags: &[&str]) -> Command {
        let mut command = Command::new(&self.overspill);
        command
            .args(["mcp", "--listen", "127.0.0.1:0"])
            .args(flags)
            .arg("--dir")
            .arg(dir)
            .arg("--")
            .arg(&self.python)
            .arg(self.root.join("tests/fixtures/mcp/big_server.py"));
        command
    }

    /// tests/fixtures/team/sessions.py against `url` with `flags`.
    fn sessions(&self, url: &str, flags: &[&str]) -> Command {
        let mut command = Command::new(&self.python);
        command
            .arg(self.root.join("tests/fixtures/team/sessions.py"))
            .arg(url)
            .args(flags);
        command
    }
}

/// One process a test started, with what it wrote on stderr so far.
struct Process {
    name: String,
    child: Child,
    log: Arc<Mutex<String>>,
}

/// What a started process offers the test: its stderr lines (they are also kept for the log),
/// and, when asked for, its stdout lines and its stdin.
pub(crate) struct Started {
    pub(crate) stderr: Receiver<String>,
    pub(crate) stdout: Option<Receiver<String>>,
    pub(crate) stdin: Option<ChildStdin>,
}

/// The processes of one test and its temporary directory. However the test ends, every process
/// is killed; when it ends in a panic, their stderr is shown.
pub(crate) struct Team {
    processes: Vec<Process>,
    pub(crate) dir: tempfile::TempDir,
}

impl Team {
    pub(crate) fn new() -> Team {
        Team {
            processes: Vec::new(),
            dir: tempfile::tempdir()
                .unwrap_or_else(|error| panic!("no temporary directory: {error}")),
        }
    }

    /// Starts `command` as `name`; with `talk`, its stdin and stdout are the test's.
    pub(crate) fn start(&mut self, name: &str, mut command: Command, talk: bool) -> Started {
        let (stdin, stdout) = if talk {
            (Stdio::piped(), Stdio::piped())
        } else {
            (Stdio::null(), Stdio::null())
        };
        let mut child = command
            .stdin(stdin)
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot start {name} ({command:?}): {error}"));
        let log = Arc::new(Mutex::new(String::new()));
        let stderr = child.stderr.take().map(|pipe| {
            let log = Arc::clone(&log);
            lines_of(pipe, move |line| {
                let mut log = log.lock().unwrap_or_else(PoisonError::into_inner);
                log.push_str(line);
                log.push('\n');
            })
        });
        let stdout = child.stdout.take().map(|pipe| lines_of(pipe, |_| ()));
        let stdin = child.stdin.take();
        self.processes.push(Process {
            name: name.to_owned(),
            child,
            log,
        });
        Started {
            stderr: stderr.unwrap_or_else(|| panic!("the stderr of {name} is not piped")),
            stdout,
            stdin,
        }
    }

    fn process(&mut self, name: &str) -> &mut Process {
        self.processes
            .iter_mut()
            .find(|process| process.name == name)
            .unwrap_or_else(|| panic!("no process {name}"))
    }

    /// SIGKILL: the instance dies as a crashed machine's would, without draining.
    pub(crate) fn kill(&mut self, name: &str) {
        let process = self.process(name);
        process
            .child
            .kill()
            .unwrap_or_else(|error| panic!("cannot kill {name}: {error}"));
        let _ = process.child.wait();
    }

    /// SIGTERM: `name` drains and stops as on a deployment's stop.
    pub(crate) fn terminate(&mut self, name: &str) {
        let pid = self.process(name).child.id().to_string();
        let sent = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap_or_else(|error| panic!("cannot run kill for {name}: {error}"));
        assert!(sent.success(), "kill -TERM {name} ({pid}): {sent}");
    }

    /// Waits (until `deadline`) for `name` to exit.
    pub(crate) fn wait(&mut self, name: &str, deadline: Instant) -> ExitStatus {
        let process = self.process(name);
        loop {
            if let Some(status) = process
                .child
                .try_wait()
                .unwrap_or_else(|error| panic!("no status of {name}: {error}"))
            {
                return status;
            }
            assert!(Instant::now() < deadline, "{name} did not exit in time");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// What `name` wrote on stderr so far.
    pub(crate) fn log(&self, name: &str) -> String {
        self.processes
            .iter()
            .find(|process| process.name == name)
            .map(|process| {
                process
                    .log
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone()
            })
            .unwrap_or_default()
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        for process in &mut self.processes {
            let _ = process.child.kill();
            let _ = process.child.wait();
        }
        if std::thread::panicking() {
            // The readers finish once the pipes close.
            std::thread::sleep(Duration::from_millis(200));
            let mut shown = String::new();
            for process in &self.processes {
                let log = process.log.lock().unwrap_or_else(PoisonError::into_inner);
                shown.push_str(&format!("\n==== stderr of {}\n{log}", process.name));
            }
            let _ = std::io::stderr().write_all(shown.as_bytes());
        }
    }
}

/// The lines of `pipe`, read on a thread of their own (each also given to `keep`).
fn lines_of(
    pipe: impl Read + Send + 'static,
    keep: impl Fn(&str) + Send + 'static,
) -> Receiver<String> {
    let (send, receive) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            keep(&line);
            // The test may have stopped listening; the pipe is still drained.
            let _ = send.send(line);
        }
    });
    receive
}

/// The next line of `lines` before `deadline`, or `None` once the pipe is closed.
fn next_line(lines: &Receiver<String>, deadline: Instant, what: &str) -> Option<String> {
    let left = deadline.saturating_duration_since(Instant::now());
    match lines.recv_timeout(left) {
        Ok(line) => Some(line),
        Err(RecvTimeoutError::Disconnected) => None,
        Err(RecvTimeoutError::Timeout) => panic!("{what} said nothing more in time"),
    }
}

/// What follows `marker` on the first stderr line that holds it (within 30 s).
pub(crate) fn announced(started: &Started, marker: &str, what: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let Some(line) = next_line(&started.stderr, deadline, what) else {
            panic!("{what} exited before announcing `{marker}`");
        };
        if let Some((_, rest)) = line.split_once(marker) {
            return rest.trim().to_owned();
        }
    }
}

/// `host:port` of an announced `http://host:port/path`.
pub(crate) fn authority(url: &str) -> String {
    let rest = url.strip_prefix("http://").unwrap_or(url);
    rest.split('/').next().unwrap_or(rest).to_owned()
}

/// A loopback port nothing listens on now.
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .unwrap_or_else(|error| panic!("no free loopback port: {error}"))
        .port()
}

/// An HTTP/1.0 GET of `target` from `address`: the status, the head (lower-cased header names
/// and their values) and the body; `None` when nothing answers.
pub(crate) fn get(address: &str, target: &str) -> Option<(u16, BTreeMap<String, String>, String)> {
    let mut stream = TcpStream::connect(address).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    write!(
        stream,
        "GET {target} HTTP/1.0\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).ok()?;
    let answer = String::from_utf8_lossy(&answer);
    let (head, body) = answer.split_once("\r\n\r\n")?;
    let mut lines = head.lines();
    let status = lines.next()?.split_whitespace().nth(1)?.parse().ok()?;
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Some((status, headers, body.to_owned()))
}

/// `text` for a URL's query.
fn percent_encoded(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(byte).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// The JSON lines sessions.py printed up to (and with) the first whose `event` is `until`.
fn records_until(lines: &Receiver<String>, until: &str, deadline: Instant) -> Vec<Value> {
    let mut records = Vec::new();
    loop {
        let Some(line) = next_line(lines, deadline, "sessions.py") else {
            panic!("sessions.py ended before its `{until}` line; it printed {records:#?}");
        };
        let record: Value = serde_json::from_str(&line).unwrap_or_else(|error| {
            panic!("sessions.py printed a line that is not JSON ({error}): {line}")
        });
        let done = record["event"] == until;
        records.push(record);
        if done {
            return records;
        }
    }
}

/// The `phase` records of sessions.py's lines.
fn phase(records: &[Value], phase: u64) -> Vec<&Value> {
    records
        .iter()
        .filter(|record| record["event"] == "session" && record["phase"] == phase)
        .collect()
}

/// Whether every step of a session record succeeded.
fn completed(session: &Value) -> bool {
    let steps = &session["steps"];
    ["initialize", "call", "explore"]
        .iter()
        .all(|step| steps[step] == true)
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("no `{key}` in {value:#}"))
}

/// The haproxy configuration: `frontend` to two `servers` (name, address), round robin for new
/// sessions and for requests without a session (the 2026-07-28 revision's), each session kept
/// on the instance that answered its `initialize` (the `Mcp-Session-Id` of the response,
/// stored in a stick table). `/readyz` is the health check, every two tenths of a second, with
/// 2 s to answer: a killed instance refuses the check's connection at once, while a live one on
/// a loaded machine can take half a second (by default the check would time out at 200 ms, and
/// a healthy instance go down for a moment, its sessions redispatched). A request stuck to a
/// server that is down, or whose connection is refused before the check has seen it, goes to
/// another (`option redispatch`), which answers 404 for a session it never had. Each response
/// names its server in `X-Served-By`.
fn haproxy_config(dir: &Path, frontend: u16, servers: &[(&str, String)]) -> String {
    let mut config = format!(
        "global
    pidfile {pidfile}
    log stderr format raw local0 info
    maxconn 1000

defaults
    mode http
    log global
    option httplog
    timeout connect 2s
    timeout client 5m
    timeout server 5m
    timeout http-request 10s
    timeout http-keep-alive 10s
    timeout check 2s
    # SSE streams (a session's GET) are long-lived.
    timeout tunnel 1h
    retries 2
    option redispatch 1

frontend mcp
    bind 127.0.0.1:{frontend}
    default_backend overspill

backend overspill
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    stick-table type string len 64 size 10k expire 30m
    stick store-response res.hdr(mcp-session-id)
    stick match req.hdr(mcp-session-id)
    http-response set-header X-Served-By %s
",
        pidfile = dir.join("haproxy.pid").display(),
    );
    for (name, address) in servers {
        config.push_str(&format!(
            "    server {name} {address} check inter 200ms fall 1 rise 2\n"
        ));
    }
    config
}

/// Starts `s1` and `s2`, two `overspill mcp --listen` instances with `flags` sharing the storage
/// directory `shared`, and haproxy in front of them ([`haproxy_config`]); returns the frontend's
/// address once both instances answer `/readyz` through it.
fn behind_haproxy(team: &mut Team, outside: &Outside, shared: &Path, flags: &[&str]) -> String {
    let instances = ["s1", "s2"].map(|name| (name, outside.gateway(shared, flags)));
    instances_behind_haproxy(team, outside, instances)
}

/// Starts each of `instances` (an `overspill mcp --listen` command, by name) and haproxy in
/// front of them ([`haproxy_config`]); returns the frontend's address once every instance
/// answers `/readyz` through it.
pub(crate) fn instances_behind_haproxy(
    team: &mut Team,
    outside: &Outside,
    instances: impl IntoIterator<Item = (&'static str, Command)>,
) -> String {
    let mut servers = Vec::new();
    for (name, command) in instances {
        let instance = team.start(name, command, false);
        let url = announced(&instance, "serving MCP on ", name);
        servers.push((name, authority(&url)));
    }

    let frontend = free_port();
    let config = team.dir.path().join("haproxy.cfg");
    std::fs::write(&config, haproxy_config(team.dir.path(), frontend, &servers))
        .unwrap_or_else(|error| panic!("cannot write the haproxy configuration: {error}"));
    let mut haproxy = Command::new(outside.team.join("bin/haproxy"));
    // Foreground, no daemon, no master process: the test's child is haproxy itself.
    haproxy.arg("-db").arg("-f").arg(&config);
    team.start("haproxy", haproxy, false);

    // Ready once every instance answers through the frontend (round robin alternates them).
    let address = format!("127.0.0.1:{frontend}");
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen = std::collections::BTreeSet::new();
    while seen.len() < servers.len() {
        assert!(
            Instant::now() < deadline,
            "haproxy did not serve every instance's /readyz within 30 s (saw {seen:?})"
        );
        match get(&address, "/readyz") {
            Some((200, headers, _)) => {
                seen.extend(headers.get("x-served-by").cloned());
            }
            _ => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    address
}

/// Issue 32: two `overspill mcp --listen` instances, sharing one storage directory, behind a
/// real HAProxy that keeps each session on its instance by `Mcp-Session-Id`. 20 concurrent
/// Python SDK sessions each store a large result and explore it, every request of a session on
/// the instance that created it; then one instance is killed (SIGKILL) while the sessions are
/// open: the next request of each of its sessions gets 404 (from the other instance, which never
/// had the session), the client starts a new session, which completes on the survivor; the other
/// instance's sessions go on undisturbed, and every file a pointer named is still there.
#[test]
fn two_instances_behind_haproxy_keep_each_session_on_its_instance_and_survive_one_dying() {
    let Some(outside) = outside("two instances behind haproxy") else {
        return;
    };
    let started_at = Instant::now();
    let mut team = Team::new();
    let shared = team.dir.path().join("shared");
    // Room for the survivor's sessions and those that move to it.
    let address = behind_haproxy(&mut team, &outside, &shared, &["--max-sessions", "64"]);
    let url = format!("http://{address}/mcp");
    let script = team.start(
        "sessions.py",
        outside.sessions(&url, &["--sessions", "20", "--megabytes", "1", "--pause"]),
        true,
    );
    let stdout = script.stdout.expect("sessions.py's stdout");
    let mut stdin = script.stdin.expect("sessions.py's stdin");
    let deadline = Instant::now() + Duration::from_secs(150);
    let before = records_until(&stdout, "paused", deadline);

    // Phase 1: every session completed, each on one instance, and both instances took some.
    let first = phase(&before, 1);
    assert_eq!(first.len(), 20, "20 sessions in phase 1: {before:#?}");
    let mut by_instance: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for session in &first {
        assert!(
            completed(session),
            "a session did not complete: {session:#}"
        );
        let served = session["served_by"]
            .as_str()
            .unwrap_or_else(|| panic!("a session was not served by one instance: {session:#}"));
        by_instance
            .entry(served.to_owned())
            .or_default()
            .push(text(session, "session_id").to_owned());
    }
    let counts: Vec<(&String, usize)> = by_instance.iter().map(|(k, v)| (k, v.len())).collect();
    assert!(
        by_instance.contains_key("s1") && by_instance.contains_key("s2") && by_instance.len() == 2,
        "round robin should have spread the sessions over s1 and s2: {counts:?}"
    );
    let phase_one = started_at.elapsed();

    // Kill s1 while its sessions are open, then let the clients go on.
    team.kill("s1");
    writeln!(stdin, "{{\"killed\": \"s1\"}}").expect("sessions.py reads its go");
    drop(stdin);
    let after = records_until(&stdout, "done", deadline);
    let status = team.wait("sessions.py", deadline);
    let done = after.last().cloned().unwrap_or_default();
    assert!(
        status.success() && done["ok"] == true,
        "sessions.py failed ({status}): {:#}",
        done["failures"]
    );

    // Phase 2, as sessions.py saw it, checked again here.
    let second = phase(&after, 2);
    assert_eq!(second.len(), 20, "20 sessions in phase 2: {after:#?}");
    let mut moved = 0;
    for session in &second {
        let was = text(session, "was_served_by");
        let outcome = text(session, "outcome");
        let answers = session["answers"].as_array().cloned().unwrap_or_default();
        if was == "s1" {
            assert_eq!(outcome, "404", "a session of the killed s1: {session:#}");
            assert!(
                session["sdk_error"].is_string(),
                "the SDK should have raised on the 404: {session:#}"
            );
            assert!(
                answers
                    .iter()
                    .any(|answer| answer["status"] == 404 && answer["served_by"] == "s2"),
                "the 404 should come from s2, which never had the session: {session:#}"
            );
            let new = &session["new_session"];
            assert!(
                completed(new) && new["served_by"] == "s2",
                "the new session should complete on s2: {new:#}"
            );
            moved += 1;
        } else {
            assert_eq!(outcome, "ok", "a session of s2 after s1 died: {session:#}");
            assert!(
                answers.iter().all(|answer| answer["served_by"] == "s2"),
                "a session of s2 should stay on s2: {session:#}"
            );
        }
    }
    assert_eq!(moved, by_instance["s1"].len(), "every session of s1 moved");
    // haproxy's own view: its health check (`/readyz`) found s1 gone. The first requests after
    // the kill may come before that; `option redispatch` sends them to s2 (the `+1` of their
    // log lines).
    let deadline = Instant::now() + Duration::from_secs(10);
    while !team.log("haproxy").contains("Server overspill/s1 is DOWN") {
        assert!(
            Instant::now() < deadline,
            "haproxy's health check never marked s1 down"
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // No stored file of a finished call is lost: each pointer's file is in its session's
    // directory under the shared one, whole.
    let mut stored = Vec::new();
    for session in first
        .iter()
        .copied()
        .chain(second.iter().map(|session| &session["new_session"]))
        .filter(|session| session.is_object())
    {
        stored.push(
            shared
                .join(text(session, "session_id"))
                .join(text(session, "file")),
        );
    }
    assert_eq!(stored.len(), 20 + moved, "a file per finished call");
    for path in &stored {
        let bytes = std::fs::read(path)
            .unwrap_or_else(|error| panic!("{} is lost: {error}", path.display()));
        let document: Value = serde_json::from_slice(&bytes)
            .unwrap_or_else(|error| panic!("{} is not whole: {error}", path.display()));
        assert_eq!(document["kind"], "List", "{}", path.display());
        assert!(
            document["items"]
                .as_array()
                .is_some_and(|items| items.len() > 4000),
            "{} lacks items",
            path.display()
        );
    }
    let _ = writeln!(
        std::io::stderr(),
        "two instances behind haproxy: phase 1 {counts:?} in {:.1} s; {moved} sessions moved \
         after s1 died; {} stored files checked; {:.1} s in all",
        phase_one.as_secs_f64(),
        stored.len(),
        started_at.elapsed().as_secs_f64()
    );
}

/// One `overspill auth token NAME --append FILE`: the new token (its line is in `file`).
pub(crate) fn token(outside: &Outside, name: &str, file: &Path) -> String {
    let made = Command::new(&outside.overspill)
        .args(["auth", "token", name, "--append"])
        .arg(file)
        .output()
        .unwrap_or_else(|error| panic!("cannot run overspill auth token: {error}"));
    assert!(
        made.status.success(),
        "overspill auth token {name}: {made:?}"
    );
    String::from_utf8_lossy(&made.stdout).trim().to_owned()
}

/// `<--dir>/principals/<…>`: where `--listen` stores a principal's results
/// (docs/mcp-proxy.md#stateless-requests: the first 32 hex digits of the name's SHA-256).
pub(crate) fn principal_dir(shared: &Path, name: &str) -> PathBuf {
    use sha2::Digest as _;
    let hex: String = sha2::Sha256::digest(name.as_bytes())
        .iter()
        .take(16)
        .map(|byte| format!("{byte:02x}"))
        .collect();
    shared.join("principals").join(hex)
}

/// What one POST through the frontend got: the status, the instance that answered it
/// (`X-Served-By`), the session id it handed out, and the JSON-RPC messages of its body (one
/// JSON body, or an SSE stream's `data:` lines).
pub(crate) struct Exchange {
    pub(crate) status: u16,
    pub(crate) served_by: String,
    pub(crate) session: Option<String>,
    pub(crate) messages: Vec<Value>,
}

impl Exchange {
    /// The text of the one tool result this exchange answered with.
    pub(crate) fn text(&self) -> &str {
        let last = self.messages.last();
        last.and_then(|message| message["result"]["content"][0]["text"].as_str())
            .unwrap_or_else(|| panic!("not a tool result ({}): {:#?}", self.status, self.messages))
    }
}

/// A 2025 session [`Http::open_session`] opened.
pub(crate) struct Opened {
    /// Its id.
    pub(crate) session: String,
    /// The instance that answered `initialize` (`X-Served-By`).
    pub(crate) home: String,
    /// The instance that took `notifications/initialized`.
    pub(crate) initialized_by: String,
}

/// The `file:` line of a pointer: the stored file it names.
pub(crate) fn file_of(pointer: &str) -> String {
    overspill::explore::stored_file(pointer)
        .unwrap_or_else(|| panic!("no `file:` line in the pointer:\n{pointer}"))
        .to_owned()
}

/// An MCP client made of plain HTTP requests (reqwest), as the 2026-07-28 revision lets a
/// client be: each POST is a whole request, with no session.
pub(crate) struct Http {
    runtime: tokio::runtime::Runtime,
    http: reqwest::Client,
    url: String,
}

impl Http {
    pub(crate) fn new(url: String) -> Http {
        // reqwest is built without a crypto provider of its own; the requests are plain HTTP.
        let _ = rustls::crypto::ring::default_provider().install_default();
        Http {
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap_or_else(|error| panic!("no runtime: {error}")),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .unwrap_or_else(|error| panic!("no HTTP client: {error}")),
            url,
        }
    }

    /// POSTs `body` with `token` and `headers`.
    pub(crate) fn post(&self, token: &str, body: &Value, headers: &[(&str, &str)]) -> Exchange {
        let mut request = self
            .http
            .post(&self.url)
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.runtime.block_on(async {
            let response = request
                .send()
                .await
                .unwrap_or_else(|error| panic!("POST {}: {error}", body["method"]));
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned)
            };
            let (status, served_by, session) = (
                response.status().as_u16(),
                header("x-served-by").unwrap_or_default(),
                header("mcp-session-id"),
            );
            let sse =
                header("content-type").is_some_and(|kind| kind.starts_with("text/event-stream"));
            let text = response
                .text()
                .await
                .unwrap_or_else(|error| panic!("the answer to {}: {error}", body["method"]));
            let messages = if sse {
                text.lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .filter(|data| !data.trim().is_empty())
                    .map(|data| {
                        serde_json::from_str(data).unwrap_or_else(|error| {
                            panic!("an event that is not a JSON message ({error}): {data}")
                        })
                    })
                    .collect()
            } else {
                serde_json::from_str(&text)
                    .map(|message| vec![message])
                    .unwrap_or_default()
            };
            Exchange {
                status,
                served_by,
                session,
                messages,
            }
        })
    }

    /// A 2026-07-28 `tools/call`: `_meta` names the revision, the headers mirror the body
    /// (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), and no session id goes with it.
    pub(crate) fn call(&self, token: &str, tool: &str, arguments: Value) -> Exchange {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "team-test", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}}}});
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", tool),
        ];
        let exchange = self.post(token, &body, &headers);
        assert_eq!(exchange.status, 200, "{tool}: {:#?}", exchange.messages);
        assert!(
            exchange.session.is_none(),
            "{tool}: a 2026-07-28 request got a session"
        );
        exchange
    }

    /// A 2025-11-25 session of `token`'s: `initialize`, then `notifications/initialized` in it.
    pub(crate) fn open_session(&self, token: &str) -> Opened {
        let opened = self.post(
            token,
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "team-test", "version": "1"}}}),
            &[],
        );
        assert_eq!(opened.status, 200, "initialize: {:#?}", opened.messages);
        let session = opened
            .session
            .clone()
            .unwrap_or_else(|| panic!("initialize handed out no session id"));
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let sent = self.post(
            token,
            &initialized,
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", "2025-11-25"),
            ],
        );
        assert_eq!(sent.status, 202, "notifications/initialized");
        Opened {
            session,
            home: opened.served_by,
            initialized_by: sent.served_by,
        }
    }

    /// A request of the 2025 session `session`.
    pub(crate) fn in_session(
        &self,
        token: &str,
        session: &str,
        id: u64,
        method: &str,
        params: Value,
    ) -> Exchange {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let headers = [
            ("mcp-session-id", session),
            ("mcp-protocol-version", "2025-11-25"),
        ];
        self.post(token, &body, &headers)
    }
}

/// `call` again until both instances have answered it (round robin sends each request without
/// a session to the next instance): each instance's answer.
fn on_each_instance(call: impl FnMut() -> Exchange) -> BTreeMap<String, Exchange> {
    on_each_of(2, call)
}

/// `call` again until `count` instances have answered it: each instance's answer.
pub(crate) fn on_each_of(
    count: usize,
    mut call: impl FnMut() -> Exchange,
) -> BTreeMap<String, Exchange> {
    let mut answers = BTreeMap::new();
    let mut order = Vec::new();
    for _ in 0..count * 3 {
        let answer = call();
        order.push(answer.served_by.clone());
        answers.insert(answer.served_by.clone(), answer);
        if answers.len() == count {
            return answers;
        }
    }
    panic!("round robin never sent the request to {count} instances: {order:?}");
}

/// Issue 39: two `overspill mcp --listen --auth-tokens FILE` instances sharing one `--dir`,
/// behind a real HAProxy that balances requests without a session round robin (no affinity).
/// A 2026-07-28 client of alice's, plain HTTP requests without a session, stores a large result
/// through one instance and explores the pointer's file with `head` and `grep` through each,
/// the other included: both store a principal's results in one directory of the shared one.
/// bob, the file's other principal, gets `not_found` for that file from each instance. Through
/// the same frontend and configuration, a 2025 session stays on the instance that opened it
/// (the stick table on `Mcp-Session-Id`) and stores in its own directory; bob cannot enter it.
#[test]
fn a_2026_07_28_pointer_is_explored_through_the_other_instance_but_not_by_another_principal() {
    let Some(outside) = outside("a 2026-07-28 client behind haproxy without affinity") else {
        return;
    };
    let started_at = Instant::now();
    let mut team = Team::new();
    let tokens = team.dir.path().join("tokens");
    let (alice, bob) = (
        token(&outside, "alice", &tokens),
        token(&outside, "bob", &tokens),
    );
    let tokens = tokens.to_str().expect("a UTF-8 path");
    let shared = team.dir.path().join("shared");
    let address = behind_haproxy(&mut team, &outside, &shared, &["--auth-tokens", tokens]);
    let client = Http::new(format!("http://{address}/mcp"));

    let made = client.call(&alice, "big", json!({"megabytes": 1}));
    let pointer = made.text();
    assert!(
        pointer.starts_with("[overspill]"),
        "not a pointer: {pointer}"
    );
    let file = file_of(pointer);
    let stored = principal_dir(&shared, "alice").join(&file);
    assert!(
        stored.is_file(),
        "{} is not where alice's results go",
        stored.display()
    );

    let heads = on_each_instance(|| client.call(&alice, "head", json!({"file": file, "lines": 3})));
    let wanted = "\"item-42\"";
    let greps =
        on_each_instance(|| client.call(&alice, "grep", json!({"file": file, "pattern": wanted})));
    for instance in ["s1", "s2"] {
        let head = heads[instance].text();
        assert!(
            head.contains("\"kind\": \"List\""),
            "head through {instance}: {head}"
        );
        let found = greps[instance].text();
        assert!(
            found.contains(wanted) && !found.contains("\"error\""),
            "grep through {instance}: {found}"
        );
    }
    let other = if made.served_by == "s1" { "s2" } else { "s1" };

    let bobs = on_each_instance(|| client.call(&bob, "head", json!({"file": file, "lines": 3})));
    for (instance, answer) in &bobs {
        assert!(
            answer.text().contains("\"error\":\"not_found\""),
            "bob read alice's file through {instance}: {}",
            answer.text()
        );
    }

    // A 2025 session through the same frontend: every request on the instance of its
    // initialize, stateless requests alternating in between.
    let opened = client.open_session(&alice);
    let (session, home) = (opened.session, opened.home);
    let mut served = vec![opened.initialized_by];
    let big = client.in_session(
        &alice,
        &session,
        1,
        "tools/call",
        json!({"name": "big", "arguments": {"megabytes": 1}}),
    );
    served.push(big.served_by.clone());
    let session_file = file_of(big.text());
    for id in 2..6 {
        // A stateless request between two of the session's moves the round robin on.
        client.call(&alice, "head", json!({"file": file, "lines": 1}));
        let grep = json!({"file": session_file, "pattern": wanted});
        let found = client.in_session(
            &alice,
            &session,
            id,
            "tools/call",
            json!({"name": "grep", "arguments": grep}),
        );
        assert!(
            found.text().contains(wanted) && !found.text().contains("\"error\""),
            "grep in the session: {}",
            found.text()
        );
        served.push(found.served_by);
    }
    assert!(
        served.iter().all(|instance| *instance == home),
        "the session opened on {home} was served by {served:?}"
    );
    assert!(
        shared.join(&session).join(&session_file).is_file(),
        "the session's result is in its own directory"
    );
    let entered = client.in_session(&bob, &session, 9, "tools/list", json!({}));
    assert_eq!(
        entered.status, 404,
        "bob entered alice's session: {:#?}",
        entered.messages
    );

    let _ = writeln!(
        std::io::stderr(),
        "a 2026-07-28 pointer made through {} explored through {other}, not_found for bob on \
         {:?}; a 2025 session kept on {home} for {} requests; {:.1} s in all",
        made.served_by,
        bobs.keys().collect::<Vec<_>>(),
        served.len(),
        started_at.elapsed().as_secs_f64()
    );
}

/// Polls Prometheus's query API at `address` for `query` until its one sample's value is
/// `expected` (within 60 s); panics with the last answer otherwise.
fn wait_for_value(address: &str, query: &str, expected: f64) {
    let target = format!("/api/v1/query?query={}", percent_encoded(query));
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut last = String::new();
    while Instant::now() < deadline {
        if let Some((200, _, body)) = get(address, &target) {
            let answer: Value = serde_json::from_str(&body).unwrap_or_default();
            let value = answer["data"]["result"][0]["value"][1]
                .as_str()
                .and_then(|value| value.parse::<f64>().ok());
            if value == Some(expected) {
                return;
            }
            last = body;
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    panic!("Prometheus never answered {expected} to `{query}`; its last answer: {last}");
}

/// Issue 32: a real Prometheus scrapes a running `--listen` gateway's `--metrics` listener
/// during a scripted session (one Python SDK session: a large result stored, two explorations);
/// its HTTP API then returns the tokens intercepted that the stored output's record holds, and
/// the exploration and request series.
#[test]
fn prometheus_scrapes_a_gateway_and_its_api_returns_the_tokens_intercepted() {
    let Some(outside) = outside("prometheus scrapes a gateway") else {
        return;
    };
    let started_at = Instant::now();
    let mut team = Team::new();
    let sessions = team.dir.path().join("sessions");
    let gateway = team.start(
        "overspill",
        outside.gateway(&sessions, &["--metrics", "127.0.0.1:0"]),
        false,
    );
    let url = announced(&gateway, "serving MCP on ", "overspill");
    let metrics = authority(&announced(&gateway, "serving metrics on ", "overspill"));

    let config = team.dir.path().join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n\
             scrape_configs:\n  - job_name: overspill\n    static_configs:\n      - targets: \
             [\"{metrics}\"]\n"
        ),
    )
    .expect("the prometheus configuration is written");
    let prometheus_address = format!("127.0.0.1:{}", free_port());
    let mut prometheus = Command::new(outside.team.join("bin/prometheus"));
    prometheus
        .arg(format!("--config.file={}", config.display()))
        .arg(format!(
            "--storage.tsdb.path={}",
            team.dir.path().join("tsdb").display()
        ))
        .arg(format!("--web.listen-address={prometheus_address}"));
    team.start("prometheus", prometheus, false);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !matches!(get(&prometheus_address, "/-/ready"), Some((200, _, _))) {
        assert!(
            Instant::now() < deadline,
            "prometheus was not ready within 30 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Its first scrape: the gateway is up for it, before the session starts.
    wait_for_value(&prometheus_address, "up{job=\"overspill\"}", 1.0);

    let script = team.start(
        "sessions.py",
        outside.sessions(&url, &["--sessions", "1", "--megabytes", "1", "--direct"]),
        true,
    );
    let stdout = script.stdout.expect("sessions.py's stdout");
    let deadline = Instant::now() + Duration::from_secs(90);
    let records = records_until(&stdout, "done", deadline);
    let status = team.wait("sessions.py", deadline);
    let done = records.last().cloned().unwrap_or_default();
    assert!(
        status.success() && done["ok"] == true,
        "sessions.py failed ({status}): {:#}",
        done["failures"]
    );
    let session = phase(&records, 1)
        .first()
        .copied()
        .cloned()
        .expect("the session's record");
    assert!(
        completed(&session),
        "the session did not complete: {session:#}"
    );

    // The stored outputs' own count of their tokens.
    let listed = Command::new(&outside.overspill)
        .args(["ls", "--json", "--dir"])
        .arg(sessions.join(text(&session, "session_id")))
        .output()
        .expect("overspill ls runs");
    assert!(listed.status.success(), "overspill ls failed: {listed:?}");
    let outputs: Value = serde_json::from_slice(&listed.stdout).expect("overspill ls --json");
    let outputs = outputs.as_array().cloned().unwrap_or_default();
    assert_eq!(outputs.len(), 1, "one stored output: {outputs:#?}");
    let tokens: u64 = outputs
        .iter()
        .map(|output| output["tokens"].as_u64().expect("a record's tokens"))
        .sum();
    assert!(tokens > 20_000, "a large result, not {tokens} tokens");

    // What Prometheus scraped: the same tokens, the two explorations (grep, then head) and the
    // three tool calls (big, grep, head).
    let tokens = u32::try_from(tokens).map(f64::from).expect("a token count");
    wait_for_value(
        &prometheus_address,
        "sum(overspill_tokens_intercepted_total)",
        tokens,
    );
    wait_for_value(
        &prometheus_address,
        "sum(overspill_exploration_calls_total)",
        2.0,
    );
    wait_for_value(
        &prometheus_address,
        "sum(overspill_requests_total{method=\"tools/call\"})",
        3.0,
    );
    let _ = writeln!(
        std::io::stderr(),
        "prometheus scraped {tokens} tokens intercepted, as `overspill ls` counted; {:.1} s in all",
        started_at.elapsed().as_secs_f64()
    );
}

/// The HAProxy configurations docs/team.md gives (the fenced `haproxy` block, and the
/// Kubernetes ConfigMap's `haproxy.cfg`), as text.
fn documented_haproxy_configurations(root: &Path) -> Vec<String> {
    let page = std::fs::read_to_string(root.join("docs/team.md"))
        .unwrap_or_else(|error| panic!("cannot read docs/team.md: {error}"));
    let fenced = page
        .split("```haproxy\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_else(|| panic!("docs/team.md has no ```haproxy block"))
        .to_owned();
    let mapped: String = page
        .split("haproxy.cfg: |\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_else(|| panic!("docs/team.md has no ConfigMap with haproxy.cfg"))
        .lines()
        .map(|line| format!("{}\n", line.strip_prefix("    ").unwrap_or(line)))
        .collect();
    vec![fenced, mapped]
}

#[test]
fn the_haproxy_configurations_of_team_md_are_valid() {
    let Some(outside) = outside("the documented HAProxy configurations") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (index, config) in documented_haproxy_configurations(&outside.root)
        .iter()
        .enumerate()
    {
        assert!(
            config.contains("stick store-response res.hdr(mcp-session-id)"),
            "{config}"
        );
        let file = dir.path().join(format!("documented-{index}.cfg"));
        std::fs::write(&file, config).unwrap();
        let checked = Command::new(outside.team.join("bin/haproxy"))
            .arg("-c")
            .arg("-f")
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            checked.status.success(),
            "haproxy -c refuses docs/team.md's configuration:\n{config}\n{}{}",
            String::from_utf8_lossy(&checked.stdout),
            String::from_utf8_lossy(&checked.stderr)
        );
    }
}
