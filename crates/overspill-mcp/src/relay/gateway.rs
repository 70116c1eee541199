//! A gateway: one client session in front of several servers (docs/mcp-proxy.md#several-servers).
//!
//! What the client sends is routed: a tool or prompt by its offered name
//! (`<server>__<name>`, [`Namespace`]), a resource by the server that listed its URI or a
//! template matching it, a task by the server that created it, the answer to a server's
//! request by the id the gateway gave that request. What goes to every server (`initialize`,
//! `logging/setLevel`, `notifications/initialized`) is fanned out, and lists are gathered: the
//! tools and prompts whole (their names are allocated over all of them), resources and tasks
//! page by page behind a cursor that names the server. A server that fails is withdrawn and
//! the others go on.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::future::join_all;
use futures_util::stream::FuturesUnordered;
use serde_json::{Map, Value, json};
use tokio::sync::{oneshot, watch};

use super::{
    Member, Pending, Relay, ServerPorts, ServerSettings, Trouble, UpstreamPorts, tool_name,
};
use crate::message::{self, Id, Kind, METHOD_NOT_FOUND, Message};
use crate::namespace::{NameTable, Namespace};
use crate::revision::{self, Revision};
use crate::sync::lock;

mod input;
mod modern;

/// The most pages of one server's list gathered for one client `tools/list` or `prompts/list`;
/// a server whose cursors never end is cut there.
const MAX_PAGES: usize = 100;

/// The protocol version answered when no server answered and the client asked for none.
const FALLBACK_VERSION: &str = "2025-06-18";

/// The most error reports kept for a client that has not initialized yet (the oldest go first).
const MAX_UNTOLD: usize = 32;

/// What the client is told of a server that never starts, about what comes next.
const NOT_STARTED: &str = "it is not started until its entry is fixed (then send the gateway \
                           SIGHUP, or restart it, to read the file again)";

/// Where the client is sent to see every server's state.
const SEE_STATUS: &str = "run `overspill status` to see each server";

/// The first id of the gateway's own requests (and of servers' requests as the client sees
/// them): numbers, which every server reads (some read no other ids), from 2^52 up, which no
/// client's counter reaches and a double still holds exactly.
const OWN_IDS_FROM: u64 = 1 << 52;

/// A gateway's routing state.
pub(super) struct Gateway {
    namespace: Namespace,
    next: AtomicU64,
    /// The gateway's own requests to servers, by id: which server owes the answer, and who
    /// waits for it.
    asks: Mutex<HashMap<Id, Ask>>,
    /// Servers' requests to the client, by the id the client saw.
    forwarded: Mutex<HashMap<Id, Forwarded>>,
    /// Progress tokens of servers' requests to the client, by the token the client saw (the
    /// gateway's own, so two servers' tokens cannot collide): the server and its own token.
    progress: Mutex<HashMap<Id, (usize, Value)>>,
    state: Mutex<State>,
    /// Whether the client's `initialize` is being asked of the servers: what the client sends
    /// meanwhile waits, so that it reaches servers that have joined.
    initializing: watch::Sender<bool>,
    /// What a client of the stateless revision needs kept ([`modern`]).
    modern: Mutex<modern::Modern>,
    /// What a client of a session needs kept in front of servers of the stateless revision
    /// ([`input`]).
    input: Mutex<input::Input>,
    /// The client speaks the stateless revision (2026-07-28): the gateway joined its servers
    /// for it, and translates ([`modern`]). Read for every message either way.
    stateless: AtomicBool,
}

/// What the gateway learned in the session.
#[derive(Default)]
struct State {
    /// The client's `initialize` params, for servers that (re)start later.
    client_init: Option<Value>,
    /// Whether the client sent `notifications/initialized`.
    initialized: bool,
    /// The logging level the client set, for servers that (re)start later.
    level: Option<Value>,
    /// The protocol version the client's `initialize` was answered with: a server that joins
    /// later at an older one is reported.
    version: Option<String>,
    tools: Option<NameTable>,
    prompts: Option<NameTable>,
    /// Resource URIs and templates, and the server that listed each first.
    uris: HashMap<String, usize>,
    templates: Vec<Template>,
    /// Servers that joined before the client sent `notifications/initialized`: it is sent
    /// to them when it comes.
    awaiting_initialized: Vec<usize>,
    /// Errors about servers reported before the client initialized, told once it has.
    untold: Vec<String>,
}

struct Ask {
    server: usize,
    reply: oneshot::Sender<Result<Value, Refusal>>,
}

/// A server's request to the client: the server, its own id, and the progress token the
/// client was given for it.
struct Forwarded {
    server: usize,
    id: Value,
    token: Option<Id>,
}

/// A resource template a server listed, matched by a regular expression made from it once.
struct Template {
    text: String,
    owner: usize,
    pattern: Option<regex::Regex>,
}

/// Keeps the client's messages waiting while its `initialize` is asked of the servers, until
/// dropped (when the answer is sent, or the job ends any other way).
struct Initializing(Relay);

impl Initializing {
    fn start(relay: &Relay) -> Initializing {
        relay.gateway().initializing.send_replace(true);
        Initializing(relay.clone())
    }
}

impl Drop for Initializing {
    fn drop(&mut self) {
        self.0.gateway().initializing.send_replace(false);
    }
}

/// The order of the MCP log levels (RFC 5424's), for comparing one with the client's.
fn severity(level: &str) -> u8 {
    match level {
        "debug" => 0,
        "info" => 1,
        "notice" => 2,
        "warning" => 3,
        "error" => 4,
        "critical" => 5,
        "alert" => 6,
        "emergency" => 7,
        _ => 1,
    }
}

/// Why a gateway's own request got no result.
#[derive(Debug, Clone)]
enum Refusal {
    /// The server answered with this JSON-RPC error.
    Error(Value),
    /// It did not answer in time.
    Timeout,
    /// It is gone, or its answer could not be read.
    Gone(String),
}

impl Refusal {
    fn describe(&self) -> String {
        match self {
            Refusal::Error(error) => format!(
                "it answered with an error: {}",
                error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("(no message)")
            ),
            Refusal::Timeout => "it did not answer in time".to_owned(),
            Refusal::Gone(why) => why.clone(),
        }
    }
}

/// The two lists whose names the gateway allocates.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Catalog {
    Tools,
    Prompts,
}

impl Catalog {
    fn method(self) -> &'static str {
        match self {
            Catalog::Tools => "tools/list",
            Catalog::Prompts => "prompts/list",
        }
    }

    fn field(self) -> &'static str {
        match self {
            Catalog::Tools => "tools",
            Catalog::Prompts => "prompts",
        }
    }
}

impl Gateway {
    pub(super) fn new(namespace: Namespace) -> Gateway {
        Gateway {
            namespace,
            next: AtomicU64::new(OWN_IDS_FROM),
            asks: Mutex::new(HashMap::new()),
            forwarded: Mutex::new(HashMap::new()),
            progress: Mutex::new(HashMap::new()),
            state: Mutex::new(State::default()),
            initializing: watch::Sender::new(false),
            modern: Mutex::new(modern::Modern::default()),
            input: Mutex::new(input::Input::default()),
            stateless: AtomicBool::new(false),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        lock(&self.state)
    }

    fn asks(&self) -> std::sync::MutexGuard<'_, HashMap<Id, Ask>> {
        lock(&self.asks)
    }

