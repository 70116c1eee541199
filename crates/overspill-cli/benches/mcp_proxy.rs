//! What the MCP proxy (`overspill mcp -- <server>`) costs a session (issue 19), measured on the
//! release `overspill` binary against an upstream server of the bench's own
//! (`support/upstream.rs`: this binary, run as `mcp_proxy serve-mcp [FILE]`).
//!
//! - **Pass-through**: `tools/call small` round trips, one through the proxy and one to the
//!   same server directly, alternating so that both see the same machine; the medians of the
//!   per-call latencies. Target: the proxy adds at most 0.2 ms.
//! - **A 60 MB text result** (the 60 MB service log as one text block): from the moment the
//!   server has written the result's last byte to the moment the client has the pointer,
//!   against counting the text (`o200k_base`, the proxy's counter without a configuration)
//!   and writing it to a new file. Target: at most 1.5×. Each sample starts a new proxy.
//! - **The proxy's peak memory** for that result: `VmHWM` of the `overspill` process after the
//!   call, the largest over the samples, against the text's size. Target: at most 3×. Beside
//!   it, the same on a 200 KB result: the part that does not grow with the result.
//! - **Over HTTP** (issue 20), against the same server served over Streamable HTTP
//!   (`support/http_upstream.rs`: this binary, run as `mcp_proxy serve-mcp-http [FILE]`):
//!   `tools/call small` round trips through `overspill mcp --listen` (the server on stdio behind
//!   it), alternating with the same calls to the server directly (target: at most 0.5 ms
//!   added); bursts of calls from four HTTP clients at once on each side (target: at least
//!   half the direct rate); and the 60 MB result with the server behind `overspill mcp --url`,
//!   timed and measured as on stdio (targets 1.5× and 3×).
//!
//! - **A gateway in front of five servers** (issue 29; `overspill mcp --servers FILE`, five
//!   copies of the bench's server): the tool definitions a client is sent (`tools/list`, counted
//!   in `o200k_base` tokens) through one gateway against five single-server proxies (target: at
//!   least 3× fewer, the exploration tools sent once); `tools/call small` round trips to one of the
//!   five, alternating with the same calls through the single-server proxy (target: at most
//!   0.1 ms added); and the session's start (spawn → `tools/list` answered) with five servers
//!   that each take 300 ms to start, against one such server alone behind the gateway (target:
//!   at most 1.2×: they start side by side).
//! - **The first answer** (issue 38; `support/first_answer.rs`): process start → the answer to
//!   the client's first request, `initialize` or `server/discover`, from a server that takes
//!   300 ms to answer, directly and through the proxy with an empty token cache and a filled
//!   one. Target: the proxy adds at most 100 ms, cold or warm (the tables are built or loaded
//!   in the background, for the first count, not before the first answer).
//!
//! Prints one line, `mcp_proxy: key=value …` (times in nanoseconds, sizes in bytes, a burst
//! as its call count and time), which
//! `cargo xtask bench` reads. Linux only for the memory figure (it reads
//! `/proc/<pid>/status`). Run as a test (`cargo test --all-targets`), it checks the same
//! session on a 200 KB result and a few calls.
//! `cargo bench -p overspill-cli --bench mcp_proxy`; `OVERSPILL_BENCH_QUICK=1` takes one
//! sample of the large result instead of three.

#![allow(missing_docs)]
// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used)]

mod support;
use support::{first_answer, http_client, http_upstream, median, session, upstream};

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use http_client::HttpSession;
use overspill_benchdata::{MB, Shape, bench_bytes};
use session::{Session, is_response_to, result_text, spawn_piped};

/// How much to measure.
struct Plan {
    /// Round trips measured on each side.
    calls: usize,
    /// Round trips on each side before measuring (connections, caches, the proxy's threads).
    warm_up: usize,
    /// Times the large result is sent through a new proxy.
    samples: usize,
    /// HTTP clients calling at once, each with its own connection and session.
    clients: usize,
    /// Calls each of them makes in a burst, after `warm_up / 4` calls to warm up.
    burst: usize,
    /// Bursts on each side; the fastest counts.
    bursts: usize,
    /// First answers of each kind timed on each side; the median counts.
    first_answers: usize,
}

