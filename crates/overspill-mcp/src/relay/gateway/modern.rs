//! A gateway's client of the stateless revision (2026-07-28) in front of servers of the 2025
//! revisions (docs/mcp-proxy.md#revisions): the gateway joins its servers itself with
//! `initialize`, built from the first request's `_meta`, and translates what the revisions
//! do differently:
//!
//! - `server/discover` is answered from the servers' `initialize` results;
//! - every result gets `resultType`, and the cacheable ones `ttlMs` and `cacheScope`
//!   ([`revision::completed_response`]);
//! - a server's elicitation, sampling or roots request in the middle of a call answers the call
//!   with `input_required`; the client's retry (`inputResponses`, `requestState`) answers the
//!   server's request and then waits for the call's own result;
//! - `subscriptions/listen` is acknowledged by the gateway, which tags each list change (and
//!   each update of a subscribed resource) with the subscription; nothing else goes out
//!   unasked (no log messages: the revision sends them only to a request that asked).

use std::collections::HashMap;
use std::sync::PoisonError;
use std::sync::atomic::Ordering;

use serde_json::{Map, Value, json};

use crate::message::{self, Id, Kind, Message};
use crate::relay::{Relay, Reply};
use crate::revision::{self, Revision};
use crate::sync::lock;

/// The revisions the gateway answers a `server/discover` with, newest first: the stateless one
/// for its client, the session ones it also speaks.
const DISCOVER_VERSIONS: [Revision; 4] = [
    Revision::R2026_07_28,
    Revision::R2025_11_25,
    Revision::R2025_06_18,
    Revision::R2025_03_26,
];

/// How long a client's first request waits for the servers to join when it is
/// `server/discover`: clients bound the probe (Claude Code 2.1.332 gives a stdio server 3 s,
/// then falls back to `initialize`), so the answer comes from the servers joined by then
/// (docs/mcp-proxy.md#revisions).
const DISCOVER_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);

/// What the gateway keeps of a stateless client.
#[derive(Default)]
pub(super) struct Modern {
    /// The client's cacheable requests not answered yet (their answers get `ttlMs` and
    /// `cacheScope`).
    cacheable: std::collections::HashSet<Id>,
    /// Calls answered with `input_required`, by the `requestState` they were given.
    parked: HashMap<String, Parked>,
    /// Calls the client retried: the id the server knows them by → the retry's id, which
    /// their result answers.
    retried: HashMap<Id, Value>,
    /// Results of parked calls that came before the client retried, by the call's id, with
    /// what the relay does with them.
    early: HashMap<Id, Reply>,
    /// Open subscriptions: the `subscriptions/listen` request's id and what it asked for.
    subscriptions: Vec<Subscription>,
    next_state: u64,
}

/// A call of the client's that waits for input the server asked for.
struct Parked {
    server: usize,
    /// The id the server knows the call by.
    call: Id,
    /// The server's requests, by the key the client was given for each: the server's id.
    requests: Vec<(String, Value)>,
}

struct Subscription {
    id: Value,
    key: Id,
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: Vec<String>,
}

impl Relay {
    fn modern(&self) -> std::sync::MutexGuard<'_, Modern> {
        self.gateway()
            .modern
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the client speaks the stateless revision.
    pub(super) fn stateless_client(&self) -> bool {
        self.gateway().serves_stateless()
    }

