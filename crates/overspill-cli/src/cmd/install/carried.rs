//! The settings of the servers behind overspill that a client applies itself, carried to
//! overspill's entry in its file (docs/clients.md#settings-of-moved-servers): Gemini CLI's
//! `timeout` and `trust`, Codex's time limits. The servers keep theirs in the servers file, so
//! that uninstall puts them back. A client's row (`clients.rs`) names its function here.

use serde_json::{Map, Value, json};

/// What the moved servers' own settings become: keys of overspill's entry that serve them
/// all (the longest time limit), and a note for each setting that only the client applies.
#[derive(Debug, Default)]
pub struct Carried {
    pub entry: Map<String, Value>,
    pub notes: Vec<String>,
}

/// The seconds install gives Codex to start overspill (`startup_timeout_sec`; Codex's own
/// default is 10).
pub const CODEX_STARTUP_SECS: u64 = 60;

/// The keys of overspill's entry that install decides from the servers behind it.
pub const CARRIED: &[&str] = &[
    "timeout",
    "trust",
    "startup_timeout_sec",
    "startup_timeout_ms",
    "tool_timeout_sec",
];

/// Gemini CLI's own time limit for a server's requests, 10 minutes: overspill's entry gets at
/// least that, since `gemini mcp list` otherwise gives a server 5 s to connect.
const GEMINI_TIMEOUT_MS: u64 = 600_000;

/// Gemini CLI's `timeout` (the longest, at least 10 minutes) and `trust` (only when every
/// server is trusted; a note for each trusted one `moved` otherwise).
pub fn gemini_cli(servers: &[(&String, &Value)], moved: &[String]) -> Carried {
    let mut carried = Carried::default();
    let timeout = longest(servers, "timeout").map_or(GEMINI_TIMEOUT_MS, |ms| {
        (ms.ceil() as u64).max(GEMINI_TIMEOUT_MS)
    });
    carried.entry.insert("timeout".to_owned(), json!(timeout));
    let trusted = |server: &Value| server.get("trust").and_then(Value::as_bool) == Some(true);
    if !servers.is_empty() && servers.iter().all(|(_, server)| trusted(server)) {
        carried.entry.insert("trust".to_owned(), json!(true));
    } else {
        for (name, _) in servers
            .iter()
            .filter(|(name, server)| trusted(server) && moved.contains(name))
        {
            carried.notes.push(format!(
                "`{name}` is trusted (`\"trust\": true`, kept in the servers file), but \
                 the servers behind overspill are not all: Gemini CLI asks before its \
                 tools run, as it does for the others"
            ));
        }
    }
    carried
}

/// Codex's `startup_timeout_sec` (the longest, in seconds, at least the one install gives
/// Codex) and `tool_timeout_sec` (the longest).
pub fn codex(servers: &[(&String, &Value)], _moved: &[String]) -> Carried {
    let mut carried = Carried::default();
    let startup = longest(servers, "startup_timeout_sec")
        .into_iter()
        .chain(longest(servers, "startup_timeout_ms").map(|ms| ms / 1000.0))
        .fold(CODEX_STARTUP_SECS as f64, f64::max);
    carried.entry.insert(
        "startup_timeout_sec".to_owned(),
        json!(startup.ceil() as u64),
    );
    if let Some(tool) = longest(servers, "tool_timeout_sec") {
        carried
            .entry
            .insert("tool_timeout_sec".to_owned(), json!(tool.ceil() as u64));
    }
    carried
}

/// The largest number any server gives `key`.
fn longest(servers: &[(&String, &Value)], key: &str) -> Option<f64> {
    servers
        .iter()
        .filter_map(|(_, server)| server.get(key)?.as_f64())
        .fold(None, |most: Option<f64>, value| {
            Some(most.map_or(value, |most| most.max(value)))
        })
}
