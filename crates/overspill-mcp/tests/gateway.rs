//! One proxy in front of several servers (docs/mcp-proxy.md#several-servers): a raw JSON-RPC
//! client → the gateway (in process) → this test binary re-run as each of its servers (the
//! rmcp fixture, or the raw one where a server must misbehave).

// A test binary without libtest (`harness = false`): clippy.toml's test allowance does not reach it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::{fixture, harness, raw_server};

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use overspill::Scratchpad;
use overspill_mcp::{CommandServer, Metrics, Namespace, ProxyOptions, Reload, Server, Upstream};
use serde_json::{Value, json};

use harness::*;

/// This binary as a server of the gateway named `name`, with the fixture's `extra` flags.
fn member(name: &str, extra: &[&str]) -> Server {
    let exe = std::env::current_exe().unwrap();
    let args = std::iter::once(FIXTURE_FLAG)
        .chain(extra.iter().copied())
        .map(str::to_owned)
        .collect();
    let command = CommandServer {
        command: exe.to_string_lossy().into_owned(),
        args,
        env: BTreeMap::new(),
        cwd: None,
    };
    Server::new(name, Upstream::Command(command))
}

/// A gateway in front of `servers`, its scratchpad shared with the test.
fn gateway(servers: Vec<Server>) -> (RawSession, Arc<Scratchpad>) {
    gateway_with(ProxyOptions::gateway(servers, Namespace::default()))
}

/// A session of `options` (a gateway's) whose servers have 2 s to answer `initialize`, its
/// scratchpad shared with the test.
fn gateway_with(options: ProxyOptions) -> (RawSession, Arc<Scratchpad>) {
    start(options.with_init_timeout(Duration::from_secs(2)))
}

/// A session of `options` as they are, its scratchpad shared with the test.
fn start(options: ProxyOptions) -> (RawSession, Arc<Scratchpad>) {
    let dir = tempfile::tempdir().unwrap();
    let pad = Arc::new(
        Scratchpad::builder()
            .scratchpad_dir(dir.path())
            .context_window(128_000)
            .intercept_all(5120)
            .build()
            .unwrap(),
    );
    (
        RawSession::start_shared(Arc::clone(&pad), dir, options),
        pad,
    )
}

async fn tool_names(session: &mut RawSession, id: &str) -> Vec<String> {
    let listed = session.request(json!(id), "tools/list", json!({})).await;
    listed["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools: {listed}"))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The text of a call's result.
fn text(response: &Value) -> String {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text result: {response}"))
        .to_owned()
}

/// The tokens left in the budget, from the last line of an exploration's answer.
fn tokens_left(answer: &str) -> u64 {
    let last = answer.lines().last().unwrap_or_default();
    // "… ~93,210 of 102,400 budget tokens left"
    let before = last
        .split(" budget tokens left")
        .next()
        .and_then(|head| head.rsplit_once(" of "))
        .map(|(left, _)| left)
        .unwrap_or_else(|| panic!("no budget line: {answer}"));
    let digits: String = before[before.rfind('~').map_or(0, |at| at + 1)..]
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap()
}

/// Reads messages until one satisfies `wanted` (30 s at most); what came before is kept.
async fn wait_for(session: &mut RawSession, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
    if let Some(at) = session.seen.iter().position(&wanted) {
        return session.seen.remove(at);
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        let message = session.next().await;
        if wanted(&message) {
            return message;
        }
        session.seen.push(message);
    }
    panic!("no {what} within 30 s; seen: {:?}", session.seen);
}

/// Waits until the client is told server `server` joined and the tools changed; then the tool
/// names it lists (request `id`).
async fn joined_and_listed(session: &mut RawSession, server: &str, id: &str) -> Vec<String> {
    let joined = format!("`{server}` joined");
    wait_for(session, "the server joining", |message| {
        is_log_containing(message, &joined)
    })
    .await;
    wait_for(session, "list_changed", |message| {
        message["method"] == "notifications/tools/list_changed"
    })
    .await;
    tool_names(session, id).await
}