impl Plan {
    fn of_this_run() -> Plan {
        // `cargo bench` passes `--bench`; `cargo test --all-targets` runs the binary without.
        let benchmarking = std::env::args().any(|arg| arg == "--bench");
        let quick = std::env::var_os("OVERSPILL_BENCH_QUICK").is_some();
        match (benchmarking, quick) {
            (false, _) => Plan {
                calls: 20,
                warm_up: 5,
                samples: 1,
                clients: 4,
                burst: 10,
                bursts: 1,
                first_answers: 1,
            },
            (true, quick) => Plan {
                calls: 2_000,
                warm_up: 200,
                samples: if quick { 1 } else { 3 },
                clients: 4,
                burst: 1_000,
                bursts: if quick { 1 } else { 3 },
                first_answers: if quick { 3 } else { 7 },
            },
        }
    }
}

/// What one sample of the large result measured.
struct LargeSample {
    /// The server's last byte → the pointer at the client.
    after_last_byte: Duration,
    /// The request sent → the pointer at the client.
    request_to_pointer: Duration,
    /// The request sent → the whole result at the client, without the proxy.
    request_to_result_directly: Duration,
    /// Counting the text and writing it to a new file.
    count_write: Duration,
    /// The proxy's peak resident memory, when the system tells it.
    peak_rss: Option<u64>,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some(upstream::SERVE) => return upstream::serve(args.get(2).map(String::as_str)),
        Some(http_upstream::SERVE_HTTP) => {
            return http_upstream::serve(args.get(2).map(String::as_str));
        }
        _ => {}
    }
    // A listing run (`--list`) must not measure.
    if args.iter().any(|arg| arg == "--list") {
        return;
    }
    let plan = Plan::of_this_run();
    let first = first_answers(&plan);
    let (direct, proxied) = round_trips(&plan);

    let file = overspill_benchdata::ensure(Shape::Log, bench_bytes(60 * MB)).unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let samples: Vec<LargeSample> = (0..plan.samples)
        .map(|_| large_result(&file, &text))
        .collect();
    let median_of = |f: fn(&LargeSample) -> Duration| median(samples.iter().map(f).collect());
    let mut line = format!(
        "mcp_proxy: calls={} direct_round_trip_ns={} proxy_round_trip_ns={} result_bytes={} \
         samples={} after_last_byte_ns={} count_write_ns={} request_to_pointer_ns={} \
         request_to_result_directly_ns={}",
        plan.calls,
        direct.as_nanos(),
        proxied.as_nanos(),
        text.len(),
        samples.len(),
        median_of(|s| s.after_last_byte).as_nanos(),
        median_of(|s| s.count_write).as_nanos(),
        median_of(|s| s.request_to_pointer).as_nanos(),
        median_of(|s| s.request_to_result_directly).as_nanos(),
    );
    // The same call on a small result: what the proxy holds whatever the result's size (the
    // runtime, and the tokenizer that the first count loads).
    let small_file =
        overspill_benchdata::ensure(Shape::Log, overspill_benchdata::TEST_MODE_BYTES).unwrap();
    let small_peak = proxy_peak_for(&small_file);
    let peaks = samples
        .iter()
        .map(|s| s.peak_rss)
        .collect::<Option<Vec<u64>>>();
    match (peaks, small_peak) {
        (Some(peaks), Some(small_peak)) => {
            let peak = peaks.iter().max().unwrap_or(&0);
            let small_bytes = std::fs::metadata(&small_file).unwrap().len();
            line += &format!(
                " peak_rss_bytes={peak} small_result_bytes={small_bytes} \
                 small_peak_rss_bytes={small_peak}"
            );
        }
        _ => eprintln!("mcp_proxy: /proc/<pid>/status has no VmHWM here; no memory figures"),
    }

    let http = over_http(&plan);
    line += &format!(
        " http_calls={} http_direct_round_trip_ns={} http_proxy_round_trip_ns={} \
         http_metrics_round_trip_ns={} http_clients={} http_burst_calls={} \
         http_direct_burst_ns={} http_proxy_burst_ns={}",
        plan.calls,
        http.direct.as_nanos(),
        http.proxied.as_nanos(),
        http.counted.as_nanos(),
        plan.clients,
        plan.clients * plan.burst,
        http.direct_burst.as_nanos(),
        http.proxied_burst.as_nanos(),
    );
    let url_samples: Vec<UrlSample> = (0..plan.samples)
        .map(|_| large_result_over_url(&file, &text))
        .collect();
    line += &format!(
        " url_after_last_byte_ns={} url_count_write_ns={}",
        median(url_samples.iter().map(|s| s.after_last_byte).collect()).as_nanos(),
        median(url_samples.iter().map(|s| s.count_write).collect()).as_nanos(),
    );
    if let Some(peak) = url_samples
        .iter()
        .map(|s| s.peak_rss)
        .collect::<Option<Vec<u64>>>()
        .and_then(|peaks| peaks.into_iter().max())
    {
        line += &format!(" url_peak_rss_bytes={peak}");
    }
    let gateway = gateway_figures(&plan);
    line += &format!(
        " gateway_tools_tokens={} proxies_tools_tokens={} gateway_round_trip_ns={} \
         gateway_proxy_round_trip_ns={} gateway_startup_ns={} gateway_startup_one_ns={}",
        gateway.tokens,
        gateway.proxies_tokens,
        gateway.round_trip.as_nanos(),
        gateway.proxy_round_trip.as_nanos(),
        gateway.startup.as_nanos(),
        gateway.startup_one.as_nanos(),
    );
    for (opening, figures) in [("initialize", first.0), ("discover", first.1)] {
        line += &format!(
            " first_{opening}_direct_ns={} first_{opening}_cold_ns={} first_{opening}_warm_ns={}",
            figures.direct.as_nanos(),
            figures.cold.as_nanos(),
            figures.warm.as_nanos(),
        );
    }
    println!("{line}");
}

