//! What a call of the 2026-07-28 revision costs through `overspill mcp --listen` (issue 39):
//! no `initialize` and no session, each POST one whole request with its `_meta` envelope and
//! the headers that mirror it (docs/mcp-proxy.md#stateless-requests).
//!
//! The servers are the `mcp_proxy` bench's own (`crates/overspill-cli/benches/support/`): its
//! binary run as `serve-mcp-http` is the direct Rust HTTP server (axum, one JSON body per
//! answer), and run as `serve-mcp` it is the stdio server behind `overspill mcp --listen
//! 127.0.0.1:0`. Both answer a `tools/call small` without a session, so the same request goes
//! to each; the proxy serves it in the context of its one agent (`local`, no token).
//!
//! - **Round trip**: calls alternating between the server directly and the proxy, one
//!   keep-alive connection each, [`Plan::warm_up`] to warm up, then [`Plan::calls`] measured,
//!   each from writing the request to having its answer (the JSON body, or the SSE event that
//!   carries it); the medians.
//! - **CPU per call**: [`Plan::clients`] clients at once, each on a connection of its own,
//!   [`Plan::burst`] calls each, on the server directly, then through the proxy; the CPU time
//!   (user and system, every thread) each process used meanwhile, from `/proc/<pid>/stat`,
//!   divided by the calls. The proxy's figure is its own process's, not the stdio server's
//!   behind it: what the proxy costs a machine beside the server it fronts.
//!
//! The client is HTTP/1.1 over `std::net` (xtask has no HTTP client), the same on both sides, so
//! its own cost is in both figures alike. Every read has a deadline and every helper process is
//! killed when dropped, so the bench cannot hang or leave a process behind.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::scenarios::{Measured, stateless};

/// The programs the measurement runs.
pub struct Binaries {
    /// The `mcp_proxy` bench's executable: the servers.
    pub bench: PathBuf,
    /// The release `overspill`.
    pub overspill: PathBuf,
}

impl Binaries {
    /// The programs among what cargo `built` for `bench` (executables by target name).
    pub fn of(built: &BTreeMap<String, PathBuf>, bench: &str) -> Result<Binaries> {
        let get = |name: &str| {
            built
                .get(name)
                .cloned()
                .with_context(|| format!("cargo built no `{name}` for the {bench} bench"))
        };
        Ok(Binaries {
            bench: get(bench)?,
            overspill: get("overspill")?,
        })
    }
}

/// How much to measure.
#[derive(Debug, Clone, Copy)]
struct Plan {
    /// Round trips on each side before measuring.
    warm_up: usize,
    /// Round trips measured on each side.
    calls: usize,
    /// Clients calling at once in a burst.
    clients: usize,
    /// Calls each client makes in a burst.
    burst: usize,
    /// Bursts on each side; their CPU time and calls are summed.
    bursts: usize,
}

impl Plan {
    fn new(quick: bool) -> Plan {
        Plan {
            warm_up: 200,
            calls: 2_000,
            clients: 4,
            // 20,000 calls a burst: the direct server's CPU time is then some 40 ticks of
            // `/proc/<pid>/stat`'s 10 ms, counted to a few per cent.
            burst: 5_000,
            bursts: if quick { 1 } else { 3 },
        }
    }
}

/// What the measurement found.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Figures {
    /// Median round trip to the server directly.
    direct: Duration,
    /// Median round trip through `--listen`.
    proxied: Duration,
    /// The server's CPU time per call in the bursts.
    direct_cpu: Duration,
    /// The proxy's CPU time per call in the bursts.
    proxied_cpu: Duration,
}

/// The path both servers serve MCP at.
const PATH: &str = "/mcp";

/// The text of every `small` result (the bench server's `SMALL_TEXT`).
const SMALL_TEXT: &str = "ok: one small result";

/// The longest a helper may take to say where it listens, and a request to be answered.
const DEADLINE: Duration = Duration::from_secs(60);