/// Reads the fixture's notes resource through the gateway and checks its text.
async fn reads_the_notes(session: &mut RawSession) {
    let read = session
        .request(
            json!("read"),
            "resources/read",
            json!({"uri": fixture::NOTES_URI}),
        )
        .await;
    assert_eq!(
        read["result"]["contents"][0]["text"],
        fixture::NOTES,
        "{read}"
    );
}

fn is_log_containing(message: &Value, needle: &str) -> bool {
    message["method"] == "notifications/message"
        && message["params"]["data"]
            .as_str()
            .is_some_and(|data| data.contains(needle))
}

async fn a_gateway_offers_each_servers_tools_under_its_name_and_the_exploration_tools_once() {
    let (mut session, _pad) = gateway(vec![member("a", &[]), member("b", &[])]);
    let init = session.initialize_plain().await;
    let result = &init["result"];
    assert_eq!(result["serverInfo"]["name"], "overspill", "{init}");
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert_eq!(result["capabilities"]["tools"]["listChanged"], true);
    assert_eq!(result["capabilities"]["prompts"]["listChanged"], true);
    assert_eq!(result["capabilities"]["resources"]["listChanged"], true);
    assert!(result["capabilities"]["prompts"].is_object(), "{init}");
    assert!(result["capabilities"]["resources"].is_object(), "{init}");
    let instructions = result["instructions"].as_str().unwrap();
    for needle in ["Server `a`:", "Server `b`:", "overspill"] {
        assert!(
            instructions.contains(needle),
            "{needle} not in {instructions}"
        );
    }
    let names = tool_names(&mut session, "list").await;
    for name in [
        "a__small", "a__big", "a__pid", "b__small", "b__big", "b__pid",
    ] {
        assert!(names.contains(&name.to_owned()), "{name} not in {names:?}");
    }
    assert_eq!(
        names.iter().filter(|name| *name == "grep").count(),
        1,
        "{names:?}"
    );
    assert!(!names.contains(&"small".to_owned()), "{names:?}");
    let a = text(&session.call(1, "a__pid", json!({})).await);
    let b = text(&session.call(2, "b__pid", json!({})).await);
    assert_ne!(a, b, "each name reaches its own server");
    let unknown = session.call(3, "c__pid", json!({})).await;
    assert_eq!(unknown["result"]["isError"], true, "{unknown}");
}

async fn explorations_of_two_servers_outputs_draw_on_one_budget_and_one_usage_event() {
    let (mut session, pad) = gateway(vec![member("a", &[]), member("b", &[])]);
    session.initialize_plain().await;
    let from_a = text(&session.call(1, "a__big", json!({"bytes": 60_000})).await);
    let from_b = text(&session.call(2, "b__big", json!({"bytes": 80_000})).await);
    let (file_a, file_b) = (pointer_file(&from_a), pointer_file(&from_b));
    assert_ne!(file_a, file_b);
    let first = tokens_left(&text(
        &session.call(3, "head", json!({"file": file_a})).await,
    ));
    let second = tokens_left(&text(
        &session.call(4, "head", json!({"file": file_b})).await,
    ));
    assert!(
        second < first,
        "exploring b's output drew on the budget a's exploration drew on ({first} → {second})"
    );
    // A reference to a's stored output, resolved in a call to b.
    let stored = std::fs::read_to_string(session.dir.path().join(&file_a)).unwrap();
    let echoed = text(
        &session
            .call(
                5,
                "b__echo_args",
                json!({"body": format!("overspill://{file_a}")}),
            )
            .await,
    );
    let echoed: Value = serde_json::from_str(&echoed).unwrap();
    assert_eq!(echoed, json!({"body": fixture::digest(&stored)}));
    let usage = pad.finish().expect("both outputs were intercepted");
    assert_eq!(
        usage.tokens_intercepted,
        pointer_tokens(&from_a) + pointer_tokens(&from_b),
        "the usage event counts both servers' outputs"
    );
}

