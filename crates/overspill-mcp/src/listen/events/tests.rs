use super::*;

fn text_of(frame: &Frame) -> String {
    String::from_utf8(frame.encode().to_vec()).unwrap()
}

#[test]
fn an_event_id_reads_back_and_anything_else_is_none() {
    let id = EventId {
        stream: 12,
        place: 3,
    };
    assert_eq!(EventId::parse(&id.to_string()), Some(id));
    for other in ["", "12", "12-", "-3", "a-1", "1-b", "1-2-3", "+1-2", "1- 2"] {
        assert_eq!(EventId::parse(other), None, "{other:?}");
    }
}

#[test]
fn the_priming_event_has_an_id_a_retry_and_one_empty_data_line() {
    let priming = Frame::Priming(EventId {
        stream: 4,
        place: 0,
    });
    assert_eq!(text_of(&priming), "id: 4-0\nretry: 1000\ndata: \n\n");
}

#[test]
fn a_message_with_line_breaks_takes_one_data_line_each() {
    let frame = Frame::Message {
        id: Some(EventId {
            stream: 0,
            place: 7,
        }),
        text: Arc::new("{\"a\":\n1,\r\"b\":2}".to_owned()),
    };
    assert_eq!(
        text_of(&frame),
        "id: 0-7\ndata: {\"a\":\ndata: 1,\ndata: \"b\":2}\n\n"
    );
    assert_eq!(text_of(&Frame::plain("{}".to_owned())), "data: {}\n\n");
}

#[tokio::test]
async fn a_resumable_stream_opens_with_its_priming_event_and_numbers_every_event() {
    let mut replay = Replay::default();
    let (mut plain, _) = replay.open(Streaming::Plain, 0);
    let (mut stream, mut receiver) = replay.open(Streaming::Resumable, 0);
    assert_eq!(stream.number(), 1);
    let Some(Frame::Priming(priming)) = receiver.recv().await else {
        panic!("no priming event first");
    };
    assert_eq!(
        priming,
        EventId {
            stream: 1,
            place: 0
        }
    );
    for place in 1..=3 {
        let Frame::Message { id, .. } = stream.stamp(format!("{place}"), &mut replay) else {
            panic!("a message is a message");
        };
        assert_eq!(id, Some(EventId { stream: 1, place }));
    }
    let Frame::Message { id, .. } = plain.stamp("x".to_owned(), &mut replay) else {
        panic!("a message is a message");
    };
    assert_eq!(id, None, "a plain stream's events have no id");
    // Resumed after its second event: the third is replayed, nothing missed.
    let replayed = replay.after(
        EventId {
            stream: 1,
            place: 2,
        },
        Some(4),
    );
    assert_eq!(replayed.frames.len(), 1);
    assert_eq!(replayed.missed, 0);
    assert!(replay.gave(1) && !replay.gave(2));
}

#[test]
fn the_replay_buffer_keeps_at_most_its_events_and_bytes_dropping_the_oldest() {
    let mut replay = Replay::default();
    let (mut stream, _receiver) = replay.open(Streaming::Resumable, 0);
    for place in 0..REPLAY_EVENTS + 100 {
        stream.stamp(format!("{place}"), &mut replay);
    }
    assert_eq!(replay.kept.len(), REPLAY_EVENTS);
    // From the priming event: the 100 oldest are gone, and said to be.
    let replayed = replay.after(
        EventId {
            stream: 0,
            place: 0,
        },
        Some(stream.next),
    );
    assert_eq!(replayed.frames.len(), REPLAY_EVENTS);
    assert_eq!(replayed.missed, 100);

    let big = "x".repeat(REPLAY_BYTES / 3);
    for _ in 0..5 {
        stream.stamp(big.clone(), &mut replay);
    }
    assert!(replay.bytes <= REPLAY_BYTES, "{} bytes kept", replay.bytes);
    assert_eq!(replay.kept.len(), 3);
    // One event over the bound is sent, never kept; what was kept stays.
    stream.stamp("y".repeat(REPLAY_BYTES + 1), &mut replay);
    assert_eq!(replay.kept.len(), 3);
    assert_eq!(replay.bytes, 3 * big.len());
}