/// Measures the rows of [`stateless`], with `scratch` (emptied first) as the proxy's `--dir`.
pub fn measure(
    binaries: &Binaries,
    scratch: &Path,
    quick: bool,
) -> Result<BTreeMap<String, Measured>> {
    let plan = Plan::new(quick);
    if scratch.exists() {
        std::fs::remove_dir_all(scratch)
            .with_context(|| format!("could not empty {}", scratch.display()))?;
    }
    eprintln!(
        "xtask bench: 2026-07-28 calls, directly and through overspill mcp --listen ({} round \
         trips, {} burst(s) of {} × {} calls)",
        plan.calls, plan.bursts, plan.clients, plan.burst
    );
    let started = Instant::now();
    let server = Helper::server(&binaries.bench)?;
    let proxy = Helper::proxy(binaries, scratch)?;
    let figures = measure_with(&plan, &server, &proxy)?;
    drop(proxy);
    drop(server);
    let _ = std::fs::remove_dir_all(scratch);
    eprintln!(
        "xtask bench: the 2026-07-28 rows took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(measured(&figures))
}

/// The figures under the ids of [`stateless`].
fn measured(figures: &Figures) -> BTreeMap<String, Measured> {
    let time = |duration: Duration| Measured::Time {
        seconds: duration.as_secs_f64(),
        bytes: None,
    };
    [
        (stateless::ROUND_TRIP_DIRECT, figures.direct),
        (stateless::ROUND_TRIP_PROXIED, figures.proxied),
        (stateless::CPU_DIRECT, figures.direct_cpu),
        (stateless::CPU_PROXIED, figures.proxied_cpu),
    ]
    .into_iter()
    .map(|(id, duration)| (id.to_owned(), time(duration)))
    .collect()
}

fn measure_with(plan: &Plan, server: &Helper, proxy: &Helper) -> Result<Figures> {
    let mut direct = Connection::open(&server.address)?;
    let mut proxied = Connection::open(&proxy.address)?;
    let mut times = (
        Vec::with_capacity(plan.calls),
        Vec::with_capacity(plan.calls),
    );
    for i in 0..plan.warm_up + plan.calls {
        let direct_time = direct.call_small().context("directly")?;
        let proxied_time = proxied.call_small().context("through --listen")?;
        if i >= plan.warm_up {
            times.0.push(direct_time);
            times.1.push(proxied_time);
        }
    }
    let ticks = ticks_per_second();
    let (mut direct_cpu, mut proxied_cpu) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..plan.bursts {
        direct_cpu += burst(plan, server, ticks).context("a burst directly")?;
        proxied_cpu += burst(plan, proxy, ticks).context("a burst through --listen")?;
    }
    let calls = u32::try_from(plan.bursts * plan.clients * plan.burst)
        .context("too many calls in the bursts")?;
    Ok(Figures {
        direct: median(times.0),
        proxied: median(times.1),
        direct_cpu: direct_cpu / calls,
        proxied_cpu: proxied_cpu / calls,
    })
}

/// [`Plan::clients`] clients calling `helper` at once, [`Plan::burst`] calls each: the CPU time
/// the helper's process used meanwhile. Each client warms its connection up first.
fn burst(plan: &Plan, helper: &Helper, ticks: u64) -> Result<Duration> {
    let mut connections = Vec::with_capacity(plan.clients);
    for _ in 0..plan.clients {
        let mut connection = Connection::open(&helper.address)?;
        for _ in 0..(plan.warm_up / 10).max(1) {
            connection.call_small()?;
        }
        connections.push(connection);
    }
    let before = cpu_time(helper.pid(), ticks)?;
    std::thread::scope(|scope| {
        let clients: Vec<_> = connections
            .iter_mut()
            .map(|connection| {
                scope.spawn(move || -> Result<()> {
                    for _ in 0..plan.burst {
                        connection.call_small()?;
                    }
                    Ok(())
                })
            })
            .collect();
        for client in clients {
            client
                .join()
                .map_err(|_| anyhow::anyhow!("a client thread panicked"))??;
        }
        Ok::<(), anyhow::Error>(())
    })?;
    let after = cpu_time(helper.pid(), ticks)?;
    Ok(after.saturating_sub(before))
}

/// The median of `times` (zero for none).
fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    match times.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => times[n / 2],
        n => (times[n / 2 - 1] + times[n / 2]) / 2,
    }
}

/// One HTTP/1.1 keep-alive connection of a 2026-07-28 client.
struct Connection {
    reader: BufReader<TcpStream>,
    /// `Host:`, which `--listen` checks against DNS rebinding.
    host: String,
    next_id: u64,
}

