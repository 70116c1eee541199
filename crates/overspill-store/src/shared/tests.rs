use std::collections::HashMap;
use std::sync::Mutex;

use super::*;
use crate::{Output, PathError, ReadRoot, Store, Stored, TextLayout};

/// Objects in memory, counting what is asked of them; `refuse` makes every call fail.
#[derive(Default)]
struct Counted {
    objects: Mutex<HashMap<String, Vec<u8>>>,
    gets: AtomicU64,
    refuse: bool,
}

impl Objects for Counted {
    fn location(&self) -> &str {
        "memory://test"
    }

    fn put_new(&self, key: &str, bytes: &[u8]) -> Result<(), ObjectsError> {
        self.refused()?;
        let mut objects = self.objects.lock().unwrap();
        objects
            .entry(key.to_owned())
            .or_insert_with(|| bytes.to_vec());
        Ok(())
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, ObjectsError> {
        self.refused()?;
        self.gets.fetch_add(1, Ordering::Relaxed);
        Ok(self.objects.lock().unwrap().get(key).cloned())
    }

    fn list(&self, dir: &str) -> Result<Listing, ObjectsError> {
        self.refused()?;
        let below = format!("{dir}/");
        let mut listing = Listing::default();
        for key in self.keys() {
            let Some(rest) = key.strip_prefix(&below) else {
                continue;
            };
            match rest.split_once('/') {
                None => listing.keys.push(key.clone()),
                Some((first, _)) => {
                    let dir = format!("{below}{first}");
                    if !listing.dirs.contains(&dir) {
                        listing.dirs.push(dir);
                    }
                }
            }
        }
        Ok(listing)
    }

    fn check(&self) -> Result<(), ObjectsError> {
        self.refused()
    }
}

impl Counted {
    fn refused(&self) -> Result<(), ObjectsError> {
        if self.refuse {
            return Err(ObjectsError {
                location: self.location().to_owned(),
                what: "cannot be reached: connection refused".to_owned(),
                advice: "start it",
            });
        }
        Ok(())
    }

    fn keys(&self) -> Vec<String> {
        let mut keys: Vec<_> = self.objects.lock().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    }
}

fn output(content: &str) -> Output<'_> {
    Output {
        tool: "k8s_list_pods",
        server: Some("k8s"),
        content,
        tokens: None,
        text_layout: TextLayout::Reindented,
    }
}

/// A store of `principal` in its own cache directory of `objects`, as one instance has it.
fn instance(objects: &Arc<Counted>, limit: u64) -> (tempfile::TempDir, SharedStore) {
    let cache = tempfile::tempdir().unwrap();
    let shared = SharedStore::new(Arc::clone(objects) as _, cache.path(), limit).unwrap();
    (cache, shared)
}

fn store_of(shared: &SharedStore, principal: &str) -> Store {
    let dir = shared.cache_dir().join("principals").join(principal);
    Store::open(&dir)
        .unwrap()
        .with_shared(shared.clone())
        .unwrap()
}

/// An instance on a store of its own with one result of alice's (`[1,2,3]`), and alice's read
/// root on it.
fn alices_result() -> (tempfile::TempDir, Stored, ReadRoot) {
    let objects = Arc::new(Counted::default());
    let (dir, shared) = instance(&objects, DEFAULT_CACHE_BYTES);
    let stored = store_of(&shared, "alice")
        .write_output(&output("[1,2,3]"))
        .unwrap();
    (dir, stored, root_of(&shared, "alice"))
}

fn root_of(shared: &SharedStore, principal: &str) -> ReadRoot {
    let dir = shared.cache_dir().join("principals").join(principal);
    std::fs::create_dir_all(&dir).unwrap();
    ReadRoot::new(&dir)
        .unwrap()
        .with_shared(shared.clone())
        .unwrap()
}