    /// A request of the stateless revision, before it is routed: the first one joins the
    /// servers. `true` when it was taken here (it goes on after the servers joined).
    pub(super) async fn modern_request(&self, message: &Message) -> bool {
        let Kind::Request { id, method } = &message.kind else {
            return false;
        };
        if revision::is_cacheable(method) {
            self.modern().cacheable.insert(id.clone());
        }
        let join = {
            let mut state = self.gateway().state();
            self.gateway().stateless.store(true, Ordering::Release);
            // A client of the revision has no `initialize`: its first request's `_meta` makes
            // the one the servers are asked.
            let join = state.client_init.is_none() && !*self.gateway().initializing.borrow();
            if join {
                state.client_init = Some(init_params(&message.text));
                // Nothing of the session's handshake is missing for the servers.
                state.initialized = true;
            }
            join
        };
        if !join {
            return false;
        }
        let running = super::Initializing::start(self);
        // A client's `server/discover` probe has a bound of its own (Claude Code's: 3 s over
        // stdio, then it falls back to `initialize`): it is answered once the servers joined,
        // or after DISCOVER_WITHIN from those joined by then. What the client sends next waits
        // for the join as before (up to `--answer-within`), so its lists hold every server.
        let discover = method == "server/discover";
        let relay = self.clone();
        let first = message.clone();
        self.0.job(move |_| async move {
            relay.join_servers(relay.0.answer_within).await;
            drop(running);
            if !discover {
                relay.gateway_request_routed(first).await;
            }
        });
        if discover {
            let relay = self.clone();
            let probe = message.clone();
            self.0.job(move |_| async move {
                let mut initializing = relay.gateway().initializing.subscribe();
                let joined = initializing.wait_for(|running| !running);
                let _ = tokio::time::timeout(DISCOVER_WITHIN, joined).await;
                relay.gateway_request_routed(probe).await;
            });
        }
        true
    }

    /// `server/discover`: the servers' union, in the form of the revision.
    pub(super) async fn discover(&self, message: &Message) {
        let answers = self.joined_answers();
        let mut result = self.merged(&answers, None);
        self.0.introduce(&mut result);
        if let Some(fields) = result.as_object_mut() {
            fields.remove("protocolVersion");
            let versions: Vec<&str> = DISCOVER_VERSIONS.iter().map(|r| r.as_str()).collect();
            fields.insert("supportedVersions".to_owned(), json!(versions));
        }
        // Never cached: the servers behind it change (restarts, reloads).
        let result = Revision::R2026_07_28.list(result, &[]);
        self.answer(&message.id, &result).await;
    }

    /// `subscriptions/listen`: acknowledged with what the gateway honours (every list change;
    /// the updates of the resources a server took the subscription of), then open until the
    /// client cancels it.
    pub(super) async fn listen(&self, message: Message) {
        let Kind::Request { id: key, .. } = &message.kind else {
            return;
        };
        let params = message::params(&message.text);
        let wanted = params.get("notifications").cloned().unwrap_or(Value::Null);
        let asked = |field: &str| wanted.get(field).and_then(Value::as_bool) == Some(true);
        let mut uris = Vec::new();
        for uri in wanted
            .get("resourceSubscriptions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            let owner = self.gateway().resource_owner(uri);
            let servers: Vec<usize> = match owner {
                Some(owner) => vec![owner],
                None => (0..self.count())
                    .filter(|index| self.ready(*index) && self.has(*index, "resources"))
                    .collect(),
            };
            for index in servers {
                if self
                    .ask(index, "resources/subscribe", json!({"uri": uri}))
                    .await
                    .is_ok()
                {
                    uris.push(uri.to_owned());
                    break;
                }
            }
        }
        let subscription = Subscription {
            id: message.id.clone(),
            key: key.clone(),
            tools: asked("toolsListChanged"),
            prompts: asked("promptsListChanged"),
            resources: asked("resourcesListChanged"),
            uris,
        };
        let mut honoured = Map::new();
        for (field, on) in [
            ("toolsListChanged", subscription.tools),
            ("promptsListChanged", subscription.prompts),
            ("resourcesListChanged", subscription.resources),
        ] {
            if on {
                honoured.insert(field.to_owned(), Value::Bool(true));
            }
        }
        if !subscription.uris.is_empty() {
            honoured.insert("resourceSubscriptions".to_owned(), json!(subscription.uris));
        }
        self.modern().subscriptions.push(subscription);
        let acknowledged = message::request(
            None,
            "notifications/subscriptions/acknowledged",
            &json!({"_meta": {revision::SUBSCRIPTION_ID: message.id}, "notifications": honoured}),
        );
        self.0.send_client(acknowledged).await;
    }

