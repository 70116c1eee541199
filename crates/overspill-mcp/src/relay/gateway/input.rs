//! A client of a session (a 2025 revision) in front of a gateway's server that speaks only the
//! stateless revision (docs/mcp-proxy.md#revisions): such a server asks for the client's input
//! inside a result (`resultType: "input_required"`, its `inputRequests` and `requestState`),
//! which a client of a session does not read. The gateway asks the client each of those
//! requests as a server's request of its revision (`elicitation/create`,
//! `sampling/createMessage`, `roots/list`), and sends the call again with the client's
//! `inputResponses` and the server's `requestState` untouched, under the client's own id: the
//! client sees the requests and then its call's result, as from a server of its revision. The
//! server also sends list changes only to a subscription: the gateway opens one when it joins.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

use super::{Ask, Gateway};
use crate::message::{self, Id};
use crate::relay::{Pending, Relay, Reply};
use crate::sync::lock;

/// What the gateway keeps for a client of a session in front of servers of the stateless
/// revision.
#[derive(Default)]
pub(super) struct Input {
    /// The client's requests sent to such servers and not answered yet, as the client wrote
    /// them, by their id: sent again with the client's input when a server asks for it.
    sent: HashMap<Id, (usize, String)>,
    /// The gateway's requests to the client (a server's input requests), by the id the client
    /// was given: who waits for the answer.
    asked: HashMap<Id, oneshot::Sender<Result<Value, Value>>>,
}

impl Gateway {
    fn input(&self) -> std::sync::MutexGuard<'_, Input> {
        lock(&self.input)
    }

    /// A request of the client's on its way to server `index` of the stateless revision
    /// (`text` as the client wrote it): kept until it is answered, to be sent again if the
    /// server asks for input.
    pub(in crate::relay) fn keep_for_input(&self, index: usize, text: &str) {
        if self.serves_stateless() {
            // A client of the stateless revision reads `input_required` itself.
            return;
        }
        if let Ok((message::Kind::Request { id, .. }, _)) = message::head(text)
            && !self.is_own(&id)
        {
            self.input().sent.insert(id, (index, text.to_owned()));
        }
    }

    /// The client answered one of the gateway's own requests to it: the waiter gets the
    /// answer. Whether `id` was one.
    pub(super) fn client_answered(&self, id: &Id, text: &str) -> bool {
        let Some(waiter) = self.input().asked.remove(id) else {
            return false;
        };
        let answer = match serde_json::from_str::<Value>(text) {
            Ok(mut value) => match value.get_mut("error") {
                Some(error) => Err(error.take()),
                None => Ok(value
                    .get_mut("result")
                    .map(Value::take)
                    .unwrap_or(Value::Null)),
            },
            Err(error) => Err(json!({"message": format!("the answer is not JSON ({error})")})),
        };
        let _ = waiter.send(answer);
        true
    }

    /// Server `index` is gone: what was kept for its requests is let go.
    pub(super) fn forget_input(&self, index: usize) {
        self.input().sent.retain(|_, (server, _)| *server != index);
    }
}

/// A client's request to a server of the stateless revision that asked for input: sent again
/// once the client gave it.
struct Retry {
    /// The server.
    index: usize,
    /// The request's id, and as the client wrote it.
    id: Id,
    raw: Value,
    /// What the relay does with its answer.
    pending: Pending,
    /// The request as the client sent it.
    request: String,
}

impl Relay {
    /// Server `index`'s answer to the client request `id`, for a client of a session: `None`
    /// when the server asked for input, which is then asked of the client, and the request
    /// sent again with it ([`Relay::supply_input`]).
    pub(in crate::relay) fn input_for_session_client(&self, reply: Reply) -> Option<Reply> {
        let gateway = self.gateway();
        let sent = gateway.input().sent.remove(&reply.id);
        let asked = if reply.message.text.contains("\"input_required\"") {
            serde_json::from_str::<Value>(&reply.message.text)
                .ok()
                .and_then(|mut value| {
                    let result = value.get_mut("result")?.take();
                    let asks = result.get("resultType")?.as_str()? == "input_required";
                    asks.then_some(result)
                })
        } else {
            None
        };
        let Some(result) = asked else {
            return Some(reply);
        };
        let Some((_, request)) = sent else {
            return Some(reply);
        };
        let Reply {
            index,
            id,
            pending,
            message,
        } = reply;
        let retry = Retry {
            index,
            id,
            raw: message.id,
            pending,
            request,
        };
        // Held weakly while the client is asked: a session that ends meanwhile is let go of,
        // and its waiters with it.
        let session = Arc::downgrade(&self.0);
        tokio::spawn(async move {
            let Some(relay) = session.upgrade().map(Relay) else {
                return;
            };
            let answers = relay.ask_client_for(&result);
            drop(relay);
            let responses = answers.await;
            let Some(relay) = session.upgrade().map(Relay) else {
                return;
            };
            relay.supply_input(retry, &result, responses).await;
        });
        None
    }