#[test]
fn a_result_stored_through_one_instance_is_read_through_another_with_one_get() {
    let objects = Arc::new(Counted::default());
    let (_a_dir, a) = instance(&objects, DEFAULT_CACHE_BYTES);
    let (_b_dir, b) = instance(&objects, DEFAULT_CACHE_BYTES);
    let body = format!(
        r#"{{"items":[{}],"body":"{}"}}"#,
        "1,".repeat(50) + "2",
        "# Title\\n".repeat(12)
    );
    let stored = store_of(&a, "alice").write_output(&output(&body)).unwrap();

    // The result, its companion and its metadata record are in the objects, under the
    // principal's directory.
    let keys = objects.keys();
    assert!(
        keys.contains(&format!("principals/alice/{}", stored.file_name)),
        "{keys:?}"
    );
    assert!(keys.contains(&format!(
        "principals/alice/{}",
        stored.companions[0].file_name
    )));
    assert!(keys.contains(&format!(
        "principals/alice/.overspill-meta/{}.json",
        stored.file_name
    )));

    let root = root_of(&b, "alice");
    let first = root.open(&stored.file_name).unwrap().read_to_end().unwrap();
    assert_eq!(first, std::fs::read(&stored.path).unwrap());
    for _ in 0..5 {
        root.open(&stored.file_name).unwrap();
    }
    assert_eq!(
        objects.gets.load(Ordering::Relaxed),
        1,
        "fetched once, then read from the cache"
    );
    let companion = root
        .open(&stored.companions[0].file_name)
        .unwrap()
        .read_to_end()
        .unwrap();
    assert!(String::from_utf8(companion).unwrap().starts_with("# Title"));
}

#[test]
fn a_principal_never_names_another_principals_result() {
    let objects = Arc::new(Counted::default());
    let (_a_dir, a) = instance(&objects, DEFAULT_CACHE_BYTES);
    let (_b_dir, b) = instance(&objects, DEFAULT_CACHE_BYTES);
    let stored = store_of(&a, "alice")
        .write_output(&output("[1,2,3]"))
        .unwrap();

    let bob = root_of(&b, "bob");
    assert!(matches!(
        bob.open(&stored.file_name),
        Err(PathError::NotFound)
    ));
    let climbing = format!("../alice/{}", stored.file_name);
    assert!(matches!(bob.open(&climbing), Err(PathError::Escapes)));
    // Metadata records are overspill's own, here as on disk.
    let record = format!(".overspill-meta/{}.json", stored.file_name);
    assert!(matches!(
        root_of(&b, "alice").open(&record),
        Err(PathError::NotFound)
    ));
    assert!(
        !objects
            .keys()
            .iter()
            .any(|k| k.starts_with("principals/bob"))
    );
}

#[test]
fn a_write_the_shared_store_refuses_fails_the_store_naming_it() {
    let objects = Arc::new(Counted {
        refuse: true,
        ..Counted::default()
    });
    let (_dir, shared) = instance(&objects, DEFAULT_CACHE_BYTES);
    let error = store_of(&shared, "alice")
        .write_output(&output("[1,2,3]"))
        .unwrap_err();
    assert!(error.is_shared());
    assert!(
        error.reason().contains("memory://test"),
        "{}",
        error.reason()
    );

    let read = root_of(&shared, "alice").open("k8s_list_pods-0123456789abcdef.json");
    match read {
        Err(PathError::Io { error, .. }) => assert!(error.to_string().contains("memory://test")),
        other => panic!("expected an I/O error naming the store, got {other:?}"),
    }
}

#[test]
fn a_store_or_root_outside_the_cache_directory_is_refused() {
    let objects = Arc::new(Counted::default());
    let (_dir, shared) = instance(&objects, DEFAULT_CACHE_BYTES);
    let elsewhere = tempfile::tempdir().unwrap();
    let store = Store::open(elsewhere.path()).unwrap();
    assert!(store.with_shared(shared.clone()).unwrap_err().is_shared());
    let root = ReadRoot::new(elsewhere.path()).unwrap();
    assert!(matches!(root.with_shared(shared), Err(PathError::Escapes)));
}

