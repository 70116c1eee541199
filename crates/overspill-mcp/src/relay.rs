//! The relay core: one client session's messages in both directions, as JSON text.
//!
//! Every message is forwarded as the text it arrived as, except the few the scratchpad
//! changes (docs/mcp-proxy.md, "What is forwarded"): the server's `initialize` and
//! `server/discover` results, `tools/list` results, calls of the exploration tools (answered
//! here), calls with `overspill://` references (resolved before forwarding), and final tool
//! results (intercepted). The core knows no transport: it reads messages handed to it and
//! writes to channels, so stdio and Streamable HTTP drive the same code.
//!
//! A session has one or more upstream servers. One server fronted as itself sees the client's
//! messages as they were sent; several (a gateway, [`gateway`]) are routed to by name, URI and
//! request id, with their lists merged. The core asks the [`router`] where a message goes, and
//! nothing else tells one server from many; [`crate::revision`] holds every rule in which the
//! protocol's revisions differ.

mod gateway;
mod router;

pub(crate) use gateway::backoff;
use router::Router;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::sync::{Semaphore, mpsc};

use crate::edits;
use crate::error::ProxyError;
use crate::message::{self, Id, Kind, Message, Salvaged};
use crate::metrics::{self, Answer, Metrics};
use crate::names::ToolNames;
use crate::namespace::Namespace;
use crate::revision::{self, Revision};
use crate::scratch::Scratch;
use crate::sync::lock;

/// Scratchpad work (exploration calls, interceptions, reference resolution) running at once
/// per session; more waits its turn, so a burst of calls cannot exhaust the blocking pool.
const CONCURRENT_JOBS: usize = 8;

/// The largest answer read for a task handle (`{"task": {...}}` is small; a larger answer to
/// a call that asked for a task is its result).
const TASK_HANDLE_BYTES: usize = 64 * 1024;

/// What the relay needs to know about its session.
pub(crate) struct Settings {
    /// The upstream servers, in their configured order.
    pub(crate) servers: Vec<ServerSettings>,
    /// How long a server may take to answer `initialize`.
    pub(crate) init_timeout: Duration,
    /// How long a gateway waits for its servers before it answers the client's `initialize`.
    pub(crate) answer_within: Duration,
    /// `Some` for a gateway: how its servers' tools and prompts are named.
    pub(crate) namespace: Option<Namespace>,
    /// Where the session counts what it does.
    pub(crate) metrics: Option<Metrics>,
    /// Keep a ledger of the client's requests, for a transport that reports each one when it
    /// is answered ([`Relay::answered_client`]): `--listen`.
    pub(crate) ledger: bool,
}

/// What the relay knows of one upstream server.
pub(crate) struct ServerSettings {
    /// The server's name, which selects its interception rules.
    pub(crate) name: String,
    /// How messages to the client name the server (its command line or URL).
    pub(crate) label: String,
    /// Where the server's own diagnostics went, for error messages.
    pub(crate) diagnostics: String,
    /// Why its entry cannot be started from, for a server that never starts.
    pub(crate) invalid: Option<String>,
}

/// The channels the relay writes to.
pub(crate) struct Ports {
    pub(crate) to_client: mpsc::Sender<String>,
    /// One per server, in the order of [`Settings::servers`].
    pub(crate) servers: Vec<ServerPorts>,
}

/// The relay's end of one server's queues: what it sends the server, and where it reports a
/// reason to stop the server's transport.
pub(crate) struct ServerPorts {
    pub(crate) to_server: mpsc::Sender<String>,
    pub(crate) stop: mpsc::UnboundedSender<ProxyError>,
}

impl ServerPorts {
    /// A server's queues: the relay's end and the transport's.
    pub(crate) fn pair() -> (ServerPorts, UpstreamPorts) {
        let (to_server, queue) = mpsc::channel(QUEUE);
        let (stop, stopped) = mpsc::unbounded_channel();
        (
            ServerPorts { to_server, stop },
            UpstreamPorts { queue, stopped },
        )
    }
}

/// Messages queued towards one side before the other side's reader waits (back-pressure).
pub(crate) const QUEUE: usize = 256;

/// How long answers already under way may take to reach the client once the session ends.
pub(crate) const DRAIN: Duration = Duration::from_secs(2);

/// The upstream's end of the queues the relay writes to, and where it reports a reason to
/// stop the session.
pub(crate) struct UpstreamPorts {
    pub(crate) queue: mpsc::Receiver<String>,
    pub(crate) stopped: mpsc::UnboundedReceiver<ProxyError>,
}

/// One server's side of the relay, as its transport holds it: what the server says and when
/// it is gone reach the relay tagged with the server.
#[derive(Clone)]
pub(crate) struct ServerEnd {
    relay: Relay,
    index: usize,
}

impl ServerEnd {
    /// One line from the server.
    pub(crate) async fn says(&self, text: String) {
        self.relay.server_says(self.index, text).await;
    }

    /// A line from the server the transport could not read as text.
    pub(crate) async fn unreadable(&self, why: Unreadable) {
        self.relay.server_unreadable(self.index, why).await;
    }

    /// The server is gone (`why` says how).
    pub(crate) async fn gone(&self, why: &str) {
        self.relay.server_gone(self.index, why).await;
    }

    /// A gateway's server whose entry cannot be started from: the client and the proxy's
    /// stderr are told why, once. What the proxy's stderr was told, for the server's log.
    pub(crate) async fn never_starts(&self) -> String {
        self.relay.never_starts(self.index).await
    }

    /// Where the session counts what it does.
    pub(crate) fn metrics(&self) -> Option<Metrics> {
        self.relay.0.metrics.clone()
    }

    /// The input schema of the server's tool `tool` (its name at the server), as the server
    /// listed it; `None` before it was listed.
    pub(crate) fn input_schema(&self, tool: &str) -> Option<Arc<Value>> {
        let offered = self
            .relay
            .0
            .router
            .offered_tool(&self.server_name(), tool)?;
        self.relay.0.schema(&offered)
    }

    /// The server's configured name.
    pub(crate) fn server_name(&self) -> String {
        self.relay.0.member(self.index).name.clone()
    }
}