/// The tokens a pointer says its output has ("size: 112,274 bytes · 25,118 tokens (…)").
fn pointer_tokens(pointer: &str) -> u64 {
    let size = pointer
        .lines()
        .find_map(|line| line.strip_prefix("size: "))
        .unwrap_or_else(|| panic!("no size line: {pointer}"));
    let tokens = size.split(" · ").nth(1).unwrap_or_default();
    let digits: String = tokens
        .split(" tokens")
        .next()
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap()
}

async fn a_server_that_does_not_start_leaves_the_others_answering() {
    let missing = Server::new(
        "gone",
        Upstream::Command(CommandServer {
            command: "/nonexistent/overspill-test-server".to_owned(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
        }),
    );
    let (mut session, _pad) = gateway(vec![member("a", &[]), missing]);
    let init = session.initialize_plain().await;
    assert!(init["result"].is_object(), "{init}");
    let names = tool_names(&mut session, "list").await;
    assert!(names.contains(&"a__pid".to_owned()), "{names:?}");
    assert!(
        !names.iter().any(|name| name.starts_with("gone__")),
        "{names:?}"
    );
    let answer = session.call(1, "a__small", json!({})).await;
    assert_eq!(text(&answer), fixture::SMALL);
    let refused = session.call(2, "gone__pid", json!({})).await;
    let message = text(&refused);
    assert!(
        message.contains("`gone`"),
        "the error names the server: {message}"
    );
}

async fn a_server_that_refuses_initialize_is_reported_once_by_name_and_the_others_answer() {
    let (mut session, _pad) = gateway(vec![
        member("a", &[]),
        member("no", &["--raw", "--refuses"]),
    ]);
    let init = session.initialize_plain().await;
    assert!(init["result"].is_object(), "{init}");
    let said = wait_for(&mut session, "the refusal reported", |message| {
        is_log_containing(message, "`no` did not initialize")
    })
    .await;
    let text = said["params"]["data"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(text.contains("not today"), "{text}");
    assert_eq!(
        text.matches("the MCP server").count(),
        1,
        "named once: {text}"
    );
    assert_eq!(
        self::text(&session.call(1, "a__small", json!({})).await),
        fixture::SMALL
    );
}

async fn a_server_silent_at_initialize_is_withdrawn_and_the_others_answer() {
    let (mut session, _pad) = gateway(vec![
        member("a", &[]),
        member("mute", &["--raw", "--silent"]),
    ]);
    let started = Instant::now();
    let init = session.initialize_plain().await;
    assert!(init["result"].is_object(), "{init}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "initialize waited for the silent server only up to its timeout"
    );
    let names = tool_names(&mut session, "list").await;
    assert!(names.contains(&"a__small".to_owned()), "{names:?}");
    assert!(
        !names.iter().any(|name| name.starts_with("mute__")),
        "{names:?}"
    );
    let answer = session.call(1, "a__small", json!({})).await;
    assert_eq!(text(&answer), fixture::SMALL);
    let refused = text(&session.call(2, "mute__tools", json!({})).await);
    assert!(refused.contains("`mute`"), "{refused}");
}

async fn a_server_killed_mid_session_is_withdrawn_then_restarted() {
    let metrics = Metrics::new();
    let options = ProxyOptions::gateway(
        vec![member("a", &[]), member("b", &[])],
        Namespace::default(),
    );
    let (mut session, _pad) = gateway_with(options.with_metrics(&metrics));
    session.initialize_plain().await;
    tool_names(&mut session, "list").await;
    let before = text(&session.call(1, "b__pid", json!({})).await);
    let crashed = session.call(2, "b__crash", json!({})).await;
    let message = crashed["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`b`"),
        "the error names the server: {crashed}"
    );
    // While it is away (it restarts after a second), a call to it is answered at once.
    let away = session.call(9, "b__pid", json!({})).await;
    let said = away["error"]["message"]
        .as_str()
        .or_else(|| away["result"]["content"][0]["text"].as_str())
        .unwrap_or_default();
    assert!(said.contains("`b`"), "{away}");
    wait_for(&mut session, "the withdrawal notice", |message| {
        is_log_containing(message, "`b`") && message["params"]["level"] == "error"
    })
    .await;
    wait_for(&mut session, "list_changed", |message| {
        message["method"] == "notifications/tools/list_changed"
    })
    .await;
    // The other server answers while b is away.
    assert_eq!(
        text(&session.call(3, "a__small", json!({})).await),
        fixture::SMALL
    );
    wait_for(&mut session, "b's return", |message| {
        is_log_containing(message, "is back")
    })
    .await;
    let names = tool_names(&mut session, "again").await;
    assert!(names.contains(&"b__pid".to_owned()), "{names:?}");
    let after = text(&session.call(4, "b__pid", json!({})).await);
    assert_ne!(before, after, "b runs as a new process");
    // Counted per server: b started twice (once restarted), a once.
    let counted = metrics.render();
    for series in [
        "overspill_upstream_starts_total{server=\"b\"} 2",
        "overspill_upstream_restarts_total{server=\"b\"} 1",
        "overspill_upstream_starts_total{server=\"a\"} 1",
    ] {
        assert!(counted.contains(series), "{series} in:\n{counted}");
    }
    assert!(
        !counted.contains("overspill_upstream_restarts_total{server=\"a\"}"),
        "{counted}"
    );
}

async fn prompts_resources_progress_and_logs_are_routed_by_server() {
    let (mut session, _pad) = gateway(vec![member("a", &[]), member("b", &[])]);
    session.initialize_plain().await;
    let prompts = session.request(json!("p"), "prompts/list", json!({})).await;
    let names: Vec<&str> = prompts["result"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|prompt| prompt["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a__triage", "b__triage"], "{prompts}");
    let prompt = session
        .request(
            json!("g"),
            "prompts/get",
            json!({"name": "b__triage", "arguments": {"service": "db"}}),
        )
        .await;
    assert_eq!(
        prompt["result"]["messages"][0]["content"]["text"], "Triage db.",
        "{prompt}"
    );
    // Each server's resources are a page of their own, behind one cursor.
    let first = session
        .request(json!("r1"), "resources/list", json!({}))
        .await;
    let cursor = first["result"]["nextCursor"].clone();
    assert!(cursor.is_string(), "{first}");
    let second = session
        .request(json!("r2"), "resources/list", json!({"cursor": cursor}))
        .await;
    assert!(second["result"].get("nextCursor").is_none(), "{second}");
    assert_eq!(second["result"]["resources"][0]["uri"], fixture::NOTES_URI);
    reads_the_notes(&mut session).await;
    let bad = session
        .request(json!("r3"), "resources/list", json!({"cursor": "made-up"}))
        .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let level = session
        .request(json!("lvl"), "logging/setLevel", json!({"level": "debug"}))
        .await;
    assert_eq!(level["result"], json!({}), "{level}");
    session.call(1, "b__notify_later", json!({})).await;
    let log = wait_for(&mut session, "b's log message", |message| {
        is_log_containing(message, "sent after the call returned")
    })
    .await;
    assert_eq!(log["params"]["logger"], "b", "{log}");
    let progress = session
        .request(
            json!(7),
            "tools/call",
            json!({"name": "a__progress", "arguments": {}, "_meta": {"progressToken": "tok"}}),
        )
        .await;
    assert_eq!(text(&progress), "done");
    let note = wait_for(&mut session, "progress", |message| {
        message["method"] == "notifications/progress"
    })
    .await;
    assert_eq!(note["params"]["progressToken"], "tok", "{note}");
    let pong = session.request(json!("ping"), "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
}

async fn servers_that_agree_to_different_versions_make_the_session_speak_the_oldest() {
    let (mut session, _pad) = gateway(vec![
        member("new", &["--raw"]),
        member("old", &["--raw", "--version", "2025-03-26"]),
    ]);
    let init = session.initialize_plain().await;
    assert_eq!(init["result"]["protocolVersion"], "2025-03-26", "{init}");
    // Each server was asked with the client's own params.
    let names = tool_names(&mut session, "list").await;
    assert!(
        names.iter().any(|name| name.starts_with("old__")),
        "{names:?}"
    );
    assert!(
        names.iter().any(|name| name.starts_with("new__")),
        "{names:?}"
    );
}

/// `params` with the `_meta` of a 2026-07-28 request.
fn modern(mut params: Value) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "modern", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    params
}

async fn a_2026_07_28_client_discovers_the_gateway_and_gets_every_servers_tools_in_its_revision() {
    let (mut session, _pad) = gateway(vec![
        member("modern", &["--raw", "--settles"]),
        member("old", &[]),
    ]);
    let discovered = session
        .request(json!("probe"), "server/discover", modern(json!({})))
        .await;
    let result = &discovered["result"];
    assert!(result.get("protocolVersion").is_none(), "{discovered}");
    let versions = result["supportedVersions"].as_array().unwrap();
    assert!(versions.contains(&json!("2026-07-28")) && versions.contains(&json!("2025-11-25")));
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        (result["ttlMs"].clone(), result["cacheScope"].clone()),
        (json!(0), json!("private"))
    );
    assert!(result["capabilities"]["tools"].is_object(), "{discovered}");
    // The servers were asked `initialize` by the gateway itself, never `server/discover`: the
    // one that settles on the first 2026-07-28 request it sees joined too.
    let listed = session
        .request(json!("list"), "tools/list", modern(json!({})))
        .await;
    let result = &listed["result"];
    assert_eq!(result["resultType"], "complete", "{listed}");
    assert_eq!(result["ttlMs"], 0, "{listed}");
    assert_eq!(result["cacheScope"], "private", "{listed}");
    let names: Vec<&str> = result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    for wanted in ["modern__vendor", "old__small", "head"] {
        assert!(names.contains(&wanted), "{names:?}");
    }
    // A 2025-era server's result, and the pointer made of it, say they are complete.
    let small = session
        .request(
            json!(1),
            "tools/call",
            modern(json!({"name": "old__small", "arguments": {}})),
        )
        .await;
    assert_eq!(small["result"]["resultType"], "complete", "{small}");
    assert_eq!(text(&small), fixture::SMALL);
    let big = session
        .request(
            json!(2),
            "tools/call",
            modern(json!({"name": "modern__big", "arguments": {}})),
        )
        .await;
    assert_eq!(big["result"]["resultType"], "complete", "{big}");
    let file = pointer_file(&text(&big));
    let head = session
        .request(
            json!(3),
            "tools/call",
            modern(json!({"name": "head", "arguments": {"file": file}})),
        )
        .await;
    assert_eq!(head["result"]["resultType"], "complete", "{head}");
    assert!(!text(&head).contains("not_found"), "{head}");
    // Nothing came unasked: no log message of the gateway's (servers joined), no list change.
    assert!(
        session
            .seen
            .iter()
            .all(|message| message.get("method").is_none()),
        "{:?}",
        session.seen
    );
}