#[test]
fn the_cache_stays_within_its_limit_keeps_what_was_read_last_and_fetches_the_rest_again() {
    let objects = Arc::new(Counted::default());
    let limit = 64 * 1024;
    let (_dir, shared) = instance(&objects, limit);
    let store = store_of(&shared, "alice");
    let root = root_of(&shared, "alice");
    let mut names = Vec::new();
    for i in 0..40 {
        let text = format!("line {i}\n").repeat(1000);
        names.push(store.write_output(&output(&text)).unwrap().file_name);
        // The first result is read after every write: it is never the least recently read.
        // (A process marks a result once a second: forget the mark, as a second passing would.)
        shared.inner.marked.lock().unwrap().clear();
        root.open(&names[0]).unwrap();
    }
    let mut cached = Vec::new();
    collect_stored(shared.cache_dir(), 0, &mut cached);
    let total: u64 = cached.iter().map(|f| f.bytes).sum();
    assert!(
        total <= limit + limit / 4,
        "{total} bytes cached over a {limit}-byte limit"
    );
    assert!(
        root.dir().join(&names[0]).is_file(),
        "the file read last was evicted"
    );
    assert!(!root.dir().join(&names[1]).is_file(), "nothing was evicted");

    let gets = objects.gets.load(Ordering::Relaxed);
    assert_eq!(
        gets, 0,
        "the result read last was evicted and fetched again"
    );
    let again = root.open(&names[1]).unwrap().read_to_end().unwrap();
    assert_eq!(again, "line 1\n".repeat(1000).into_bytes());
    assert_eq!(objects.gets.load(Ordering::Relaxed), gets + 1);
}

/// A read is marked beside the result, never on its files: a file whose times moved (its change
/// time, which any change of times moves) looks changed to the exploration tools' cache, which
/// would read and index it again on every call.
#[cfg(unix)]
#[test]
fn reading_a_cached_result_leaves_its_files_as_they_were_and_marks_the_result_read() {
    use std::os::unix::fs::MetadataExt;
    let (_dir, stored, root) = alices_result();
    let stamp = |path: &Path| {
        let meta = std::fs::metadata(path).unwrap();
        (
            meta.ctime(),
            meta.ctime_nsec(),
            meta.atime(),
            meta.atime_nsec(),
        )
    };
    root.open(&stored.file_name).unwrap();
    let before = stamp(&stored.path);
    let mark = root.dir().join(READS_DIR).join(stem_of(&stored.file_name));
    let first_mark = std::fs::metadata(&mark).unwrap().modified().unwrap();
    std::thread::sleep(MARK_EVERY + std::time::Duration::from_millis(20));
    root.open(&stored.file_name).unwrap();
    assert_eq!(stamp(&stored.path), before, "the file's times moved");
    assert!(std::fs::metadata(&mark).unwrap().modified().unwrap() > first_mark);
}

#[test]
fn reading_a_file_that_is_not_a_stored_result_makes_no_mark() {
    let objects = Arc::new(Counted::default());
    let (_dir, shared) = instance(&objects, DEFAULT_CACHE_BYTES);
    let root = root_of(&shared, "alice");
    std::fs::create_dir_all(root.dir().join("artifacts")).unwrap();
    std::fs::write(root.dir().join("artifacts/notes.md"), "# notes\n").unwrap();
    root.open("artifacts/notes.md").unwrap();
    assert!(!root.dir().join("artifacts").join(READS_DIR).exists());
}

/// A FIFO where a result's mark goes is opened without waiting for a writer and left alone:
/// the read goes on.
#[cfg(target_os = "linux")]
#[test]
fn a_fifo_in_place_of_a_mark_never_stalls_a_read() {
    let (_dir, stored, root) = alices_result();
    let reads = root.dir().join(READS_DIR);
    std::fs::create_dir_all(&reads).unwrap();
    let fifo = reads.join(stem_of(&stored.file_name));
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let read = root.open(&stored.file_name).unwrap().read_to_end().unwrap();
    assert_eq!(read, b"[\n  1,\n  2,\n  3\n]\n");
}

#[test]
fn a_sweep_touches_nothing_but_stored_files() {
    let objects = Arc::new(Counted::default());
    let (_dir, shared) = instance(&objects, 1024);
    let ledger = shared
        .cache_dir()
        .join("principals/alice/budgets/principal");
    std::fs::create_dir_all(ledger.parent().unwrap()).unwrap();
    std::fs::write(&ledger, "4000").unwrap();
    let store = store_of(&shared, "alice");
    for i in 0..10 {
        store
            .write_output(&output(&format!("{i}\n").repeat(500)))
            .unwrap();
    }
    shared.sweep();
    assert_eq!(std::fs::read_to_string(&ledger).unwrap(), "4000");
}

