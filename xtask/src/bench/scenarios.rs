//! The scenarios of docs/performance.md and issues 12, 19, 20, 31 and 39: which measurement is
//! ours, which is its baseline, and the target that decides PASS or FAIL.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use overspill_benchdata::{MB, Shape};
use overspill_budget::thousands;

/// What a scenario must reach.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// Our time divided by the baseline's time is at most this.
    RatioAtMost(f64),
    /// Our time is at most this.
    TimeAtMost(Duration),
    /// Our time exceeds the baseline's by at most this.
    AddedAtMost(Duration),
    /// Our throughput, in MB/s (10^6 bytes), is at least this.
    ThroughputAtLeast(f64),
    /// The peak resident memory is at most `times` the size of the input, which `of` names.
    MemoryAtMost { times: f64, of: &'static str },
    /// The peak resident memory is at most `times` the size of the input plus `plus_mb` MB
    /// (10^6 bytes): the bound docs/security.md states for the JSON tools and `query`.
    MemoryWithin { times: f64, plus_mb: u64 },
    /// The baseline's count (of tokens) divided by ours is at least this.
    FewerAtLeast(f64),
    /// Our size is at most this many bytes.
    BytesAtMost(u64),
    /// Reported for the reader; nothing to reach.
    Info,
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Target::RatioAtMost(r) if r < 1.0 => {
                write!(f, "≤ {r:.2}× (≥ {:.1}× as fast)", 1.0 / r)
            }
            Target::RatioAtMost(r) => write!(f, "≤ {r:.2}×"),
            Target::TimeAtMost(d) => write!(f, "≤ {}", human_time(d.as_secs_f64())),
            Target::AddedAtMost(d) => write!(f, "≤ +{} added", human_time(d.as_secs_f64())),
            Target::ThroughputAtLeast(mbs) => write!(f, "≥ {mbs} MB/s"),
            Target::MemoryAtMost { times, of } => write!(f, "≤ {times}× {of}"),
            Target::MemoryWithin { times, plus_mb } => {
                write!(f, "≤ {times}× the input + {plus_mb} MB")
            }
            Target::FewerAtLeast(n) => write!(f, "≥ {n:.1}× fewer"),
            Target::BytesAtMost(bytes) => write!(f, "≤ {:.0} MB", bytes as f64 / MB as f64),
            Target::Info => f.write_str("—"),
        }
    }
}

/// One row of the report: our measurement, its baseline, and the target.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// What the row measures, as the report prints it.
    pub name: String,
    /// The criterion id (`group/function`) of our measurement, or the id under which a
    /// bench of its own reported it ([`PEAK_RSS`], [`mcp`]).
    pub ours: String,
    /// The criterion id of the baseline measured in the same run.
    pub baseline: Option<String>,
    /// What decides PASS or FAIL.
    pub target: Target,
}

/// The name `overspill-tokens` gives its Claude counter.
const CLAUDE: &str = "claude≈cl100k×1.1";

/// The id under which the `json_memory` bench's peak resident memory is recorded.
pub const PEAK_RSS: &str = "json_memory/peak_rss_bytes";
/// The id under which the `json_memory` bench's file size is recorded.
pub const PEAK_RSS_FILE: &str = "json_memory/file_bytes";

/// The ids of the packaging figures: sizes of what `cargo xtask dist` made, and the first
/// count in a fresh process (the `first_count` bench of overspill-tokens).
pub mod dist {
    pub const BINARY: &str = "dist/binary, stripped";
    pub const TARBALL: &str = "dist/tarball";
    pub const WHEEL: &str = "dist/wheel";
    pub const NPM_PLATFORM: &str = "dist/npm platform package";
    pub const NPM_LAUNCHER: &str = "dist/npm launcher package";
    pub const FIRST_COUNT_PREBUILT: &str = "first_count/prebuilt tables";
    pub const FIRST_COUNT_BUILT: &str = "first_count/built tables";
    pub const FIRST_COUNT_CACHED: &str = "first_count/cached tables";
}

