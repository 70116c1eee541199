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
//!
//! Prints one line, `mcp_proxy: key=value …` (times in nanoseconds, sizes in bytes), which
//! `cargo xtask bench` reads. Linux only for the memory figure (it reads
//! `/proc/<pid>/status`). Run as a test (`cargo test --all-targets`), it checks the same
//! session on a 200 KB result and a few calls.
//! `cargo bench -p overspill-cli --bench mcp_proxy`; `OVERSPILL_BENCH_QUICK=1` takes one
//! sample of the large result instead of three.

#![allow(missing_docs)]
// A bench is a test harness: failing loudly on setup errors is what it should do.
#![allow(clippy::unwrap_used)]

#[path = "support/session.rs"]
mod session;
#[path = "support/upstream.rs"]
mod upstream;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use overspill_benchdata::{MB, Shape, bench_bytes};
use session::{Session, is_response_to, result_text};

/// How much to measure.
struct Plan {
    /// Round trips measured on each side.
    calls: usize,
    /// Round trips on each side before measuring (connections, caches, the proxy's threads).
    warm_up: usize,
    /// Times the large result is sent through a new proxy.
    samples: usize,
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
            },
            (true, quick) => Plan {
                calls: 2_000,
                warm_up: 200,
                samples: if quick { 1 } else { 3 },
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
    if args.get(1).map(String::as_str) == Some(upstream::SERVE) {
        return upstream::serve(args.get(2).map(String::as_str));
    }
    // A listing run (`--list`) must not measure.
    if args.iter().any(|arg| arg == "--list") {
        return;
    }
    let plan = Plan::of_this_run();
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
    println!("{line}");
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
    let sent = Instant::now();
    let id = session.call("small");
    let response = session.response(id);
    let took = response.at - sent;
    assert_eq!(result_text(&response.message), upstream::SMALL_TEXT);
    took
}

/// One sample of the large result: the baseline, the proxy, and the server alone.
fn large_result(file: &Path, text: &str) -> LargeSample {
    let counter = overspill::tokens::o200k();
    let baseline = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let tokens = counter.count(text);
    std::fs::write(baseline.path().join("output.txt"), text).unwrap();
    let count_write = started.elapsed();
    std::hint::black_box(tokens);
    drop(baseline);

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

/// The peak resident memory of process `pid`, from `VmHWM` in `/proc/<pid>/status`.
fn peak_rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    match times.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => times[n / 2],
        n => (times[n / 2 - 1] + times[n / 2]) / 2,
    }
}
