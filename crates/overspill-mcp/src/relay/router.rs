//! Where a session's messages go: to its one server, fronted as itself, or to one of several
//! behind a gateway ([`super::gateway`]).
//!
//! The relay core ([`super`]) keeps what every session keeps: the client requests waiting for
//! a server, the task table, the tool schemas, the exploration tools, the jobs. What differs
//! between one server and many is asked of the [`Router`] here, and nowhere else: which
//! server a request goes to and what its answer needs, whether a server may be sent a request
//! now, what name a server's tool is offered under, and what the client's revision needs of a
//! message on its way (a gateway translates between a 2026-07-28 client and its 2025-era
//! servers; one server fronted as itself settles its revision with the client directly,
//! docs/mcp-proxy.md#revisions).

use serde_json::Value;

use super::gateway::Gateway;
use super::{Call, Member, Pending, Relay, Reply};
use crate::message::{self, Id, Kind, Message};
use crate::namespace::Namespace;
use crate::revision;

/// One server, or several behind a gateway.
pub(super) enum Router {
    /// One server, which sees the client's messages as they were sent.
    One,
    /// Several servers, routed to by name, URI and request id, their lists merged (its
    /// tables kept apart, so that a session of one server carries none of them).
    Many(Box<Gateway>),
}

impl Router {
    /// A gateway when the session names its servers' tools under `namespace`, else one server.
    pub(super) fn new(namespace: Option<Namespace>) -> Router {
        match namespace {
            Some(namespace) => Router::Many(Box::new(Gateway::new(namespace))),
            None => Router::One,
        }
    }

    /// The gateway, for a session of several servers.
    pub(super) fn gateway(&self) -> Option<&Gateway> {
        match self {
            Router::One => None,
            Router::Many(gateway) => Some(gateway),
        }
    }

    /// The server of a session of one: what the client sends goes there unless the relay
    /// answers it itself.
    pub(super) fn only(&self) -> Option<usize> {
        match self {
            Router::One => Some(0),
            Router::Many(_) => None,
        }
    }

    /// How a client request for the one server is awaited: its answer is edited for the
    /// methods whose results the scratchpad changes, forwarded as it comes otherwise.
    /// (`tools/call` has its own path, [`super::Relay::tools_call`].)
    pub(super) fn pending(method: &str, text: &str) -> Pending {
        match method {
            "initialize" => Pending::Initialize,
            "server/discover" => Pending::Discover,
            "tools/list" => Pending::ToolsList {
                first_page: message::params(text)
                    .get("cursor")
                    .is_none_or(Value::is_null),
            },
            "tasks/result" => match message::params(text).get("taskId").and_then(Value::as_str) {
                Some(task) => Pending::TaskResult {
                    task: task.to_owned(),
                },
                None => Pending::Forward,
            },
            _ => Pending::Forward,
        }
    }

    /// The name `server`'s tool `tool` (its name there) is offered under; `None` before a
    /// gateway listed it.
    pub(super) fn offered_tool(&self, server: &str, tool: &str) -> Option<String> {
        match self {
            Router::One => Some(tool.to_owned()),
            Router::Many(gateway) => gateway.offered_tool(server, tool),
        }
    }

    /// Whether `member` may be sent a client request now. The one server is the session
    /// itself: what it is not ready for, it answers. A gateway's server must have joined.
    pub(super) fn takes_requests(&self, member: &Member) -> bool {
        match self {
            Router::One => true,
            Router::Many(_) => member.is_ready(),
        }
    }

    /// Marks `member` gone, so that nothing more is routed to it while what it owes is
    /// collected; whether it was alive, and whether it had joined. The one server's going
    /// ends the session, so nothing is routed anyway.
    pub(super) fn went(&self, member: &Member) -> (bool, bool) {
        match self {
            Router::One => (true, true),
            Router::Many(_) => member.went(),
        }
    }

    /// When `id` is one of a gateway's own requests to server `index`, its answer could not be
    /// read: the waiter learns why. Whether it was.
    pub(super) fn own_request_unreadable(&self, index: usize, id: &Id, why: &str) -> bool {
        self.gateway()
            .is_some_and(|gateway| gateway.refused(index, id, why))
    }

    /// Server `index`'s answer `text`, when it answers one of a gateway's own requests: it is
    /// delivered to whoever waits for it. Whether it was one.
    pub(super) fn own_request_answered(&self, index: usize, id: &Id, text: &str) -> bool {
        self.gateway()
            .is_some_and(|gateway| gateway.deliver(index, id, text))
    }