    /// Asks the client each of `result`'s input requests, at once; its answers by the
    /// server's keys, or the first refusal.
    fn ask_client_for(
        &self,
        result: &Value,
    ) -> impl std::future::Future<Output = Result<Map<String, Value>, Value>> + use<> {
        let gateway = self.gateway();
        let mut waiting = Vec::new();
        let mut requests = Vec::new();
        if let Some(inputs) = result.get("inputRequests").and_then(Value::as_object) {
            for (key, request) in inputs {
                let (id, raw) = gateway.next_id();
                let (reply, answer) = oneshot::channel();
                match request.get("method").and_then(Value::as_str) {
                    Some(method) => {
                        gateway.input().asked.insert(id, reply);
                        let params = request.get("params").cloned().unwrap_or(json!({}));
                        requests.push(message::request(Some(&raw), method, &params));
                    }
                    // An input request that names no method cannot be asked: it is refused.
                    None => {
                        let _ = reply.send(Err(
                            json!({"message": format!("its input request `{key}` names no method")}),
                        ));
                    }
                }
                waiting.push((key.clone(), answer));
            }
        }
        let relay = self.clone();
        async move {
            for text in requests {
                relay.0.send_client(text).await;
            }
            drop(relay);
            let mut responses = Map::new();
            for (key, answer) in waiting {
                let answer = answer
                    .await
                    .map_err(|_| json!({"message": "the session ended"}))?;
                responses.insert(key, answer?);
            }
            Ok(responses)
        }
    }

    /// Sends the client's request of `retry` to its server again with the client's
    /// `responses` to the input `asked` of it, or answers the client with why it cannot.
    async fn supply_input(
        &self,
        retry: Retry,
        asked: &Value,
        responses: Result<Map<String, Value>, Value>,
    ) {
        let Retry {
            index,
            id,
            raw,
            pending,
            request,
        } = retry;
        let server = self.0.member(index).name.clone();
        let refused = |why: String| message::error_response(&raw, message::INTERNAL_ERROR, &why);
        let responses = match responses {
            Ok(responses) => responses,
            Err(error) => {
                let why = error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("no reason given");
                let text = format!(
                    "the MCP server `{server}` asked for the client's input, and the client \
                     refused: {why}"
                );
                return self.0.send_client(refused(text)).await;
            }
        };
        // It was read when it was sent; a request that cannot be read again is answered, so
        // that the client does not wait for it forever.
        let Ok(mut value) = serde_json::from_str::<Value>(&request) else {
            let text = format!(
                "the MCP server `{server}` asked for the client's input, and the request could \
                 not be sent again"
            );
            return self.0.send_client(refused(text)).await;
        };
        if let Some(params) = value
            .as_object_mut()
            .map(|request| request.entry("params").or_insert_with(|| json!({})))
            .and_then(Value::as_object_mut)
        {
            params.insert("inputResponses".to_owned(), Value::Object(responses));
            match asked.get("requestState") {
                Some(state) => params.insert("requestState".to_owned(), state.clone()),
                None => params.remove("requestState"),
            };
        }
        self.dispatch(index, &id, &raw, pending, value.to_string())
            .await;
    }

    /// Opens a subscription to the list changes of server `index`, which speaks the stateless
    /// revision: such a server tells them only to one. Its notifications reach the gateway
    /// as any server's; its acknowledgment is the gateway's own.
    pub(super) async fn listen_to(&self, index: usize) {
        let gateway = self.gateway();
        let (id, raw) = gateway.next_id();
        // Kept as one of the gateway's own requests, whose answer nobody awaits: a client's
        // request cannot take its id, and the server ending it is not an unknown answer.
        let (reply, _) = oneshot::channel();
        gateway.asks().insert(
            id,
            Ask {
                server: index,
                reply,
            },
        );
        let wanted = json!({"notifications": {"toolsListChanged": true,
            "promptsListChanged": true, "resourcesListChanged": true}});
        let text = message::request(Some(&raw), "subscriptions/listen", &wanted);
        self.0.send_server(index, text).await;
    }
}