    /// The client cancelled request `id`: a subscription it opened ends (without an answer, as
    /// the revision says).
    pub(in crate::relay) fn modern_cancelled(&self, id: &Id) -> bool {
        let mut modern = self.modern();
        let before = modern.subscriptions.len();
        modern
            .subscriptions
            .retain(|subscription| &subscription.key != id);
        modern.cacheable.remove(id);
        modern.subscriptions.len() != before
    }

    /// Tells each subscription that wants it that a list changed (`method` is the 2025
    /// notification's: `notifications/tools/list_changed` …), or that a resource was updated.
    pub(super) async fn tell_subscriptions(&self, method: &str, params: &Value) {
        let targets: Vec<Value> = {
            let modern = self.modern();
            modern
                .subscriptions
                .iter()
                .filter(|subscription| match method {
                    "notifications/tools/list_changed" => subscription.tools,
                    "notifications/prompts/list_changed" => subscription.prompts,
                    "notifications/resources/list_changed" => subscription.resources,
                    "notifications/resources/updated" => params
                        .get("uri")
                        .and_then(Value::as_str)
                        .is_some_and(|uri| subscription.uris.iter().any(|known| known == uri)),
                    _ => false,
                })
                .map(|subscription| subscription.id.clone())
                .collect()
        };
        for id in targets {
            let mut params = params.clone();
            if !params.is_object() {
                params = json!({});
            }
            params["_meta"] = json!({revision::SUBSCRIPTION_ID: id});
            self.0
                .send_client(message::request(None, method, &params))
                .await;
        }
    }

    /// A server's request to a stateless client (elicitation, sampling, roots): the call of the
    /// client's it most likely serves (the server's latest one in flight) is answered with
    /// `input_required` carrying it. A server with no call in flight is answered with an error:
    /// the client of this revision takes requests only inside a call's result.
    pub(super) async fn modern_server_request(&self, index: usize, message: Message) {
        let call = self.latest_call(index);
        let Some((call, client_id)) = call else {
            let why = "the client speaks MCP 2026-07-28, which takes a server's requests only \
                       inside the result of one of its calls; none is in flight";
            let text = message::error_response(&message.id, message::INVALID_REQUEST, why);
            self.0.send_server(index, text).await;
            return;
        };
        let Ok(value) = serde_json::from_str::<Value>(&message.text) else {
            return;
        };
        let (state, key) = {
            let mut modern = self.modern();
            modern.next_state += 1;
            let state = format!("overspill-{}", modern.next_state);
            let key = format!("{}-{}", self.0.member(index).name, modern.next_state);
            modern.parked.insert(
                state.clone(),
                Parked {
                    server: index,
                    call,
                    requests: vec![(key.clone(), message.id.clone())],
                },
            );
            (state, key)
        };
        let request = json!({"method": value["method"], "params": value.get("params").cloned().unwrap_or(json!({}))});
        let result = json!({"resultType": "input_required",
            "inputRequests": {key: request}, "requestState": state});
        self.answer(&client_id, &result).await;
    }