    /// A message on its way to the client, as the client's revision needs it; `None` when the
    /// client is not to get it.
    pub(super) fn to_client(&self, text: String) -> Option<String> {
        match self.gateway() {
            Some(gateway) if gateway.serves_stateless() => gateway.to_modern_client(text),
            _ => Some(text),
        }
    }

    /// A message on its way to server `index` (`member`), as the server's revision needs it;
    /// `None` for one it must not get. A gateway's server of the stateless revision gets the
    /// envelope in each request and nothing that revision removed, and a client of a session's
    /// request to it is kept, for the input such a server may ask for; a gateway's server of a
    /// 2025 revision gets a 2026-07-28 client's requests without their envelope, which such a
    /// connection refuses. The one server gets the client's messages as they were sent.
    pub(super) fn to_server(&self, index: usize, member: &Member, text: String) -> Option<String> {
        let Some(gateway) = self.gateway() else {
            return Some(text);
        };
        match member.envelope() {
            Some(envelope) => {
                gateway.keep_for_input(index, &text);
                revision::for_stateless_server(text, &envelope)
            }
            None if gateway.serves_stateless() => Some(revision::without_envelope(text)),
            None => Some(text),
        }
    }
}

impl Relay {
    /// Sends a client message where it goes, once the core has taken what every session
    /// takes (the ledger, the methods a revision removed, cancellations).
    pub(super) async fn route_client(&self, message: Message) {
        if self.0.router.gateway().is_some() {
            // Boxed: a gateway's routing is a large future, which would otherwise make every
            // message's future (moved whole into each task that carries one) that large.
            return Box::pin(self.gateway_client_message(message)).await;
        }
        let Kind::Request { id, method } = &message.kind else {
            self.0.send_server(0, message.text).await;
            return;
        };
        if method == "tools/call" {
            return self.tools_call(message).await;
        }
        let pending = Router::pending(method, &message.text);
        if pending == Pending::Initialize {
            self.init_timer(id.clone(), message.id.clone());
        }
        self.dispatch(0, id, &message.id, pending, message.text)
            .await;
    }

    /// Sends what server `index` says where it goes, when it is not the answer to a client
    /// request the core awaits: from the one server, to the client as it came.
    pub(super) async fn route_server(&self, index: usize, message: Message) {
        match &self.0.router {
            Router::One => self.0.send_client(message.text).await,
            Router::Many(_) => self.gateway_server_message(index, message).await,
        }
    }

    /// Where a call of the tool the client calls `offered` goes; why it cannot go anywhere,
    /// for the model.
    pub(super) async fn route_call(&self, offered: String) -> Result<Call, String> {
        match &self.0.router {
            Router::One => Ok(Call {
                server: 0,
                tool: offered.clone(),
                offered,
            }),
            Router::Many(_) => {
                // Boxed for the same reason as a gateway's routing ([`Relay::route_client`]).
                let (server, tool) = Box::pin(self.route_tool(&offered)).await?;
                Ok(Call {
                    server,
                    tool,
                    offered,
                })
            }
        }
    }

    /// Server `index`'s answer to a client request, as the client's revision needs it;
    /// `None` while a gateway keeps it for a 2026-07-28 client's retry still to come, or asks
    /// a client of a session for the input a 2026-07-28 server asked for.
    pub(super) fn as_the_client_needs(&self, reply: Reply) -> Option<Reply> {
        match self.0.router.gateway() {
            Some(gateway) if gateway.serves_stateless() => self.modern_answer(reply),
            Some(_) if self.0.member(reply.index).is_stateless() => {
                self.input_for_session_client(reply)
            }
            _ => Some(reply),
        }
    }

    /// Whether the cancelled request `id` was a 2026-07-28 client's subscription, which then
    /// ends (without an answer, as the revision says).
    pub(super) fn ends_subscription(&self, id: &Id) -> bool {
        self.0.router.gateway().is_some() && self.modern_cancelled(id)
    }

    /// Server `index` is gone, and what it owed was answered (`was`: whether it was alive,
    /// whether it had joined): a gateway withdraws its tools and tells the client; the one
    /// server's going ends the session.
    pub(super) async fn after_gone(&self, index: usize, why: &str, was: (bool, bool)) {
        if self.0.router.gateway().is_some() {
            self.withdraw(index, why, was).await;
        }
    }

    /// Why a client request for server `index` could not be sent.
    pub(super) fn unsent(&self, index: usize) -> String {
        match &self.0.router {
            Router::One => format!(
                "the MCP server {} is gone, so this request has no answer",
                self.0.member(index).label
            ),
            Router::Many(_) => self.unavailable(index),
        }
    }
}
