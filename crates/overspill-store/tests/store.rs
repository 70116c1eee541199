//! `Store::write_output` end to end: formats, pretty JSON, names, companions, metadata.

// Helpers outside #[test] fns panic on fixture failures like the tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

use overspill_store::{
    Format, METADATA_DIR, Output, PathError, ReadRoot, Store, TextLayout, TokenTally, content_hash,
};

fn output<'a>(tool: &'a str, content: &'a str) -> Output<'a> {
    Output {
        tool,
        server: None,
        content,
        tokens: None,
        text_layout: TextLayout::Reindented,
    }
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn stored_json_keeps_key_order_and_round_trips_to_an_equal_value() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let content = r#"{"zeta":1,"alpha":{"y":[3,2,1],"b":null},"mid":"m","big":123456789012345678901234567890,"f":1.0,"huge":1e400,"esc":"\u00e9\n"}"#;
    let stored = store.write_output(&output("t", content)).unwrap();
    let text = fs::read_to_string(&stored.path).unwrap();

    let keys: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  \""))
        .map(|l| l.trim_start().split('"').nth(1).unwrap())
        .collect();
    assert_eq!(keys, ["zeta", "alpha", "mid", "big", "f", "huge", "esc"]);
    // Every token is kept byte for byte; only whitespace changed.
    for token in [
        "123456789012345678901234567890",
        "1.0",
        "1e400",
        r#""\u00e9\n""#,
    ] {
        assert!(text.contains(token), "{token} missing from {text}");
    }
    let strip = |s: &str| s.split_whitespace().collect::<String>();
    assert_eq!(strip(&text), strip(content));
    // A parser reads the same value from both (serde_json refuses 1e400, so compare without it).
    let parseable = content.replace(",\"huge\":1e400", "");
    let stored = store.write_output(&output("t", &parseable)).unwrap();
    let a: serde_json::Value = serde_json::from_str(&parseable).unwrap();
    let b: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&stored.path).unwrap()).unwrap();
    assert_eq!(a, b);
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap(),
        "key order differs"
    );
}

#[test]
fn five_megabyte_one_line_json_becomes_many_lines() {
    let items: Vec<String> = (0..60_000)
        .map(|i| format!(r#"{{"id":{i},"name":"pod-{i}","labels":{{"app":"web","tier":"t{}"}},"ready":true,"restarts":[{i},0]}}"#, i % 7))
        .collect();
    let content = format!(r#"{{"kind":"PodList","items":[{}]}}"#, items.join(","));
    assert!(content.len() > 5_000_000 && !content.contains('\n'));
    let dir = tempfile::tempdir().unwrap();
    let stored = Store::open(dir.path())
        .unwrap()
        .write_output(&output("k8s_list_pods", &content))
        .unwrap();
    assert_eq!(stored.format, Format::Json);
    assert!(stored.lines > 600_000, "{} lines", stored.lines);
    let text = fs::read_to_string(&stored.path).unwrap();
    assert_eq!(text.lines().count(), stored.lines);
    assert!(text.lines().all(|l| l.len() < 100));
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&text).unwrap(),
        serde_json::from_str::<serde_json::Value>(&content).unwrap()
    );
}

#[test]
fn markdown_and_text_are_stored_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    for (content, format, ext) in [
        (
            "# Title\r\n\ttabs  and trailing  \n",
            Format::Markdown,
            "md",
        ),
        ("#!/bin/sh\necho hi", Format::Text, "txt"),
        ("42", Format::Text, "txt"),
    ] {
        let stored = store.write_output(&output("t", content)).unwrap();
        assert_eq!(stored.format, format);
        assert!(stored.file_name.ends_with(ext));
        assert_eq!(fs::read(&stored.path).unwrap(), content.as_bytes());
    }
}