async fn a_2025_servers_elicitation_reaches_a_2026_07_28_client_as_input_required_and_its_retry_completes_the_call()
 {
    let (mut session, _pad) = gateway(vec![member("old", &["--raw"])]);
    let call = modern(json!({"name": "old__ask", "arguments": {}}));
    let asked = session.request(json!(10), "tools/call", call.clone()).await;
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let requests = result["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{asked}");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create", "{asked}");
    assert_eq!(request["params"]["message"], "name?", "{asked}");
    assert_eq!(
        request["params"]["x-ext"], 1,
        "the server's params as sent: {asked}"
    );
    let state = result["requestState"].as_str().unwrap().to_owned();
    // The client retries the call under a new id with its answer.
    let mut retry = call;
    retry["inputResponses"] = json!({ key: {"action": "accept", "content": {"name": "Ada"}} });
    retry["requestState"] = json!(state);
    let done = session.request(json!(11), "tools/call", retry).await;
    assert_eq!(done["id"], 11, "{done}");
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    let reply: Value = serde_json::from_str(&text(&done)).unwrap();
    assert_eq!(
        reply["result"]["content"]["name"], "Ada",
        "the server got the answer: {reply}"
    );
    assert_eq!(reply["id"], "srv-1", "under its own request's id: {reply}");
}