    /// A retried request (its params carry a `requestState` the gateway gave): the server's
    /// requests are answered with the client's `inputResponses`, and the call's result (when it
    /// comes, or if it came) answers the retry. `false` when the state is not the gateway's.
    pub(super) async fn retried(&self, message: &Message) -> bool {
        let params = message::params(&message.text);
        let Some(state) = params.get("requestState").and_then(Value::as_str) else {
            return false;
        };
        // Where the call's result goes is settled before the server hears the answers: it may
        // answer the call at once.
        let (parked, early) = {
            let mut modern = self.modern();
            let Some(parked) = modern.parked.remove(state) else {
                return false;
            };
            let early = modern.early.remove(&parked.call);
            if early.is_none() {
                modern
                    .retried
                    .insert(parked.call.clone(), message.id.clone());
            }
            (parked, early)
        };
        let responses = params.get("inputResponses").cloned().unwrap_or(Value::Null);
        for (key, server_id) in &parked.requests {
            let text = match responses.get(key) {
                Some(result) => message::result_response(server_id, result),
                None => message::error_response(
                    server_id,
                    message::INVALID_PARAMS,
                    "the client retried its call without an answer to this request",
                ),
            };
            self.0.send_server(parked.server, text).await;
        }
        if let Some(answer) = early {
            let answer = Reply {
                message: answer.message.with_id(message.id.clone()),
                ..answer
            };
            self.answered(answer).await;
        }
        true
    }

    /// Server `index`'s answer to a call of a stateless client, as the client must get it:
    /// under the id of the retry it answers; `None` when it is kept for a retry still to come
    /// (the call is parked).
    pub(in crate::relay) fn modern_answer(&self, reply: Reply) -> Option<Reply> {
        let mut modern = self.modern();
        if let Some(retry) = modern.retried.remove(&reply.id) {
            return Some(Reply {
                message: reply.message.with_id(retry),
                ..reply
            });
        }
        if modern.parked.values().any(|parked| parked.call == reply.id) {
            modern.early.insert(reply.id.clone(), reply);
            return None;
        }
        Some(reply)
    }

    /// The call of server `index`'s sent last and not answered: its id at the server and the
    /// id the client waits on (a retried call's is the retry's).
    fn latest_call(&self, index: usize) -> Option<(Id, Value)> {
        let (id, raw) = {
            let outstanding = lock(&self.0.outstanding);
            let (id, waiting) = outstanding
                .iter()
                .filter(|(_, waiting)| waiting.server == index)
                .max_by_key(|(_, waiting)| waiting.sent)?;
            (id.clone(), waiting.raw.clone())
        };
        let client = self.modern().retried.get(&id).cloned().unwrap_or(raw);
        Some((id, client))
    }
}

impl super::Gateway {
    /// Whether the client speaks the stateless revision.
    pub(in crate::relay) fn serves_stateless(&self) -> bool {
        self.stateless.load(Ordering::Acquire)
    }

    /// What goes out to a stateless client, as it must: results completed
    /// ([`revision::completed_response`]); notifications only when they belong to a request
    /// (progress) or a subscription; `None` for what it must not get.
    pub(in crate::relay) fn to_modern_client(&self, text: String) -> Option<String> {
        match message::head(&text) {
            Ok((
                Kind::Response {
                    id: Some(id),
                    error,
                },
                _,
            )) => {
                let cacheable = lock(&self.modern).cacheable.remove(&id);
                if error {
                    return Some(text);
                }
                Some(revision::completed_response(text, cacheable))
            }
            Ok((Kind::Notification { method }, _)) => {
                let related = method == "notifications/progress"
                    || method == "notifications/subscriptions/acknowledged"
                    || text.contains(revision::SUBSCRIPTION_ID);
                related.then_some(text)
            }
            _ => Some(text),
        }
    }
}

/// The `initialize` params the servers are asked with for a stateless client: its
/// capabilities and identity from the request's `_meta`, at the newest revision with sessions.
fn init_params(text: &str) -> Value {
    let params = message::params(text);
    let meta = params.get("_meta");
    let field = |name: &str| meta.and_then(|meta| meta.get(name)).cloned();
    json!({
        "protocolVersion": Revision::NEWEST_WITH_SESSIONS.as_str(),
        "capabilities": field(revision::CLIENT_CAPABILITIES_KEY).unwrap_or(json!({})),
        "clientInfo": field(revision::CLIENT_INFO_KEY)
            .unwrap_or(json!({"name": "overspill-gateway", "version": env!("CARGO_PKG_VERSION")})),
    })
}