#[test]
fn file_name_is_sanitised_tool_dash_hash_of_stored_content() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let stored = store
        .write_output(&output("k8s/list pods", "plain text"))
        .unwrap();
    assert_eq!(
        stored.file_name,
        format!("k8s_list_pods-{}.txt", content_hash(b"plain text"))
    );
    let json = store.write_output(&output("t", "[1]")).unwrap();
    assert_eq!(
        json.file_name,
        format!("t-{}.json", content_hash(b"[\n  1\n]\n"))
    );
    let long = store.write_output(&output(&"x".repeat(100), "a")).unwrap();
    assert_eq!(long.file_name.split('-').next().unwrap().len(), 64);
    let empty = store.write_output(&output("", "a")).unwrap();
    assert!(empty.file_name.starts_with("output-"));
}

#[test]
fn writing_the_same_output_twice_gives_the_same_name_and_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let first = store.write_output(&output("t", r#"{"a": 1}"#)).unwrap();
    // The same value written differently pretty-prints identically, so it is the same file.
    let second = store.write_output(&output("t", "{\n\"a\":1}")).unwrap();
    assert!(!first.already_existed && second.already_existed);
    assert_eq!(first.file_name, second.file_name);
    assert_eq!(
        entries(dir.path()),
        [METADATA_DIR.to_owned(), first.file_name.clone()]
    );
    // Another tool with the same output gets its own file.
    let other = store.write_output(&output("u", r#"{"a": 1}"#)).unwrap();
    assert_ne!(other.file_name, first.file_name);
}

#[test]
fn deeply_nested_json_is_stored_as_given_and_still_called_json() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let dir = tempfile::tempdir().unwrap();
    let stored = Store::open(dir.path())
        .unwrap()
        .write_output(&output("t", &deep))
        .unwrap();
    assert_eq!(stored.format, Format::Json);
    assert_eq!(fs::read_to_string(&stored.path).unwrap(), deep);
}

/// `content` of `tool`, to be stored byte for byte.
fn as_given<'a>(tool: &'a str, content: &'a str) -> Output<'a> {
    Output {
        text_layout: TextLayout::AsGiven,
        ..output(tool, content)
    }
}

#[test]
fn minified_json_stored_as_given_keeps_its_bytes_and_lines_and_is_still_json() {
    let manifest = r#"{"name":"payments-api","version":"2.4.1","private":true,"scripts":{"build":"tsc -p .","test":"vitest run"},"dependencies":{"express":"^4.19.2","pg":"^8.11.5","zod":"^3.23.8"}}"#;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();

    let given = store.write_output(&as_given("Read", manifest)).unwrap();
    assert_eq!(fs::read(&given.path).unwrap(), manifest.as_bytes());
    assert_eq!(given.format, Format::Json);
    assert_eq!((given.lines, given.bytes), (1, manifest.len() as u64));
    assert_eq!(
        given.file_name,
        format!("Read-{}.json", content_hash(manifest.as_bytes()))
    );
    let meta = store.metadata(&given.file_name).unwrap();
    assert_eq!((meta.lines, meta.format), (1, Format::Json));

    // The default still re-indents: another file, one member per line.
    let reindented = store.write_output(&output("Read", manifest)).unwrap();
    assert_ne!(reindented.file_name, given.file_name);
    let text = fs::read_to_string(&reindented.path).unwrap();
    assert!(
        text.starts_with("{\n  \"name\": \"payments-api\",\n"),
        "{text}"
    );
    assert_eq!(reindented.lines, 14);
}

#[test]
fn json_indented_its_own_way_and_stored_as_given_keeps_every_line() {
    let config = "{\n\t\"listen\": \":8080\",\n\t\"upstreams\": [ \"10.0.0.1\", \"10.0.0.2\" ],\r\n\t\"tls\": { \"cert\": \"/etc/tls/cert.pem\" }\n}";
    let dir = tempfile::tempdir().unwrap();
    let stored = Store::open(dir.path())
        .unwrap()
        .write_output(&as_given("Read", config))
        .unwrap();
    assert_eq!(stored.format, Format::Json);
    assert_eq!(fs::read_to_string(&stored.path).unwrap(), config);
    assert_eq!(stored.lines, config.lines().count());
}

#[test]
fn json_stored_as_given_has_the_companions_it_would_have_reindented() {
    let report: String = std::iter::once("# Incident 4411\n".to_owned())
        .chain((1..12).map(|i| format!("- 10:{i:02} api-7f9c8d6b5 restarted\n")))
        .collect();
    let content =
        serde_json::to_string(&serde_json::json!({"status": "resolved", "report": report}))
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let given = store.write_output(&as_given("t", &content)).unwrap();
    let reindented = store.write_output(&output("t", &content)).unwrap();
    let keys = |stored: &overspill_store::Stored| -> Vec<(String, Format, usize)> {
        stored
            .companions
            .iter()
            .map(|c| (c.key.clone(), c.format, c.lines))
            .collect()
    };
    assert_eq!(keys(&given), [("report".to_owned(), Format::Markdown, 12)]);
    assert_eq!(keys(&given), keys(&reindented));
    let stem = given.file_name.trim_end_matches(".json");
    assert_eq!(
        fs::read_to_string(dir.path().join(format!("{stem}.report.md"))).unwrap(),
        report
    );
}

#[test]
fn companions_are_written_beside_the_output_and_reported() {
    let report: String = std::iter::once("# Report\n".to_owned())
        .chain((1..12).map(|i| format!("- finding {i}\n")))
        .collect();
    let body =
        serde_json::to_string(&serde_json::json!({"items": (0..10).collect::<Vec<_>>()})).unwrap();
    let content = serde_json::to_string(
        &serde_json::json!({"status": "ok", "body": body, "report": report, "short": "# x\n"}),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let stored = store.write_output(&output("tool", &content)).unwrap();
    let stem = stored.file_name.trim_end_matches(".json");
    let names: Vec<(&str, &str, Format)> = stored
        .companions
        .iter()
        .map(|c| (c.key.as_str(), c.file_name.as_str(), c.format))
        .collect();
    assert_eq!(
        names,
        [
            ("body", format!("{stem}.body.json").as_str(), Format::Json),
            (
                "report",
                format!("{stem}.report.md").as_str(),
                Format::Markdown
            )
        ]
    );
    assert_eq!(
        fs::read_to_string(dir.path().join(format!("{stem}.report.md"))).unwrap(),
        report
    );
    let body_file = fs::read_to_string(dir.path().join(format!("{stem}.body.json"))).unwrap();
    assert!(body_file.starts_with("{\n  \"items\": [\n"));
    assert_eq!(stored.companions[0].lines, body_file.lines().count());
    // Writing again reports the same companions.
    assert_eq!(
        store
            .write_output(&output("tool", &content))
            .unwrap()
            .companions,
        stored.companions
    );
}

#[test]
fn metadata_records_every_field_and_list_returns_them_oldest_first() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let tally = TokenTally {
        tokens: 9000,
        counter: "o200k_base".into(),
    };
    let first = store
        .write_output(&Output {
            tool: "k8s.get",
            server: Some("k8s"),
            content: "# H\nbody\n",
            tokens: Some(tally.clone()),
            text_layout: TextLayout::Reindented,
        })
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3));
    let second = store.write_output(&output("t", "[1,2]")).unwrap();
    let list = store.list().unwrap();
    assert_eq!(list.len(), 2);
    let m = &list[0];
    assert_eq!(
        (m.file_name.as_str(), m.tool.as_str(), m.server.as_deref()),
        (first.file_name.as_str(), "k8s.get", Some("k8s"))
    );
    assert_eq!(
        (m.bytes, m.lines, m.format, m.tokens.as_ref()),
        (first.bytes, 2, Format::Markdown, Some(&tally))
    );
    assert!(m.created_rfc3339().ends_with('Z'));
    assert_eq!(
        (
            list[1].file_name.as_str(),
            list[1].tokens.as_ref(),
            list[1].lines
        ),
        (second.file_name.as_str(), None, 4)
    );
    assert_eq!(store.metadata(&first.file_name).as_ref(), Some(m));
    assert_eq!(store.metadata("../etc"), None);
}