/// The first answer to `initialize` and to `server/discover` from a server that takes
/// [`first_answer::SERVER_MS`] to answer: directly, and through the proxy with an empty and
/// with a filled token cache.
fn first_answers(plan: &Plan) -> (first_answer::Figures, first_answer::Figures) {
    let scratch = tempfile::tempdir().unwrap();
    let warm = scratch.path().join("warm-cache");
    let overspill = Path::new(env!("CARGO_BIN_EXE_overspill"));
    first_answer::warm_up(overspill, &warm);
    let delay = first_answer::SERVER_MS.to_string();
    let server = || {
        let mut command = upstream(None);
        command.env(upstream::START_DELAY, &delay);
        command
    };
    // The server inherits the proxy's environment, its start delay with it.
    let proxy_with = |cache: &Path| {
        let mut command = proxy(&scratch.path().join("pad"), None);
        command
            .env(upstream::START_DELAY, &delay)
            .env("OVERSPILL_CACHE_DIR", cache);
        command
    };
    let measure =
        |opening| first_answer::measure(opening, plan.first_answers, &server, &proxy_with, &warm);
    (
        measure(first_answer::Opening::Initialize),
        measure(first_answer::Opening::Discover),
    )
}

/// What the gateway rows measured.
struct GatewayFigures {
    /// The tool definitions of `tools/list` through one gateway of five servers, in tokens.
    tokens: usize,
    /// The same through five single-server proxies, summed.
    proxies_tokens: usize,
    /// Median `tools/call` round trip to one of the gateway's servers.
    round_trip: Duration,
    /// The same through the single-server proxy, alternating with it.
    proxy_round_trip: Duration,
    /// Spawn → `tools/list` answered, five slow-starting servers.
    startup: Duration,
    /// The same with one of them.
    startup_one: Duration,
}

/// How many servers the gateway rows put behind one gateway.
const GATEWAY_SERVERS: usize = 5;

/// How long each server of the startup row takes to start.
const SLOW_START_MS: u64 = 300;