/// The ids under which the `mcp_proxy` bench's figures are recorded.
pub mod mcp {
    /// Median `tools/call` round trip to the server directly.
    pub const ROUND_TRIP_DIRECT: &str = "mcp_proxy/round trip, directly";
    /// Median `tools/call` round trip through the proxy.
    pub const ROUND_TRIP_PROXIED: &str = "mcp_proxy/round trip, through the proxy";
    /// The large result: the server's last byte → the pointer at the client.
    pub const AFTER_LAST_BYTE: &str = "mcp_proxy/large result, last byte to pointer";
    /// The large result's text counted (`o200k_base`) and written to a new file.
    pub const COUNT_WRITE: &str = "mcp_proxy/large result, count + fs::write";
    /// The large result: request sent → pointer at the client.
    pub const REQUEST_TO_POINTER: &str = "mcp_proxy/large result, request to pointer";
    /// The large result without the proxy: request sent → the whole result at the client.
    pub const REQUEST_DIRECTLY: &str = "mcp_proxy/large result, request to result directly";
    /// The proxy's peak resident memory over a session with the large result.
    pub const PEAK_RSS: &str = "mcp_proxy/large result, peak_rss_bytes";
    /// The large result's text, in bytes.
    pub const RESULT_BYTES: &str = "mcp_proxy/large result, bytes";
    /// The proxy's peak resident memory over a session with a 200 KB result.
    pub const SMALL_PEAK_RSS: &str = "mcp_proxy/small result, peak_rss_bytes";
    /// Median `tools/call` round trip to the server served over Streamable HTTP directly.
    pub const HTTP_ROUND_TRIP_DIRECT: &str = "mcp_proxy/http round trip, directly";
    /// Median `tools/call` round trip through `overspill mcp --listen`.
    pub const HTTP_ROUND_TRIP_PROXIED: &str = "mcp_proxy/http round trip, through --listen";
    /// The same through `overspill mcp --listen --metrics …` (each call counted).
    pub const HTTP_ROUND_TRIP_COUNTED: &str =
        "mcp_proxy/http round trip, through --listen --metrics";
    /// Small calls per second from concurrent HTTP clients, to the server directly.
    pub const HTTP_RATE_DIRECT: &str = "mcp_proxy/http calls per second, directly";
    /// The same through `overspill mcp --listen`.
    pub const HTTP_RATE_PROXIED: &str = "mcp_proxy/http calls per second, through --listen";
    /// The large result from a server over HTTP (`--url`): its last byte → the pointer.
    pub const URL_AFTER_LAST_BYTE: &str = "mcp_proxy/large result over --url, last byte to pointer";
    /// The baseline measured beside it: the text counted and written to a new file.
    pub const URL_COUNT_WRITE: &str = "mcp_proxy/large result over --url, count + fs::write";
    /// The `--url` proxy's peak resident memory over a session with the large result.
    pub const URL_PEAK_RSS: &str = "mcp_proxy/large result over --url, peak_rss_bytes";
    /// The tool definitions a client gets from one gateway of five servers, in tokens.
    pub const GATEWAY_TOOLS: &str = "mcp_proxy/gateway of 5, tools/list tokens";
    /// The same from five single-server proxies, summed.
    pub const PROXIES_TOOLS: &str = "mcp_proxy/5 proxies, tools/list tokens";
    /// Median `tools/call` round trip to one of the gateway's five servers.
    pub const GATEWAY_ROUND_TRIP: &str = "mcp_proxy/gateway of 5, round trip";
    /// The same through the single-server proxy, measured alternately with it.
    pub const GATEWAY_PROXY_ROUND_TRIP: &str = "mcp_proxy/beside the gateway, proxy round trip";
    /// Spawn → `tools/list` answered by a gateway of five servers that start slowly.
    pub const GATEWAY_STARTUP: &str = "mcp_proxy/gateway of 5 slow servers, startup";
    /// The same with one of them.
    pub const GATEWAY_STARTUP_ONE: &str = "mcp_proxy/gateway of 1 slow server, startup";
    /// Process start → the answer to the first request (`initialize`, `server/discover`) of a
    /// server that takes 300 ms: directly, and through the proxy with no cached token tables
    /// and with cached ones. Each `[direct, cold, warm]`, for `initialize` then `server/discover`.
    pub const FIRST_ANSWER: [[&str; 3]; 2] = [
        [
            "mcp_proxy/first answer, initialize, directly",
            "mcp_proxy/first answer, initialize, through the proxy, no cached tables",
            "mcp_proxy/first answer, initialize, through the proxy, cached tables",
        ],
        [
            "mcp_proxy/first answer, server/discover, directly",
            "mcp_proxy/first answer, server/discover, through the proxy, no cached tables",
            "mcp_proxy/first answer, server/discover, through the proxy, cached tables",
        ],
    ];
}