    fn forwarded(&self) -> std::sync::MutexGuard<'_, HashMap<Id, Forwarded>> {
        lock(&self.forwarded)
    }

    fn progress(&self) -> std::sync::MutexGuard<'_, HashMap<Id, (usize, Value)>> {
        lock(&self.progress)
    }

    fn next_id(&self) -> (Id, Value) {
        let raw = Value::from(self.next.fetch_add(1, Ordering::Relaxed));
        (Id::Number(raw.to_string()), raw)
    }

    /// Whether `id` is one the gateway uses for its own requests, which a client's may not.
    fn is_own(&self, id: &Id) -> bool {
        lock(&self.asks).contains_key(id)
    }

    /// When `id` is one of the gateway's own requests to `index`, its answer could not be
    /// read: the waiter learns why. Whether it was.
    pub(super) fn refused(&self, index: usize, id: &Id, why: &str) -> bool {
        let mut asks = lock(&self.asks);
        match asks.get(id) {
            Some(ask) if ask.server == index => {
                if let Some(ask) = asks.remove(id) {
                    let _ = ask
                        .reply
                        .send(Err(Refusal::Gone(format!("it answered with {why}"))));
                }
                true
            }
            _ => false,
        }
    }

    /// Delivers server `index`'s answer to one of the gateway's own requests. Whether it was
    /// one.
    pub(super) fn deliver(&self, index: usize, id: &Id, text: &str) -> bool {
        let ask = {
            let mut asks = lock(&self.asks);
            match asks.get(id) {
                Some(ask) if ask.server == index => asks.remove(id),
                _ => None,
            }
        };
        let Some(ask) = ask else {
            return false;
        };
        let answer = match serde_json::from_str::<Value>(text) {
            Ok(mut value) => match value.get_mut("error") {
                Some(error) => Err(Refusal::Error(error.take())),
                None => Ok(value
                    .get_mut("result")
                    .map(Value::take)
                    .unwrap_or(Value::Null)),
            },
            Err(error) => Err(Refusal::Gone(format!("its answer is not JSON ({error})"))),
        };
        let _ = ask.reply.send(answer);
        true
    }

    /// The name `server`'s tool `tool` is offered under, once the tools were listed.
    pub(super) fn offered_tool(&self, server: &str, tool: &str) -> Option<String> {
        let state = self.state();
        state
            .tools
            .as_ref()?
            .offered(server, tool)
            .map(str::to_owned)
    }

    /// The server an offered tool or prompt name stands for, and its name there.
    fn origin(&self, catalog: Catalog, offered: &str) -> Option<(String, String)> {
        let state = self.state();
        let table = match catalog {
            Catalog::Tools => state.tools.as_ref(),
            Catalog::Prompts => state.prompts.as_ref(),
        }?;
        let origin = table.origin(offered)?;
        Some((origin.server.clone(), origin.name.clone()))
    }

    /// The server that owns resource `uri`: the first that listed it, else the first whose
    /// template matches it.
    fn resource_owner(&self, uri: &str) -> Option<usize> {
        let state = self.state();
        if let Some(owner) = state.uris.get(uri) {
            return Some(*owner);
        }
        state
            .templates
            .iter()
            .find(|template| {
                template.text == uri
                    || template
                        .pattern
                        .as_ref()
                        .is_some_and(|pattern| pattern.is_match(uri))
            })
            .map(|template| template.owner)
    }
}

impl Relay {
    /// Whether server `index` has joined (and was not removed): requests may go to it.
    fn ready(&self, index: usize) -> bool {
        self.0.member(index).is_ready()
    }

    /// Whether server `index`'s transport runs.
    fn alive(&self, index: usize) -> bool {
        self.0.member(index).is_alive()
    }

    /// Whether server `index` declared `capability` in its `initialize` result.
    fn has(&self, index: usize, capability: &str) -> bool {
        self.0
            .member(index)
            .initialized_with
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .and_then(|result| result.get("capabilities"))
            .is_some_and(|capabilities| capabilities.get(capability).is_some())
    }