fn gateway_figures(plan: &Plan) -> GatewayFigures {
    let scratch = tempfile::tempdir().unwrap();
    let five = servers_file(scratch.path(), GATEWAY_SERVERS, None);
    let mut gateway = Session::start(gateway_of(scratch.path(), &five));
    let counter = overspill::tokens::o200k();
    let tokens_of = |session: &mut Session| {
        let id = session.send("tools/list", serde_json::json!({}));
        let listed = session.response(id).message;
        counter.count(&listed["result"]["tools"].to_string())
    };
    let tokens = tokens_of(&mut gateway);
    let proxies_tokens = (0..GATEWAY_SERVERS)
        .map(|n| {
            let mut proxied = Session::start(proxy(&scratch.path().join(format!("p{n}")), None));
            let tokens = tokens_of(&mut proxied);
            proxied.close();
            tokens
        })
        .sum();

    let mut proxied = Session::start(proxy(&scratch.path().join("single"), None));
    let mut times = (Vec::new(), Vec::new());
    for i in 0..plan.warm_up + plan.calls {
        let through_gateway = round_trip_of(&mut gateway, "s3__small");
        let through_proxy = round_trip_of(&mut proxied, "small");
        if i >= plan.warm_up {
            times.0.push(through_gateway);
            times.1.push(through_proxy);
        }
    }
    gateway.close();
    proxied.close();

    let slow_five = servers_file(scratch.path(), GATEWAY_SERVERS, Some(SLOW_START_MS));
    let slow_one = servers_file(scratch.path(), 1, Some(SLOW_START_MS));
    let started = |file: &Path| {
        let began = Instant::now();
        let session = Session::start(gateway_of(scratch.path(), file));
        let took = began.elapsed();
        session.close();
        took
    };
    let (mut five_times, mut one_times) = (Vec::new(), Vec::new());
    for _ in 0..plan.samples {
        five_times.push(started(&slow_five));
        one_times.push(started(&slow_one));
    }
    GatewayFigures {
        tokens,
        proxies_tokens,
        round_trip: median(times.0),
        proxy_round_trip: median(times.1),
        startup: median(five_times),
        startup_one: median(one_times),
    }
}

/// An `mcpServers` file of `count` copies of the bench's server (`s1`, `s2`, …), each taking
/// `delay_ms` to start when given.
fn servers_file(dir: &Path, count: usize, delay_ms: Option<u64>) -> std::path::PathBuf {
    let server = upstream(None);
    let program = server.get_program().to_string_lossy().into_owned();
    let args: Vec<String> = server
        .get_args()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    let env = match delay_ms {
        Some(ms) => serde_json::json!({ upstream::START_DELAY: ms.to_string() }),
        None => serde_json::json!({}),
    };
    let servers: serde_json::Map<String, serde_json::Value> = (1..=count)
        .map(|n| {
            let entry = serde_json::json!({"command": program, "args": args, "env": env});
            (format!("s{n}"), entry)
        })
        .collect();
    let name = format!("servers-{count}-{}.json", delay_ms.unwrap_or(0));
    let path = dir.join(name);
    std::fs::write(
        &path,
        serde_json::json!({ "mcpServers": servers }).to_string(),
    )
    .unwrap();
    path
}

/// `overspill mcp --servers FILE`: one gateway in front of every server of `file`.
fn gateway_of(scratch: &Path, file: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_overspill"));
    command
        .args(["mcp", "--dir"])
        .arg(scratch.join("gateway"))
        .arg("--servers")
        .arg(file)
        // The servers' logs go under the scratch dir, not the user's state directory.
        .env("XDG_STATE_HOME", scratch.join("state"));
    command
}

/// What the HTTP rows measured.
struct HttpFigures {
    /// Median `tools/call small` round trip to the server over HTTP directly.
    direct: Duration,
    /// The same through `overspill mcp --listen`.
    proxied: Duration,
    /// The same through `overspill mcp --listen --metrics …`, which counts each call.
    counted: Duration,
    /// The fastest burst of concurrent calls to the server directly.
    direct_burst: Duration,
    /// The same through `overspill mcp --listen`.
    proxied_burst: Duration,
}