/// A 2026-07-28 client's opening: `server/discover`, then `subscriptions/listen` (id `sub`) for
/// tool list changes, acknowledged as asked.
async fn discover_and_subscribe(session: &mut RawSession) {
    let discovered = session
        .request(json!("d"), "server/discover", modern(json!({})))
        .await;
    assert_eq!(
        discovered["result"]["resultType"], "complete",
        "{discovered}"
    );
    let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
        "params": modern(json!({"notifications": {"toolsListChanged": true}}))});
    session.send(listen).await;
    let acknowledged = wait_for(session, "the acknowledgement", |message| {
        message["method"] == "notifications/subscriptions/acknowledged"
    })
    .await;
    assert_eq!(
        acknowledged["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub"
    );
    assert_eq!(
        acknowledged["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
}

async fn a_subscription_is_acknowledged_and_told_of_a_server_that_joins_late() {
    let mut session = answering_within(
        vec![
            member("a", &[]),
            member("late", &["--raw", "--init-delay", "3000"]),
        ],
        Duration::from_millis(500),
    );
    discover_and_subscribe(&mut session).await;
    let changed = wait_for(&mut session, "the list change", |message| {
        message["method"] == "notifications/tools/list_changed"
    })
    .await;
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "sub",
        "{changed}"
    );
    let listed = session
        .request(json!("l"), "tools/list", modern(json!({})))
        .await;
    let names = listed["result"]["tools"].to_string();
    assert!(names.contains("late__vendor"), "{listed}");
}

/// A client's `server/discover` probe is answered from the servers joined within a short
/// while, not after `--answer-within` (Claude Code falls back to `initialize` when its probe
/// takes over 3 s), while what the client sends next still waits for the join: its lists hold
/// every server.
async fn a_discover_probe_is_answered_before_a_slow_server_joins_and_the_lists_still_hold_it() {
    let mut session = answering_within(
        vec![
            member("a", &[]),
            member("slow", &["--raw", "--init-delay", "8000"]),
        ],
        Duration::from_secs(30),
    );
    let discovered = session
        .request(json!("d"), "server/discover", modern(json!({})))
        .await;
    let instructions = discovered["result"]["instructions"].to_string();
    assert!(instructions.contains("Server `a`"), "{discovered}");
    assert!(
        !instructions.contains("Server `slow`"),
        "discover waited for the slow server: {discovered}"
    );
    let listed = session
        .request(json!("l"), "tools/list", modern(json!({})))
        .await;
    let names = listed["result"]["tools"].to_string();
    assert!(
        names.contains("a__small") && names.contains("slow__vendor"),
        "{listed}"
    );
}

async fn reload_adds_removes_and_changes_servers_under_a_connected_client() {
    let reload = Reload::new(vec![member("a", &[]), member("b", &[])]);
    let options = ProxyOptions::gateway(Vec::new(), Namespace::default()).with_reload(&reload);
    let (mut session, _pad) = gateway_with(options);
    session.initialize_plain().await;
    let names = tool_names(&mut session, "first").await;
    assert!(names.contains(&"b__pid".to_owned()), "{names:?}");
    let a_before = text(&session.call(1, "a__pid", json!({})).await);

    // b removed, c added, a kept as it runs.
    reload.apply(vec![member("a", &[]), member("c", &[])]);
    wait_for(&mut session, "b's removal", |message| {
        is_log_containing(message, "`b` was removed")
    })
    .await;
    let names = joined_and_listed(&mut session, "c", "second").await;
    assert!(names.contains(&"c__pid".to_owned()), "{names:?}");
    assert!(
        !names.iter().any(|name| name.starts_with("b__")),
        "{names:?}"
    );
    assert_eq!(
        text(&session.call(2, "a__pid", json!({})).await),
        a_before,
        "a kept running"
    );
    let refused = text(&session.call(3, "b__pid", json!({})).await);
    assert!(refused.contains("`b`"), "{refused}");

    // The notes resource is owned by a (listed first), until a changes.
    session
        .request(json!("owners"), "resources/list", json!({}))
        .await;
    // a changed: restarted with its new command line (a tool named `grep` now).
    reload.apply(vec![member("a", &["--clash"]), member("c", &[])]);
    wait_for(&mut session, "the new a joining", |message| {
        is_log_containing(message, "`a` joined")
    })
    .await;
    let names = tool_names(&mut session, "third").await;
    assert!(names.contains(&"a__grep".to_owned()), "{names:?}");
    assert_eq!(
        names.iter().filter(|name| *name == "grep").count(),
        1,
        "{names:?}"
    );
    let a_after = text(&session.call(4, "a__pid", json!({})).await);
    assert_ne!(a_before, a_after, "a runs anew");
    // The resource the old a listed first is read from a server that has it now.
    reads_the_notes(&mut session).await;
    assert_eq!(
        text(&session.call(5, "c__small", json!({})).await),
        fixture::SMALL
    );
}

/// A gateway of `servers` that answers `initialize` within `answer_within`, its servers having
/// 30 s to answer it.
fn answering_within(servers: Vec<Server>, answer_within: Duration) -> RawSession {
    let options = ProxyOptions::gateway(servers, Namespace::default())
        .with_init_timeout(Duration::from_secs(30))
        .with_answer_within(answer_within);
    start(options).0
}

async fn a_server_that_never_answers_initialize_keeps_neither_the_answer_nor_the_others_tools() {
    let mut session = answering_within(
        vec![
            member("a", &[]),
            member("mute", &["--raw", "--silent"]),
            member("b", &[]),
        ],
        // Room for two servers to start on a loaded machine, far below the silent one's 30 s.
        Duration::from_secs(10),
    );
    let started = Instant::now();
    let init = session.initialize_plain().await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(25),
        "answered after {took:?}, not within the deadline (the silent server has 30 s)"
    );
    // The union of the servers that answered in time.
    let instructions = init["result"]["instructions"].as_str().unwrap_or_default();
    for needle in ["Server `a`:", "Server `b`:"] {
        assert!(instructions.contains(needle), "{needle}: {init}");
    }
    assert_eq!(init["result"]["capabilities"]["tools"]["listChanged"], true);
    let names = tool_names(&mut session, "list").await;
    for name in ["a__small", "b__small", "grep"] {
        assert!(names.contains(&name.to_owned()), "{name} not in {names:?}");
    }
    assert!(
        !names.iter().any(|name| name.starts_with("mute__")),
        "{names:?}"
    );
    assert_eq!(
        text(&session.call(1, "b__small", json!({})).await),
        fixture::SMALL
    );
}