/// One upstream server as the relay holds it: what names it, its queues, and (in a gateway)
/// where it stands in the session.
struct Member {
    name: String,
    label: String,
    diagnostics: String,
    ports: RwLock<ServerPorts>,
    /// Where it stands; changed under this one lock, so that a late answer of an earlier run
    /// cannot mark a later run ready, or stop it.
    phase: Mutex<Phase>,
    /// A reload removed it (or replaced it with a new member of the same name).
    retired: AtomicBool,
    /// The reload that retired it started a changed entry of the same name in its place.
    replaced: AtomicBool,
    /// Its last `initialize` result (its capabilities, its instructions), once it answered one
    /// (a server of the stateless revision: its `server/discover` result).
    initialized_with: Mutex<Option<Value>>,
    /// For a gateway's server that speaks only the stateless revision (it refused
    /// `initialize` and answered `server/discover`): the envelope each request it is sent
    /// carries in its `_meta`. `None` for a server of a session.
    envelope: Mutex<Option<Arc<Map<String, Value>>>>,
    /// What keeps it from answering, once something has.
    trouble: Mutex<Option<Trouble>>,
}

/// What keeps a gateway's server from answering, for what the client is told of it
/// (docs/mcp-proxy.md#when-a-server-fails).
#[derive(Debug, Clone)]
enum Trouble {
    /// Its last run ended so (`exited (exit status: 3)`, `cannot start the upstream server …`);
    /// it is restarted.
    Failed(String),
    /// Its entry cannot be started from (why); it never starts.
    Invalid(String),
}

/// A server's place in the session.
#[derive(Debug, Clone, Copy)]
struct Phase {
    /// Which run of its transport this is: each start counts one up.
    run: u64,
    /// Its transport runs (or is about to).
    alive: bool,
    /// It has answered `initialize` in this run: requests may go to it.
    ready: bool,
}

impl Member {
    fn new(settings: ServerSettings, ports: ServerPorts) -> Member {
        Member {
            name: settings.name,
            label: settings.label,
            diagnostics: settings.diagnostics,
            ports: RwLock::new(ports),
            phase: Mutex::new(Phase {
                run: 0,
                // One that never starts is never asked anything.
                alive: settings.invalid.is_none(),
                ready: false,
            }),
            retired: AtomicBool::new(false),
            replaced: AtomicBool::new(false),
            initialized_with: Mutex::new(None),
            envelope: Mutex::new(None),
            trouble: Mutex::new(settings.invalid.map(Trouble::Invalid)),
        }
    }

    /// What keeps it from answering, if anything has.
    fn trouble(&self) -> Option<Trouble> {
        lock(&self.trouble).clone()
    }

    /// Its run ended so (`why`).
    fn failed(&self, why: &str) {
        *lock(&self.trouble) = Some(Trouble::Failed(why.to_owned()));
    }

    fn phase(&self) -> std::sync::MutexGuard<'_, Phase> {
        lock(&self.phase)
    }

    /// The run its transport is in.
    fn run(&self) -> u64 {
        self.phase().run
    }

    /// Whether requests may go to it: it joined in this run and was not removed.
    fn is_ready(&self) -> bool {
        self.phase().ready && !self.retired.load(Ordering::SeqCst)
    }

    /// Whether its transport runs (and it was not removed).
    fn is_alive(&self) -> bool {
        self.phase().alive && !self.retired.load(Ordering::SeqCst)
    }

    /// Marks it joined, if it is still in `run` and running. Whether it was.
    fn joined(&self, run: u64) -> bool {
        let mut phase = self.phase();
        if phase.run == run && phase.alive {
            phase.ready = true;
            return true;
        }
        false
    }

    /// Marks it gone; whether it was alive, and whether it had joined.
    fn went(&self) -> (bool, bool) {
        let mut phase = self.phase();
        let was = (phase.alive, phase.ready);
        phase.alive = false;
        phase.ready = false;
        was
    }

    /// Tells its transport to stop, with why.
    fn stop(&self, error: ProxyError) {
        let _ = self
            .ports
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .stop
            .send(error);
    }

    /// The envelope its requests carry, when it speaks only the stateless revision.
    fn envelope(&self) -> Option<Arc<Map<String, Value>>> {
        lock(&self.envelope).clone()
    }

    /// Whether it speaks only the stateless revision (2026-07-28).
    fn is_stateless(&self) -> bool {
        lock(&self.envelope).is_some()
    }

    /// Whether it has never answered `initialize`.
    fn never_initialized(&self) -> bool {
        lock(&self.initialized_with).is_none()
    }

    /// Stands in for an index no member has (none is handed out, but nothing may panic).
    fn missing(index: usize) -> Member {
        let (ports, _) = ServerPorts::pair();
        let member = Member::new(
            ServerSettings {
                name: format!("#{index}"),
                label: format!("#{index}"),
                diagnostics: "nowhere".to_owned(),
                invalid: None,
            },
            ports,
        );
        member.went();
        member.retired.store(true, Ordering::SeqCst);
        member
    }
}

/// One client session's relay. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Relay(Arc<Shared>);

struct Shared {
    scratch: Arc<dyn Scratch>,
    init_timeout: Duration,
    answer_within: Duration,
    /// The exploration tools as the client sees them; renamed when a server's tool takes
    /// one of their names.
    exploration: RwLock<Arc<Exploration>>,
    to_client: mpsc::Sender<String>,
    /// The upstream servers, in their configured order; a reload retires members and adds new
    /// ones at the end, so an index always names the same member.
    servers: RwLock<Vec<Arc<Member>>>,
    /// Where messages go: the one server, or several behind a gateway.
    router: Router,
    /// The client's requests that went upstream and await their response.
    outstanding: Mutex<HashMap<Id, Waiting>>,
    /// The one task table: task id → the server that holds it and, for a task a call
    /// created, the tool called (its `tasks/result` is decided as that tool's result). A
    /// gateway routes a task's requests by it; a task a gateway only saw listed has no tool.
    tasks: Mutex<HashMap<String, (usize, Option<String>)>>,
    /// The upstream tools' input schemas, for inserting references as each tool declares.
    schemas: RwLock<HashMap<String, Arc<Value>>>,
    jobs: Arc<Semaphore>,
    busy: Arc<AtomicUsize>,
    metrics: Option<Metrics>,
    /// The client's requests not answered yet, when the transport reports answers.
    ledger: Option<Mutex<HashMap<Id, Entry>>>,
}