/// Small calls over Streamable HTTP: to the bench's server served over HTTP, and to
/// `overspill mcp --listen` in front of the same server on stdio. Round trips alternate
/// between the two, as on stdio; then bursts of concurrent calls, one side after the other.
fn over_http(plan: &Plan) -> HttpFigures {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let server = HttpUpstream::start(None);
    let proxy = ListeningProxy::start(&scratch.path().join("plain"), &[]);
    let counting = ListeningProxy::start(
        &scratch.path().join("counted"),
        &["--metrics", "127.0.0.1:0"],
    );
    let figures = runtime.block_on(async {
        let mut direct = HttpSession::open(http_client::client(), &server.url).await;
        let mut proxied = HttpSession::open(http_client::client(), &proxy.url).await;
        let mut counted = HttpSession::open(http_client::client(), &counting.url).await;
        let mut times = (
            Vec::with_capacity(plan.calls),
            Vec::with_capacity(plan.calls),
            Vec::with_capacity(plan.calls),
        );
        for i in 0..plan.warm_up + plan.calls {
            let direct_time = direct.call_small().await;
            // The two proxies take turns going first: a call right after another is a little
            // faster or slower by its place alone, which would pass for what counting costs.
            let (proxied_time, counted_time) = if i % 2 == 0 {
                let proxied_time = proxied.call_small().await;
                (proxied_time, counted.call_small().await)
            } else {
                let counted_time = counted.call_small().await;
                (proxied.call_small().await, counted_time)
            };
            if i >= plan.warm_up {
                times.0.push(direct_time);
                times.1.push(proxied_time);
                times.2.push(counted_time);
            }
        }
        direct.close().await;
        proxied.close().await;
        counted.close().await;
        let mut bursts = (Duration::MAX, Duration::MAX);
        for _ in 0..plan.bursts {
            bursts.0 = bursts.0.min(burst(&server.url, plan).await);
            bursts.1 = bursts.1.min(burst(&proxy.url, plan).await);
        }
        HttpFigures {
            direct: median(times.0),
            proxied: median(times.1),
            counted: median(times.2),
            direct_burst: bursts.0,
            proxied_burst: bursts.1,
        }
    });
    proxy.close();
    counting.close();
    server.close();
    figures
}

/// `plan.clients` clients, each with its own connection and session, making `plan.burst`
/// small calls each, all at once: the time from the first call to the last answer.
async fn burst(url: &str, plan: &Plan) -> Duration {
    let mut sessions = Vec::with_capacity(plan.clients);
    for _ in 0..plan.clients {
        let mut session = HttpSession::open(http_client::client(), url).await;
        for _ in 0..(plan.warm_up / 10).max(1) {
            session.call_small().await;
        }
        sessions.push(session);
    }
    let started = Instant::now();
    let calls = plan.burst;
    let clients: Vec<_> = sessions
        .into_iter()
        .map(|mut session| {
            tokio::spawn(async move {
                for _ in 0..calls {
                    session.call_small().await;
                }
                session
            })
        })
        .collect();
    let mut sessions = Vec::with_capacity(clients.len());
    for client in clients {
        sessions.push(client.await.unwrap());
    }
    let took = started.elapsed();
    for session in sessions {
        session.close().await;
    }
    took
}

/// What one sample of the large result over `--url` measured.
struct UrlSample {
    /// The server's last byte → the pointer at the client.
    after_last_byte: Duration,
    /// Counting the text and writing it to a new file.
    count_write: Duration,
    /// The proxy's peak resident memory, when the system tells it.
    peak_rss: Option<u64>,
}

/// One sample of the large result with the server over Streamable HTTP: the baseline, then
/// `overspill mcp --url` with the client on stdio.
fn large_result_over_url(file: &Path, text: &str) -> UrlSample {
    let count_write = count_and_write(text);
    let mut server = HttpUpstream::start(Some(file));
    let scratch = tempfile::tempdir().unwrap();
    let mut proxied = Session::start(proxy_to_url(scratch.path(), &server.url));
    let id = proxied.call("big");
    let pointer = proxied.response(id);
    let pointer_text = result_text(&pointer.message);
    assert!(
        pointer_text.contains("overspill://") && pointer_text.len() < text.len() / 10,
        "the proxy did not replace the result with a pointer: {pointer_text}"
    );
    let written_at = server.written_at();
    let peak_rss = peak_rss_bytes(proxied.pid());
    proxied.close();
    server.close();
    UrlSample {
        after_last_byte: Duration::from_nanos(pointer.at_unix_ns.saturating_sub(written_at)),
        count_write,
        peak_rss,
    }
}

