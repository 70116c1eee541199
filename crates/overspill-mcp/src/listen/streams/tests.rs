use super::*;

fn waiting(id: u64) -> HashSet<Id> {
    HashSet::from([Id::of(&Value::from(id)).unwrap()])
}

#[test]
fn a_session_keeps_at_most_its_bound_of_posts_waiting_for_their_client_to_come_back() {
    let mut streams = Streams::default();
    let mut plain = Vec::new();
    for id in 0..DETACHED as u64 + 44 {
        // Each client goes at once: its connection ends with its receiver.
        drop(streams.open_post(Streaming::Resumable, waiting(id), Vec::new(), None));
        plain.push(streams.open_post(Streaming::Plain, waiting(id), Vec::new(), None));
    }
    drop(plain);
    streams.forget_closed_posts();
    assert_eq!(
        streams.posts.len(),
        DETACHED,
        "plain ones forgotten, resumable ones bounded"
    );
    assert!(streams.posts.iter().all(|post| post.events.resumable()));
    // The oldest were forgotten first.
    let first = streams.posts[0].waiting.iter().next().cloned();
    assert_eq!(first, Id::of(&Value::from(44u64)));
}

#[test]
fn a_server_that_closes_a_stream_closes_its_clients_only_when_it_can_be_resumed() {
    let mut streams = Streams::default();
    let _resumable = streams.open_post(Streaming::Resumable, waiting(1), Vec::new(), None);
    let _plain = streams.open_post(Streaming::Plain, waiting(2), Vec::new(), None);
    for id in [1u64, 2] {
        streams.server_closed(&Id::of(&Value::from(id)).unwrap());
    }
    let connected: Vec<bool> = streams
        .posts
        .iter()
        .map(|post| post.events.connected())
        .collect();
    assert_eq!(connected, [false, true]);
    // The closed one waits for its client: the session is not idle.
    assert!(streams.open());
}