async fn a_server_that_answers_initialize_after_the_deadline_is_offered_with_list_changed() {
    let mut session = answering_within(
        vec![
            member("a", &[]),
            member(
                "late",
                &["--raw", "--init-delay", "20000", "--version", "2025-03-26"],
            ),
        ],
        Duration::from_secs(10),
    );
    let init = session.initialize_plain().await;
    let instructions = init["result"]["instructions"].as_str().unwrap_or_default();
    assert!(instructions.contains("Server `a`:"), "{init}");
    assert!(
        !instructions.contains(raw_server::INSTRUCTIONS),
        "answered before the late server did: {init}"
    );
    assert_eq!(
        text(&session.call(1, "a__small", json!({})).await),
        fixture::SMALL
    );
    // The client sets its logging level before the late server has joined: it still reaches it.
    let set = session
        .request(
            json!("level"),
            "logging/setLevel",
            json!({"level": "debug"}),
        )
        .await;
    assert_eq!(set["result"], json!({}), "{set}");
    // It agreed to an older version than the client was answered with: the client is told.
    wait_for(&mut session, "the older version reported", |message| {
        is_log_containing(
            message,
            "speaks the protocol version 2025-03-26, older than",
        )
    })
    .await;
    wait_for(&mut session, "the late server told the level", |message| {
        is_log_containing(message, "level set to \"debug\"")
    })
    .await;
    let names = joined_and_listed(&mut session, "late", "again").await;
    assert!(names.contains(&"late__vendor".to_owned()), "{names:?}");
    assert!(names.contains(&"a__small".to_owned()), "{names:?}");
    let vendor = session.call(2, "late__vendor", json!({})).await;
    assert_eq!(vendor["result"], raw_server::vendor_result(), "{vendor}");
}

