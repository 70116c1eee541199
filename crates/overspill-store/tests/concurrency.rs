//! Many writers and readers on one store directory (docs/security.md "Concurrency").

// Helpers outside #[test] fns panic on fixture failures like the tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::sync::Barrier;

use overspill_store::{Format, METADATA_DIR, Output, Store, Stored, TextLayout};

const THREADS: usize = 8;
const OUTPUTS_PER_THREAD: usize = 200;

/// Output `i` of thread `t`: even `i` are the same in every thread, odd `i` are unique; a
/// quarter are JSON so the pretty-printing path races too.
fn content(t: usize, i: usize) -> String {
    let owner = if i.is_multiple_of(2) {
        "shared".to_owned()
    } else {
        format!("thread-{t}")
    };
    if i % 4 < 2 {
        format!(
            r#"{{"owner":"{owner}","i":{i},"rows":[{}]}}"#,
            vec!["1.50"; 200].join(",")
        )
    } else {
        format!("{owner} output {i}\n{}", "log line\n".repeat(200))
    }
}

fn holds_exactly(stored: &Stored, content: &str) -> bool {
    let on_disk = fs::read_to_string(&stored.path).unwrap();
    match stored.format {
        Format::Json => {
            on_disk.split_whitespace().collect::<String>()
                == content.split_whitespace().collect::<String>()
        }
        _ => on_disk == content,
    }
}

fn temp_files(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(".overspill-tmp"))
        .collect()
}

#[test]
fn eight_threads_writing_200_outputs_each_lose_nothing_and_share_identical_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let barrier = Barrier::new(THREADS);
    let results: Vec<Vec<(usize, Stored)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (store, barrier) = (&store, &barrier);
                s.spawn(move || {
                    barrier.wait();
                    (0..OUTPUTS_PER_THREAD)
                        .map(|i| {
                            let text = content(t, i);
                            let stored = store
                                .write_output(&Output {
                                    tool: "load",
                                    server: None,
                                    content: &text,
                                    tokens: None,
                                    text_layout: TextLayout::Reindented,
                                })
                                .unwrap();
                            (i, stored)
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });

    let mut creators: HashMap<String, usize> = HashMap::new();
    for (t, outputs) in results.iter().enumerate() {
        for (i, stored) in outputs {
            assert!(
                holds_exactly(stored, &content(t, *i)),
                "{} does not hold output {i} of thread {t}",
                stored.file_name
            );
            *creators.entry(stored.file_name.clone()).or_default() +=
                usize::from(!stored.already_existed);
        }
    }
    // Identical outputs got one name in every thread; every name was created exactly once.
    for i in (0..OUTPUTS_PER_THREAD).step_by(2) {
        let names: Vec<&str> = results.iter().map(|r| r[i].1.file_name.as_str()).collect();
        assert!(
            names.iter().all(|n| *n == names[0]),
            "shared output {i} got several names"
        );
    }
    let distinct = OUTPUTS_PER_THREAD / 2 + THREADS * OUTPUTS_PER_THREAD / 2;
    assert_eq!(creators.len(), distinct);
    assert!(
        creators.values().all(|&n| n == 1),
        "a name was reported created by several writers"
    );

    let files = fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name() != METADATA_DIR)
        .count();
    assert_eq!(files, distinct);
    assert_eq!(temp_files(dir.path()), Vec::<String>::new());
    assert_eq!(
        temp_files(&dir.path().join(METADATA_DIR)),
        Vec::<String>::new()
    );
    assert_eq!(store.list().unwrap().len(), distinct);
}

#[test]
fn a_reader_polling_a_name_never_sees_a_partial_file() {
    let contents: Vec<String> = (0..12)
        .map(|i| {
            if i % 2 == 0 {
                format!(
                    "[{}]",
                    (0..60_000)
                        .map(|n| (n + i).to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                )
            } else {
                format!(
                    "run {i}\n{}",
                    "a fairly long log line with some text in it\n".repeat(25_000)
                )
            }
        })
        .collect();
    // Learn the final names and stored texts from a scratch store.
    let scratch = tempfile::tempdir().unwrap();
    let scratch_store = Store::open(scratch.path()).unwrap();
    let expected: Vec<(String, Vec<u8>)> = contents
        .iter()
        .map(|c| {
            let s = scratch_store
                .write_output(&Output {
                    tool: "poll",
                    server: None,
                    content: c,
                    tokens: None,
                    text_layout: TextLayout::Reindented,
                })
                .unwrap();
            (s.file_name, fs::read(s.path).unwrap())
        })
        .collect();

    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let mut reads = 0usize;
    std::thread::scope(|s| {
        s.spawn(|| {
            for c in &contents {
                store
                    .write_output(&Output {
                        tool: "poll",
                        server: None,
                        content: c,
                        tokens: None,
                        text_layout: TextLayout::Reindented,
                    })
                    .unwrap();
            }
        });
        for (name, want) in &expected {
            let path = dir.path().join(name);
            loop {
                match fs::read(&path) {
                    Ok(got) => {
                        reads += 1;
                        assert!(
                            got == *want,
                            "{name}: read {} of {} bytes",
                            got.len(),
                            want.len()
                        );
                        break;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::hint::spin_loop(),
                    Err(e) => panic!("{name}: {e}"),
                }
            }
        }
    });
    assert_eq!(reads, expected.len());
}

#[test]
fn a_reader_through_the_read_root_never_meets_a_hard_link_refusal_while_writers_race_on_one_name() {
    // Every name is given in one rename that refuses to replace, never by a link then an
    // unlink: a reader that opens the name the moment it appears finds one link, so the read
    // root's refusal of linked files (docs/storage.md, "Hard links are refused") never meets
    // a file overspill is writing.
    const NAMES: usize = 100;
    const WRITERS: usize = 4;
    let contents: Vec<String> = (0..NAMES)
        .map(|i| format!("race {i}\n{}", "a line of the output\n".repeat(400)))
        .collect();
    let scratch = tempfile::tempdir().unwrap();
    let scratch_store = Store::open(scratch.path()).unwrap();
    let names: Vec<String> = contents
        .iter()
        .map(|c| {
            scratch_store
                .write_content(&Output {
                    tool: "race",
                    server: None,
                    content: c,
                    tokens: None,
                    text_layout: TextLayout::Reindented,
                })
                .unwrap()
                .file_name
        })
        .collect();

    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let root = overspill_store::ReadRoot::new(dir.path()).unwrap();
    let barrier = Barrier::new(WRITERS + 1);
    let mut opened = 0usize;
    std::thread::scope(|s| {
        for _ in 0..WRITERS {
            s.spawn(|| {
                barrier.wait();
                for c in &contents {
                    store
                        .write_content(&Output {
                            tool: "race",
                            server: None,
                            content: c,
                            tokens: None,
                            text_layout: TextLayout::Reindented,
                        })
                        .unwrap();
                }
            });
        }
        barrier.wait();
        for (name, content) in names.iter().zip(&contents) {
            loop {
                match root.open(name) {
                    Ok(mut file) => {
                        assert_eq!(file.read_to_end().unwrap(), content.as_bytes(), "{name}");
                        opened += 1;
                        break;
                    }
                    Err(overspill_store::PathError::NotFound) => std::hint::spin_loop(),
                    Err(error) => panic!("{name}: {error}"),
                }
            }
        }
    });
    assert_eq!(opened, NAMES);
}
