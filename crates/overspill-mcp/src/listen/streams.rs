//! Where a `--listen` session's messages to its client go: the POST streams (each ends after
//! its requests' answers), the GET stream and the backlog; which stream a client resumes
//! (docs/mcp-proxy.md#resuming-a-stream); and the log line of each answered request
//! (docs/mcp-proxy.md#logs).

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use axum::response::Response;
use serde_json::Value;
use tokio::sync::mpsc;

use super::HttpSession;
use super::events::{self, EventId, EventStream, Frame, Replay};
use crate::message::{self, Id, Kind, Message};
use crate::relay::Answered;
use crate::revision::Streaming;
use crate::sync::lock;

/// Server-initiated messages kept for a session with no stream open to take them.
const BACKLOG: usize = 1024;

/// The most POST streams a session keeps for clients that lost their connection and may
/// resume them; beyond it the oldest is forgotten (its answers take the way of a stream whose
/// client went for good).
const DETACHED: usize = 256;

/// Where a session's outgoing messages go.
#[derive(Default)]
pub(super) struct Streams {
    /// POST streams, each with the requests it still waits to answer.
    pub(super) posts: Vec<PostStream>,
    /// The GET stream, once opened (a resumable one stays while its client may resume it).
    get: Option<EventStream>,
    /// Server-initiated messages waiting for a stream.
    backlog: VecDeque<String>,
    /// The latest events of the resumable streams, for a client that resumes one.
    replay: Replay,
}

/// What a client's `Last-Event-ID` resumes ([`Streams::resume`]).
pub(super) enum Resumed {
    /// A stream still open: a new connection carrying what came after the event, then what
    /// comes next.
    Open {
        connection: mpsc::Receiver<Frame>,
        missed: u64,
    },
    /// A stream that has ended: what came after the event and is still kept (nothing, when
    /// the client had it all).
    Ended { frames: Vec<Frame>, missed: u64 },
    /// No stream of the session that a client can resume.
    Unknown,
}

/// A second GET stream for a session that has one open ([`Streams::open_get`]).
pub(super) struct GetStreamOpen;

