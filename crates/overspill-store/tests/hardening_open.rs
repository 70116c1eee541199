//! `ReadRoot::open` and the store's own reads against a hostile file system (issue 22, items
//! 1 and 3; issue 28, item 6): names flipped to symlinks out while files are opened, hard
//! links, and FIFOs, sockets and devices planted where overspill reads.
//!
//! Defences guarded: the lookup and the open are one descriptor beneath the root's handle
//! (`cap-std`); the type is checked before a non-blocking open and on the open descriptor, and
//! so is the link count (a file with more than one hard link is refused); metadata records are
//! read as small regular files, never followed or waited on.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use overspill_store::{Output, PathError, ReadRoot, Store, TextLayout};

/// `root/` with `f.txt` and `d/g.txt`, beside `outside/` whose files hold `secret`.
fn tree() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let outside = tmp.path().join("outside");
    fs::create_dir_all(root.join("d")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(root.join("f.txt"), "inside").unwrap();
    fs::write(root.join("d/g.txt"), "inside").unwrap();
    fs::write(outside.join("f.txt"), "secret").unwrap();
    fs::write(outside.join("g.txt"), "secret").unwrap();
    (tmp, root, outside)
}

#[test]
fn open_never_returns_an_outside_file_while_names_flip_to_symlinks_out() {
    let (_tmp, root, outside) = tree();
    let stop = Arc::new(AtomicBool::new(false));
    let racer = {
        let (root, outside, stop) = (root.clone(), outside.clone(), Arc::clone(&stop));
        thread::spawn(move || {
            let mut flips = 0u64;
            while !stop.load(Ordering::Relaxed) {
                fs::rename(root.join("f.txt"), root.join("f.real")).unwrap();
                symlink(outside.join("f.txt"), root.join("f.txt")).unwrap();
                fs::rename(root.join("d"), root.join("d.real")).unwrap();
                symlink(&outside, root.join("d")).unwrap();
                // Each state held a moment, so calls meet both and the switches between them.
                thread::sleep(Duration::from_micros(100));
                fs::remove_file(root.join("f.txt")).unwrap();
                fs::rename(root.join("f.real"), root.join("f.txt")).unwrap();
                fs::remove_file(root.join("d")).unwrap();
                fs::rename(root.join("d.real"), root.join("d")).unwrap();
                thread::sleep(Duration::from_micros(100));
                flips += 1;
            }
            flips
        })
    };
    let read_root = ReadRoot::new(&root).unwrap();
    let (mut opened, mut refused) = (0u64, 0u64);
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(2) {
        for name in ["f.txt", "d/g.txt"] {
            match read_root.open(name) {
                Ok(mut file) => {
                    let bytes = file.read_to_end().unwrap();
                    assert_eq!(bytes, b"inside", "{name} served {bytes:?}");
                    assert!(file.path().starts_with(read_root.canonical_dir()));
                    opened += 1;
                }
                Err(_) => refused += 1,
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let flips = racer.join().unwrap();
    assert!(flips > 10, "the racer hardly ran: {flips} flips");
    assert!(
        opened > 0 && refused > 0,
        "{opened} opened, {refused} refused"
    );
}

#[test]
fn a_hard_link_inside_the_root_to_an_outside_file_is_refused_with_its_link_count() {
    // Decision (docs/security.md, docs/storage.md "Hard links are refused"): a regular file
    // with more than one name is never served, judged by `fstat` on the open descriptor. The
    // file system cannot say where the other name is, so a link to a file outside the root
    // and one to a file inside it (`cp -l` within the root) are refused alike.
    let (_tmp, root, outside) = tree();
    fs::hard_link(outside.join("f.txt"), root.join("linked.txt")).unwrap();
    fs::hard_link(root.join("f.txt"), root.join("d/copy.txt")).unwrap();
    let read_root = ReadRoot::new(&root).unwrap();
    for name in ["linked.txt", "f.txt", "d/copy.txt"] {
        match read_root.open(name) {
            Err(error @ PathError::HardLinks { links: 2 }) => {
                assert_eq!(error.code(), "invalid_argument");
                let message = error.to_string();
                assert!(
                    message.contains("2 hard links") && message.contains("`cp` without `-l`"),
                    "{message}"
                );
            }
            other => panic!("{name}: expected a refusal, got {other:?}"),
        }
    }
    // Once the other name is gone, the file has one name again and is served.
    fs::remove_file(root.join("d/copy.txt")).unwrap();
    let mut file = read_root.open("f.txt").unwrap();
    assert_eq!(file.read_to_end().unwrap(), b"inside");
}

#[test]
fn a_hard_link_to_a_metadata_record_is_refused_under_its_own_name_and_the_record_name_stays_hidden()
{
    // The same rule as for any file: the record now has two names, so the name outside the
    // reserved directory is refused, and the record's own name is still not found.
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::open(tmp.path()).unwrap();
    let stored = store
        .write_output(&Output {
            tool: "k8s_list_pods",
            server: Some("k8s"),
            content: "{\"items\": []}",
            tokens: None,
            text_layout: TextLayout::Reindented,
        })
        .unwrap();
    let record = format!(".overspill-meta/{}.json", stored.file_name);
    fs::hard_link(tmp.path().join(&record), tmp.path().join("record.json")).unwrap();
    let read_root = ReadRoot::new(tmp.path()).unwrap();
    assert!(matches!(
        read_root.open("record.json"),
        Err(PathError::HardLinks { links: 2 })
    ));
    assert!(matches!(read_root.open(&record), Err(PathError::NotFound)));
    // The host still reads its own record (`overspill ls`): records are the store's files,
    // read by name in its own directory, and a backup made with `cp -al` links them too.
    let listed = store.list().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].tool, "k8s_list_pods");
}

#[test]
fn a_stored_output_linked_elsewhere_is_refused_listed_and_replaced_by_the_next_write_of_it() {
    // A backup made with `cp -al pad backup` gives every stored file a second name.
    let tmp = tempfile::tempdir().unwrap();
    let pad = tmp.path().join("pad");
    let backup = tmp.path().join("backup");
    fs::create_dir_all(&backup).unwrap();
    let store = Store::open(&pad).unwrap();
    let output = Output {
        tool: "fetch_logs",
        server: None,
        content: "line 1\nline 2\n",
        tokens: None,
        text_layout: TextLayout::Reindented,
    };
    let stored = store.write_output(&output).unwrap();
    fs::hard_link(&stored.path, backup.join(&stored.file_name)).unwrap();
    let read_root = ReadRoot::new(&pad).unwrap();
    assert!(matches!(
        read_root.open(&stored.file_name),
        Err(PathError::HardLinks { links: 2 })
    ));
    // `Store::list` reads records, not outputs: the output is still listed.
    assert_eq!(store.list().unwrap().len(), 1);

    // Storing the same output again gives the store a fresh copy with one name; the backup
    // keeps the old one, untouched.
    let again = store.write_output(&output).unwrap();
    assert_eq!(again.file_name, stored.file_name);
    assert!(!again.already_existed);
    let mut file = read_root.open(&stored.file_name).unwrap();
    assert_eq!(file.read_to_end().unwrap(), b"line 1\nline 2\n");
    let kept = backup.join(&stored.file_name);
    assert_eq!(fs::read(&kept).unwrap(), b"line 1\nline 2\n");
    assert_eq!(
        std::os::unix::fs::MetadataExt::nlink(&fs::metadata(&kept).unwrap()),
        1
    );
    // A third write finds the copy as it should be and changes nothing.
    assert!(store.write_output(&output).unwrap().already_existed);
}

/// Runs `f` on a thread; fails the test if it has not answered within `limit`.
fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (send, receive) = mpsc::channel();
    thread::spawn(move || {
        let _ = send.send(f());
    });
    receive
        .recv_timeout(limit)
        .unwrap_or_else(|_| panic!("{what} stalled for more than {limit:?}"))
}