#[test]
fn a_second_write_keeps_the_first_creation_time() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let stored = store.write_output(&output("t", "x")).unwrap();
    let created = store.metadata(&stored.file_name).unwrap().created;
    std::thread::sleep(std::time::Duration::from_millis(5));
    store.write_output(&output("t", "x")).unwrap();
    assert_eq!(store.metadata(&stored.file_name).unwrap().created, created);
}

#[test]
fn exploration_never_reaches_the_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let stored = store.write_output(&output("t", "x")).unwrap();
    let root = ReadRoot::new(dir.path()).unwrap();
    assert!(root.resolve(&stored.file_name).is_ok());
    let record = format!("{METADATA_DIR}/{}.json", stored.file_name);
    assert!(dir.path().join(&record).is_file());
    assert!(matches!(root.resolve(&record), Err(PathError::NotFound)));
    assert!(matches!(
        root.resolve(METADATA_DIR),
        Err(PathError::NotFound)
    ));
}

#[test]
fn an_unreadable_metadata_record_is_skipped_by_list() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    store.write_output(&output("t", "x")).unwrap();
    fs::write(dir.path().join(METADATA_DIR).join("junk.json"), "{").unwrap();
    assert_eq!(store.list().unwrap().len(), 1);
}

#[test]
fn a_removed_store_dir_is_recreated_on_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("s")).unwrap();
    fs::remove_dir_all(dir.path().join("s")).unwrap();
    let stored = store.write_output(&output("t", "x")).unwrap();
    assert_eq!(fs::read_to_string(stored.path).unwrap(), "x");
}