/// The baseline of the large result: counting `text` with `o200k_base`, then writing it to a
/// new file.
fn count_and_write(text: &str) -> Duration {
    let counter = overspill::tokens::o200k();
    let baseline = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let tokens = counter.count(text);
    std::fs::write(baseline.path().join("output.txt"), text).unwrap();
    let took = started.elapsed();
    std::hint::black_box(tokens);
    took
}

/// The median round trip of `tools/call small`: (directly, through the proxy).
fn round_trips(plan: &Plan) -> (Duration, Duration) {
    let scratch = tempfile::tempdir().unwrap();
    let mut direct = Session::start(upstream(None));
    let mut proxied = Session::start(proxy(scratch.path(), None));
    let mut times = (
        Vec::with_capacity(plan.calls),
        Vec::with_capacity(plan.calls),
    );
    for i in 0..plan.warm_up + plan.calls {
        let direct_time = round_trip(&mut direct);
        let proxied_time = round_trip(&mut proxied);
        if i >= plan.warm_up {
            times.0.push(direct_time);
            times.1.push(proxied_time);
        }
    }
    direct.close();
    proxied.close();
    (median(times.0), median(times.1))
}

/// One `tools/call small`, from sending the request to having its response's line.
fn round_trip(session: &mut Session) -> Duration {
    round_trip_of(session, "small")
}

/// One call of `tool` (the bench server's `small`, under the name the session offers it).
fn round_trip_of(session: &mut Session, tool: &str) -> Duration {
    let sent = Instant::now();
    let id = session.call(tool);
    let response = session.response(id);
    let took = response.at - sent;
    assert_eq!(result_text(&response.message), upstream::SMALL_TEXT);
    took
}

/// One sample of the large result: the baseline, the proxy, and the server alone.
fn large_result(file: &Path, text: &str) -> LargeSample {
    let count_write = count_and_write(text);

    let scratch = tempfile::tempdir().unwrap();
    let mut proxied = Session::start(proxy(scratch.path(), Some(file)));
    let (after_last_byte, request_to_pointer) = {
        let sent = Instant::now();
        let (pointer, written_at) = large_call(&mut proxied);
        let pointer_text = result_text(&pointer.message);
        assert!(
            pointer_text.contains("overspill://") && pointer_text.len() < text.len() / 10,
            "the proxy did not replace the result with a pointer: {pointer_text}"
        );
        (
            Duration::from_nanos(pointer.at_unix_ns.saturating_sub(written_at)),
            pointer.at - sent,
        )
    };
    let peak_rss = peak_rss_bytes(proxied.pid());
    proxied.close();

    let mut direct = Session::start(upstream(Some(file)));
    let sent = Instant::now();
    let (result, _) = large_call(&mut direct);
    let request_to_result_directly = result.at - sent;
    assert_eq!(result_text(&result.message).len(), text.len());
    direct.close();

    LargeSample {
        after_last_byte,
        request_to_pointer,
        request_to_result_directly,
        count_write,
        peak_rss,
    }
}

/// The proxy's peak resident memory over a session with one `big` call on `file`.
fn proxy_peak_for(file: &Path) -> Option<u64> {
    let scratch = tempfile::tempdir().unwrap();
    let mut proxied = Session::start(proxy(scratch.path(), Some(file)));
    let (pointer, _) = large_call(&mut proxied);
    assert!(result_text(&pointer.message).contains("overspill://"));
    let peak = peak_rss_bytes(proxied.pid());
    proxied.close();
    peak
}

/// Calls `big`; returns its response and when the server had written the response's last
/// byte (its [`upstream::WRITTEN`] notification, which may arrive before or after it).
fn large_call(session: &mut Session) -> (session::Arrival, u64) {
    let id = session.call("big");
    let (mut response, mut written_at) = (None, None);
    while response.is_none() || written_at.is_none() {
        let arrival = session.next();
        if is_response_to(&arrival.message, id) {
            response = Some(arrival);
        } else if arrival.message["method"] == upstream::WRITTEN {
            written_at = arrival.message["params"]["at_unix_ns"].as_u64();
        }
    }
    (response.unwrap(), written_at.unwrap())
}

/// The upstream server: this binary in its server role.
fn upstream(file: Option<&Path>) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.arg(upstream::SERVE).args(file);
    command
}

