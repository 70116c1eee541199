//! The SSE events of a `--listen` session's streams as they go out, and how a client resumes a
//! stream whose connection it lost (docs/mcp-proxy.md#resuming-a-stream).
//!
//! A stream of a 2025-11-25 client is resumable (SEP-1699, [`Streaming::Resumable`]): it opens
//! with a priming event (an id, empty data, and the `retry` delay a client waits before it comes
//! back), every event after it has an id naming its stream and its place in it, and the session
//! keeps its latest events, within [`REPLAY_EVENTS`] and [`REPLAY_BYTES`], so that a GET with
//! `Last-Event-ID` replays what came after that event. Every other stream is plain: no ids, nothing
//! kept. Which stream a resumed id names, and what is live, is [`super::streams`]' business.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::Response;
use tokio::sync::mpsc;

use crate::revision::Streaming;

/// How long a client waits before it resumes a stream that closed before its answer (the
/// priming event's `retry`).
pub(super) const RETRY: Duration = Duration::from_secs(1);

/// The most events a session keeps for clients that resume their streams; the oldest go first.
pub(super) const REPLAY_EVENTS: usize = 1024;

/// The most bytes of message text a session keeps for clients that resume their streams; the
/// oldest events go first, and an event larger than this is never kept.
pub(super) const REPLAY_BYTES: usize = 4 << 20;

/// How often an SSE response that has nothing to say sends a comment, so that an intermediary
/// does not take it for dead.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The id of an event of a resumable stream: the stream's number in its session, and the
/// event's place in the stream (0 is the priming event). Written `<stream>-<place>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct EventId {
    pub(super) stream: u64,
    pub(super) place: u64,
}

impl EventId {
    /// The id a client sent back in `Last-Event-ID`, if it is one this proxy writes.
    pub(super) fn parse(text: &str) -> Option<EventId> {
        let (stream, place) = text.split_once('-')?;
        let number = |digits: &str| {
            (!digits.is_empty() && digits.bytes().all(|byte| byte.is_ascii_digit()))
                .then(|| digits.parse::<u64>().ok())
                .flatten()
        };
        Some(EventId {
            stream: number(stream)?,
            place: number(place)?,
        })
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.stream, self.place)
    }
}

/// One SSE event on its way to a client.
#[derive(Debug, Clone)]
pub(super) enum Frame {
    /// SEP-1699's priming event: the stream's first id, empty data, and [`RETRY`].
    Priming(EventId),
    /// A message, with its id on a resumable stream. Shared with the replay buffer, never
    /// copied for it.
    Message {
        id: Option<EventId>,
        text: Arc<String>,
    },
    /// The answer to a stateless request, on its plain stream: sent as a plain message's event,
    /// or, when it is the first thing to go, as the response's JSON body with `status`
    /// (docs/mcp-proxy.md#stateless-requests).
    Answer { text: String, status: u16 },
}

impl Frame {
    /// A message without an id (a plain stream's).
    pub(super) fn plain(text: String) -> Frame {
        Frame::Message {
            id: None,
            text: Arc::new(text),
        }
    }

    /// The event as the SSE wire format writes it: its id, then its data line by line (a
    /// message with line breaks takes several `data:` lines, which the client joins again).
    /// The priming event's data line is there and empty: a parser dispatches no event without
    /// one, so its id would never reach the client.
    fn encode(&self) -> Bytes {
        match self {
            Frame::Priming(id) => Bytes::from(format!(
                "id: {id}\nretry: {}\ndata: \n\n",
                RETRY.as_millis()
            )),
            Frame::Message { id, text } => encode_message(id.as_ref(), text),
            Frame::Answer { text, .. } => encode_message(None, text),
        }
    }
}

/// A message's event: its id, then its data line by line.
fn encode_message(id: Option<&EventId>, text: &str) -> Bytes {
    let mut out = Vec::with_capacity(text.len() + 32);
    if let Some(id) = id {
        out.extend_from_slice(format!("id: {id}\n").as_bytes());
    }
    let mut rest = text.as_bytes();
    loop {
        out.extend_from_slice(b"data: ");
        match memchr::memchr2(b'\n', b'\r', rest) {
            Some(end) => {
                out.extend_from_slice(&rest[..end]);
                out.push(b'\n');
                rest = &rest[end + 1..];
            }
            None => {
                out.extend_from_slice(rest);
                out.extend_from_slice(b"\n\n");
                return Bytes::from(out);
            }
        }
    }
}

/// One stream of a session to its client: how its events are numbered, and the connection
/// that carries them now (none while a resumable stream waits for its client to come back).
#[derive(Debug)]
pub(super) struct EventStream {
    number: u64,
    streaming: Streaming,
    /// The place of its next event.
    next: u64,
    connection: Option<mpsc::Sender<Frame>>,
}

impl EventStream {
    /// Whether its client can come back for it.
    pub(super) fn resumable(&self) -> bool {
        self.streaming == Streaming::Resumable
    }

    /// Whether a client connection carries it now.
    pub(super) fn connected(&self) -> bool {
        self.connection
            .as_ref()
            .is_some_and(|connection| !connection.is_closed())
    }

    /// Its number in the session (the first part of its event ids).
    pub(super) fn number(&self) -> u64 {
        self.number
    }

    /// The place its next event gets.
    pub(super) fn next_place(&self) -> u64 {
        self.next
    }

    /// The connection that carries it now, if one does.
    pub(super) fn connection(&self) -> Option<mpsc::Sender<Frame>> {
        self.connection
            .clone()
            .filter(|connection| !connection.is_closed())
    }