async fn a_call_to_a_server_that_is_not_there_names_it_why_its_log_and_overspill_status() {
    let logs = tempfile::tempdir().unwrap();
    let log = |name: &str| logs.path().join(format!("{name}.log"));
    let missing = Server::new(
        "gone",
        Upstream::Command(CommandServer {
            command: "/nonexistent/overspill-test-server".to_owned(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
        }),
    )
    .with_log(log("gone"));
    let unset = "mcp.json: mcpServers.broken.env: the variable OVERSPILL_NOT_SET is not set";
    let broken = Server::new("broken", Upstream::Invalid(unset.to_owned())).with_log(log("broken"));
    let (mut session, _pad) = gateway(vec![member("a", &[]), missing, broken]);
    session.initialize_plain().await;
    let names = tool_names(&mut session, "list").await;
    assert!(names.contains(&"a__small".to_owned()), "{names:?}");
    for (tool, why, next) in [
        (
            "gone__pid",
            "cannot start the upstream server",
            "it is restarted",
        ),
        (
            "broken__pid",
            "cannot be started from its entry: mcp.json: mcpServers.broken.env: the variable \
             OVERSPILL_NOT_SET is not set",
            "it is not started until its entry is fixed",
        ),
    ] {
        let server = tool.split("__").next().unwrap();
        let said = text(&session.call(1, tool, json!({})).await);
        for needle in [
            &format!("the MCP server `{server}` is not available: it {why}"),
            next,
            &format!("its diagnostics are in its log {}", log(server).display()),
            "run `overspill status` to see each server",
        ] {
            assert!(said.contains(needle), "{needle:?} not in {said:?}");
        }
    }
    // Told in the client's log once it initialized, as a server whose program is missing is,
    // and in its own log, where the messages point.
    for (server, why) in [
        ("gone", "cannot start the upstream server"),
        ("broken", "cannot be started from its entry"),
    ] {
        let told = wait_for(&mut session, "the report", |message| {
            is_log_containing(message, &format!("the MCP server `{server}` {why}"))
        })
        .await;
        assert_eq!(told["params"]["level"], "error", "{told}");
        let data = told["params"]["data"].as_str().unwrap();
        assert!(data.contains(&log(server).display().to_string()), "{data}");
    }
    let written = std::fs::read_to_string(log("broken")).unwrap();
    assert!(
        written.contains("the variable OVERSPILL_NOT_SET is not set")
            && written.contains("not started until its entry is fixed"),
        "{written}"
    );
    assert_eq!(
        text(&session.call(2, "a__small", json!({})).await),
        fixture::SMALL
    );
}

cases!(
    a_gateway_offers_each_servers_tools_under_its_name_and_the_exploration_tools_once,
    explorations_of_two_servers_outputs_draw_on_one_budget_and_one_usage_event,
    a_server_that_does_not_start_leaves_the_others_answering,
    a_server_silent_at_initialize_is_withdrawn_and_the_others_answer,
    a_server_that_refuses_initialize_is_reported_once_by_name_and_the_others_answer,
    a_server_killed_mid_session_is_withdrawn_then_restarted,
    prompts_resources_progress_and_logs_are_routed_by_server,
    reload_adds_removes_and_changes_servers_under_a_connected_client,
    servers_that_agree_to_different_versions_make_the_session_speak_the_oldest,
    a_2026_07_28_client_discovers_the_gateway_and_gets_every_servers_tools_in_its_revision,
    a_2025_servers_elicitation_reaches_a_2026_07_28_client_as_input_required_and_its_retry_completes_the_call,
    a_subscription_is_acknowledged_and_told_of_a_server_that_joins_late,
    a_discover_probe_is_answered_before_a_slow_server_joins_and_the_lists_still_hold_it,
    a_server_that_never_answers_initialize_keeps_neither_the_answer_nor_the_others_tools,
    a_server_that_answers_initialize_after_the_deadline_is_offered_with_list_changed,
    a_call_to_a_server_that_is_not_there_names_it_why_its_log_and_overspill_status,
);

fn main() {
    main_with("gateway", CASES, fixture::run);
}