/// The proxy in front of [`upstream`], storing under `scratch`, as a user runs it with no
/// configuration.
fn proxy(scratch: &Path, file: Option<&Path>) -> Command {
    let server = upstream(file);
    let mut command = Command::new(env!("CARGO_BIN_EXE_overspill"));
    command
        .args(["mcp", "--name", "bench", "--dir"])
        .arg(scratch)
        .arg("--")
        .arg(server.get_program())
        .args(server.get_args());
    command
}

/// `overspill mcp --url` to the bench's server over HTTP, storing under `scratch`.
fn proxy_to_url(scratch: &Path, url: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_overspill"));
    command
        .args(["mcp", "--name", "bench", "--dir"])
        .arg(scratch)
        .args(["--url", url]);
    command
}

/// How long a helper process may take to say it is ready, or to say a `big` response left.
const SAYS_WITHIN: Duration = Duration::from_secs(60);

/// The lines a child writes to `from`, on a channel, read by a thread of their own so that a
/// silent child is a timeout rather than a hang.
fn lines_of(from: impl std::io::Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// The next line of `lines` that starts with `word` and a space; the rest of it.
fn said(lines: &std::sync::mpsc::Receiver<String>, word: &str) -> String {
    let deadline = Instant::now() + SAYS_WITHIN;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = lines
            .recv_timeout(left)
            .unwrap_or_else(|error| panic!("no `{word} …` line within {SAYS_WITHIN:?}: {error}"));
        if let Some(rest) = line.strip_prefix(word).and_then(|r| r.strip_prefix(' ')) {
            return rest.to_owned();
        }
    }
}

/// The bench's server over Streamable HTTP ([`http_upstream`]), a process of its own.
struct HttpUpstream {
    child: Child,
    input: Option<ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
    url: String,
}

impl HttpUpstream {
    fn start(file: Option<&Path>) -> HttpUpstream {
        let mut child = spawn_piped(
            Command::new(std::env::current_exe().unwrap())
                .arg(http_upstream::SERVE_HTTP)
                .args(file),
        );
        let input = child.stdin.take();
        let output: ChildStdout = child.stdout.take().unwrap();
        let lines = lines_of(output);
        let address = said(&lines, http_upstream::LISTENING);
        HttpUpstream {
            child,
            input,
            lines,
            url: format!("http://{address}{}", http_upstream::PATH),
        }
    }

    /// When the last `big` response's last byte left, in nanoseconds since the Unix epoch.
    fn written_at(&mut self) -> u64 {
        said(&self.lines, http_upstream::WRITTEN_AT)
            .parse()
            .unwrap()
    }

    /// Stops the server by closing its stdin.
    fn close(mut self) {
        drop(self.input.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "the HTTP server exited with {status}");
    }
}

/// `overspill mcp --listen 127.0.0.1:0 -- <the bench's server>`: the address it bound is in
/// the line it prints on stderr; the rest of its stderr goes to ours.
struct ListeningProxy {
    child: Child,
    url: String,
}

impl ListeningProxy {
    fn start(scratch: &Path, flags: &[&str]) -> ListeningProxy {
        let server = upstream(None);
        let mut child = Command::new(env!("CARGO_BIN_EXE_overspill"))
            .args(["mcp", "--name", "bench", "--dir"])
            .arg(scratch)
            .args(["--listen", "127.0.0.1:0"])
            .args(flags)
            .arg("--")
            .arg(server.get_program())
            .args(server.get_args())
            .stdin(Stdio::null())
            .stdout(Stdio::inherit())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = lines_of(child.stderr.take().unwrap());
        let url = said(&lines, "overspill mcp: serving MCP on");
        std::thread::spawn(move || {
            for line in lines {
                eprintln!("{line}");
            }
        });
        ListeningProxy { child, url }
    }

    /// Stops the proxy; its sessions were ended by their clients (DELETE), which stopped
    /// their children.
    fn close(self) {
        drop(self);
    }
}

impl Drop for ListeningProxy {
    /// Also when the bench panics: `--listen` does not end with its stdin, so it would outlive
    /// the bench (and its sessions' children with it).
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The peak resident memory of process `pid`, from `VmHWM` in `/proc/<pid>/status`.
fn peak_rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
