//! Newline-delimited JSON-RPC over byte streams (the stdio transport): reading lines with a
//! length limit, and writing queued messages in order.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, watch};

/// One line read.
#[derive(Debug, PartialEq)]
pub(crate) enum Line {
    /// A line's text, without its line ending.
    Text(String),
    /// A line that is not UTF-8.
    NotUtf8,
    /// A line longer than the limit: skipped up to its end, never held in memory.
    TooLong,
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
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            // The end of the stream: a last line without a newline still counts.
            return Ok(finish(line, too_long));
        }
        let (taken, ended) = match memchr::memchr(b'\n', available) {
            Some(at) => (at, true),
            None => (available.len(), false),
        };
        if !too_long {
            if line.len() + taken > limit {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(&available[..taken]);
            }
        }
        reader.consume(taken + usize::from(ended));
        if ended {
            match finish(std::mem::take(&mut line), too_long) {
                Some(found) => return Ok(Some(found)),
                None => too_long = false,
            }
        }
    }
}

fn finish(mut line: Vec<u8>, too_long: bool) -> Option<Line> {
    if too_long {
        return Some(Line::TooLong);
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    Some(match String::from_utf8(line) {
        Ok(text) => Line::Text(text),
        Err(_) => Line::NotUtf8,
    })
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

async fn write_one<W: AsyncWrite + Unpin>(write: &mut W, text: &str) -> std::io::Result<()> {
    write.write_all(text.as_bytes()).await?;
    write.write_all(b"\n").await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all_lines(input: &[u8], limit: usize) -> Vec<Line> {
        let mut reader = tokio::io::BufReader::with_capacity(4, input);
        let mut lines = Vec::new();
        while let Some(line) = next_line(&mut reader, limit).await.unwrap() {
            lines.push(line);
        }
        lines
    }

    #[tokio::test]
    async fn lines_are_split_on_newlines_without_their_endings_and_blank_ones_skipped() {
        let lines = all_lines(b"{\"a\":1}\r\n\n  \n{\"b\":2}", 100).await;
        assert_eq!(
            lines,
            [
                Line::Text("{\"a\":1}".into()),
                Line::Text("{\"b\":2}".into())
            ]
        );
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_skipped_and_the_next_one_read() {
        let lines = all_lines(b"0123456789abcdef\nok\n", 8).await;
        assert_eq!(lines, [Line::TooLong, Line::Text("ok".into())]);
    }

    #[tokio::test]
    async fn bytes_that_are_not_utf8_are_reported() {
        let lines = all_lines(b"\xff\xfe\nok\n", 8).await;
        assert_eq!(lines, [Line::NotUtf8, Line::Text("ok".into())]);
    }
}