impl Connection {
    fn open(address: &str) -> Result<Connection> {
        let stream = TcpStream::connect(address)
            .with_context(|| format!("could not connect to {address}"))?;
        // As the servers do: no small write waits for the peer's ACK.
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(DEADLINE))?;
        stream.set_write_timeout(Some(DEADLINE))?;
        Ok(Connection {
            reader: BufReader::new(stream),
            host: address.to_owned(),
            next_id: 1,
        })
    }

    /// One 2026-07-28 `tools/call small`, from writing the request to having its answer.
    fn call_small(&mut self) -> Result<Duration> {
        let id = self.next_id;
        self.next_id += 1;
        let request = post(&self.host, &call_small(id));
        let sent = Instant::now();
        self.reader.get_mut().write_all(request.as_bytes())?;
        let (at, answer) = answer_to(&mut self.reader, id)?;
        let text = &answer["result"]["content"][0]["text"];
        if text != SMALL_TEXT {
            bail!("tools/call small was answered with {answer}");
        }
        Ok(at - sent)
    }
}

/// The body of a 2026-07-28 `tools/call small` with `id`.
fn call_small(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "small", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "overspill-bench", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string()
}

/// The POST of `body` to `host`, with the headers that mirror a `tools/call small`.
fn post(host: &str, body: &str) -> String {
    format!(
        "POST {PATH} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: small\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Reads one HTTP/1.1 response from `reader`, whole (so the next one starts at its end): when
/// the answer to request `id` was had, and that answer. The body is one JSON message
/// (`Content-Length`), or an SSE stream in chunks whose events carry the answer among others.
fn answer_to(reader: &mut impl BufRead, id: u64) -> Result<(Instant, Value)> {
    let status_line = line(reader)?;
    let status = status_line.split_whitespace().nth(1).unwrap_or_default();
    let (mut length, mut chunked) = (None, false);
    loop {
        let header = line(reader)?;
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').unwrap_or((&header, ""));
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = Some(value.parse::<usize>().context("a Content-Length")?);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.eq_ignore_ascii_case("chunked");
        }
    }
    if !chunked {
        let mut body = vec![0; length.unwrap_or(0)];
        reader.read_exact(&mut body)?;
        let at = Instant::now();
        if status != "200" {
            bail!("{status_line}: {}", String::from_utf8_lossy(&body));
        }
        let answer: Value = serde_json::from_slice(&body).context("the answer is not JSON")?;
        return Ok((at, answer));
    }
    // An SSE stream: the answer is had once its event is complete; the rest is read on.
    let (mut events, mut answer) = (Vec::new(), None);
    loop {
        let size = line(reader)?;
        let size = size.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size, 16).context("a chunk's size")?;
        if size == 0 {
            // Trailers, if any, up to the empty line.
            while !line(reader)?.is_empty() {}
            break;
        }
        let mut chunk = vec![0; size + 2];
        reader.read_exact(&mut chunk)?;
        chunk.truncate(size);
        events.extend_from_slice(&chunk);
        while let Some(end) = find(&events, b"\n\n") {
            let event: Vec<u8> = events.drain(..end + 2).collect();
            if let Some(message) = event_message(&event)?
                && message["id"] == id
                && answer.is_none()
            {
                answer = Some((Instant::now(), message));
            }
        }
    }
    if status != "200" {
        bail!("{status_line}");
    }
    answer.with_context(|| format!("the event stream ended without the answer to {id}"))
}

/// The JSON message of one SSE event's `data:` lines, if it has any.
fn event_message(event: &[u8]) -> Result<Option<Value>> {
    let event = std::str::from_utf8(event).context("an event is not UTF-8")?;
    let data: Vec<&str> = event
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| data.strip_prefix(' ').unwrap_or(data))
        .collect();
    let data = data.join("\n");
    if data.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str(&data)
        .map(Some)
        .with_context(|| format!("an event's data is not JSON: {data}"))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// One line of the response's head, without its `\r\n`; an error at the end of the stream.
fn line(reader: &mut impl BufRead) -> Result<String> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        bail!("the connection closed in the middle of a response");
    }
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}

