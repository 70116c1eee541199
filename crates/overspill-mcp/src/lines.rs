//! Newline-delimited JSON-RPC over byte streams (the stdio transport): reading lines with a
//! length limit and handing them to the relay, and writing queued messages in order.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, watch};

use crate::MAX_LINE_BYTES;
use crate::relay::{Relay, ServerEnd, Unreadable};

/// How much of the start and of the end of a line over the limit is kept: enough to find the
/// id of the message it held, at its start or at its end.
const KEPT_ENDS: usize = 4 * 1024;

/// One line read.
#[derive(Debug, PartialEq)]
pub(crate) enum Line {
    /// A line's text, without its line ending.
    Text(String),
    /// A line that is not UTF-8, as its bytes.
    NotUtf8(Vec<u8>),
    /// A line longer than the limit: skipped up to its end, never held in memory but for its
    /// first and last few KiB.
    TooLong { head: Vec<u8>, tail: Vec<u8> },
}

/// Reads the next non-empty line, up to `limit` bytes; `None` at the end of the stream.
///
/// # Errors
///
/// The stream's read error.
pub(crate) async fn next_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    limit: usize,
) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    // Once over the limit: the line's first and last bytes.
    let mut ends: Option<(Vec<u8>, Vec<u8>)> = None;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            // The end of the stream: a last line without a newline still counts.
            return Ok(finish(line, ends));
        }
        let (taken, ended) = match memchr::memchr(b'\n', available) {
            Some(at) => (at, true),
            None => (available.len(), false),
        };
        let piece = &available[..taken];
        match &mut ends {
            None if line.len() + taken > limit => {
                let mut tail = std::mem::take(&mut line);
                tail.extend_from_slice(piece);
                let head = tail[..tail.len().min(KEPT_ENDS)].to_vec();
                keep_last(&mut tail, &[]);
                ends = Some((head, tail));
            }
            None => line.extend_from_slice(piece),
            Some((head, tail)) => {
                let wanted = KEPT_ENDS.saturating_sub(head.len()).min(piece.len());
                head.extend_from_slice(&piece[..wanted]);
                keep_last(tail, piece);
            }
        }
        reader.consume(taken + usize::from(ended));
        if ended && let Some(found) = finish(std::mem::take(&mut line), ends.take()) {
            return Ok(Some(found));
        }
    }
}

/// Appends `piece` to `tail` and keeps its last [`KEPT_ENDS`] bytes.
fn keep_last(tail: &mut Vec<u8>, piece: &[u8]) {
    if piece.len() >= KEPT_ENDS {
        tail.clear();
        tail.extend_from_slice(&piece[piece.len() - KEPT_ENDS..]);
        return;
    }
    tail.extend_from_slice(piece);
    if tail.len() > KEPT_ENDS {
        tail.drain(..tail.len() - KEPT_ENDS);
    }
}

fn finish(mut line: Vec<u8>, ends: Option<(Vec<u8>, Vec<u8>)>) -> Option<Line> {
    if let Some((head, mut tail)) = ends {
        if tail.last() == Some(&b'\r') {
            tail.pop();
        }
        return Some(Line::TooLong { head, tail });
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    Some(match String::from_utf8(line) {
        Ok(text) => Line::Text(text),
        Err(error) => Line::NotUtf8(error.into_bytes()),
    })
}

/// The read buffer per side: large results arrive in few reads.
const READ_BUFFER: usize = 1 << 20;

/// Which side a reader reads: the client, or one server.
#[derive(Clone)]
pub(crate) enum Side {
    Client(Relay),
    Server(ServerEnd),
}

/// Hands each line of one side to the relay until the stream ends.
pub(crate) async fn read_side<R: AsyncRead + Unpin>(read: R, side: Side) {
    let mut reader = BufReader::with_capacity(READ_BUFFER, read);
    loop {
        let unreadable = match next_line(&mut reader, MAX_LINE_BYTES).await {
            Ok(Some(Line::Text(text))) => {
                match &side {
                    Side::Client(relay) => relay.client_says(text).await,
                    Side::Server(server) => server.says(text).await,
                }
                continue;
            }
            Ok(Some(Line::TooLong { head, tail })) => {
                Unreadable::too_long(MAX_LINE_BYTES, &head, &tail)
            }
            Ok(Some(Line::NotUtf8(line))) => Unreadable::not_utf8(&line),
            Ok(None) | Err(_) => return,
        };
        match &side {
            Side::Client(relay) => relay.client_unreadable(unreadable).await,
            Side::Server(server) => server.unreadable(unreadable).await,
        }
    }
}

/// Writes each queued message as one line, flushing whenever the queue is empty, until the
/// queue closes, a write fails (the reader is gone), or `stop` is raised — then what is
/// already queued is written first.
pub(crate) async fn write_lines<W: AsyncWrite + Unpin>(
    mut write: W,
    mut queue: mpsc::Receiver<String>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        let next = tokio::select! {
            biased;
            text = queue.recv() => text,
            _ = stop.wait_for(|stop| *stop) => None,
        };
        let Some(text) = next else {
            break;
        };
        if write_one(&mut write, &text).await.is_err() {
            return;
        }
        if queue.is_empty() && write.flush().await.is_err() {
            return;
        }
    }
    // Stopping (or every sender gone): what is queued still goes out.
    while let Ok(text) = queue.try_recv() {
        if write_one(&mut write, &text).await.is_err() {
            return;
        }
    }
    let _ = write.flush().await;
    let _ = write.shutdown().await;
}

/// Writes one message and its line end: a small message in one `write` (a pipe that is not
/// buffered would otherwise take two system calls per message), a large one as it is, then the
/// line end (no copy of megabytes to save one call).
async fn write_one<W: AsyncWrite + Unpin>(write: &mut W, text: &str) -> std::io::Result<()> {
    if text.len() <= ONE_WRITE_BYTES {
        let mut line = Vec::with_capacity(text.len() + 1);
        line.extend_from_slice(text.as_bytes());
        line.push(b'\n');
        return write.write_all(&line).await;
    }
    write.write_all(text.as_bytes()).await?;
    write.write_all(b"\n").await
}

/// The largest message copied to be written with its line end in one call.
const ONE_WRITE_BYTES: usize = 64 * 1024;

#[cfg(test)]
mod tests;
