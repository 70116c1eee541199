//! Where a `--listen` session's messages to its client go: the POST streams (each ends after
//! its requests' answers), the GET stream and the backlog; and the log line of each answered
//! request (docs/mcp-proxy.md#logs).

use std::collections::{HashSet, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::sync::mpsc;

use super::HttpSession;
use crate::message::{self, Id, Kind};
use crate::relay::Answered;

/// Server-initiated messages kept for a session with no stream open to take them.
const BACKLOG: usize = 1024;

/// Messages queued on one SSE stream before the session's router waits.
pub(super) const STREAM_QUEUE: usize = 64;

/// Where a session's outgoing messages go.
#[derive(Default)]
pub(super) struct Streams {
    /// POST streams, each with the requests it still waits to answer.
    pub(super) posts: Vec<PostStream>,
    /// The GET stream, when open.
    pub(super) get: Option<mpsc::Sender<String>>,
    /// Server-initiated messages waiting for a stream.
    pub(super) backlog: VecDeque<String>,
}

impl Streams {
    /// Drops the POST streams whose client went away.
    pub(super) fn forget_closed_posts(&mut self) {
        self.posts.retain(|post| !post.sender.is_closed());
    }

    /// The client cancelled `ids`: no answer comes for them, so a POST stream left with none
    /// to wait for ends (else it stays open, and its session busy, for good).
    pub(super) fn cancelled(&mut self, ids: &[Id]) {
        for post in &mut self.posts {
            for id in ids {
                post.waiting.remove(id);
            }
        }
        self.posts.retain(|post| !post.waiting.is_empty());
    }

    /// Whether any stream to the client is still open.
    pub(super) fn open(&mut self) -> bool {
        self.forget_closed_posts();
        !self.posts.is_empty() || self.get.as_ref().is_some_and(|get| !get.is_closed())
    }
}

/// One POST's SSE stream.
pub(super) struct PostStream {
    /// The requests of the POST not answered yet; the stream ends after the last answer.
    pub(super) waiting: HashSet<Id>,
    /// The progress tokens those requests gave (`_meta.progressToken`): progress for them
    /// belongs on this stream.
    pub(super) progress: Vec<Value>,
    pub(super) sender: mpsc::Sender<String>,
    /// For a stateless request: the id it was given on its way to the relay, and the client's
    /// own, which its answer (and a subscription's notifications) carry back.
    pub(super) routed: Option<(Id, Value)>,
}

/// `text` as the client of a stateless request must see it (`original` is its own id): the
/// request's `answer`, or a notification of its subscription
/// (`_meta["io.modelcontextprotocol/subscriptionId"]`), with the client's id in place of the
/// proxy's. Done outside the streams' lock: an answer may be megabytes.
fn restored(text: String, original: &Value, answer: bool) -> String {
    if answer {
        return message::with_id(text, original);
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(mut value) => match value.pointer_mut(SUBSCRIPTION_POINTER) {
            Some(id) => {
                *id = original.clone();
                value.to_string()
            }
            None => text,
        },
        Err(_) => text,
    }
}

/// Where a notification of a subscription names it (2026-07-28 `subscriptions/listen`).
const SUBSCRIPTION_POINTER: &str = "/params/_meta/io.modelcontextprotocol~1subscriptionId";

/// The subscription a notification belongs to: the id of the `subscriptions/listen` request
/// that opened it (read only from a notification that mentions one).
fn subscription_of(text: &str) -> Option<Id> {
    if !text.contains(crate::revision::SUBSCRIPTION_ID) {
        return None;
    }
    let value = serde_json::from_str::<Value>(text).ok()?;
    Id::of(value.pointer(SUBSCRIPTION_POINTER)?)
}

/// The `params.progressToken` of a progress notification (a request's own token is read with
/// its envelope: [`crate::message::RequestHead`]).
fn progress_token(text: &str) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct Message {
        params: Option<Params>,
    }
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "progressToken")]
        token: Option<Value>,
    }
    serde_json::from_str::<Message>(text).ok()?.params?.token
}