    /// How many servers there are, retired ones too (indices run from 0 to this).
    fn count(&self) -> usize {
        self.0
            .servers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    fn gateway(&self) -> &Gateway {
        // Only called on a gateway's relay.
        self.0
            .router
            .gateway()
            .unwrap_or_else(|| unreachable!("a gateway method on a plain relay"))
    }

    /// The server configured as `name` now.
    fn server_index(&self, name: &str) -> Option<usize> {
        self.0
            .members()
            .into_iter()
            .find(|(_, server)| server.name == name && !server.retired.load(Ordering::SeqCst))
            .map(|(index, _)| index)
    }

    /// Asks server `index` `method` with `params` and waits for its result, at most
    /// `--init-timeout` (what the gateway asks on its own: `initialize`, lists).
    async fn ask(&self, index: usize, method: &str, params: Value) -> Result<Value, Refusal> {
        self.ask_within(index, method, params, Some(self.0.init_timeout))
            .await
    }

    /// [`Relay::ask`] with a time limit of its own; `None` waits as long as the server takes
    /// (a request the client made, which it can cancel), or until it is gone.
    async fn ask_within(
        &self,
        index: usize,
        method: &str,
        params: Value,
        limit: Option<Duration>,
    ) -> Result<Value, Refusal> {
        let gateway = self.gateway();
        let (id, raw) = gateway.next_id();
        let (reply, answer) = oneshot::channel();
        let ask = Ask {
            server: index,
            reply,
        };
        gateway.asks().insert(id.clone(), ask);
        // Recorded first, checked then: a server that goes now fails the ask in `withdraw`.
        let text = message::request(Some(&raw), method, &params);
        if !self.alive(index) || !self.0.send_server(index, text).await {
            gateway.asks().remove(&id);
            return Err(Refusal::Gone("it is not running".to_owned()));
        }
        let answered = match limit {
            Some(limit) => tokio::time::timeout(limit, answer).await,
            None => Ok(answer.await),
        };
        match answered {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(Refusal::Gone("it stopped".to_owned())),
            Err(_) => {
                gateway.asks().remove(&id);
                // The server may still be working on it: tell it the answer is not wanted.
                let cancel = message::request(
                    None,
                    "notifications/cancelled",
                    &json!({"requestId": raw, "reason": "timed out"}),
                );
                self.0.send_server(index, cancel).await;
                Err(Refusal::Timeout)
            }
        }
    }

    async fn notify(&self, method: &str, params: Value) {
        self.0
            .send_client(message::request(None, method, &params))
            .await;
    }

    /// Tells the client, in its log, something about a server: once it has initialized, and
    /// when `level` is at or above the level it set. An error reported before the client
    /// initialized (a server that could not start with the session) is told once it has.
    async fn report(&self, level: &str, text: String) {
        let wanted = {
            let mut state = self.gateway().state();
            if !state.initialized && severity(level) >= severity("error") {
                if state.untold.len() == MAX_UNTOLD {
                    state.untold.remove(0);
                }
                state.untold.push(text.clone());
            }
            let set = state
                .level
                .as_ref()
                .and_then(Value::as_str)
                .unwrap_or("info");
            state.initialized && severity(level) >= severity(set)
        };
        if wanted {
            self.notify(
                "notifications/message",
                json!({"level": level, "logger": "overspill", "data": text}),
            )
            .await;
        }
    }

    /// Tells the client every list server `index` contributes to may have changed.
    async fn lists_changed(&self, index: usize) {
        if !self.gateway().state().initialized {
            return;
        }
        let stateless = self.stateless_client();
        for (capability, method) in [
            ("tools", "notifications/tools/list_changed"),
            ("prompts", "notifications/prompts/list_changed"),
            ("resources", "notifications/resources/list_changed"),
        ] {
            if capability != "tools" && !self.has(index, capability) {
                continue;
            }
            if stateless {
                self.tell_subscriptions(method, &json!({})).await;
            } else {
                self.notify(method, json!({})).await;
            }
        }
    }

    /// Server `index` is gone: its own requests fail, its tools are withdrawn and the client
    /// is told (docs/mcp-proxy.md#when-a-server-fails).
    pub(super) async fn withdraw(&self, index: usize, why: &str, was: (bool, bool)) {
        let gateway = self.gateway();
        let Some(member) = self.0.server(index) else {
            return;
        };
        let (was_alive, was_ready) = was;
        let asks: Vec<Ask> = {
            let mut asks = lock(&gateway.asks);
            asks.extract_if(|_, ask| ask.server == index)
                .map(|(_, ask)| ask)
                .collect()
        };
        for ask in asks {
            let _ = ask.reply.send(Err(Refusal::Gone(format!("it {why}"))));
        }
        gateway
            .forwarded()
            .retain(|_, forwarded| forwarded.server != index);
        gateway.progress().retain(|_, (server, _)| *server != index);
        gateway.forget_input(index);
        if !was_alive {
            return;
        }
        let server = member;
        if server.retired.load(Ordering::SeqCst) {
            let said = if server.replaced.load(Ordering::SeqCst) {
                "is restarted with its changed configuration"
            } else {
                "was removed from the server list"
            };
            tracing::info!(server = %server.name, "the MCP server {said}");
            if was_ready {
                let text = format!(
                    "the MCP server `{}` {said}; its tools are withdrawn",
                    server.name
                );
                self.report("info", text).await;
                self.lists_changed(index).await;
            }
            return;
        }
        server.failed(why);
        self.tell_failure(&server, why, was_ready).await;
        if was_ready {
            self.lists_changed(index).await;
        }
    }

    /// Server `index` never starts (its entry cannot be started from): the client and the
    /// proxy's stderr are told why, as of a server that failed. What stderr was told.
    pub(super) async fn never_starts(&self, index: usize) -> String {
        let server = self.0.member(index);
        let why = match server.trouble() {
            Some(Trouble::Invalid(why)) => why,
            _ => "cannot be started".to_owned(),
        };
        self.tell_failure(&server, &why, false).await
    }

    /// Tells the proxy's stderr and the client's log that `server` failed so (`why`), what
    /// comes next (it is restarted, or never starts), and where its diagnostics are: one shape
    /// for every failure (docs/mcp-proxy.md#when-a-server-fails). What stderr was told.
    async fn tell_failure(&self, server: &Member, why: &str, was_ready: bool) -> String {
        let next = match server.trouble() {
            Some(Trouble::Invalid(_)) => NOT_STARTED,
            _ if was_ready => "its tools are withdrawn until it is back (it is restarted)",
            _ => "it is restarted",
        };
        let said = format!(
            "the MCP server {} {why}; its diagnostics are in {}; {next}",
            server.label, server.diagnostics
        );
        tracing::warn!(server = %server.name, "{said}");
        let text = format!(
            "the MCP server `{}` {why}; {next}; its diagnostics are in {}",
            server.name, server.diagnostics
        );
        self.report("error", text).await;
        said
    }

    /// Adds a server to a running gateway (a reload): its queues, and its index. Its transport
    /// is the caller's to start, and [`Relay::rejoin`] then initializes it.
    pub(crate) fn add_server(&self, settings: ServerSettings) -> (usize, UpstreamPorts) {
        let (ours, theirs) = ServerPorts::pair();
        let member = Arc::new(Member::new(settings, ours));
        let mut servers = self
            .0
            .servers
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        servers.push(member);
        (servers.len() - 1, theirs)
    }

    /// Marks server `index` removed by a reload (`replaced` when a changed entry of the same
    /// name takes its place): nothing is routed to it any more, the resources and tasks it
    /// owned are forgotten, and once its transport stops its tools are withdrawn for good.
    pub(crate) fn retire(&self, index: usize, replaced: bool) {
        if let Some(member) = self.0.server(index) {
            member.replaced.store(replaced, Ordering::SeqCst);
            member.retired.store(true, Ordering::SeqCst);
        }
        let mut state = self.gateway().state();
        state.uris.retain(|_, owner| *owner != index);
        state.templates.retain(|template| template.owner != index);
        drop(state);
        lock(&self.0.tasks).retain(|_, (owner, _)| *owner != index);
    }

    /// Server `index` joins the session in its run `run`: at the client's `initialize`, and
    /// whenever its transport runs again (a restart, or the first run of a server a reload
    /// added). Once the client has sent its `initialize`, the server is initialized as the
    /// client asked, told the client's logging level, and its tools offered (to a client that
    /// has initialized: a log message and `list_changed`). A server that does not answer is
    /// stopped (to be restarted). Its `initialize` result, when it joined.
    pub(crate) async fn rejoin(&self, index: usize, run: u64) -> Option<Value> {
        let gateway = self.gateway();
        let member = self.0.server(index)?;
        let fresh = member.never_initialized();
        let params = gateway.state().client_init.clone();
        let result = match self.join(index, params?).await {
            Ok(result) => result,
            Err(refusal) => {
                // Its transport stops, and the withdrawal says why.
                self.refuse_join(index, run, &refusal);
                return None;
            }
        };
        // Exactly one of this and the client's `notifications/initialized` tells the server:
        // whichever comes second, under the state lock.
        let initialized = {
            let mut state = gateway.state();
            if !state.initialized {
                state.awaiting_initialized.push(index);
            }
            state.initialized
        };
        if initialized {
            let text = message::request(None, "notifications/initialized", &json!({}));
            self.0.send_server(index, text).await;
        }
        if !member.joined(run) {
            // It went while it joined: its next run joins again.
            return None;
        }
        if member.is_stateless() {
            self.listen_to(index).await;
        }
        // The level the client set by now, read once the server is ready: one the client sets
        // later reaches it as it reaches every ready server, so that a server that joins late
        // misses none.
        let level = gateway.state().level.clone();
        if let Some(level) = level
            && self.has(index, "logging")
            && !member.is_stateless()
        {
            let _ = self
                .ask(index, "logging/setLevel", json!({"level": level}))
                .await;
        }
        let (said, how) = if fresh {
            ("joined", "offered")
        } else {
            ("is back", "offered again")
        };
        tracing::info!(server = %member.name, "the MCP server {said}");
        let text = format!(
            "the MCP server `{}` {said}; its tools are {how}",
            member.name
        );
        self.report("info", text).await;
        // One that joins after the client was answered cannot lower the session's version:
        // what the client sends of the newer revision may not be understood there.
        let session = gateway.state().version.clone();
        if let (Some(theirs), Some(session)) = (
            result.get("protocolVersion").and_then(Value::as_str),
            session.as_deref(),
        ) && theirs < session
        {
            let text = format!(
                "the MCP server `{}` speaks the protocol version {theirs}, older than this \
                 session's {session} (it joined after the client was answered): what the client \
                 sends of the newer revision may fail there",
                member.name
            );
            tracing::warn!(server = %member.name, "{text}");
            self.report("warning", text).await;
        }
        self.lists_changed(index).await;
        Some(result)
    }

    /// Initializes server `index` with the client's `params`; its result. A server that
    /// refuses `initialize` as one of the stateless revision would is asked `server/discover` in the stateless revision: when it
    /// speaks that revision, it joins so, and every request it is sent from then on carries
    /// the envelope made from `params` (docs/mcp-proxy.md#revisions).
    async fn join(&self, index: usize, params: Value) -> Result<Value, Refusal> {
        let member = self.0.member(index);
        *lock(&member.envelope) = None;
        let result = match self.ask(index, "initialize", params.clone()).await {
            Ok(result) => result,
            Err(Refusal::Error(refused)) if refuses_sessions(&refused) => self
                .discover_server(index, &params)
                .await
                .ok_or(Refusal::Error(refused))?,
            Err(other) => return Err(other),
        };
        *lock(&member.initialized_with) = Some(result.clone());
        Ok(result)
    }

    /// Asks server `index`, which refused `initialize`, `server/discover` in the stateless
    /// revision for the client of `params`: its result when it speaks that revision (the
    /// server is then marked so), else `None`.
    async fn discover_server(&self, index: usize, params: &Value) -> Option<Value> {
        let member = self.0.member(index);
        // Set first: what the server is sent from now on carries it, the discovery too.
        *lock(&member.envelope) = Some(Arc::new(revision::envelope(params)));
        let result = self
            .ask(index, "server/discover", json!({}))
            .await
            .ok()
            .filter(|result| {
                result
                    .get("supportedVersions")
                    .and_then(Value::as_array)
                    .is_some_and(|versions| {
                        versions
                            .iter()
                            .any(|version| version.as_str() == Some(Revision::R2026_07_28.as_str()))
                    })
            });
        match &result {
            Some(_) => {
                tracing::info!(server = %member.name, "the MCP server speaks only {}: it is sent that revision's requests", Revision::R2026_07_28.as_str())
            }
            None => *lock(&member.envelope) = None,
        }
        result
    }

    /// Server `index` did not join in its run `run`: that run is stopped, so that the server is
    /// restarted (a later run is left alone).
    fn refuse_join(&self, index: usize, run: u64, refusal: &Refusal) {
        let server = self.0.member(index);
        let error = match refusal {
            Refusal::Timeout => crate::error::ProxyError::InitTimeout {
                server: server.label.clone(),
                after: self.0.init_timeout,
                diagnostics: server.diagnostics.clone(),
            },
            other => crate::error::ProxyError::InitRefused {
                server: server.label.clone(),
                why: other.describe(),
            },
        };
        self.0.fail_run(index, run, error);
    }

    /// One message from the client of a gateway.
    pub(super) async fn gateway_client_message(&self, message: Message) {
        if message.revision.is_some_and(Revision::is_stateless)
            && self.modern_request(&message).await
        {
            return;
        }
        let initialize =
            matches!(&message.kind, Kind::Request { method, .. } if method == "initialize");
        if !initialize {
            // A client that sends on before its `initialize` is answered waits for it here.
            let mut initializing = self.gateway().initializing.subscribe();
            let _ = initializing.wait_for(|running| !running).await;
        }
        self.gateway_request_routed(message).await;
    }

    /// One message from the client, routed (its `initialize`, or the servers' joining for a
    /// client without one, is under way or done).
    async fn gateway_request_routed(&self, message: Message) {
        match &message.kind {
            Kind::Request { method, .. } => {
                let method = method.clone();
                self.gateway_request(&method, message).await;
            }
            Kind::Notification { method } => {
                let method = method.clone();
                self.gateway_notification(&method, message).await;
            }
            Kind::Response { id, .. } => {
                // The client answers a server's request under the id the gateway gave it.
                let Some(key) = id else {
                    return;
                };
                let gateway = self.gateway();
                if gateway.client_answered(key, &message.text) {
                    return;
                }
                let target = gateway.forwarded().remove(key);
                if let Some(forwarded) = target {
                    if let Some(token) = &forwarded.token {
                        gateway.progress().remove(token);
                    }
                    // Its id's place was read with its envelope: nothing is parsed again.
                    let text = message.with_id(forwarded.id.clone()).text;
                    self.0.send_server(forwarded.server, text).await;
                }
            }
        }
    }

    async fn gateway_request(&self, method: &str, message: Message) {
        if self.stateless_client()
            && message.text.contains("\"requestState\"")
            && self.retried(&message).await
        {
            return;
        }
        let id = message.id.clone();
        if let Kind::Request { id: key, .. } = &message.kind
            && self.gateway().is_own(key)
        {
            let text = "this request id is one the gateway uses for its own requests; use another";
            return self.refuse(&id, message::INVALID_REQUEST, text).await;
        }
        match method {
            "tools/call" | "prompts/get" | "completion/complete" => {
                // Named by what a list offered: a client that never listed has its list
                // gathered first, off the task that reads its messages.
                let catalog = if method == "tools/call" {
                    Catalog::Tools
                } else {
                    Catalog::Prompts
                };
                let listed = {
                    let state = self.gateway().state();
                    match catalog {
                        Catalog::Tools => state.tools.is_some(),
                        Catalog::Prompts => state.prompts.is_some(),
                    }
                };
                if listed {
                    return self.named(method, message).await;
                }
                let relay = self.clone();
                let method = method.to_owned();
                self.0.job(move |_| async move {
                    relay.gather(catalog).await;
                    relay.named(&method, message).await;
                });
            }
            "ping" => self.answer(&id, &json!({})).await,
            "initialize" => {
                let relay = self.clone();
                // Set before the next client message is read; cleared when the answer is sent,
                // or when the job ends in any other way.
                let running = Initializing::start(self);
                self.0.job(move |_| async move {
                    relay.initialize(message).await;
                    drop(running);
                });
            }
            // The gateway answers a 2026-07-28 `server/discover` from the servers it joined
            // itself (docs/mcp-proxy.md#revisions); no server is asked: one asked
            // `server/discover` settles its connection on 2026-07-28 and then refuses the
            // `initialize` a client of a session brings. A probe without the revision's
            // envelope is told there is no such method.
            "server/discover" if message.revision.is_some_and(Revision::is_stateless) => {
                self.discover(&message).await;
            }
            "subscriptions/listen" if self.stateless_client() => {
                let relay = self.clone();
                self.0.job(move |_| async move {
                    relay.listen(message).await;
                });
            }
            "server/discover" => {
                self.refuse(
                    &id,
                    METHOD_NOT_FOUND,
                    "overspill's gateway speaks the 2025 protocol revisions to its client: \
                     send initialize",
                )
                .await;
            }
            "tools/list" | "prompts/list" => {
                let catalog = if method == "tools/list" {
                    Catalog::Tools
                } else {
                    Catalog::Prompts
                };
                let relay = self.clone();
                self.0.job(move |_| async move {
                    let result = relay.gather(catalog).await;
                    relay.answer(&id, &result).await;
                });
            }
            "resources/list" | "resources/templates/list" | "tasks/list" => {
                let relay = self.clone();
                let method = method.to_owned();
                self.0.job(move |_| async move {
                    relay.page(&method, message).await;
                });
            }
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                let uri = message::params(&message.text)
                    .get("uri")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let Some(uri) = uri else {
                    return self
                        .refuse(
                            &id,
                            message::INVALID_PARAMS,
                            "this request needs params.uri",
                        )
                        .await;
                };
                match self.gateway().resource_owner(&uri) {
                    Some(owner) => self.forward(owner, message, Pending::Forward).await,
                    None => {
                        let relay = self.clone();
                        let method = method.to_owned();
                        self.0.job(move |_| async move {
                            relay.first_answer(&method, message, "resources").await;
                        });
                    }
                }
            }
            "logging/setLevel" => {
                let relay = self.clone();
                self.0.job(move |_| async move {
                    relay.set_level(message).await;
                });
            }
            "tasks/get" | "tasks/result" | "tasks/cancel" => {
                let task = message::params(&message.text)
                    .get("taskId")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let owner = task.as_ref().and_then(|task| {
                    let tasks = lock(&self.0.tasks);
                    tasks.get(task).map(|(owner, _)| *owner)
                });
                match (task, owner) {
                    (Some(task), Some(owner)) => {
                        let pending = if method == "tasks/result" {
                            Pending::TaskResult { task }
                        } else {
                            Pending::Forward
                        };
                        self.forward(owner, message, pending).await;
                    }
                    _ => {
                        self.refuse(
                            &id,
                            message::INVALID_PARAMS,
                            "no server of this gateway created that task",
                        )
                        .await;
                    }
                }
            }
            other => {
                let text = format!(
                    "overspill's gateway does not know which of its servers answers `{other}`"
                );
                self.refuse(&id, METHOD_NOT_FOUND, &text).await;
            }
        }
    }