    /// `text` as the stream's next event: on a resumable stream with its id, and kept in
    /// `replay` for a client that resumes the stream after losing it.
    pub(super) fn stamp(&mut self, text: String, replay: &mut Replay) -> Frame {
        let text = Arc::new(text);
        let id = self.resumable().then(|| {
            let id = EventId {
                stream: self.number,
                place: self.next,
            };
            self.next += 1;
            replay.keep(id, &text);
            id
        });
        Frame::Message { id, text }
    }

    /// Ends the connection that carries it (once what is queued on it has gone out): its
    /// client comes back for the rest with `Last-Event-ID`.
    pub(super) fn disconnect(&mut self) {
        self.connection = None;
    }

    /// A new connection for a client that resumes the stream: it carries `replayed` (what
    /// the stream's client missed, as [`Replay::after`] found it) first, then what comes next.
    /// A connection the stream had ends.
    pub(super) fn reconnect(&mut self, replayed: Vec<Frame>) -> mpsc::Receiver<Frame> {
        let (sender, receiver) = mpsc::channel(STREAM_QUEUE + replayed.len());
        for frame in replayed {
            // Room was made for every one.
            let _ = sender.try_send(frame);
        }
        self.connection = Some(sender);
        receiver
    }
}

/// Messages queued on one SSE connection before the session's router waits.
pub(super) const STREAM_QUEUE: usize = 64;

/// The latest events of a session's resumable streams, oldest first, within
/// [`REPLAY_EVENTS`] and [`REPLAY_BYTES`]; and the numbering of the session's streams.
#[derive(Debug, Default)]
pub(super) struct Replay {
    /// The number the next stream gets.
    streams: u64,
    kept: VecDeque<(EventId, Arc<String>)>,
    /// The bytes of text in `kept`.
    bytes: usize,
}

/// What [`Replay::after`] found of a stream after an event.
#[derive(Debug, Default)]
pub(super) struct Replayed {
    pub(super) frames: Vec<Frame>,
    /// How many events after the one resumed from are no longer kept (dropped for the bounds):
    /// the client misses them.
    pub(super) missed: u64,
}

impl Replay {
    /// A new stream of the session, written as `streaming` says, and its first connection with
    /// room for `waiting` more messages than a connection queues (what waited for it). A
    /// resumable stream's connection carries the priming event first.
    pub(super) fn open(
        &mut self,
        streaming: Streaming,
        waiting: usize,
    ) -> (EventStream, mpsc::Receiver<Frame>) {
        let number = self.streams;
        self.streams += 1;
        let (sender, receiver) = mpsc::channel(STREAM_QUEUE + waiting + 1);
        let mut stream = EventStream {
            number,
            streaming,
            next: 0,
            connection: None,
        };
        if stream.resumable() {
            let _ = sender.try_send(Frame::Priming(EventId {
                stream: number,
                place: 0,
            }));
            stream.next = 1;
        }
        stream.connection = Some(sender);
        (stream, receiver)
    }

    /// Whether `stream` is a number the session gave (to a stream open or ended).
    pub(super) fn gave(&self, stream: u64) -> bool {
        stream < self.streams
    }

    /// The kept events of `after`'s stream that came after it, in order; `next`, for a
    /// stream still open, is the place of its next event (what it sent after the last kept one
    /// is known then).
    pub(super) fn after(&self, after: EventId, next: Option<u64>) -> Replayed {
        let frames: Vec<Frame> = self
            .kept
            .iter()
            .filter(|(id, _)| id.stream == after.stream && id.place > after.place)
            .map(|(id, text)| Frame::Message {
                id: Some(*id),
                text: Arc::clone(text),
            })
            .collect();
        let first = match frames.first() {
            Some(Frame::Message { id: Some(id), .. }) => Some(id.place),
            _ => next,
        };
        let missed = first.map_or(0, |first| first.saturating_sub(after.place + 1));
        Replayed { frames, missed }
    }

    /// Keeps `text`, the event `id`, dropping the oldest events beyond the bounds.
    fn keep(&mut self, id: EventId, text: &Arc<String>) {
        if text.len() > REPLAY_BYTES {
            return;
        }
        self.kept.push_back((id, Arc::clone(text)));
        self.bytes += text.len();
        while self.kept.len() > REPLAY_EVENTS || self.bytes > REPLAY_BYTES {
            let Some((_, dropped)) = self.kept.pop_front() else {
                break;
            };
            self.bytes -= dropped.len();
        }
    }
}

/// An SSE response carrying `first`, then each event of `receiver` until its sender goes,
/// with a comment every [`KEEP_ALIVE`] in between; it holds `held` until it is dropped (its
/// last event sent, or its client gone).
pub(super) fn response(
    first: Option<Frame>,
    receiver: mpsc::Receiver<Frame>,
    held: impl Send + 'static,
) -> Response {
    let state = (first, receiver, held);
    let events = futures_util::stream::unfold(state, |(first, mut receiver, held)| async move {
        let bytes = match first {
            Some(frame) => frame.encode(),
            None => match tokio::time::timeout(KEEP_ALIVE, receiver.recv()).await {
                Ok(Some(frame)) => frame.encode(),
                Ok(None) => return None,
                Err(_) => Bytes::from_static(b":\n\n"),
            },
        };
        Some((Ok::<_, Infallible>(bytes), (None, receiver, held)))
    });
    let mut response = Response::new(Body::from_stream(events));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // A reverse proxy (nginx) passes each event on as it comes instead of buffering them.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// An SSE response that carries `frames` and ends (a resumed stream that had ended).
pub(super) fn replayed(frames: Vec<Frame>) -> Response {
    let (sender, receiver) = mpsc::channel(frames.len().max(1));
    for frame in frames {
        let _ = sender.try_send(frame);
    }
    drop(sender);
    response(None, receiver, ())
}

#[cfg(test)]
mod tests;