#[cfg(unix)]
#[test]
fn store_dirs_are_0700_and_files_0600() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("m/scratchpad")).unwrap();
    let stored = store.write_output(&output("t", "x")).unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir.path().join("m")), 0o700);
    assert_eq!(mode(store.dir()), 0o700);
    assert_eq!(mode(&store.dir().join(METADATA_DIR)), 0o700);
    assert_eq!(mode(&stored.path), 0o600);
    assert_eq!(
        mode(
            &store
                .dir()
                .join(METADATA_DIR)
                .join(format!("{}.json", stored.file_name))
        ),
        0o600
    );
}

#[test]
fn deeply_nested_text_that_is_not_json_is_stored_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let content = format!("{}not json", "[".repeat(100_000));
    let stored = store.write_output(&output("deep", &content)).unwrap();
    assert!(stored.file_name.ends_with(".txt"), "{}", stored.file_name);
}

#[test]
fn write_content_then_record_metadata_is_write_output_in_two_steps() {
    let (split, whole) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let content = r#"{"items":[{"name":"web-1"},{"name":"web-2"}]}"#;
    let tally = Some(TokenTally {
        tokens: 17,
        counter: "o200k_base".to_owned(),
    });

    let store = Store::open(split.path()).unwrap();
    let mut first = output("k8s_list_pods", content);
    let stored = store.write_content(&first).unwrap();
    assert!(stored.path.is_file());
    assert!(
        store.list().unwrap().is_empty(),
        "no record before record_metadata"
    );
    first.tokens = tally.clone();
    store.record_metadata(&first, &stored).unwrap();

    let reference = Store::open(whole.path()).unwrap();
    let mut second = output("k8s_list_pods", content);
    second.tokens = tally;
    let expected = reference.write_output(&second).unwrap();

    assert_eq!(stored.file_name, expected.file_name);
    assert_eq!(
        fs::read(&stored.path).unwrap(),
        fs::read(&expected.path).unwrap()
    );
    let (a, b) = (store.list().unwrap(), reference.list().unwrap());
    assert_eq!(a.len(), 1);
    assert_eq!(
        (a[0].tokens.clone(), a[0].bytes, a[0].lines),
        (b[0].tokens.clone(), b[0].bytes, b[0].lines)
    );
}