    /// A request routed by a tool's or prompt's offered name.
    async fn named(&self, method: &str, message: Message) {
        match method {
            "tools/call" => self.tools_call(message).await,
            "prompts/get" => self.prompts_get(message).await,
            _ => self.complete(message).await,
        }
    }

    async fn gateway_notification(&self, method: &str, message: Message) {
        let gateway = self.gateway();
        match method {
            "notifications/initialized" => {
                // The servers that joined before it came, and those joined now, hear it once.
                let (awaiting, untold) = {
                    let mut state = gateway.state();
                    state.initialized = true;
                    (
                        std::mem::take(&mut state.awaiting_initialized),
                        std::mem::take(&mut state.untold),
                    )
                };
                for index in 0..self.count() {
                    if self.ready(index) || awaiting.contains(&index) && self.alive(index) {
                        self.0.send_server(index, message.text.clone()).await;
                    }
                }
                // What failed before the client could hear it.
                for text in untold {
                    self.report("error", text).await;
                }
            }
            "notifications/progress" => {
                // Progress on a server's request, under the token the gateway gave it: back to
                // that server under its own.
                let params = message::params(&message.text);
                let owner = params
                    .get("progressToken")
                    .and_then(Id::of)
                    .and_then(|token| gateway.progress().get(&token).cloned());
                let Some((owner, token)) = owner else {
                    return;
                };
                let Ok(mut value) = serde_json::from_str::<Value>(&message.text) else {
                    return;
                };
                value["params"]["progressToken"] = token;
                self.0.send_server(owner, value.to_string()).await;
            }
            _ => self.to_ready(message.text).await,
        }
    }

