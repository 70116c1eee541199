//! `ReadRoot::open` and the store's own reads against a hostile file system (issue 22, items
//! 1 and 3): names flipped to symlinks out while files are opened, hard links, and FIFOs,
//! sockets and devices planted where overspill reads.
//!
//! Defences guarded: the lookup and the open are one descriptor beneath the root's handle
//! (`cap-std`); the type is checked before a non-blocking open and on the open descriptor;
//! metadata records are read as small regular files, never followed or waited on.

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

use overspill_store::{Output, PathError, ReadRoot, Store};

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
fn a_hard_link_inside_the_root_to_an_outside_file_is_served_as_the_file_it_is() {
    // Decision (docs/security.md): a hard link is not a path that leads out; it is a name of
    // the file inside the root, as good as the first. Making one needs write access to the
    // root and, under Linux's `fs.protected_hardlinks`, ownership of or read-write access to
    // the file: it gives no one a file they could not read already.
    let (_tmp, root, outside) = tree();
    fs::hard_link(outside.join("f.txt"), root.join("linked.txt")).unwrap();
    let mut file = ReadRoot::new(&root).unwrap().open("linked.txt").unwrap();
    assert_eq!(file.read_to_end().unwrap(), b"secret");
}

#[test]
fn a_hard_link_to_a_metadata_record_is_served_under_its_own_name_and_the_record_name_stays_hidden()
{
    // Decision: reserved names hide overspill's names, not its inodes. A record holds the
    // tool, server, sizes and times of an output, nothing more, and whoever can link it can
    // read it already.
    let tmp = tempfile::tempdir().unwrap();
    let store = Store::open(tmp.path()).unwrap();
    let stored = store
        .write_output(&Output {
            tool: "k8s_list_pods",
            server: Some("k8s"),
            content: "{\"items\": []}",
            tokens: None,
        })
        .unwrap();
    let record = format!(".overspill-meta/{}.json", stored.file_name);
    fs::hard_link(tmp.path().join(&record), tmp.path().join("record.json")).unwrap();
    let read_root = ReadRoot::new(tmp.path()).unwrap();
    let bytes = read_root
        .open("record.json")
        .unwrap()
        .read_to_end()
        .unwrap();
    assert!(String::from_utf8(bytes).unwrap().contains("k8s_list_pods"));
    assert!(matches!(read_root.open(&record), Err(PathError::NotFound)));
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