/// The ids under which a shared store's figures are recorded (`shared.rs`, issue 41).
pub mod shared {
    /// `Scratchpad::intercept` of a 10 MB text result into a pad with the S3 store.
    pub const INTERCEPT: &str = "shared_store/intercept 10 MB into the S3 store";
    /// A plain put of the same bytes to the same store, plus the local interception.
    pub const PUT_AND_LOCAL: &str = "shared_store/plain put + local intercept";
    /// The first `grep` of a result that is only in the store.
    pub const FIRST_GREP: &str = "shared_store/first grep, not cached";
    /// A plain GET of the result, plus the same `grep` on a local pad.
    pub const GET_AND_LOCAL_GREP: &str = "shared_store/plain GET + local grep";
    /// The same `grep` again, cached, its budget in Redis.
    pub const LATER_GREP: &str = "shared_store/later grep, cached, budget in Redis";
    /// The local `grep` plus one round trip for the budget (the request a charge makes, on an
    /// open connection).
    pub const LOCAL_GREP_AND_ROUND_TRIP: &str = "shared_store/local grep + one Redis round trip";
}

/// The rows of a shared store (issue 41): only when its bench ran (it needs Garage and Redis).
pub fn shared_store() -> Vec<Scenario> {
    [
        (
            "Shared store: intercepting a 10 MB result into S3 (Garage) \
             (baseline: a plain put of the bytes + the local interception)",
            shared::INTERCEPT,
            shared::PUT_AND_LOCAL,
            1.3,
        ),
        (
            "Shared store: the first grep of a result not in the cache \
             (baseline: a plain GET + the local grep)",
            shared::FIRST_GREP,
            shared::GET_AND_LOCAL_GREP,
            1.3,
        ),
        (
            "Shared store: a later grep, budget in Redis \
             (baseline: the local grep + one Redis round trip)",
            shared::LATER_GREP,
            shared::LOCAL_GREP_AND_ROUND_TRIP,
            1.0,
        ),
    ]
    .into_iter()
    .map(|(name, ours, baseline, ratio)| {
        scenario(
            name,
            ours.to_owned(),
            Some(baseline.to_owned()),
            Target::RatioAtMost(ratio),
        )
    })
    .collect()
}

/// The ids under which the 2026-07-28 figures of `--listen` are recorded (`stateless.rs`).
pub mod stateless {
    /// Median 2026-07-28 `tools/call` round trip to the server over HTTP directly.
    pub const ROUND_TRIP_DIRECT: &str = "stateless/2026-07-28 round trip, directly";
    /// The same through `overspill mcp --listen`, alternating with it.
    pub const ROUND_TRIP_PROXIED: &str = "stateless/2026-07-28 round trip, through --listen";
    /// The direct server's CPU time per call, four clients calling at once.
    pub const CPU_DIRECT: &str = "stateless/2026-07-28 CPU per call, the server directly";
    /// The `--listen` proxy's own CPU time per relayed call, the same way.
    pub const CPU_PROXIED: &str = "stateless/2026-07-28 CPU per call, the --listen proxy";
}