    /// Sends `text` to every server that has joined.
    async fn to_ready(&self, text: String) {
        for index in 0..self.count() {
            if self.ready(index) {
                self.0.send_server(index, text.clone()).await;
            }
        }
    }

    async fn answer(&self, id: &Value, result: &Value) {
        self.0
            .send_client(message::result_response(id, result))
            .await;
    }

    async fn refuse(&self, id: &Value, code: i64, text: &str) {
        self.0
            .send_client(message::error_response(id, code, text))
            .await;
    }

    /// Sends a client request on to server `index` as it came, its answer handled as `pending`
    /// says; a server that has not joined answers nothing, so the client hears why here.
    async fn forward(&self, index: usize, message: Message, pending: Pending) {
        let Kind::Request { id, .. } = &message.kind else {
            return;
        };
        let id = id.clone();
        self.dispatch(index, &id, &message.id, pending, message.text)
            .await;
    }

    /// The answer to a request for server `index` while it cannot take one (a call of its
    /// tool): the server, why, where its diagnostics are, and the command that shows every
    /// server. The one text of its kind (docs/mcp-proxy.md#when-a-server-fails).
    pub(super) fn unavailable(&self, index: usize) -> String {
        let server = self.0.member(index);
        let why = match (server.trouble(), server.is_alive()) {
            (Some(Trouble::Invalid(why)), _) => format!("it {why}; {NOT_STARTED}"),
            (Some(Trouble::Failed(why)), _) => format!(
                "it {why}; it is restarted (its tools are offered again once it answers \
                 `initialize`)"
            ),
            (None, true) => {
                "it has not answered `initialize` yet (its tools are offered once it does)"
                    .to_owned()
            }
            (None, false) => "it stopped".to_owned(),
        };
        format!(
            "the MCP server `{}` is not available: {why}; its diagnostics are in {}; {SEE_STATUS}",
            server.name, server.diagnostics
        )
    }

    /// The client's `initialize`, asked of every running server at once; the answer is the
    /// union of the answers that came within `--answer-within`, or as soon as every server
    /// answered (docs/mcp-proxy.md#several-servers). A server that answers later joins then, as
    /// a restarted one does ([`Relay::rejoin`]).
    async fn initialize(&self, message: Message) {
        let gateway = self.gateway();
        let params = message::params(&message.text);
        // A client that asked `server/discover` first and then initializes after all (a client
        // in an automatic mode may) is a client of a session: the servers it made join are not
        // asked again (a second `initialize` on one connection is refused), the answer is theirs.
        let joined_for_discover = {
            let mut state = gateway.state();
            let was_stateless = gateway.stateless.swap(false, Ordering::AcqRel);
            let joined = was_stateless && state.client_init.is_some();
            state.client_init = Some(params.clone());
            joined
        };
        let joined = if joined_for_discover {
            self.joined_answers()
        } else {
            self.join_servers(self.0.answer_within).await
        };
        let requested = params.get("protocolVersion").and_then(Value::as_str);
        let mut result = self.merged(&joined, requested);
        self.0.introduce(&mut result);
        gateway.state().version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.answer(&message.id, &result).await;
    }

    /// The `initialize` results of the servers joined and ready, in the configured order.
    fn joined_answers(&self) -> Vec<(usize, Value)> {
        self.0
            .members()
            .into_iter()
            .filter(|(index, _)| self.ready(*index))
            .filter_map(|(index, member)| {
                let result = lock(&member.initialized_with).clone()?;
                Some((index, result))
            })
            .collect()
    }

    /// Asks every running server to join with the client's `initialize` params (kept in the
    /// state): the `initialize` results that came within `within` (`--answer-within`), or as
    /// soon as every server answered, in the configured order. The others go on joining.
    async fn join_servers(&self, within: Duration) -> Vec<(usize, Value)> {
        let servers: Vec<usize> = (0..self.count())
            .filter(|index| self.alive(*index))
            .collect();
        let deadline = tokio::time::sleep(within);
        tokio::pin!(deadline);
        let mut joined: Vec<(usize, Value)> = Vec::new();
        // Each joins on a task of its own, for the run that was asked (a late answer neither
        // marks a restarted server joined nor stops it), and goes on joining after the
        // deadline.
        let mut joining: FuturesUnordered<_> = servers
            .iter()
            .map(|&index| {
                let relay = self.clone();
                let run = self.0.member(index).run();
                tokio::spawn(async move { Some((index, relay.rejoin(index, run).await?)) })
            })
            .collect();
        loop {
            tokio::select! {
                next = joining.next() => match next {
                    Some(Ok(Some(answer))) => joined.push(answer),
                    Some(_) => {}
                    None => break,
                },
                () = &mut deadline => break,
            }
        }
        // In the configured order, whichever answered first.
        joined.sort_by_key(|(index, _)| *index);
        joined
    }

