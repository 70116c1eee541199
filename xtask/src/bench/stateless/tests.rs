use std::io::Cursor;

use super::*;

/// An answer of `small` with `id`, as both servers write it.
fn small(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": SMALL_TEXT}]}})
        .to_string()
}

/// `text` as HTTP/1.1 chunks of at most `size` bytes, with the last chunk.
fn chunked(text: &str, size: usize) -> String {
    let mut out = String::new();
    for piece in text.as_bytes().chunks(size) {
        out.push_str(&format!("{:x}\r\n", piece.len()));
        out.push_str(std::str::from_utf8(piece).unwrap());
        out.push_str("\r\n");
    }
    out + "0\r\n\r\n"
}

#[test]
fn a_json_answer_is_read_by_its_content_length_and_the_next_response_follows() {
    let body = small(3);
    let next = small(4);
    let wire = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}\
         HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{next}",
        body.len(),
        next.len()
    );
    let mut reader = Cursor::new(wire.into_bytes());
    let (_, answer) = answer_to(&mut reader, 3).unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], SMALL_TEXT);
    let (_, answer) = answer_to(&mut reader, 4).unwrap();
    assert_eq!(answer["id"], 4);
}

#[test]
fn an_sse_answer_is_found_among_other_events_across_chunks_and_read_to_its_end() {
    let events = format!(
        "id: 0\ndata:\n\n\
         data: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{}}}}\n\n\
         data: {}\n\n",
        small(7)
    );
    let wire = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n{}\
         HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{{}}",
        chunked(&events, 5)
    );
    let mut reader = Cursor::new(wire.into_bytes());
    let (_, answer) = answer_to(&mut reader, 7).unwrap();
    assert_eq!(answer["id"], 7);
    // The stream was read to its last chunk: the next response starts where it ended.
    assert_eq!(line(&mut reader).unwrap(), "HTTP/1.1 200 OK");
}

#[test]
fn a_refusal_or_a_stream_without_the_answer_is_an_error() {
    let refused = "HTTP/1.1 400 Bad Request\r\ncontent-length: 7\r\n\r\nrefused";
    let error = answer_to(&mut Cursor::new(refused.as_bytes()), 1).unwrap_err();
    assert!(error.to_string().contains("400"), "{error}");
    let other = format!(
        "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n{}",
        chunked(&format!("data: {}\n\n", small(2)), 64)
    );
    let error = answer_to(&mut Cursor::new(other.into_bytes()), 1).unwrap_err();
    assert!(error.to_string().contains("without the answer"), "{error}");
    let cut = "HTTP/1.1 200 OK\r\ncontent-length: 10\r\n";
    assert!(answer_to(&mut Cursor::new(cut.as_bytes()), 1).is_err());
}

#[test]
fn the_request_mirrors_its_body_in_the_headers_of_the_revision() {
    let body = call_small(5);
    let message: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(message["method"], "tools/call");
    assert_eq!(message["params"]["name"], "small");
    assert_eq!(
        message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    let request = post("127.0.0.1:9", &body);
    let (head, sent) = request.split_once("\r\n\r\n").unwrap();
    assert_eq!(sent, body);
    for header in [
        "POST /mcp HTTP/1.1",
        "Host: 127.0.0.1:9",
        "MCP-Protocol-Version: 2026-07-28",
        "Mcp-Method: tools/call",
        "Mcp-Name: small",
        &format!("Content-Length: {}", body.len()),
    ] {
        assert!(
            head.lines().any(|line| line == header),
            "{header} in {head}"
        );
    }
    assert!(
        !head.to_ascii_lowercase().contains("mcp-session-id"),
        "no session"
    );
}

#[test]
fn cpu_time_is_utime_and_stime_counted_after_the_name() {
    // The name may hold spaces and parentheses; utime 250 and stime 50 ticks.
    let stat = "4242 (tokio (x) 1) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 50 0 0 20 0 9 0 \
                100 1000000 500 18446744073709551615";
    assert_eq!(cpu_of_stat(stat, 100), Some(Duration::from_millis(3_000)));
    assert_eq!(cpu_of_stat(stat, 1_000), Some(Duration::from_millis(300)));
    assert_eq!(cpu_of_stat("4242 (cut) S 1", 100), None);
    let own = cpu_time(std::process::id(), ticks_per_second());
    if cfg!(target_os = "linux") {
        assert!(own.is_ok(), "{own:?}");
    }
}

#[test]
fn the_figures_are_every_id_the_rows_name() {
    let figures = measured(&Figures {
        direct: Duration::from_micros(100),
        proxied: Duration::from_micros(180),
        direct_cpu: Duration::from_micros(40),
        proxied_cpu: Duration::from_micros(70),
    });
    assert_eq!(
        figures[stateless::ROUND_TRIP_PROXIED],
        Measured::Time {
            seconds: 180e-6,
            bytes: None
        }
    );
    let ids: Vec<String> = super::super::scenarios::all(true, true)
        .into_iter()
        .filter(|s| s.ours.starts_with("stateless/"))
        .flat_map(|s| [Some(s.ours), s.baseline].into_iter().flatten())
        .collect();
    assert_eq!(ids.len(), 4, "{ids:?}");
    assert!(ids.iter().all(|id| figures.contains_key(id)), "{ids:?}");
}

#[test]
fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
    let micros = |list: &[u64]| list.iter().map(|&m| Duration::from_micros(m)).collect();
    assert_eq!(median(micros(&[3, 1, 2])), Duration::from_micros(2));
    assert_eq!(
        median(micros(&[4, 1, 3, 2])),
        Duration::from_micros(2) + Duration::from_nanos(500)
    );
    assert_eq!(median(Vec::new()), Duration::ZERO);
}