/// A client request in the ledger: what it asked, of which server, since when.
struct Entry {
    method: &'static str,
    started: Instant,
    /// The server it went to, once it went to one.
    server: Option<usize>,
    /// For `tools/call`: the tool, as the client named it.
    tool: Option<String>,
}

/// A client request answered: for the transport's log line and metrics. Never the request's
/// arguments or result.
#[derive(Debug)]
pub(crate) struct Answered {
    /// The method, as a bounded label (`other` for a method not in the MCP list).
    pub(crate) method: &'static str,
    /// The server that answered it, if one did (an exploration call is answered here).
    pub(crate) server: Option<String>,
    /// For `tools/call`: the tool, as the client named it.
    pub(crate) tool: Option<String>,
    /// From the request's arrival to its answer.
    pub(crate) took: Duration,
    /// A result or an error.
    pub(crate) answer: Answer,
}

/// The exploration tools under the names the client sees.
struct Exploration {
    names: ToolNames,
    /// Their MCP definitions, named so.
    definitions: Vec<Value>,
}

impl Exploration {
    /// `scratch`'s exploration tools behind `prefix`.
    fn new(scratch: &dyn Scratch, prefix: &str) -> Result<Exploration, ProxyError> {
        let definitions = scratch.tool_definitions();
        let local = definitions
            .iter()
            .filter_map(|definition| definition.get("name")?.as_str().map(str::to_owned));
        let names = ToolNames::new(Some(prefix), local)?;
        let definitions = definitions
            .into_iter()
            .map(|mut definition| {
                if let Some(name) = definition.get("name").and_then(Value::as_str) {
                    definition["name"] = Value::String(names.exposed(name));
                }
                definition
            })
            .collect();
        Ok(Exploration { names, definitions })
    }
}

/// A client request that went to a server: its id as written, what to do with the answer,
/// and the server that owes it.
struct Waiting {
    raw: Value,
    pending: Pending,
    server: usize,
    /// When it was forwarded.
    sent: Instant,
}

/// A server's answer to a client request, on its way to the client: from server `index`, to
/// the request the relay knows as `id`, handled as `pending` says.
#[derive(Debug)]
struct Reply {
    index: usize,
    id: Id,
    pending: Pending,
    message: Message,
}

/// What to do with the response to a client request.
#[derive(Debug, Clone, PartialEq)]
enum Pending {
    Forward,
    /// The client cancelled it: a late answer is dropped (the client expects none, and a
    /// large result must not reach it uninspected), and a gone server owes it nothing.
    Cancelled,
    Initialize,
    Discover,
    ToolsList {
        first_page: bool,
    },
    /// A call of `tool` (its name at the server); `task`: the client asked for it to run as a
    /// task, so its answer may be a task handle.
    ToolCall {
        tool: String,
        task: bool,
    },
    TaskResult {
        task: String,
    },
}