/// Plants a FIFO, a socket and (when permitted) a device named `<stem>.json` in `dir`.
fn plant_special_files(dir: &Path) -> Vec<&'static str> {
    let mut planted = vec!["pipe"];
    let status = Command::new("mkfifo")
        .arg(dir.join("pipe.json"))
        .status()
        .unwrap();
    assert!(status.success());
    // Leaked on purpose: the socket stays bound while the test runs.
    std::mem::forget(std::os::unix::net::UnixListener::bind(dir.join("socket.json")).unwrap());
    planted.push("socket");
    let mknod = Command::new("mknod")
        .arg(dir.join("zero.json"))
        .args(["c", "1", "5"])
        .stderr(Stdio::null())
        .status();
    if mknod.is_ok_and(|s| s.success()) {
        planted.push("zero");
    } else {
        eprintln!("note: mknod is not permitted here; the device case is not run");
    }
    planted
}

#[test]
fn open_refuses_a_fifo_a_socket_and_a_device_without_waiting() {
    let tmp = tempfile::tempdir().unwrap();
    let planted = plant_special_files(tmp.path());
    let read_root = ReadRoot::new(tmp.path()).unwrap();
    for stem in planted {
        let read_root = read_root.clone();
        let got = within(Duration::from_secs(5), stem, move || {
            read_root.open(&format!("{stem}.json"))
        });
        assert!(
            matches!(got, Err(PathError::NotRegular { .. })),
            "{stem}: {got:?}"
        );
    }
}

#[test]
fn list_skips_a_fifo_a_socket_and_a_device_planted_as_metadata_records_without_waiting() {
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::open(tmp.path()).unwrap();
    store
        .write_output(&Output {
            tool: "k8s_list_pods",
            server: Some("k8s"),
            content: "{\"items\": []}",
            tokens: None,
            text_layout: TextLayout::Reindented,
        })
        .unwrap();
    let meta = tmp.path().join(".overspill-meta");
    plant_special_files(&meta);
    // A record that is a symlink (here to the real one) is not overspill's either.
    let real = fs::read_dir(&meta)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .find(|n| n.starts_with("k8s_list_pods"))
        .unwrap();
    symlink(&real, meta.join("link.json")).unwrap();
    let listed = within(Duration::from_secs(5), "list", move || {
        store.list().unwrap()
    });
    let names: Vec<&str> = listed.iter().map(|m| m.tool.as_str()).collect();
    assert_eq!(names, ["k8s_list_pods"]);
}