    /// One `initialize` result for the servers' `answers`: the oldest protocol version any of
    /// them agreed to (every server must understand the session), the union of their
    /// capabilities, and their instructions each under its server's name.
    fn merged(&self, answers: &[(usize, Value)], requested: Option<&str>) -> Value {
        let version = answers
            .iter()
            .filter_map(|(_, result)| result.get("protocolVersion")?.as_str())
            .min()
            .or(requested)
            .unwrap_or(FALLBACK_VERSION);
        let mut capabilities = Value::Object(Map::new());
        for (_, result) in answers {
            if let Some(theirs) = result.get("capabilities") {
                union(&mut capabilities, theirs);
            }
        }
        if let Some(capabilities) = capabilities.as_object_mut() {
            // The gateway itself changes its lists (a server withdrawn, back, or added by a
            // reload) and answers `logging/setLevel` whatever its servers do. Prompts and
            // resources are offered even when no server has joined with them yet: one that
            // joins later is announced through their `list_changed`.
            capabilities.insert("tools".to_owned(), json!({"listChanged": true}));
            capabilities.insert("logging".to_owned(), json!({}));
            for list in ["prompts", "resources"] {
                let entry = capabilities
                    .entry(list)
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(list) = entry.as_object_mut() {
                    list.insert("listChanged".to_owned(), Value::Bool(true));
                }
            }
        }
        let instructions: Vec<String> = answers
            .iter()
            .filter_map(|(index, result)| {
                let text = result.get("instructions")?.as_str()?.trim();
                let server = self.0.member(*index).name.clone();
                (!text.is_empty()).then(|| format!("Server `{server}`: {text}"))
            })
            .collect();
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": {"name": "overspill", "version": env!("CARGO_PKG_VERSION")},
        });
        if !instructions.is_empty() {
            result["instructions"] = Value::String(instructions.join("\n\n"));
        }
        result
    }

    /// Every joined server's tools (or prompts), all pages, under their offered names; the
    /// table that routes them is kept. Tools end with the exploration tools.
    async fn gather(&self, catalog: Catalog) -> Value {
        // A server that joins (or goes) while the lists are asked for makes them stale: they
        // are asked for again, a few times at most, so that the answer, and the routing table
        // kept, hold every server ready by its end.
        let mut servers = self.listing(catalog);
        for _ in 0..3 {
            let (answer, table) = self.gather_from(catalog, &servers).await;
            let now = self.listing(catalog);
            if now == servers {
                self.keep_table(catalog, table);
                return answer;
            }
            servers = now;
        }
        let (answer, table) = self.gather_from(catalog, &servers).await;
        self.keep_table(catalog, table);
        answer
    }

    /// The servers whose tools (or prompts) a list holds: those ready, with the capability.
    fn listing(&self, catalog: Catalog) -> Vec<usize> {
        (0..self.count())
            .filter(|index| {
                self.ready(*index)
                    && (catalog == Catalog::Tools || self.has(*index, catalog.field()))
            })
            .collect()
    }

    /// Keeps the table that routes the offered names.
    fn keep_table(&self, catalog: Catalog, table: NameTable) {
        let mut state = self.gateway().state();
        match catalog {
            Catalog::Tools => state.tools = Some(table),
            Catalog::Prompts => state.prompts = Some(table),
        }
    }

    /// The list of `servers`' tools (or prompts), all pages, under their offered names, and
    /// the table of those names.
    async fn gather_from(&self, catalog: Catalog, servers: &[usize]) -> (Value, NameTable) {
        let gateway = self.gateway();
        let lists = join_all(
            servers
                .iter()
                .map(|index| async move { (*index, self.whole_list(*index, catalog).await) }),
        )
        .await;
        let exploration = self.0.exploration();
        let reserved = match catalog {
            Catalog::Tools => exploration
                .definitions
                .iter()
                .filter_map(|definition| tool_name(definition).map(str::to_owned))
                .collect(),
            Catalog::Prompts => Default::default(),
        };
        let names: Vec<(String, String)> = lists
            .iter()
            .flat_map(|(index, entries)| {
                let server = self.0.member(*index).name.clone();
                entries
                    .iter()
                    .filter_map(move |entry| Some((server.clone(), tool_name(entry)?.to_owned())))
            })
            .collect();
        let table = gateway.namespace.name_all(
            names
                .iter()
                .map(|(server, name)| (server.as_str(), name.as_str())),
            &reserved,
        );
        let mut offered = Vec::new();
        for (index, entries) in lists {
            let server = self.0.member(index).name.clone();
            if catalog == Catalog::Tools {
                let names = entries
                    .iter()
                    .filter_map(|entry| tool_name(entry).map(str::to_owned))
                    .collect();
                self.0.scratch.set_server_tools(&server, names);
            }
            for mut entry in entries {
                let Some(name) = tool_name(&entry).map(str::to_owned) else {
                    continue;
                };
                let Some(exposed) = table.offered(&server, &name) else {
                    continue;
                };
                entry["name"] = Value::String(exposed.to_owned());
                if catalog == Catalog::Tools {
                    self.0.offer_tool(&server, &name, &mut entry);
                }
                offered.push(entry);
            }
        }
        if catalog == Catalog::Tools {
            offered.extend(exploration.definitions.iter().cloned());
        }
        (json!({ catalog.field(): offered }), table)
    }

    /// Every page of server `index`'s tools (or prompts); what a failing server gave is
    /// dropped, with a warning.
    async fn whole_list(&self, index: usize, catalog: Catalog) -> Vec<Value> {
        let mut entries = Vec::new();
        let mut cursor: Option<Value> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let mut result = match self.ask(index, catalog.method(), params).await {
                Ok(result) => result,
                Err(refusal) => {
                    let server = self.0.member(index);
                    tracing::warn!(server = %server.name, "the MCP server did not list its {}: {}", catalog.field(), refusal.describe());
                    return Vec::new();
                }
            };
            if let Some(Value::Array(page)) = result.get_mut(catalog.field()).map(Value::take) {
                entries.extend(page);
            }
            match result.get("nextCursor") {
                Some(next) if !next.is_null() && Some(next) != cursor.as_ref() => {
                    cursor = Some(next.clone());
                }
                _ => return entries,
            }
        }
        entries
    }

    /// The tool an offered name stands for, at its server; when the client never listed the
    /// tools, they are listed first. `Err` is the message for the model.
    pub(super) async fn route_tool(&self, offered: &str) -> Result<(usize, String), String> {
        let gateway = self.gateway();
        let Some((server, name)) = gateway.origin(Catalog::Tools, offered) else {
            // A server that never listed its tools (it failed) is still named by the call.
            let separator = gateway.namespace.separator();
            let named = self
                .0
                .members()
                .into_iter()
                .filter(|(_, server)| !server.retired.load(Ordering::SeqCst))
                .find_map(|(index, server)| {
                    offered
                        .strip_prefix(server.name.as_str())
                        .is_some_and(|rest| rest.starts_with(separator))
                        .then_some(index)
                });
            if let Some(index) = named
                && !self.ready(index)
            {
                return Err(self.unavailable(index));
            }
            let removed = self.0.members().into_iter().find(|(_, server)| {
                offered
                    .strip_prefix(server.name.as_str())
                    .is_some_and(|rest| rest.starts_with(separator))
            });
            if named.is_none()
                && let Some((_, server)) = removed
            {
                return Err(format!(
                    "the server `{}` is no longer configured (a reload removed it); list the \
                     tools again (tools/list) for the names offered now",
                    server.name
                ));
            }
            return Err(format!(
                "no server of this gateway offers a tool `{offered}`; list the tools again \
                 (tools/list) for the names offered now"
            ));
        };
        let Some(index) = self.server_index(&server) else {
            return Err(format!(
                "the server `{server}` is no longer configured (a reload removed it); list the \
                 tools again (tools/list) for the names offered now"
            ));
        };
        if !self.ready(index) {
            return Err(self.unavailable(index));
        }
        Ok((index, name))
    }

    async fn prompts_get(&self, message: Message) {
        let gateway = self.gateway();
        let offered = message::params(&message.text)
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let origin = offered
            .as_deref()
            .and_then(|offered| gateway.origin(Catalog::Prompts, offered));
        let Some((index, name)) =
            origin.and_then(|(server, name)| Some((self.server_index(&server)?, name)))
        else {
            return self
                .refuse(
                    &message.id,
                    message::INVALID_PARAMS,
                    "no server of this gateway offers that prompt; list the prompts again",
                )
                .await;
        };
        let mut message = message;
        let text = renamed(std::mem::take(&mut message.text), &name);
        message.set_text(text);
        self.forward(index, message, Pending::Forward).await;
    }

    /// `completion/complete`: routed by the prompt or the resource template it completes.
    async fn complete(&self, mut message: Message) {
        let gateway = self.gateway();
        let params = message::params(&message.text);
        let reference = params.get("ref").cloned().unwrap_or(Value::Null);
        let owner = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => reference
                .get("name")
                .and_then(Value::as_str)
                .and_then(|offered| gateway.origin(Catalog::Prompts, offered))
                .and_then(|(server, name)| {
                    let index = self.server_index(&server)?;
                    let mut value: Value = serde_json::from_str(&message.text).ok()?;
                    value["params"]["ref"]["name"] = Value::String(name);
                    message.set_text(value.to_string());
                    Some(index)
                }),
            Some("ref/resource") => reference
                .get("uri")
                .and_then(Value::as_str)
                .and_then(|uri| gateway.resource_owner(uri)),
            _ => None,
        };
        match owner {
            Some(index) => self.forward(index, message, Pending::Forward).await,
            // A template no listing placed yet: each server that completes is asked in turn.
            None if reference.get("type").and_then(Value::as_str) == Some("ref/resource") => {
                let relay = self.clone();
                self.0.job(move |_| async move {
                    relay
                        .first_answer("completion/complete", message, "completions")
                        .await;
                });
            }
            None => {
                self.refuse(
                    &message.id,
                    message::INVALID_PARAMS,
                    "no server of this gateway offers the prompt to complete; list the prompts again",
                )
                .await;
            }
        }
    }

    /// `logging/setLevel`: kept for servers that join later, and told to every server that
    /// logs.
    async fn set_level(&self, message: Message) {
        let gateway = self.gateway();
        let params = message::params(&message.text);
        gateway.state().level = params.get("level").cloned();
        let servers: Vec<usize> = (0..self.count())
            .filter(|index| self.ready(*index) && self.has(*index, "logging"))
            .filter(|index| !self.0.member(*index).is_stateless())
            .collect();
        join_all(servers.iter().map(|index| {
            let params = params.clone();
            async move {
                if let Err(refusal) = self.ask(*index, "logging/setLevel", params).await {
                    let server = self.0.member(*index);
                    tracing::warn!(server = %server.name, "the MCP server refused logging/setLevel: {}", refusal.describe());
                }
            }
        }))
        .await;
        self.answer(&message.id, &json!({})).await;
    }

    /// A request for a resource (or template) no listing placed: each server that declared
    /// `capability` is asked in turn, and the first result answers (else the first server's
    /// error).
    async fn first_answer(&self, method: &str, message: Message, capability: &str) {
        let gateway = self.gateway();
        let params = message::params(&message.text);
        let mut first_error = None;
        for index in 0..self.count() {
            if !self.ready(index) || !self.has(index, capability) {
                continue;
            }
            match self.ask_within(index, method, params.clone(), None).await {
                Ok(result) => {
                    // Only a read shows a server has the resource: many accept any
                    // subscription.
                    if method == "resources/read"
                        && let Some(uri) = params.get("uri").and_then(Value::as_str)
                    {
                        gateway.state().uris.entry(uri.to_owned()).or_insert(index);
                    }
                    return self.answer(&message.id, &result).await;
                }
                Err(refusal) => {
                    first_error.get_or_insert(refusal);
                }
            }
        }
        let text = match first_error {
            Some(Refusal::Error(error)) => {
                let text = message::error_object_response(&message.id, &error);
                return self.0.send_client(text).await;
            }
            Some(other) => format!("no server of this gateway answered: {}", other.describe()),
            None => format!("no server of this gateway declares {capability}"),
        };
        self.refuse(&message.id, message::INVALID_PARAMS, &text)
            .await;
    }

    /// One page of a list gathered server by server (resources, resource templates, tasks):
    /// the client's cursor names the server and that server's own cursor.
    async fn page(&self, method: &str, message: Message) {
        let capability = if method == "tasks/list" {
            "tasks"
        } else {
            "resources"
        };
        let lists = |index: &usize| self.ready(*index) && self.has(*index, capability);
        let mut params = message::params(&message.text);
        let (mut index, mut cursor) = match params.get("cursor") {
            None | Some(Value::Null) => match (0..self.count()).find(lists) {
                Some(first) => (first, Value::Null),
                None => {
                    let field = list_field(method);
                    return self.answer(&message.id, &json!({ field: [] })).await;
                }
            },
            Some(Value::String(text)) => match decode_cursor(text)
                .and_then(|(server, cursor)| Some((self.server_index(&server)?, cursor)))
            {
                Some(found) => found,
                None => {
                    return self
                        .refuse(
                            &message.id,
                            message::INVALID_PARAMS,
                            "the cursor is not one this gateway gave; list from the start",
                        )
                        .await;
                }
            },
            Some(_) => {
                return self
                    .refuse(
                        &message.id,
                        message::INVALID_PARAMS,
                        "the cursor must be a string",
                    )
                    .await;
            }
        };
        loop {
            if let Some(params) = params.as_object_mut() {
                match &cursor {
                    Value::Null => params.remove("cursor"),
                    cursor => params.insert("cursor".to_owned(), cursor.clone()),
                };
            }
            let params = if params.is_object() {
                params.clone()
            } else {
                json!({})
            };
            let after = |index: usize| (index + 1..self.count()).find(lists);
            match self.ask_within(index, method, params, None).await {
                Ok(mut result) => {
                    self.record_owners(index, method, &result);
                    let next = match result.get("nextCursor") {
                        Some(next) if !next.is_null() => {
                            Some(encode_cursor(&self.0.member(index).name, next))
                        }
                        _ => after(index)
                            .map(|next| encode_cursor(&self.0.member(next).name, &Value::Null)),
                    };
                    if let Some(result) = result.as_object_mut() {
                        match next {
                            Some(next) => result.insert("nextCursor".to_owned(), next.into()),
                            None => result.remove("nextCursor"),
                        };
                    }
                    return self.answer(&message.id, &result).await;
                }
                Err(refusal) => {
                    let server = self.0.member(index);
                    tracing::warn!(server = %server.name, "the MCP server did not answer {method}: {}", refusal.describe());
                    match after(index) {
                        Some(next) => {
                            index = next;
                            cursor = Value::Null;
                        }
                        None => {
                            let field = list_field(method);
                            return self.answer(&message.id, &json!({ field: [] })).await;
                        }
                    }
                }
            }
        }
    }

    /// Notes which server listed each resource URI or template, the first keeping it.
    fn record_owners(&self, index: usize, method: &str, result: &Value) {
        let gateway = self.gateway();
        let mut state = gateway.state();
        match method {
            "resources/list" => {
                for uri in strings_of(result, "resources", "uri") {
                    let owner = *state.uris.entry(uri.to_owned()).or_insert(index);
                    if owner != index {
                        tracing::warn!(uri, first = %self.0.member(owner).name, also = %self.0.member(index).name, "two servers list the same resource URI; it is read from the first configured");
                    }
                }
            }
            "resources/templates/list" => {
                for template in strings_of(result, "resourceTemplates", "uriTemplate") {
                    if !state.templates.iter().any(|known| known.text == template) {
                        state.templates.push(Template {
                            text: template.to_owned(),
                            owner: index,
                            pattern: template_pattern(template),
                        });
                    }
                }
            }
            "tasks/list" => {
                let mut tasks = lock(&self.0.tasks);
                for task in strings_of(result, "tasks", "taskId") {
                    tasks.entry(task.to_owned()).or_insert((index, None));
                }
            }
            _ => {}
        }
    }

    /// One message from server `index` of a gateway that is not the answer to a request (the
    /// core takes those, [`Relay::server_message`]).
    pub(super) async fn gateway_server_message(&self, index: usize, message: Message) {
        let gateway = self.gateway();
        match &message.kind {
            Kind::Response { id: Some(_), .. } => {
                tracing::warn!(server = %self.0.member(index).name, "the server answered a request nobody asked it");
            }
            Kind::Response { id: None, .. } => {
                tracing::warn!(server = %self.0.member(index).name, "the server could not read a message the gateway sent it");
            }
            Kind::Request { .. } if self.stateless_client() => {
                self.modern_server_request(index, message).await;
            }
            Kind::Request { .. } => {
                // A server's request to the client gets an id, and a progress token, no other
                // server's can have.
                let (proxied, raw) = gateway.next_id();
                let Ok(mut value) = serde_json::from_str::<Value>(&message.text) else {
                    return;
                };
                let token = value
                    .get_mut("params")
                    .and_then(|params| params.get_mut("_meta"))
                    .and_then(|meta| meta.get_mut("progressToken"));
                let token = match token {
                    Some(token) if !token.is_null() => {
                        let (ours, ours_raw) = gateway.next_id();
                        let theirs = std::mem::replace(token, ours_raw);
                        gateway.progress().insert(ours.clone(), (index, theirs));
                        Some(ours)
                    }
                    _ => None,
                };
                let forwarded = Forwarded {
                    server: index,
                    id: message.id.clone(),
                    token,
                };
                gateway.forwarded().insert(proxied, forwarded);
                value["id"] = raw;
                self.0.send_client(value.to_string()).await;
            }
            Kind::Notification { method } => {
                let text = match method.as_str() {
                    // The acknowledgment of the gateway's own subscription ([`Relay::listen_to`]).
                    "notifications/subscriptions/acknowledged" => return,
                    "notifications/message" => tagged_log(message.text, &self.0.member(index).name),
                    "notifications/cancelled" => {
                        let params = message::params(&message.text);
                        let Some(cancelled) = params.get("requestId") else {
                            return;
                        };
                        // The client will not answer a cancelled request: forget it.
                        let proxied = {
                            let mut forwarded = gateway.forwarded();
                            let proxied = forwarded
                                .iter()
                                .find(|(_, it)| it.server == index && &it.id == cancelled)
                                .map(|(proxied, _)| proxied.clone());
                            if let Some(token) = proxied
                                .as_ref()
                                .and_then(|proxied| forwarded.remove(proxied))
                                .and_then(|it| it.token)
                            {
                                gateway.progress().remove(&token);
                            }
                            proxied
                        };
                        let Some(proxied) = proxied else {
                            return;
                        };
                        let Ok(mut value) = serde_json::from_str::<Value>(&message.text) else {
                            return;
                        };
                        value["params"]["requestId"] = proxied.value();
                        value.to_string()
                    }
                    "notifications/tools/list_changed"
                    | "notifications/prompts/list_changed"
                    | "notifications/resources/list_changed"
                        if !self.ready(index) =>
                    {
                        return;
                    }
                    "notifications/tools/list_changed"
                    | "notifications/prompts/list_changed"
                    | "notifications/resources/list_changed"
                    | "notifications/resources/updated"
                        if self.stateless_client() =>
                    {
                        let params = message::params(&message.text);
                        return self.tell_subscriptions(method, &params).await;
                    }
                    _ => message.text,
                };
                self.0.send_client(text).await;
            }
        }
    }
}