/// The clock ticks of `/proc/<pid>/stat`'s times (`getconf CLK_TCK`; 100 where it cannot tell,
/// which is Linux's `USER_HZ` everywhere).
fn ticks_per_second() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .and_then(|text| text.trim().parse().ok())
        .filter(|&ticks| ticks > 0)
        .unwrap_or(100)
}

/// The CPU time (user and system, of every thread, the ended ones too) process `pid` used.
fn cpu_time(pid: u32, ticks: u64) -> Result<Duration> {
    let path = format!("/proc/{pid}/stat");
    let stat = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {path} (the CPU rows need Linux)"))?;
    cpu_of_stat(&stat, ticks).with_context(|| format!("{path} has no utime and stime: {stat}"))
}

/// `utime` + `stime` (fields 14 and 15) of a `/proc/<pid>/stat` line. The name in parentheses
/// (field 2) may hold spaces and parentheses, so the fields are counted after its last `)`.
fn cpu_of_stat(stat: &str, ticks: u64) -> Option<Duration> {
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    let total = user + system;
    Some(
        Duration::from_secs(total / ticks)
            + Duration::from_nanos(total % ticks * 1_000_000_000 / ticks),
    )
}

/// A server the measurement started: where it listens. It is killed when dropped (its stdio
/// server, if any, ends with its pipes).
struct Helper {
    child: Child,
    address: String,
}

impl Helper {
    /// `mcp_proxy serve-mcp-http`: the direct server. It prints `listening <address>` on
    /// stdout, and stops when its stdin closes.
    fn server(bench: &Path) -> Result<Helper> {
        let mut child = Command::new(bench)
            .arg("serve-mcp-http")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("could not start {} serve-mcp-http", bench.display()))?;
        let lines = lines_of(child.stdout.take());
        let mut helper = Helper {
            child,
            address: String::new(),
        };
        helper.address = said(&lines, "listening ", "the bench's HTTP server")?;
        // What it prints later (`written …` after a large answer) is not needed.
        std::thread::spawn(move || lines.into_iter().for_each(drop));
        Ok(helper)
    }

    /// `overspill mcp --name bench --dir SCRATCH --listen 127.0.0.1:0 -- mcp_proxy serve-mcp`,
    /// as a user runs it with no configuration. Its address is in the line it prints on
    /// stderr; the rest of its stderr goes to ours.
    fn proxy(binaries: &Binaries, scratch: &Path) -> Result<Helper> {
        let mut child = Command::new(&binaries.overspill)
            .args(["mcp", "--name", "bench", "--dir"])
            .arg(scratch)
            .args(["--listen", "127.0.0.1:0", "--"])
            .arg(&binaries.bench)
            .arg("serve-mcp")
            .stdin(Stdio::null())
            .stdout(Stdio::inherit())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("could not start {}", binaries.overspill.display()))?;
        let lines = lines_of(child.stderr.take());
        let mut helper = Helper {
            child,
            address: String::new(),
        };
        let url = said(
            &lines,
            "overspill mcp: serving MCP on ",
            "overspill mcp --listen",
        )?;
        let address = url
            .strip_prefix("http://")
            .and_then(|rest| rest.strip_suffix(PATH))
            .with_context(|| {
                format!("overspill mcp --listen serves at {url}, not http://…{PATH}")
            })?;
        helper.address = address.to_owned();
        std::thread::spawn(move || {
            for line in lines {
                eprintln!("{line}");
            }
        });
        Ok(helper)
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The lines of `pipe`, read on a thread of their own, so that a silent helper is a timeout.
fn lines_of(pipe: Option<impl Read + Send + 'static>) -> Receiver<String> {
    let (send, lines) = channel();
    if let Some(pipe) = pipe {
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
    }
    lines
}

/// What follows `prefix` on the first line of `lines` that starts with it, within [`DEADLINE`].
fn said(lines: &Receiver<String>, prefix: &str, who: &str) -> Result<String> {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = lines
            .recv_timeout(left)
            .map_err(|_| anyhow::anyhow!("{who} did not print `{prefix}…` within {DEADLINE:?}"))?;
        if let Some(rest) = line.strip_prefix(prefix) {
            return Ok(rest.trim().to_owned());
        }
    }
}

#[cfg(test)]
mod tests;