/// The ids under which the hook's process times are recorded (`hook.rs`).
pub mod hook {
    /// Median start → exit of `overspill hook claude-code` given a small Bash output.
    pub const SMALL_OUTPUT: &str = "hook/overspill hook claude-code, small Bash output";
    /// Median start → exit of `cat` given the same input.
    pub const CAT: &str = "hook/cat, the same input";
}

fn scenario(
    name: impl Into<String>,
    ours: String,
    baseline: Option<String>,
    target: Target,
) -> Scenario {
    Scenario {
        name: name.into(),
        ours,
        baseline,
        target,
    }
}

/// Every scenario of a run; `quick` measures counting on pretty JSON only.
pub fn all(quick: bool, gnu_grep: bool) -> Vec<Scenario> {
    let mut rows = Vec::new();
    let count_inputs: &[(Shape, &str)] = if quick {
        &[(Shape::PodsPretty, "pretty JSON")]
    } else {
        &[
            (Shape::PodsPretty, "pretty JSON"),
            (Shape::PodsCompact, "compact JSON"),
            (Shape::Log, "log text"),
        ]
    };
    for &(shape, label) in count_inputs {
        let input = shape.file_name(10 * MB);
        let group = format!("count/{input}");
        for encoding in ["o200k_base", "cl100k_base"] {
            rows.push(scenario(
                format!("count {encoding}, 10 MB {label}"),
                format!("{group}/{encoding}"),
                Some(format!("{group}/tiktoken-rs {encoding}")),
                Target::RatioAtMost(0.5),
            ));
        }
        rows.push(scenario(
            format!("count gemma3, 10 MB {label}"),
            format!("{group}/gemma3"),
            None,
            Target::ThroughputAtLeast(10.0),
        ));
        rows.push(scenario(
            format!("count claude, 10 MB {label}"),
            format!("{group}/{CLAUDE}"),
            Some(format!("{group}/tiktoken-rs cl100k_base")),
            Target::Info,
        ));
        for counter in ["o200k_base", "cl100k_base", "gemma3", CLAUDE] {
            rows.push(scenario(
                format!("below-threshold decision (5,120) {counter}, 10 MB {label}"),
                format!("count_up_to_5120/{input}/{counter}"),
                None,
                Target::TimeAtMost(Duration::from_millis(5)),
            ));
            if !quick {
                rows.push(scenario(
                    format!("count_up_to(250,000) {counter}, 10 MB {label}"),
                    format!("count_up_to_250000/{input}/{counter}"),
                    Some(format!("{group}/{counter}")),
                    Target::Info,
                ));
            }
        }
    }

    let json = Shape::PodsCompact.file_name(10 * MB);
    rows.push(scenario(
        "intercept 10 MB compact JSON",
        format!("intercept/{json}/Scratchpad::intercept"),
        Some(format!("intercept/{json}/count + fs::write")),
        Target::RatioAtMost(1.3),
    ));
    rows.push(scenario(
        "store.write_output 10 MB compact JSON",
        "store_10MB_json/write_output_new_file".to_owned(),
        Some("store_10MB_json/baseline_fs_write".to_owned()),
        Target::Info,
    ));

    let log = Shape::Log.file_name(100 * MB);
    for pattern in ["literal ERROR", "regex timeout", "no match"] {
        let group = format!("grep/{log}/{pattern}");
        rows.push(scenario(
            format!("grep 100 MB log, {pattern}"),
            format!("{group}/overspill grep"),
            gnu_grep.then(|| format!("{group}/GNU grep -n -C3")),
            if gnu_grep {
                Target::RatioAtMost(1.5)
            } else {
                Target::Info
            },
        ));
    }

    let small = format!("line_tools/{}", Shape::Log.file_name(MB));
    let large = format!("line_tools/{log}");
    for (call, target) in [
        ("head 50 lines", Target::RatioAtMost(2.0)),
        ("slice 50 lines in the middle", Target::RatioAtMost(2.0)),
        ("head 50 lines, first call on the file", Target::Info),
    ] {
        rows.push(scenario(
            format!("{call}: 100 MB against 1 MB"),
            format!("{large}/{call}"),
            Some(format!("{small}/{call}")),
            target,
        ));
    }

    let pods = format!("json/{}", Shape::PodsPretty.file_name(110 * MB));
    let parse = format!("{pods}/serde_json::from_slice::<Value>");
    rows.push(scenario(
        "JSON first call (schema), 110 MB",
        format!("{pods}/first call: schema"),
        Some(parse.clone()),
        Target::RatioAtMost(1.0),
    ));
    rows.push(scenario(
        "JSON first call (iterate_over window, streamed), 110 MB",
        format!("{pods}/first call: iterate_over window, not cached"),
        Some(parse),
        Target::Info,
    ));
    for call in [
        "schema max_depth 6",
        "item_schema $.items",
        "iterate_over 50 items, 2 fields",
        "get_in one pod's status",
    ] {
        rows.push(scenario(
            format!("JSON later call: {call}"),
            format!("{pods}/later call: {call}"),
            None,
            Target::TimeAtMost(Duration::from_millis(10)),
        ));
    }
    rows.push(scenario(
        "JSON later call: query failed pods' names (cached jq document)",
        format!("{pods}/later call: query failed pods' names"),
        None,
        Target::Info,
    ));
    rows.push(scenario(
        "JSON sequence peak memory, 110 MB",
        PEAK_RSS.to_owned(),
        Some(PEAK_RSS_FILE.to_owned()),
        Target::MemoryAtMost {
            times: 4.0,
            of: "the file",
        },
    ));

    // Refused calls (issue 31): the `<tool>_too_large` answer with its retry, against the
    // call that retry names, which fits.
    for call in [
        "head 200,000 lines, 20 MB log",
        "slice 100,000 lines from line 1,001, 20 MB log",
        "grep INFO, every match, 20 MB log",
        "read the whole 20 MB log",
        "iterate_over every pod, whole items, 10 MB pod list",
        "get_in 100,000 lines of a 10 MB string",
        "get_in the whole 10 MB pod list (an object)",
        "get_in every pod (an array), 10 MB pod list",
        "query .items[], 10 MB pod list",
        "schema max_depth 64, 10 MB pod list, budget nearly spent",
        "item_schema $.items, 10 MB pod list, budget nearly spent",
    ] {
        rows.push(scenario(
            format!("refused call: {call} (baseline: its retry's call)"),
            format!("retries/{call}/refused call"),
            Some(format!("retries/{call}/retry call")),
            Target::Info,
        ));
    }

    // The MCP proxy and gateway: (name, ours, baseline, target).
    let proxy_rows = [
        (
            "MCP proxy: tools/call round trip, median of 2,000",
            mcp::ROUND_TRIP_PROXIED,
            Some(mcp::ROUND_TRIP_DIRECT),
            Target::AddedAtMost(Duration::from_micros(200)),
        ),
        (
            "MCP proxy: 60 MB text result, server's last byte → pointer",
            mcp::AFTER_LAST_BYTE,
            Some(mcp::COUNT_WRITE),
            Target::RatioAtMost(1.5),
        ),
        (
            "MCP proxy: 60 MB text result, request → pointer (baseline: the result directly)",
            mcp::REQUEST_TO_POINTER,
            Some(mcp::REQUEST_DIRECTLY),
            Target::Info,
        ),
        (
            "MCP proxy peak memory, 60 MB text result",
            mcp::PEAK_RSS,
            Some(mcp::RESULT_BYTES),
            Target::MemoryAtMost {
                times: 3.0,
                of: "the result",
            },
        ),
        (
            "MCP proxy peak memory, 200 KB text result (what does not grow with the result)",
            mcp::SMALL_PEAK_RSS,
            None,
            Target::Info,
        ),
        // The HTTP transports (issue 20): the baseline is the same server served over HTTP.
        (
            "MCP proxy over HTTP (--listen): tools/call round trip, median of 2,000",
            mcp::HTTP_ROUND_TRIP_PROXIED,
            Some(mcp::HTTP_ROUND_TRIP_DIRECT),
            Target::AddedAtMost(Duration::from_micros(500)),
        ),
        // Issue 32: what counting each call costs (baseline: the same proxy without --metrics,
        // its round trips alternating with these).
        (
            "MCP proxy over HTTP (--listen --metrics): tools/call round trip, what the metrics add",
            mcp::HTTP_ROUND_TRIP_COUNTED,
            Some(mcp::HTTP_ROUND_TRIP_PROXIED),
            Target::AddedAtMost(Duration::from_micros(5)),
        ),
        // Information only: two processes sharing the machine's cores with the clients cannot
        // reach half the rate of one; the CPU row below holds the proxy's cost per call instead.
        (
            "MCP proxy over HTTP (--listen): tools/call per second, 4 clients",
            mcp::HTTP_RATE_PROXIED,
            Some(mcp::HTTP_RATE_DIRECT),
            Target::Info,
        ),
        // Issue 39: a call of the 2026-07-28 revision, without a session, through --listen.
        (
            "MCP proxy over HTTP (--listen): 2026-07-28 tools/call round trip, median of 2,000",
            stateless::ROUND_TRIP_PROXIED,
            Some(stateless::ROUND_TRIP_DIRECT),
            Target::AddedAtMost(Duration::from_micros(100)),
        ),
        (
            "MCP proxy over HTTP (--listen): 2026-07-28 tools/call, the proxy's CPU per call, \
             4 clients (baseline: the server's own)",
            stateless::CPU_PROXIED,
            Some(stateless::CPU_DIRECT),
            Target::RatioAtMost(2.0),
        ),
        (
            "MCP proxy, server over HTTP (--url): 60 MB text result, server's last byte → pointer",
            mcp::URL_AFTER_LAST_BYTE,
            Some(mcp::URL_COUNT_WRITE),
            Target::RatioAtMost(1.5),
        ),
        (
            "MCP proxy peak memory, server over HTTP (--url), 60 MB text result",
            mcp::URL_PEAK_RSS,
            Some(mcp::RESULT_BYTES),
            Target::MemoryAtMost {
                times: 3.0,
                of: "the result",
            },
        ),
        // One gateway in front of five servers (issue 29).
        (
            "MCP gateway, 5 servers: tools/list tokens (baseline: 5 single-server proxies)",
            mcp::GATEWAY_TOOLS,
            Some(mcp::PROXIES_TOOLS),
            Target::FewerAtLeast(3.0),
        ),
        (
            "MCP gateway, 5 servers: tools/call round trip (baseline: the single-server proxy)",
            mcp::GATEWAY_ROUND_TRIP,
            Some(mcp::GATEWAY_PROXY_ROUND_TRIP),
            Target::AddedAtMost(Duration::from_micros(100)),
        ),
        (
            "MCP gateway: startup with 5 servers of 300 ms each (baseline: one of them alone)",
            mcp::GATEWAY_STARTUP,
            Some(mcp::GATEWAY_STARTUP_ONE),
            Target::RatioAtMost(1.2),
        ),
    ];
    for (name, ours, baseline, target) in proxy_rows {
        rows.push(scenario(
            name,
            ours.to_owned(),
            baseline.map(str::to_owned),
            target,
        ));
    }
    // Issue 38: nothing before the first answer waits for the token tables.
    for (method, [direct, cold, warm]) in ["initialize", "server/discover"]
        .into_iter()
        .zip(mcp::FIRST_ANSWER)
    {
        for (cache, ours) in [
            ("no cached token tables", cold),
            ("cached token tables", warm),
        ] {
            rows.push(scenario(
                format!(
                    "MCP proxy: first answer ({method}) of a server answering in 300 ms, \
                     {cache} (baseline: the server directly)"
                ),
                ours.to_owned(),
                Some(direct.to_owned()),
                Target::AddedAtMost(Duration::from_millis(100)),
            ));
        }
    }
    // Issue 40: a hook runs after every tool call, so one that passes a small output must
    // cost the agent next to nothing.
    rows.push(scenario(
        "overspill hook claude-code, small Bash output: process start → exit, p50 (baseline: \
         cat of the same input)",
        hook::SMALL_OUTPUT.to_owned(),
        Some(hook::CAT.to_owned()),
        Target::TimeAtMost(Duration::from_millis(15)),
    ));
    // Packages without Rust (issue 30): sizes of `cargo xtask dist`'s files, and the first
    // count now that the OpenAI tables are built or cached instead of embedded.
    let size_rows = [
        (
            "Binary size, stripped (the host's dist build)",
            dist::BINARY,
            30 * MB,
        ),
        (
            "Tarball (binary, README, licenses), gzip",
            dist::TARBALL,
            15 * MB,
        ),
        ("PyPI wheel", dist::WHEEL, 15 * MB),
        ("npm platform package (.tgz)", dist::NPM_PLATFORM, 15 * MB),
        ("npm launcher package (.tgz)", dist::NPM_LAUNCHER, 15 * MB),
    ];
    for (name, id, limit) in size_rows {
        rows.push(scenario(
            name,
            id.to_owned(),
            None,
            Target::BytesAtMost(limit),
        ));
    }
    rows.push(scenario(
        "First o200k count in a fresh process, cached tables (baseline: bpe-openai's embedded ones)",
        dist::FIRST_COUNT_CACHED.to_owned(),
        Some(dist::FIRST_COUNT_PREBUILT.to_owned()),
        Target::AddedAtMost(Duration::from_millis(50)),
    ));
    rows.push(scenario(
        "First o200k count on a machine: tables built from the vocabulary (once; baseline: embedded)",
        dist::FIRST_COUNT_BUILT.to_owned(),
        Some(dist::FIRST_COUNT_PREBUILT.to_owned()),
        Target::Info,
    ));
    rows
}

