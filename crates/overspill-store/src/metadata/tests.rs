use std::time::{Duration, UNIX_EPOCH};

use super::*;

fn sample() -> Metadata {
    Metadata {
        file_name: "k8s_list_pods-0123456789abcdef.json".into(),
        tool: "k8s_list_pods".into(),
        server: Some("k8s".into()),
        created: UNIX_EPOCH + Duration::from_millis(1_796_000_000_123),
        bytes: 1234,
        lines: 56,
        tokens: Some(TokenTally {
            tokens: 789,
            counter: "o200k_base".into(),
        }),
        format: Format::Json,
        companions: vec![Companion {
            key: "body".into(),
            file_name: "k8s_list_pods-0123456789abcdef.body.md".into(),
            format: Format::Markdown,
            lines: 12,
            bytes: 300,
        }],
    }
}

#[test]
fn record_round_trips() {
    let meta = sample();
    assert_eq!(decode(&encode(&meta), Path::new("x")), Some(meta));
}

#[test]
fn record_without_server_or_tokens_round_trips_and_omits_them() {
    let meta = Metadata {
        server: None,
        tokens: None,
        companions: vec![],
        ..sample()
    };
    let text = encode(&meta);
    assert!(
        !text.contains("server") && !text.contains("tokens") && !text.contains("counter"),
        "{text}"
    );
    assert_eq!(decode(&text, Path::new("x")), Some(meta));
}

#[test]
fn record_keeps_fields_in_a_readable_order() {
    let text = encode(&sample());
    let keys: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  \""))
        .map(|l| l.trim().split('"').nth(1).unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "version",
            "file_name",
            "tool",
            "server",
            "created",
            "bytes",
            "lines",
            "tokens",
            "counter",
            "format",
            "companions"
        ]
    );
}

#[test]
fn unreadable_record_is_skipped() {
    assert_eq!(decode("{not json", Path::new("x")), None);
    let bad_time = encode(&sample()).replace("2026-", "20x6-");
    assert_eq!(decode(&bad_time, Path::new("x")), None);
}