/// Whether a server's `error` answer to `initialize` is one a server of the stateless revision
/// only gives (it has no such method, or does not speak the session revisions the client
/// asked for): such a server is then asked `server/discover`. Any other refusal (an internal
/// error, an authorization failure) is the server's answer.
fn refuses_sessions(error: &Value) -> bool {
    matches!(
        error.get("code").and_then(Value::as_i64),
        Some(METHOD_NOT_FOUND | message::INVALID_PARAMS | revision::UNSUPPORTED_PROTOCOL_VERSION)
    )
}

/// The string `field` of each item of the list `list` of a result (`uri` of `resources`).
fn strings_of<'a>(result: &'a Value, list: &str, field: &'a str) -> impl Iterator<Item = &'a str> {
    result
        .get(list)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(move |item| item.get(field)?.as_str())
}

/// A request's text with `params.name` set to `name` (the name at the server a call or prompt
/// is routed to); text that does not parse passes unchanged.
pub(super) fn renamed(text: String, name: &str) -> String {
    let Ok(mut value) = serde_json::from_str::<Value>(&text) else {
        return text;
    };
    match value.get_mut("params").and_then(Value::as_object_mut) {
        Some(params) => {
            params.insert("name".to_owned(), Value::String(name.to_owned()));
            value.to_string()
        }
        None => text,
    }
}