/// One measurement: a median time in seconds with the bytes it processed, a byte count, or a
/// rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Measured {
    /// A median time and, when the bench declared one, the bytes per iteration.
    Time { seconds: f64, bytes: Option<u64> },
    /// A number of bytes (memory, file size).
    Bytes(u64),
    /// Calls completed per second.
    CallsPerSecond(f64),
    /// Model tokens (`o200k_base`).
    Tokens(u64),
}

/// The verdict on one scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The target is met.
    Pass,
    /// The target is missed.
    Fail,
    /// Nothing to meet.
    Info,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Info => "info",
        })
    }
}

/// A scenario with its numbers, ready to print.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The scenario.
    pub scenario: Scenario,
    /// Our figure, as printed.
    pub ours: String,
    /// The baseline's figure, as printed.
    pub baseline: String,
    /// Ours over the baseline, as printed.
    pub ratio: String,
    /// PASS, FAIL or info.
    pub verdict: Verdict,
}

/// Evaluates every scenario on `measured`; names the measurements that are missing, since a
/// renamed bench must not drop a row silently.
pub fn evaluate(
    scenarios: &[Scenario],
    measured: &BTreeMap<String, Measured>,
) -> Result<Vec<Row>, Vec<String>> {
    let mut missing = Vec::new();
    let mut rows = Vec::new();
    for scenario in scenarios {
        let ours = measured.get(&scenario.ours);
        let baseline = scenario.baseline.as_ref().map(|id| (id, measured.get(id)));
        if ours.is_none() {
            missing.push(scenario.ours.clone());
        }
        if let Some((id, None)) = baseline {
            missing.push(id.clone());
        }
        let (Some(&ours), Some(baseline)) =
            (ours, baseline.map_or(Some(None), |(_, m)| m.map(Some)))
        else {
            continue;
        };
        rows.push(row(scenario, ours, baseline.copied()));
    }
    if missing.is_empty() {
        Ok(rows)
    } else {
        Err(missing)
    }
}