#[test]
fn the_records_of_a_principal_are_listed_from_the_objects_alone() {
    let objects = Arc::new(Counted::default());
    let (_dir, shared) = instance(&objects, DEFAULT_CACHE_BYTES);
    let store = store_of(&shared, "alice");
    let first = store.write_output(&output("[1,2,3]")).unwrap();
    let second = store.write_output(&output("# Notes\nsome text")).unwrap();
    store_of(&shared, "bob")
        .write_output(&output("[4]"))
        .unwrap();

    // Another machine, with nothing cached: the listing comes from the objects.
    let (_elsewhere, other) = instance(&objects, DEFAULT_CACHE_BYTES);
    let names: Vec<String> = other
        .records("principals/alice")
        .unwrap()
        .into_iter()
        .map(|meta| meta.file_name)
        .collect();
    assert_eq!(names, [first.file_name, second.file_name]);
    assert_eq!(
        other.store_dirs("principals").unwrap(),
        ["principals/alice", "principals/bob"]
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_cache_last_used_before_the_machine_restarted_is_emptied_and_fetched_again() {
    let objects = Arc::new(Counted::default());
    let (cache, shared) = instance(&objects, DEFAULT_CACHE_BYTES);
    let stored = store_of(&shared, "alice")
        .write_output(&output("[1,2,3]"))
        .unwrap();
    // The same boot: what is cached stays.
    let again =
        SharedStore::new(Arc::clone(&objects) as _, cache.path(), DEFAULT_CACHE_BYTES).unwrap();
    assert!(stored.path.is_file());
    // Another boot: copies written without a flush may be torn, so none is kept.
    std::fs::write(cache.path().join(BOOT_MARK), "an-earlier-boot").unwrap();
    let after =
        SharedStore::new(Arc::clone(&objects) as _, cache.path(), DEFAULT_CACHE_BYTES).unwrap();
    assert!(!stored.path.exists());
    let read = root_of(&after, "alice")
        .open(&stored.file_name)
        .unwrap()
        .read_to_end()
        .unwrap();
    assert_eq!(read, b"[\n  1,\n  2,\n  3\n]\n");
    drop(again);
}

#[test]
fn a_reader_only_instance_sweeps_what_it_fetched_and_fetches_it_again() {
    let objects = Arc::new(Counted::default());
    let (_writer_dir, writer) = instance(&objects, DEFAULT_CACHE_BYTES);
    let store = store_of(&writer, "alice");
    let names: Vec<String> = (0..12)
        .map(|i| {
            let text = format!("line {i}\n").repeat(1000);
            store.write_output(&output(&text)).unwrap().file_name
        })
        .collect();
    // An instance that only reads: its copies are a store directory's, which sweeps count.
    let (_reader_dir, reader) = instance(&objects, 16 * 1024);
    let root = root_of(&reader, "alice");
    for name in &names {
        root.open(name).unwrap();
    }
    let mut cached = Vec::new();
    collect_stored(reader.cache_dir(), 0, &mut cached);
    let total: u64 = cached.iter().map(|f| f.bytes).sum();
    assert!(
        total <= 16 * 1024 + 16 * 1024 / 4,
        "{total} bytes cached over the limit"
    );
    assert!(!root.dir().join(&names[0]).exists(), "nothing was evicted");
    assert_eq!(
        root.open(&names[0]).unwrap().read_to_end().unwrap(),
        "line 0\n".repeat(1000).into_bytes()
    );
}

#[test]
fn a_directory_used_without_a_shared_store_until_now_keeps_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let before = Store::open(dir.path().join("principals/alice"))
        .unwrap()
        .write_output(&output("[1,2,3]"))
        .unwrap();
    let objects = Arc::new(Counted::default());
    SharedStore::new(Arc::clone(&objects) as _, dir.path(), DEFAULT_CACHE_BYTES).unwrap();
    assert!(
        before.path.is_file(),
        "a file never in the objects was removed"
    );
}

#[test]
fn a_url_is_shown_without_what_may_be_a_password_or_a_token() {
    assert_eq!(
        redacted("redis://:secret@host:6379x/0"),
        "redis://host:6379x/0"
    );
    assert_eq!(redacted("s3://k:s@b/p?token=t"), "s3://b/p");
    assert_eq!(redacted("not a url"), "not a url");
}

#[test]
fn a_path_that_names_no_result_makes_no_directory() {
    let objects = Arc::new(Counted::default());
    let (_dir, shared) = instance(&objects, DEFAULT_CACHE_BYTES);
    let root = root_of(&shared, "alice");
    assert!(matches!(
        root.open("a/b/c/d.json"),
        Err(PathError::NotFound)
    ));
    assert!(!root.dir().join("a").exists());
}