/// A log notification saying which server logged it: its `logger` is the server's name, or
/// `<server>/<logger>` when the server named one.
fn tagged_log(text: String, server: &str) -> String {
    let Ok(mut value) = serde_json::from_str::<Value>(&text) else {
        return text;
    };
    let Some(params) = value.get_mut("params").and_then(Value::as_object_mut) else {
        return text;
    };
    let logger = match params.get("logger").and_then(Value::as_str) {
        Some(logger) => format!("{server}/{logger}"),
        None => server.to_owned(),
    };
    params.insert("logger".to_owned(), Value::String(logger));
    value.to_string()
}

/// Adds `theirs` to `ours`: objects merged key by key, `true` winning over `false`, and
/// otherwise the first value kept.
fn union(ours: &mut Value, theirs: &Value) {
    match (ours, theirs) {
        (Value::Object(ours), Value::Object(theirs)) => {
            for (key, value) in theirs {
                match ours.get_mut(key) {
                    Some(existing) => union(existing, value),
                    None => {
                        ours.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (ours @ Value::Bool(false), Value::Bool(true)) => *ours = Value::Bool(true),
        _ => {}
    }
}

/// The field a paged list's items are in.
fn list_field(method: &str) -> &'static str {
    match method {
        "resources/templates/list" => "resourceTemplates",
        "tasks/list" => "tasks",
        _ => "resources",
    }
}

/// The cursor the client gets: the server's name and that server's cursor (`null` for its
/// first page), as JSON text.
fn encode_cursor(server: &str, cursor: &Value) -> String {
    json!([server, cursor]).to_string()
}

fn decode_cursor(text: &str) -> Option<(String, Value)> {
    let Value::Array(parts) = serde_json::from_str::<Value>(text).ok()? else {
        return None;
    };
    match parts.as_slice() {
        [Value::String(server), cursor] => Some((server.clone(), cursor.clone())),
        _ => None,
    }
}

/// The regular expression of the URIs the RFC 6570 `template` makes: its literal parts in
/// order, each `{…}` expression standing for any text (without `/` for a simple `{name}`).
/// `None` for a template that does not close its braces. A regular expression matches in time
/// linear in the URI, whatever the template.
pub(crate) fn template_pattern(template: &str) -> Option<regex::Regex> {
    let mut pattern = String::from("^");
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        pattern.push_str(&regex::escape(&rest[..open]));
        let close = rest[open..].find('}')?;
        let expression = &rest[open + 1..open + close];
        let slashes = expression.starts_with(['+', '#', '/', '.', ';', '?', '&']);
        pattern.push_str(if slashes { ".*" } else { "[^/]*" });
        rest = &rest[open + close + 1..];
    }
    pattern.push_str(&regex::escape(rest));
    pattern.push('$');
    regex::Regex::new(&pattern).ok()
}

#[cfg(test)]
mod tests;

/// How long a gateway waits before restarting a failed server the `failures`-th time in a row:
/// 1 s, doubling, at most a minute.
pub(crate) fn backoff(failures: u32) -> Duration {
    Duration::from_secs(1u64 << failures.min(6)).min(Duration::from_secs(60))
}