fn row(scenario: &Scenario, ours: Measured, baseline: Option<Measured>) -> Row {
    let figure = |m: Measured| match m {
        Measured::Time { seconds, bytes } => match bytes {
            Some(bytes) => format!(
                "{} ({:.1} MB/s)",
                human_time(seconds),
                bytes as f64 / MB as f64 / seconds
            ),
            None => human_time(seconds),
        },
        Measured::Bytes(bytes) if bytes < MB / 10 => format!("{:.1} kB", bytes as f64 / 1e3),
        Measured::Bytes(bytes) => format!("{:.1} MB", bytes as f64 / MB as f64),
        Measured::CallsPerSecond(rate) => format!("{} calls/s", thousands(rate.round() as u64)),
        Measured::Tokens(tokens) => format!("{} tokens", thousands(tokens)),
    };
    let value = |m: Measured| match m {
        Measured::Time { seconds, .. } => seconds,
        Measured::Bytes(bytes) | Measured::Tokens(bytes) => bytes as f64,
        Measured::CallsPerSecond(rate) => rate,
    };
    let ratio = baseline.map(|b| value(ours) / value(b));
    let added = baseline.map(|b| value(ours) - value(b));
    let met = match scenario.target {
        Target::RatioAtMost(limit) => ratio.map(|r| r <= limit),
        Target::FewerAtLeast(times) => ratio.map(|r| r * times <= 1.0),
        Target::MemoryAtMost { times, .. } => ratio.map(|r| r <= times),
        Target::MemoryWithin { times, plus_mb } => {
            baseline.map(|b| value(ours) <= times * value(b) + (plus_mb * MB) as f64)
        }
        Target::TimeAtMost(limit) => Some(value(ours) <= limit.as_secs_f64()),
        Target::BytesAtMost(limit) => Some(value(ours) <= limit as f64),
        Target::AddedAtMost(limit) => added.map(|a| a <= limit.as_secs_f64()),
        Target::ThroughputAtLeast(mbs) => match ours {
            Measured::Time {
                seconds,
                bytes: Some(bytes),
            } => Some(bytes as f64 / MB as f64 / seconds >= mbs),
            _ => Some(false),
        },
        Target::Info => None,
    };
    let ours = match (scenario.target, added) {
        (Target::AddedAtMost(_), Some(added)) if added >= 0.0 => {
            format!("{} (+{})", figure(ours), human_time(added))
        }
        (Target::AddedAtMost(_), Some(added)) => {
            format!("{} (−{})", figure(ours), human_time(-added))
        }
        _ => figure(ours),
    };
    Row {
        scenario: scenario.clone(),
        ours,
        baseline: baseline.map_or_else(|| "—".to_owned(), figure),
        ratio: ratio.map_or_else(|| "—".to_owned(), |r| format!("{r:.2}×")),
        verdict: match met {
            Some(true) => Verdict::Pass,
            Some(false) => Verdict::Fail,
            None => Verdict::Info,
        },
    }
}

/// `1.23 s`, `4.56 ms`, `789 µs`, `12 ns`: three significant digits.
pub fn human_time(seconds: f64) -> String {
    let (value, unit) = if seconds >= 1.0 {
        (seconds, "s")
    } else if seconds >= 1e-3 {
        (seconds * 1e3, "ms")
    } else if seconds >= 1e-6 {
        (seconds * 1e6, "µs")
    } else {
        (seconds * 1e9, "ns")
    };
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.decimals$} {unit}")
}

#[cfg(test)]
mod tests;