/// Sends each message the relay has for the client down the stream it belongs on (a stdio
/// server does not say which request a message relates to, so the proxy tells):
/// - a response on the POST stream of its request (which ends after its last response);
/// - progress on the POST stream of the request that gave its progress token;
/// - anything else, while exactly one POST stream is open, on that one (the tool call it
///   belongs to, most likely: its logs, its sampling or elicitation requests, as a server
///   serving HTTP itself sends them);
/// - otherwise on the GET stream, else the newest POST stream, else into the backlog.
///
/// It ends with the session: once the session is closed and nothing is queued (the relay's
/// own sender would otherwise keep the queue, and with it the session, alive). What it never
/// saw answered is counted then, as unanswered.
pub(super) async fn route(session: Arc<HttpSession>, mut queue: mpsc::Receiver<String>) {
    let mut closing = session.close.subscribe();
    loop {
        let text = tokio::select! {
            biased;
            text = queue.recv() => match text {
                Some(text) => text,
                None => break,
            },
            _ = closing.wait_for(|closed| *closed) => break,
        };
        let (answered, progress, subscription) = match message::head(&text) {
            Ok((
                Kind::Response {
                    id: Some(id),
                    error,
                },
                _,
            )) => (Some((id, error)), None, None),
            Ok((Kind::Notification { method }, _)) if method == "notifications/progress" => {
                (None, progress_token(&text), None)
            }
            Ok((Kind::Notification { .. }, _)) => (None, None, subscription_of(&text)),
            _ => (None, None, None),
        };
        let target = {
            let mut streams = session
                .streams
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            streams.forget_closed_posts();
            let own = match (&answered, &progress, &subscription) {
                (Some((id, _)), _, _) | (None, None, Some(id)) => streams
                    .posts
                    .iter()
                    .position(|post| post.waiting.contains(id)),
                (None, Some(token), _) => streams
                    .posts
                    .iter()
                    .position(|post| post.progress.contains(token)),
                (None, None, None) if streams.posts.len() == 1 => Some(0),
                (None, None, None) => None,
            };
            match own {
                Some(at) => {
                    let post = &mut streams.posts[at];
                    if let Some((id, _)) = &answered {
                        post.waiting.remove(id);
                    }
                    let sender = post.sender.clone();
                    let original = post.routed.as_ref().map(|(_, original)| original.clone());
                    if post.waiting.is_empty() {
                        streams.posts.remove(at);
                    }
                    Some((sender, text, original))
                }
                // An agent's requests come from clients that share nothing else: what belongs
                // to none of their streams reaches none of them.
                None if session.stateless => None,
                None => match (&streams.get, streams.posts.last()) {
                    (Some(get), _) if !get.is_closed() => Some((get.clone(), text, None)),
                    (_, Some(post)) => Some((post.sender.clone(), text, None)),
                    _ => {
                        if streams.backlog.len() < BACKLOG {
                            streams.backlog.push_back(text);
                        }
                        None
                    }
                },
            }
        };
        // A client that does not read its stream holds this send: the session's close ends it.
        if let Some((sender, text, original)) = target {
            let text = match original {
                Some(original) => restored(text, &original, answered.is_some()),
                None => text,
            };
            tokio::select! {
                sent = sender.send(text) => drop(sent),
                _ = closing.wait_for(|closed| *closed) => break,
            }
        }
        if let Some((id, error)) = answered
            && let Some(done) = session.relay.answered_client(&id, error)
        {
            log_request(&session.label, &done);
        }
    }
    session.relay.unanswered();
}

/// The one log line of an answered request (docs/mcp-proxy.md#logs): the session, the method,
/// the server and tool when there are, how it ended and how long it took; never its arguments
/// or result.
fn log_request(session: &str, done: &Answered) {
    tracing::info!(
        target: "overspill::request",
        session,
        method = done.method,
        server = done.server.as_deref().unwrap_or("overspill"),
        tool = done.tool.as_deref().unwrap_or(""),
        outcome = done.answer.as_str(),
        ms = u64::try_from(done.took.as_millis()).unwrap_or(u64::MAX),
        "request answered"
    );
}

/// An SSE response carrying each message of `receiver` as one event.
pub(super) fn sse(receiver: mpsc::Receiver<String>) -> Response {
    sse_until(None, receiver, None)
}

/// Tells its sender when dropped: held by what answers a request (its handler, then its
/// response's stream), so that the request's end, or its client's going away, is known.
pub(super) struct Gone(Option<tokio::sync::oneshot::Sender<()>>);

impl Gone {
    /// A guard, and what hears it go.
    pub(super) fn new() -> (Gone, tokio::sync::oneshot::Receiver<()>) {
        let (sender, receiver) = tokio::sync::oneshot::channel();
        (Gone(Some(sender)), receiver)
    }
}

impl Drop for Gone {
    fn drop(&mut self) {
        if let Some(sender) = self.0.take() {
            let _ = sender.send(());
        }
    }
}

/// [`sse`] whose stream starts with `first` (a message already taken from `receiver`) and
/// holds `gone` until it is dropped (its last event sent, or its client gone).
pub(super) fn sse_until(
    first: Option<String>,
    receiver: mpsc::Receiver<String>,
    gone: Option<Gone>,
) -> Response {
    let state = (first, receiver, gone);
    let events = futures_util::stream::unfold(state, |(first, mut receiver, gone)| async move {
        let text = match first {
            Some(text) => text,
            None => receiver.recv().await?,
        };
        Some((
            Ok::<_, Infallible>(Event::default().data(text)),
            (None, receiver, gone),
        ))
    });
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}