impl Streams {
    /// Drops the POST streams whose client went away and cannot come back for them (a plain
    /// stream's); a resumable one stays until its requests are answered, for its client to
    /// resume, [`DETACHED`] at most (the oldest forgotten first).
    pub(super) fn forget_closed_posts(&mut self) {
        self.posts
            .retain(|post| post.events.connected() || post.events.resumable());
        let mut detached = self
            .posts
            .iter()
            .filter(|post| !post.events.connected())
            .count();
        self.posts.retain(|post| {
            let forget = detached > DETACHED && !post.events.connected();
            if forget {
                detached -= 1;
            }
            !forget
        });
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

    /// Whether any stream to the client is still open, or waits for its client to resume it.
    pub(super) fn open(&mut self) -> bool {
        self.forget_closed_posts();
        !self.posts.is_empty() || self.get.as_ref().is_some_and(EventStream::connected)
    }

    /// The server closed the event stream of its request `id` before answering it, to have its
    /// client come back for the answer: the client's stream of that request closes too when
    /// its client can resume it (what comes meanwhile is kept for it); a plain one stays open.
    pub(super) fn server_closed(&mut self, id: &Id) {
        if let Some(post) = self
            .posts
            .iter_mut()
            .find(|post| post.waiting.contains(id) && post.events.resumable())
        {
            post.events.disconnect();
        }
    }

    /// Ends every stream (the session is closing).
    pub(super) fn close(&mut self) {
        self.posts.clear();
        self.get = None;
    }

    /// A POST's stream, written as `streaming` says: what answers `waiting` (and progress of
    /// `progress`) comes on it; `routed`, for a stateless request, the id it was given and the
    /// client's own.
    pub(super) fn open_post(
        &mut self,
        streaming: Streaming,
        waiting: HashSet<Id>,
        progress: Vec<Value>,
        routed: Option<(Id, Value)>,
    ) -> mpsc::Receiver<Frame> {
        let (events, connection) = self.replay.open(streaming, 0);
        self.posts.push(PostStream {
            waiting,
            progress,
            events,
            routed,
        });
        connection
    }

    /// The session's GET stream, written as `streaming` says, carrying first what waited in the
    /// backlog, in order. `Err` while one is open.
    pub(super) fn open_get(
        &mut self,
        streaming: Streaming,
    ) -> Result<mpsc::Receiver<Frame>, GetStreamOpen> {
        if self.get.as_ref().is_some_and(EventStream::connected) {
            return Err(GetStreamOpen);
        }
        let (mut events, connection) = self.replay.open(streaming, self.backlog.len());
        if let Some(sender) = events.connection() {
            for text in self.backlog.drain(..) {
                // Room was made for the whole backlog (at most BACKLOG).
                let _ = sender.try_send(events.stamp(text, &mut self.replay));
            }
        }
        self.get = Some(events);
        Ok(connection)
    }

    /// The stream a client resumes after the event `after` (its `Last-Event-ID`): an open one
    /// gets a new connection (replacing the one it had) that replays what came after the event,
    /// and for the GET stream what waited in the backlog since; an ended one, what of it is
    /// still kept.
    pub(super) fn resume(&mut self, after: EventId) -> Resumed {
        let Streams {
            posts,
            get,
            backlog,
            replay,
        } = self;
        let of_get = get.as_ref().map(EventStream::number) == Some(after.stream);
        let open = match get {
            Some(get) if of_get => Some(get),
            _ => posts
                .iter_mut()
                .map(|post| &mut post.events)
                .find(|events| events.number() == after.stream),
        };
        match open {
            Some(events) if events.resumable() => {
                let replayed = replay.after(after, Some(events.next_place()));
                let mut frames = replayed.frames;
                if of_get {
                    for text in backlog.drain(..) {
                        frames.push(events.stamp(text, replay));
                    }
                }
                Resumed::Open {
                    connection: events.reconnect(frames),
                    missed: replayed.missed,
                }
            }
            Some(_) => Resumed::Unknown,
            None if replay.gave(after.stream) => {
                let replayed = replay.after(after, None);
                Resumed::Ended {
                    frames: replayed.frames,
                    missed: replayed.missed,
                }
            }
            None => Resumed::Unknown,
        }
    }
}

/// One POST's SSE stream.
pub(super) struct PostStream {
    /// The requests of the POST not answered yet; the stream ends after the last answer.
    pub(super) waiting: HashSet<Id>,
    /// The progress tokens those requests gave (`_meta.progressToken`): progress for them
    /// belongs on this stream.
    pub(super) progress: Vec<Value>,
    events: EventStream,
    /// For a stateless request: the id it was given on its way to the relay, and the client's
    /// own, which its answer (and a subscription's notifications) carry back.
    pub(super) routed: Option<(Id, Value)>,
}

/// A message on its way to a stream's connection.
enum Delivery {
    /// An event made under the streams' lock: its id given and, on a resumable stream, kept
    /// for replay.
    Ready(Frame),
    /// A stateless request's answer or notification, which gets the client's own id back
    /// first (outside the lock: an answer may be megabytes); its stream is plain.
    Restore {
        message: Box<Result<Message, String>>,
        original: Value,
    },
}

/// `message` as the client of a stateless request must see it (`original` is its own id):
/// the request's answer (with the HTTP status it is sent with as a JSON body), or a
/// notification of its subscription (`_meta["io.modelcontextprotocol/subscriptionId"]`), with
/// the client's id in place of the proxy's. Done outside the streams' lock: an answer may be
/// megabytes.
fn restored(message: Result<Message, String>, original: Value) -> Frame {
    let text = match message {
        Ok(message) => match message.kind {
            Kind::Response { error, .. } => {
                let text = message.with_id(original).text;
                let status = if error {
                    crate::revision::http_status(&text)
                } else {
                    200
                };
                return Frame::Answer { text, status };
            }
            _ => message.text,
        },
        Err(text) => text,
    };
    Frame::plain(notification_restored(text, &original))
}

/// A notification of a subscription with the client's id (`original`) in place of the
/// proxy's; any other message as it is.
fn notification_restored(text: String, original: &Value) -> String {
    if !text.contains(crate::revision::SUBSCRIPTION_ID) {
        return text;
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
        let read = message::read(text).map_err(|(text, _)| text);
        let (answered, progress, subscription) = match &read {
            Ok(Message {
                kind:
                    Kind::Response {
                        id: Some(id),
                        error,
                    },
                ..
            }) => (Some((id.clone(), *error)), None, None),
            Ok(Message {
                kind: Kind::Notification { method },
                text,
                ..
            }) if method == "notifications/progress" => (None, progress_token(text), None),
            Ok(Message {
                kind: Kind::Notification { .. },
                text,
                ..
            }) => (None, None, subscription_of(text)),
            _ => (None, None, None),
        };
        let target = {
            let mut streams = lock(&session.streams);
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
            let Streams {
                posts,
                get,
                backlog,
                replay,
            } = &mut *streams;
            match own {
                Some(at) => {
                    let post = &mut posts[at];
                    if let Some((id, _)) = &answered {
                        post.waiting.remove(id);
                    }
                    let connection = post.events.connection();
                    let delivery = match &post.routed {
                        Some((_, original)) => Delivery::Restore {
                            message: Box::new(read),
                            original: original.clone(),
                        },
                        None => Delivery::Ready(post.events.stamp(text_of(read), replay)),
                    };
                    if post.waiting.is_empty() {
                        posts.remove(at);
                    }
                    Some((connection, delivery))
                }
                // An agent's requests come from clients that share nothing else: what belongs
                // to none of their streams reaches none of them.
                None if session.stateless => None,
                None => {
                    let open = get.as_mut().filter(|get| get.connected()).or_else(|| {
                        posts
                            .iter_mut()
                            .rev()
                            .map(|post| &mut post.events)
                            .find(|events| events.connected())
                    });
                    match open {
                        Some(events) => Some((
                            events.connection(),
                            Delivery::Ready(events.stamp(text_of(read), replay)),
                        )),
                        None => {
                            if backlog.len() < BACKLOG {
                                backlog.push_back(text_of(read));
                            }
                            None
                        }
                    }
                }
            }
        };
        // A client that does not read its stream holds this send: the session's close ends it.
        // A resumable stream without a connection has kept the event for its client's return.
        if let Some((Some(connection), delivery)) = target {
            let frame = match delivery {
                Delivery::Ready(frame) => frame,
                Delivery::Restore { message, original } => restored(*message, original),
            };
            tokio::select! {
                sent = connection.send(frame) => drop(sent),
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

/// The text of a message as read by [`message::read`], whether it could be or not.
fn text_of(read: Result<Message, String>) -> String {
    match read {
        Ok(message) => message.text,
        Err(text) => text,
    }
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

/// An SSE response carrying each event of `connection`.
pub(super) fn sse(connection: mpsc::Receiver<Frame>) -> Response {
    events::response(None, connection, ())
}

/// Held by what answers a stateless request (its handler, then its response's stream): dropped
/// before its answer went out (the client went away), it runs what it was given, once, as a
/// task of its own; a request answered in full lets it go ([`Gone::answered`]) and nothing
/// runs, so the common case costs no task.
pub(super) struct Gone(Option<Box<dyn FnOnce() + Send>>);

impl Gone {
    /// A guard that runs `when_gone` if it is dropped before [`Gone::answered`].
    pub(super) fn new(when_gone: impl FnOnce() + Send + 'static) -> Gone {
        Gone(Some(Box::new(when_gone)))
    }

    /// The request's answer went out whole: nothing is to be done.
    pub(super) fn answered(mut self) {
        self.0 = None;
    }
}

impl Drop for Gone {
    fn drop(&mut self) {
        if let Some(when_gone) = self.0.take() {
            when_gone();
        }
    }
}

/// [`sse`] whose stream starts with `first` (an event already taken from `connection`) and
/// holds `gone` until it is dropped (its last event sent, or its client gone).
pub(super) fn sse_until(
    first: Option<Frame>,
    connection: mpsc::Receiver<Frame>,
    gone: Option<Gone>,
) -> Response {
    events::response(first, connection, gone)
}

#[cfg(test)]
mod tests;
