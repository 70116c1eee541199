use overspill_store::ReadRoot;

use super::*;

/// Writes `dir/name` and returns its canonical path (the cache's key).
fn write(dir: &Path, name: &str, content: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    std::fs::canonicalize(path).unwrap()
}

/// `path` opened through a read root at its directory, as the tools open files.
fn open(path: &Path) -> RootFile {
    let root = ReadRoot::new(path.parent().unwrap()).unwrap();
    root.open(path.file_name().unwrap().to_str().unwrap())
        .unwrap()
}

#[test]
fn a_second_open_of_an_unchanged_file_is_served_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "a.txt", b"one\ntwo\n");
    let cache = FileCache::default();
    let first = cache.open(open(&path)).unwrap();
    let second = cache.open(open(&path)).unwrap();
    assert!(Arc::ptr_eq(&first, &second));
    assert_eq!(second.lines().line_count(), 2);
}

#[test]
fn a_changed_size_or_mtime_reloads_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "a.txt", b"one\n");
    let cache = FileCache::default();
    let first = cache.open(open(&path)).unwrap();
    std::fs::write(&path, b"one\ntwo\nthree\n").unwrap();
    let second = cache.open(open(&path)).unwrap();
    assert!(!Arc::ptr_eq(&first, &second));
    assert_eq!(second.bytes(), b"one\ntwo\nthree\n");
    assert_eq!(cache.len(), 1);
}

#[test]
fn derived_values_are_built_once_per_file_and_type() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "a.json", br#"{"k": [1, 2]}"#);
    let cache = FileCache::default();
    let file = cache.open(open(&path)).unwrap();
    let mut builds = 0;
    for _ in 0..3 {
        let value: Arc<serde_json::Value> = cache
            .derived(&file, |f| {
                builds += 1;
                serde_json::from_slice(f.bytes()).map(|v| (v, 100))
            })
            .unwrap();
        assert_eq!(value["k"][1], 2);
    }
    assert_eq!(builds, 1);
    let length: Arc<usize> = cache
        .derived(&file, |f| Ok::<_, ()>((f.bytes().len(), 8)))
        .unwrap();
    assert_eq!(*length, 13);
    assert_eq!(cache.cost(), 13 + 100 + 8);
}

#[test]
fn a_failed_build_caches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "a.txt", b"not json");
    let cache = FileCache::default();
    let file = cache.open(open(&path)).unwrap();
    let failed = cache.derived(&file, |f| {
        serde_json::from_slice::<serde_json::Value>(f.bytes()).map(|v| (v, 1))
    });
    assert!(failed.is_err());
    let retried: Arc<u8> = cache.derived(&file, |_| Ok::<_, ()>((7, 1))).unwrap();
    assert_eq!(*retried, 7);
}

#[test]
fn least_recently_used_files_are_evicted_past_the_capacity() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a", &[b'a'; 60]);
    let b = write(dir.path(), "b", &[b'b'; 60]);
    let c = write(dir.path(), "c", &[b'c'; 60]);
    let cache = FileCache::new(130);
    cache.open(open(&a)).unwrap();
    cache.open(open(&b)).unwrap();
    cache.open(open(&a)).unwrap();
    cache.open(open(&c)).unwrap();
    // b was used least recently.
    let state = cache.lock();
    let mut kept: Vec<_> = state.entries.keys().cloned().collect();
    kept.sort();
    assert_eq!(kept, [a, c]);
}

#[test]
fn a_file_larger_than_the_capacity_is_served_but_not_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "big", &[b'x'; 100]);
    let cache = FileCache::new(10);
    let file = cache.open(open(&path)).unwrap();
    assert_eq!(file.size(), 100);
    assert!(cache.is_empty());
}

#[test]
fn a_file_cut_short_after_a_read_is_read_afresh_at_its_new_size() {
    let dir = tempfile::tempdir().unwrap();
    let content: Vec<u8> = (0..8u32 << 20)
        .map(|i| if i % 80 == 79 { b'\n' } else { b'x' })
        .collect();
    let path = write(dir.path(), "big", &content);
    let cache = FileCache::default();
    assert_eq!(cache.open(open(&path)).unwrap().bytes(), content.as_slice());
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(100)
        .unwrap();
    assert_eq!(cache.open(open(&path)).unwrap().bytes(), &content[..100]);
}

#[test]
fn a_large_file_cut_to_nothing_between_the_open_and_the_read_reads_as_empty() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "big", &vec![b'x'; LARGE_FILE + 1]);
    let opened = open(&path);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    let file = FileCache::default().open(opened).unwrap();
    assert_eq!(file.size(), 0);
    assert!(file.bytes().is_empty());
}