/// Counts scratchpad work in progress until dropped, so a stopping proxy lets answers out.
struct Busy(Arc<AtomicUsize>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Relay {
    /// A relay for one session over `scratch`.
    ///
    /// # Errors
    ///
    /// [`ProxyError::InvalidPrefix`] when the scratchpad's tool prefix would not make valid
    /// MCP tool names.
    pub(crate) fn new(
        scratch: Arc<dyn Scratch>,
        settings: Settings,
        ports: Ports,
    ) -> Result<Relay, ProxyError> {
        let exploration = Exploration::new(&*scratch, &scratch.tool_prefix())?;
        let servers: Vec<Arc<Member>> = settings
            .servers
            .into_iter()
            .zip(ports.servers)
            .map(|(server, ports)| Arc::new(Member::new(server, ports)))
            .collect();
        Ok(Relay(Arc::new(Shared {
            scratch,
            init_timeout: settings.init_timeout,
            answer_within: settings.answer_within,
            exploration: RwLock::new(Arc::new(exploration)),
            to_client: ports.to_client,
            servers: RwLock::new(servers),
            router: Router::new(settings.namespace),
            outstanding: Mutex::new(HashMap::new()),
            tasks: Mutex::new(HashMap::new()),
            schemas: RwLock::new(HashMap::new()),
            jobs: Arc::new(Semaphore::new(CONCURRENT_JOBS)),
            busy: Arc::new(AtomicUsize::new(0)),
            metrics: settings.metrics,
            ledger: settings.ledger.then(|| Mutex::new(HashMap::new())),
        })))
    }

    /// The input schema of the tool offered as `offered`, once the tools were listed.
    pub(crate) fn tool_schema(&self, offered: &str) -> Option<Arc<Value>> {
        self.0.schema(offered)
    }

    /// Logs the session's usage event, once it is over (target `overspill::usage`, one line:
    /// what was stored and explored, in tokens; docs/mcp-proxy.md#logs). `session` names it.
    pub(crate) fn log_usage(&self, session: &str) {
        if let Some(usage) = self.0.scratch.finish() {
            tracing::info!(
                target: "overspill::usage",
                session,
                agent = %usage.agent_id,
                tokens_intercepted = usage.tokens_intercepted,
                tokens_extracted = usage.tokens_extracted,
                "usage"
            );
        }
    }

    /// Waits until no scratchpad work is under way, for at most [`DRAIN`].
    pub(crate) async fn drain(&self) {
        let deadline = tokio::time::Instant::now() + DRAIN;
        while self.busy() > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Scratchpad work in progress.
    pub(crate) fn busy(&self) -> usize {
        self.0.busy.load(Ordering::SeqCst)
    }

    /// Whether the session has work under way: a client request waiting for the server's
    /// answer (one the client cancelled does not count), or scratchpad work.
    pub(crate) fn in_flight(&self) -> bool {
        self.busy() > 0
            || lock(&self.0.outstanding)
                .values()
                .any(|waiting| waiting.pending != Pending::Cancelled)
    }

    /// The session has ended: the client requests it never answered leave the ledger, each
    /// counted as unanswered.
    pub(crate) fn unanswered(&self) {
        let Some(mut ledger) = self.0.ledger() else {
            return;
        };
        let left: Vec<Entry> = ledger.drain().map(|(_, entry)| entry).collect();
        drop(ledger);
        if let Some(metrics) = &self.0.metrics {
            for entry in left {
                metrics.request(entry.method, Answer::Unanswered, entry.started.elapsed());
            }
        }
    }

    /// The client request `id` has just been answered (the transport saw its response go
    /// out): what it was, for the transport's log line, counted in the metrics. `None` for a
    /// request the ledger does not hold (none is kept, or it was answered already).
    pub(crate) fn answered_client(&self, id: &Id, error: bool) -> Option<Answered> {
        let entry = self.0.ledger()?.remove(id)?;
        let took = entry.started.elapsed();
        let answer = if error { Answer::Error } else { Answer::Result };
        if let Some(metrics) = &self.0.metrics {
            metrics.request(entry.method, answer, took);
        }
        Some(Answered {
            method: entry.method,
            server: entry.server.map(|index| self.0.member(index).name.clone()),
            tool: entry.tool,
            took,
            answer,
        })
    }

    /// `index`'s side of the relay, for the transport that speaks to that server.
    pub(crate) fn server_end(&self, index: usize) -> ServerEnd {
        ServerEnd {
            relay: self.clone(),
            index,
        }
    }

    /// New queues to server `index` (its transport starts again): the relay's end replaces the
    /// old one, the transport's is returned with the number of the run it starts.
    pub(crate) fn reconnect(&self, index: usize) -> Option<(UpstreamPorts, u64)> {
        let member = self.0.server(index)?;
        let (ours, theirs) = ServerPorts::pair();
        let mut phase = member.phase();
        *member.ports.write().unwrap_or_else(PoisonError::into_inner) = ours;
        phase.run += 1;
        phase.alive = true;
        phase.ready = false;
        Some((theirs, phase.run))
    }

    /// One line from the client.
    pub(crate) async fn client_says(&self, text: String) {
        for item in message::parse(text) {
            match item {
                Ok(message) => self.client_message(message).await,
                Err(invalid) => self.0.send_client(invalid.response()).await,
            }
        }
    }

    /// Messages from the client that its transport has already parsed (`--listen` reads a
    /// POST body's messages to route their answers), in the order they came.
    pub(crate) async fn client_sent(&self, messages: Vec<Message>) {
        for message in messages {
            self.client_message(message).await;
        }
    }

    /// One line from server `index`.
    async fn server_says(&self, index: usize, text: String) {
        for item in message::parse(text) {
            match item {
                Ok(message) => self.server_message(index, message).await,
                Err(invalid) => {
                    self.0.send_server(index, invalid.response()).await;
                }
            }
        }
    }

    /// A line from the client the transport could not read as text.
    pub(crate) async fn client_unreadable(&self, why: Unreadable) {
        // A request whose id could be read gets its answer; otherwise JSON-RPC's null id.
        let id = why.salvaged.id.clone().filter(|_| !why.salvaged.response);
        self.0
            .send_client(why.response(&id.unwrap_or(Value::Null)))
            .await;
    }

    /// A line from the server the transport could not read as text. When it answered one of
    /// the client's requests (its id read from what could be read of it), that request gets
    /// an error saying so instead of waiting forever; a request of the server's own gets an
    /// error back.
    async fn server_unreadable(&self, index: usize, why: Unreadable) {
        let shared = &self.0;
        let id = why.salvaged.id.clone();
        if why.salvaged.response
            && let Some(raw) = id.as_ref()
            && let Some(key) = Id::of(raw)
        {
            if shared
                .router
                .own_request_unreadable(index, &key, &why.what())
            {
                return;
            }
            let Some(pending) = shared.take_answered(index, &key) else {
                return tracing::warn!(problem = %why.what(), "the server answered an unknown request unreadably");
            };
            tracing::warn!(problem = %why.what(), "the server's answer to a client request was unreadable");
            if pending == Pending::Cancelled {
                return;
            }
            let server = shared.member(index);
            let text = format!(
                "the MCP server {} answered this request with {}; its diagnostics are in {}",
                server.label,
                why.what(),
                server.diagnostics
            );
            return shared
                .send_client(message::error_response(raw, message::INTERNAL_ERROR, &text))
                .await;
        }
        tracing::warn!(problem = %why.what(), "the server sent a message the proxy could not read");
        let id = id.filter(|_| !why.salvaged.response).unwrap_or(Value::Null);
        shared.send_server(index, why.response(&id)).await;
    }

    /// Server `index` is gone (`why` says how): every request still waiting for it is
    /// answered with an error, so no client call hangs; a gateway withdraws its tools.
    async fn server_gone(&self, index: usize, why: &str) {
        let was = self.0.router.went(&self.0.member(index));
        let waiting: Vec<Waiting> = {
            let mut outstanding = lock(&self.0.outstanding);
            outstanding
                .extract_if(|_, waiting| waiting.server == index)
                .map(|(_, waiting)| waiting)
                .collect()
        };
        let server = self.0.member(index);
        let message = format!(
            "the MCP server {} {why}, so this request has no answer; its diagnostics are in {}",
            server.label, server.diagnostics
        );
        for waiting in waiting {
            if waiting.pending == Pending::Cancelled {
                continue;
            }
            self.0
                .send_client(message::error_response(
                    &waiting.raw,
                    message::CONNECTION_CLOSED,
                    &message,
                ))
                .await;
        }
        self.after_gone(index, why, was).await;
    }

    /// Sends a client request to server `index`, its answer awaited as `pending` says. A
    /// gateway's server that has not joined, or whose transport is gone, will not answer: the
    /// client hears why at once. Whether it was sent.
    async fn dispatch(
        &self,
        index: usize,
        id: &Id,
        raw: &Value,
        pending: Pending,
        text: String,
    ) -> bool {
        let shared = &self.0;
        // Recorded before it is checked: a server that goes from now on answers it in
        // `server_gone`.
        shared.expect(id, raw, pending, index);
        if shared.router.takes_requests(&shared.member(index))
            && shared.send_server(index, text).await
        {
            return true;
        }
        if shared.forget_unsent(index, id).is_some() {
            let text = self.unsent(index);
            shared
                .send_client(message::error_response(
                    raw,
                    message::CONNECTION_CLOSED,
                    &text,
                ))
                .await;
        }
        false
    }

    async fn client_message(&self, message: Message) {
        if let Kind::Request { id, method } = &message.kind
            && let Some(mut ledger) = self.0.ledger()
        {
            let entry = Entry {
                method: metrics::method_label(method),
                started: Instant::now(),
                server: None,
                tool: None,
            };
            ledger.insert(id.clone(), entry);
        }
        if message.revision.is_some_and(Revision::is_stateless) {
            match &message.kind {
                Kind::Request { method, .. } if revision::removed_in_stateless(method) => {
                    let text = format!(
                        "`{method}` is not part of MCP {}: a request names its revision in its \
                         _meta, and the server's capabilities come from server/discover",
                        Revision::R2026_07_28.as_str()
                    );
                    let answer =
                        message::error_response(&message.id, message::METHOD_NOT_FOUND, &text);
                    return self.0.send_client(answer).await;
                }
                Kind::Notification { method } if revision::removed_in_stateless(method) => return,
                _ => {}
            }
        }
        if let Kind::Notification { method } = &message.kind
            && method == "notifications/cancelled"
        {
            return self.client_cancelled(message).await;
        }
        self.route_client(message).await;
    }

    /// The client cancelled one of its requests: a subscription it opened ends; a request
    /// waiting for a server is marked, so that its late answer is dropped, and the server that
    /// owes it is told. The one server fronted as itself hears every cancellation the client
    /// sends, as it would directly.
    async fn client_cancelled(&self, message: Message) {
        let shared = &self.0;
        let owner = match message::cancelled_request(&message.text) {
            Some(id) if self.ends_subscription(&id) => return,
            Some(id) => shared.owner(&id).inspect(|_| shared.cancel(&id)),
            None => None,
        };
        if let Some(server) = owner.or(shared.router.only()) {
            shared.send_server(server, message.text).await;
        }
    }

    /// A message from server `index`: the answer to a client request is handled as its
    /// request said ([`Pending`]); what else a server sends goes where the router says.
    async fn server_message(&self, index: usize, message: Message) {
        let shared = &self.0;
        let Kind::Response { id: Some(id), .. } = &message.kind else {
            return self.route_server(index, message).await;
        };
        if shared.router.own_request_answered(index, id, &message.text) {
            return;
        }
        let Some(pending) = shared.take_answered(index, id) else {
            return self.route_server(index, message).await;
        };
        let reply = Reply {
            index,
            id: id.clone(),
            pending,
            message,
        };
        if let Some(reply) = self.as_the_client_needs(reply) {
            self.answered(reply).await;
        }
    }

    /// A server's answer to a client request, handled as its `pending` says.
    async fn answered(&self, reply: Reply) {
        let Reply {
            index,
            pending,
            message,
            ..
        } = reply;
        let shared = &self.0;
        let text = match pending {
            Pending::Forward => message.text,
            Pending::Cancelled => return,
            Pending::Initialize | Pending::Discover => {
                edit_result(message.text, |result| shared.introduce(result))
            }
            Pending::ToolsList { first_page } => {
                let id = message.id.clone();
                match self.tools_list(message, first_page) {
                    Ok(text) => text,
                    Err(error) => {
                        let text = message::error_response(
                            &id,
                            message::INTERNAL_ERROR,
                            &error.to_string(),
                        );
                        shared.send_client(text).await;
                        return shared.fail(index, error);
                    }
                }
            }
            Pending::ToolCall { tool, task } => {
                return self.tool_result(index, message, tool, task).await;
            }
            Pending::TaskResult { task } => {
                let tool = lock(&shared.tasks).get(&task).cloned();
                match tool {
                    Some((server, Some(tool))) => {
                        return self.tool_result(server, message, tool, false).await;
                    }
                    _ => message.text,
                }
            }
        };
        shared.send_client(text).await;
    }

    /// A client's `tools/call`: an exploration tool is answered here, references are resolved,
    /// anything else goes upstream as sent.
    async fn tools_call(&self, message: Message) {
        let shared = &self.0;
        // Read with the envelope: `params` an object with `name` a string, or neither is known.
        let name = message.head.name.clone();
        if let Kind::Request { id, .. } = &message.kind
            && let Some(name) = &name
        {
            shared.note_tool(id, name);
        }
        let Some(name) = name else {
            return shared
                .send_client(message::error_response(
                    &message.id,
                    message::INVALID_PARAMS,
                    "tools/call needs params {\"name\": string, \"arguments\": object}",
                ))
                .await;
        };
        if let Some(local) = shared.exploration().names.local(&name) {
            return match exploration_arguments(message.arguments()) {
                Ok(arguments) => {
                    self.explore(message.id, message.revision, local.to_owned(), arguments);
                }
                Err(reason) => {
                    shared
                        .send_client(message::error_response(
                            &message.id,
                            message::INVALID_PARAMS,
                            &format!("invalid arguments for `{name}`: {reason}"),
                        ))
                        .await;
                }
            };
        }
        let references = message
            .arguments()
            .is_some_and(|arguments| arguments.contains("overspill://"));
        let Kind::Request { id, .. } = &message.kind else {
            return;
        };
        let call = match self.route_call(name).await {
            Ok(call) => call,
            Err(refusal) => {
                let result = edits::tool_result(refusal, true, message.revision);
                return shared
                    .send_client(message::result_response(&message.id, &result))
                    .await;
            }
        };
        if references {
            return self.resolve_and_forward(message, call);
        }
        let text = if call.tool == call.offered {
            message.text
        } else {
            gateway::renamed(message.text, &call.tool)
        };
        shared.expect(
            id,
            &message.id,
            Pending::ToolCall {
                tool: call.tool,
                task: message.head.task,
            },
            call.server,
        );
        shared.send_server(call.server, text).await;
    }

    /// Answers an exploration call on the blocking pool.
    fn explore(&self, id: Value, revision: Option<Revision>, tool: String, arguments: Value) {
        self.0.job(move |shared| async move {
            let scratch = Arc::clone(&shared.scratch);
            let name = tool.clone();
            let answer = tokio::task::spawn_blocking(move || scratch.call(&name, arguments)).await;
            let result = match answer {
                Ok(text) => edits::tool_result(text, false, revision),
                Err(error) => edits::tool_result(
                    format!(
                        "the exploration tool `{tool}` failed inside the proxy ({error}); the \
                         session goes on, try the call again or a narrower one"
                    ),
                    true,
                    revision,
                ),
            };
            shared
                .send_client(message::result_response(&id, &result))
                .await;
        });
    }

    /// Resolves the `overspill://` references of an upstream call, then forwards it (or
    /// answers the model with why it could not).
    fn resolve_and_forward(&self, message: Message, call: Call) {
        self.0.job(move |shared| async move {
            let Kind::Request { id, .. } = &message.kind else {
                return;
            };
            let id = id.clone();
            let raw_id = message.id.clone();
            let revision = message.revision;
            let task = message.head.task;
            let schema = shared.schema(&call.offered);
            let scratch = Arc::clone(&shared.scratch);
            let original = (call.tool != call.offered).then(|| call.tool.clone());
            let resolved = tokio::task::spawn_blocking(move || {
                let mut value: Value = serde_json::from_str(&message.text)
                    .map_err(|error| format!("the call's JSON cannot be read: {error}"))?;
                let arguments = value
                    .get_mut("params")
                    .and_then(|params| params.get_mut("arguments"))
                    .map(Value::take)
                    .unwrap_or(Value::Null);
                let arguments = if overspill::references::has_references(&arguments) {
                    scratch.resolve_references(arguments, schema.as_deref())?
                } else {
                    arguments
                };
                value["params"]["arguments"] = arguments;
                if let Some(original) = original {
                    value["params"]["name"] = Value::String(original);
                }
                Ok(value.to_string())
            })
            .await;
            match resolved {
                Ok(Ok(text)) => {
                    let pending = Pending::ToolCall {
                        tool: call.tool,
                        task,
                    };
                    Relay(Arc::clone(&shared))
                        .dispatch(call.server, &id, &raw_id, pending, text)
                        .await;
                }
                Ok(Err(reason)) => {
                    let result = edits::tool_result(reason, true, revision);
                    shared
                        .send_client(message::result_response(&raw_id, &result))
                        .await;
                }
                Err(error) => {
                    shared
                        .send_client(message::error_response(
                            &raw_id,
                            message::INTERNAL_ERROR,
                            &format!("resolving overspill:// references failed: {error}"),
                        ))
                        .await;
                }
            }
        });
    }

    /// A tool call's (or a task's) result from upstream: intercepted when it is final and
    /// reaches its threshold, forwarded unchanged otherwise. `task`: the call asked to run as a
    /// task, so the answer may be the task's handle.
    async fn tool_result(&self, index: usize, message: Message, tool: String, task: bool) {
        let shared = &self.0;
        let member = shared.member(index);
        let server = &member.name;
        // A task handle is small: its `tasks/result` is the call's result, and a gateway
        // routes the task's requests to the server that made it.
        if task
            && message.text.len() <= TASK_HANDLE_BYTES
            && let Some(result) = message::result_range(&message.text)
            && let Some(task) = overspill::mcp_result::created_task(&message.text[result])
        {
            lock(&shared.tasks).insert(task, (index, Some(tool)));
            return shared.send_client(message.text).await;
        }
        let Some(threshold) = shared.scratch.threshold(server, &tool) else {
            if let Some(metrics) = &shared.metrics {
                metrics.unwatched(server);
            }
            return shared.send_client(message.text).await;
        };
        // Fewer bytes than the threshold's tokens: what would be stored (never more than the
        // result's text) has fewer tokens too, so it passes without being read or counted.
        if u64::try_from(message.text.len()).is_ok_and(|bytes| bytes < threshold) {
            shared.scratch.passed(server, &tool);
            return shared.send_client(message.text).await;
        }
        // Anything else is read, counted and perhaps stored on the blocking pool: the relay's
        // thread serves every other message meanwhile (docs/mcp-proxy.md#one-thread).
        shared.job(move |shared| async move {
            let scratch = Arc::clone(&shared.scratch);
            let server = shared.member(index).name.clone();
            let id = message.id;
            let text = message.text;
            let decided = tokio::task::spawn_blocking(move || {
                let result = message::result_range(&text);
                scratch.intercept_response(&server, &tool, text, result)
            })
            .await;
            // The client is answered whatever happened: a call it waits on forever keeps its
            // stream, and so its session, busy for good.
            let text = decided.unwrap_or_else(|error| {
                message::error_response(
                    &id,
                    message::INTERNAL_ERROR,
                    &format!("overspill could not decide on this result: {error}"),
                )
            });
            shared.send_client(text).await;
        });
    }

    /// The server's tool list as the client sees it.
    fn tools_list(&self, message: Message, first_page: bool) -> Result<String, ProxyError> {
        let shared = &self.0;
        let Ok(mut value) = serde_json::from_str::<Value>(&message.text) else {
            return Ok(message.text);
        };
        let Some(tools) = value
            .get_mut("result")
            .and_then(|result| result.get_mut("tools"))
            .and_then(Value::as_array_mut)
        else {
            return Ok(message.text);
        };
        let upstream: Vec<&str> = tools.iter().filter_map(tool_name).collect();
        shared.rename_on_clash(&upstream)?;
        let member = shared.member(0);
        let server = &member.name;
        for tool in tools.iter_mut() {
            if let Some(name) = tool_name(tool).map(str::to_owned) {
                shared.offer_tool(server, &name, tool);
            }
        }
        let last_page = value
            .get("result")
            .and_then(|result| result.get("nextCursor"))
            .is_none_or(Value::is_null);
        let single_page = first_page && last_page;
        let tools = value
            .get_mut("result")
            .and_then(|result| result.get_mut("tools"))
            .and_then(Value::as_array_mut);
        if let Some(tools) = tools {
            if single_page {
                let names: Vec<String> = tools
                    .iter()
                    .filter_map(tool_name)
                    .map(str::to_owned)
                    .collect();
                shared.scratch.set_server_tools(server, names);
            }
            // After the server's own tools, on the last page: every rename a clash on any page
            // caused has happened by then.
            if last_page {
                tools.extend(shared.exploration().definitions.iter().cloned());
            }
        }
        Ok(value.to_string())
    }

    /// After `init_timeout`, answers the client's `initialize` itself if the server has not,
    /// and stops the proxy.
    fn init_timer(&self, key: Id, id: Value) {
        // Held weakly: a session that ends meanwhile is let go of at once, not at the timeout.
        let session = Arc::downgrade(&self.0);
        let timeout = self.0.init_timeout;
        tokio::spawn(async move {
            tokio::time::sleep(timeout).await;
            let Some(shared) = session.upgrade() else {
                return;
            };
            let waiting = {
                let mut outstanding = lock(&shared.outstanding);
                match outstanding.get(&key) {
                    Some(waiting) if waiting.pending == Pending::Initialize => {
                        outstanding.remove(&key).is_some()
                    }
                    _ => false,
                }
            };
            if !waiting {
                return;
            }
            let server = shared.member(0);
            let error = ProxyError::InitTimeout {
                server: server.label.clone(),
                after: shared.init_timeout,
                diagnostics: server.diagnostics.clone(),
            };
            shared
                .send_client(message::error_response(
                    &id,
                    message::REQUEST_TIMEOUT,
                    &error.to_string(),
                ))
                .await;
            shared.fail(0, error);
        });
    }
}

impl Shared {
    /// A server's `initialize` or `server/discover` result (or a gateway's union of them) as
    /// the client sees it: the exploration tools introduced ([`edits::server_info`]).
    fn introduce(&self, result: &mut Value) {
        edits::server_info(result, &self.exploration().names);
    }

    fn exploration(&self) -> Arc<Exploration> {
        Arc::clone(
            &self
                .exploration
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// When one of `upstream`'s tools has an exploration tool's name, the exploration tools
    /// take a prefix no upstream tool clashes with (`overspill_`, then `overspill2_`, …), the
    /// scratchpad's pointers name them so from now on, and stderr says so: the server's tool
    /// keeps its name, the session goes on (docs/mcp-proxy.md, "Tool names").
    fn rename_on_clash(&self, upstream: &[&str]) -> Result<(), ProxyError> {
        let current = self.exploration();
        let Some(clash) = current.names.clash(upstream.iter().copied()) else {
            return Ok(());
        };
        let prefix = (1..=99)
            .map(|n| match n {
                1 => "overspill_".to_owned(),
                n => format!("overspill{n}_"),
            })
            .find(|prefix| {
                current
                    .names
                    .with_prefix(prefix)
                    .clash(upstream.iter().copied())
                    .is_none()
            })
            .ok_or_else(|| ProxyError::NameClash {
                name: clash.to_owned(),
            })?;
        let renamed = Exploration::new(&*self.scratch, &prefix)?;
        tracing::warn!(
            server = %self.member(0).label,
            tool = %clash,
            "the server has a tool named like an exploration tool; the exploration tools are now called {} and so on (choose with --tool-prefix)",
            renamed.names.exposed("grep")
        );
        self.scratch.set_tool_prefix(&prefix);
        *self
            .exploration
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(renamed);
        Ok(())
    }

    fn expect(&self, id: &Id, raw: &Value, pending: Pending, server: usize) {
        let waiting = Waiting {
            raw: raw.clone(),
            pending,
            server,
            sent: Instant::now(),
        };
        if let Some(mut ledger) = self.ledger()
            && let Some(entry) = ledger.get_mut(id)
        {
            entry.server = Some(server);
        }
        lock(&self.outstanding).insert(id.clone(), waiting);
    }

    /// Marks a request the client cancelled, if it is still waiting for a server. No answer
    /// goes out for it, so it leaves the ledger now, counted as cancelled. (A request the relay
    /// answers itself, an exploration call, is answered anyway, and counted then.)
    fn cancel(&self, id: &Id) {
        let waited = {
            let mut outstanding = lock(&self.outstanding);
            outstanding
                .get_mut(id)
                .map(|waiting| waiting.pending = Pending::Cancelled)
                .is_some()
        };
        if !waited {
            return;
        }
        let cancelled = self.ledger().and_then(|mut ledger| ledger.remove(id));
        if let (Some(entry), Some(metrics)) = (cancelled, &self.metrics) {
            metrics.request(entry.method, Answer::Cancelled, entry.started.elapsed());
        }
    }

    /// The client request `id` that server `index` answered, if it owes it one; how long the
    /// server took goes into the metrics.
    fn take_answered(&self, index: usize, id: &Id) -> Option<Pending> {
        let waiting = self.remove_waiting(index, id)?;
        if let Some(metrics) = &self.metrics {
            let method = self
                .ledger()
                .and_then(|ledger| ledger.get(id).map(|entry| entry.method))
                .unwrap_or("other");
            metrics.upstream_request(&self.member(index).name, method, waiting.sent.elapsed());
        }
        Some(waiting.pending)
    }

    /// The client request `id` that server `index` owed but will not answer (it could not be
    /// sent).
    fn forget_unsent(&self, index: usize, id: &Id) -> Option<Pending> {
        self.remove_waiting(index, id)
            .map(|waiting| waiting.pending)
    }

    fn remove_waiting(&self, index: usize, id: &Id) -> Option<Waiting> {
        let mut outstanding = lock(&self.outstanding);
        match outstanding.get(id) {
            Some(waiting) if waiting.server == index => outstanding.remove(id),
            _ => None,
        }
    }

    /// The ledger of the client's requests, when one is kept.
    fn ledger(&self) -> Option<std::sync::MutexGuard<'_, HashMap<Id, Entry>>> {
        self.ledger.as_ref().map(|ledger| lock(ledger))
    }

    /// Notes in the ledger which tool the client request `id` calls.
    fn note_tool(&self, id: &Id, tool: &str) {
        if let Some(mut ledger) = self.ledger()
            && let Some(entry) = ledger.get_mut(id)
        {
            entry.tool = Some(tool.to_owned());
        }
    }

    /// The server that owes the client request `id` an answer.
    fn owner(&self, id: &Id) -> Option<usize> {
        lock(&self.outstanding)
            .get(id)
            .map(|waiting| waiting.server)
    }

    /// Runs scratchpad work as its own task: counted as busy from now, started when one of
    /// the session's [`CONCURRENT_JOBS`] slots is free.
    fn job<F, Fut>(self: &Arc<Self>, work: F)
    where
        F: FnOnce(Arc<Shared>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send,
    {
        self.busy.fetch_add(1, Ordering::SeqCst);
        let busy = Busy(Arc::clone(&self.busy));
        let shared = Arc::clone(self);
        tokio::spawn(async move {
            let _busy = busy;
            let Ok(_permit) = Arc::clone(&shared.jobs).acquire_owned().await else {
                return;
            };
            work(shared).await;
        });
    }

    /// `server`'s tool `at_server` as the client is offered it (`tool`, under the name the
    /// client sees): without its output schema when its results may be replaced by a pointer
    /// (a pointer cannot match it), its input schema kept for `overspill://` references and
    /// mirrored headers. One place for the plain relay's list and a gateway's.
    fn offer_tool(&self, server: &str, at_server: &str, tool: &mut Value) {
        if self.scratch.threshold(server, at_server).is_some() {
            drop_output_schema(tool);
        }
        if let (Some(name), Some(schema)) = (tool_name(tool), tool.get("inputSchema")) {
            self.schemas
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(name.to_owned(), Arc::new(schema.clone()));
        }
    }

    fn schema(&self, tool: &str) -> Option<Arc<Value>> {
        self.schemas
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(tool)
            .cloned()
    }

    /// Sends to the client; a client that is gone loses the message (nothing waits for it).
    async fn send_client(&self, text: String) {
        if let Some(text) = self.router.to_client(text) {
            let _ = self.to_client.send(text).await;
        }
    }

    /// Server `index`, if there is one.
    fn server(&self, index: usize) -> Option<Arc<Member>> {
        self.servers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(index)
            .cloned()
    }

    /// Server `index` (a stand-in for an index no server has).
    fn member(&self, index: usize) -> Arc<Member> {
        self.server(index)
            .unwrap_or_else(|| Arc::new(Member::missing(index)))
    }

    /// Every server's index and member, retired ones too, in their order.
    fn members(&self) -> Vec<(usize, Arc<Member>)> {
        self.servers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .enumerate()
            .collect()
    }

    /// Queues `text` for server `index`, as its revision needs it ([`Router::to_server`]);
    /// `false` when its transport is gone, or its revision has no such message.
    async fn send_server(&self, index: usize, text: String) -> bool {
        let Some(member) = self.server(index) else {
            return false;
        };
        let Some(text) = self.router.to_server(index, &member, text) else {
            return false;
        };
        let to_server = member
            .ports
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .to_server
            .clone();
        to_server.send(text).await.is_ok()
    }

    /// Stops server `index`'s transport if it is still in run `run` (a later run is left
    /// alone).
    fn fail_run(&self, index: usize, run: u64, error: ProxyError) {
        if let Some(member) = self.server(index) {
            let phase = member.phase();
            if phase.run == run {
                member.stop(error);
            }
        }
    }

    /// Reports why server `index`'s transport must stop (a plain proxy's session ends with it).
    fn fail(&self, index: usize, error: ProxyError) {
        if let Some(member) = self.server(index) {
            member.stop(error);
        }
    }
}

/// The arguments of an exploration call as the tool takes them: an object (absent or `null`
/// counts as `{}`).
fn exploration_arguments(written: Option<&str>) -> Result<Value, String> {
    let Some(written) = written else {
        return Ok(Value::Object(Map::new()));
    };
    match serde_json::from_str::<Value>(written) {
        Ok(Value::Null) => Ok(Value::Object(Map::new())),
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err("`arguments` must be an object, e.g. {\"file\": \"…\"}".to_owned()),
        Err(error) => Err(format!("`arguments` cannot be read ({error})")),
    }
}

fn tool_name(tool: &Value) -> Option<&str> {
    tool.get("name")?.as_str()
}

/// Removes a tool's output schema: a pointer cannot match it, and clients reject a result
/// without the structured content a schema promises (docs/mcp-proxy.md).
fn drop_output_schema(tool: &mut Value) {
    if let Some(tool) = tool.as_object_mut() {
        tool.remove("outputSchema");
    }
}

/// A call of an upstream tool: the server it goes to, the tool's name there, and the name the
/// client called it by.
struct Call {
    server: usize,
    tool: String,
    offered: String,
}

/// Why a line could not be read as a message, and what could be read of it.
#[derive(Debug, Clone)]
pub(crate) struct Unreadable {
    pub(crate) problem: Problem,
    pub(crate) salvaged: Salvaged,
}

/// What was wrong with an unreadable line.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Problem {
    /// Longer than the transport's limit, in bytes.
    TooLong(usize),
    /// Not UTF-8, so not JSON.
    NotUtf8,
}

impl Unreadable {
    /// A line that is not UTF-8: its id read from the text with the bad bytes replaced.
    pub(crate) fn not_utf8(line: &[u8]) -> Unreadable {
        let text = String::from_utf8_lossy(line);
        let salvaged = match message::head(&text) {
            Ok((kind, id)) => Salvaged {
                id: Some(id).filter(|id| !id.is_null()),
                response: matches!(kind, Kind::Response { .. }),
            },
            Err(_) => message::salvage(&text, ""),
        };
        Unreadable {
            problem: Problem::NotUtf8,
            salvaged,
        }
    }

    /// A line over `limit` bytes, of which the first and last few KiB are known.
    pub(crate) fn too_long(limit: usize, head: &[u8], tail: &[u8]) -> Unreadable {
        Unreadable {
            problem: Problem::TooLong(limit),
            salvaged: message::salvage(
                &String::from_utf8_lossy(head),
                &String::from_utf8_lossy(tail),
            ),
        }
    }

    /// What was wrong, in words for an error message.
    pub(crate) fn what(&self) -> String {
        match self.problem {
            Problem::TooLong(limit) => format!(
                "a message longer than {} MiB, which the proxy dropped unread",
                limit >> 20
            ),
            Problem::NotUtf8 => "a message that is not UTF-8 text".to_owned(),
        }
    }

    /// The JSON-RPC error that answers it on the side that sent it.
    fn response(&self, id: &Value) -> String {
        let (code, text) = match self.problem {
            Problem::TooLong(limit) => (
                message::INVALID_REQUEST,
                format!(
                    "a message longer than {} MiB was dropped unread",
                    limit >> 20
                ),
            ),
            Problem::NotUtf8 => (
                message::PARSE_ERROR,
                "parse error: the message is not UTF-8 text".to_owned(),
            ),
        };
        message::error_response(id, code, &text)
    }
}

/// Applies `edit` to the `result` of a response; text that does not parse passes unchanged.
fn edit_result(text: String, edit: impl FnOnce(&mut Value)) -> String {
    let Ok(mut value) = serde_json::from_str::<Value>(&text) else {
        return text;
    };
    match value.get_mut("result") {
        Some(result) => {
            edit(result);
            value.to_string()
        }
        None => text,
    }
}
