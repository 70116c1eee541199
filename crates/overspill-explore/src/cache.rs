//! The file cache: each file's bytes, its line index, and whatever a tool derives from it
//! (a parsed `serde_json::Value`, …), kept across calls (SPEC §6.1).
//!
//! Entries are keyed by canonical path and checked against the file's size and modification
//! time on every open, so a changed file is re-read. The cache is bounded by bytes: an entry
//! costs its file size plus its line index plus what each derived value declares; past the
//! capacity the least recently used entries are dropped (a caller still holding one keeps it
//! alive until it is done).
//!
//! Derived values live in typed slots: [`FileCache::derived`] builds a `T` from the file once
//! and hands out `Arc<T>` afterwards. The JSON tools keep their parsed document there:
//!
//! ```
//! # use std::sync::Arc;
//! # use overspill_explore::cache::FileCache;
//! # let dir = tempfile::tempdir().unwrap();
//! # let path = dir.path().join("a.json");
//! # std::fs::write(&path, br#"{"a": 1}"#).unwrap();
//! let cache = FileCache::new(64 << 20);
//! let file = cache.open(&path).unwrap();
//! let value: Arc<serde_json::Value> = cache
//!     .derived(&file, |f| serde_json::from_slice(f.bytes()).map(|v| (v, 3 * f.size())))
//!     .unwrap();
//! assert_eq!(value["a"], 1);
//! ```

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::SystemTime;

use crate::line_index::LineIndex;

/// The default capacity: room for a 100 MB JSON file, its parsed value and a few smaller files.
pub const DEFAULT_CAPACITY_BYTES: u64 = 1 << 30;

/// Files at least this large are memory-mapped instead of read into memory.
const MAP_THRESHOLD: u64 = 4 << 20;

/// A byte-bounded, least-recently-used cache of files and what is derived from them.
#[derive(Debug)]
pub struct FileCache {
    capacity: u64,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    entries: HashMap<PathBuf, Entry>,
    tick: u64,
}

#[derive(Debug)]
struct Entry {
    file: Arc<CachedFile>,
    last_used: u64,
}

/// One file as read, with its line index and derived values.
pub struct CachedFile {
    path: PathBuf,
    size: u64,
    stamp: Stamp,
    bytes: Bytes,
    lines: OnceLock<LineIndex>,
    derived: Mutex<Vec<(TypeId, Arc<dyn Any + Send + Sync>)>>,
    derived_bytes: AtomicU64,
}

/// What tells one version of a file from another besides its size: the modification time,
/// and on Unix the inode and change time. A rename over the file (as atomic writers do) gives
/// a new inode; any write moves the change time, which, unlike the modification time, no
/// user can set back (`cp -p`, `touch -d`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    #[cfg(unix)]
    identity: (u64, u64, i64, i64),
}

impl Stamp {
    fn of(metadata: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Stamp {
            modified: metadata.modified().ok(),
            #[cfg(unix)]
            identity: (
                metadata.dev(),
                metadata.ino(),
                metadata.ctime(),
                metadata.ctime_nsec(),
            ),
        }
    }
}

enum Bytes {
    Owned(Vec<u8>),
    Mapped(memmap2::Mmap),
}

impl FileCache {
    /// A cache holding at most about `capacity_bytes` (see the module docs for the accounting).
    pub fn new(capacity_bytes: u64) -> FileCache {
        FileCache {
            capacity: capacity_bytes,
            state: Mutex::new(State::default()),
        }
    }

    /// The file at `path` (already validated against the read root), from the cache when its
    /// size and stamp (modification time, inode, change time) are unchanged, else
    /// read afresh.
    ///
    /// # Errors
    /// The I/O error of `stat`, `open` or `read`; `InvalidInput` for something that is not a
    /// regular file.
    pub fn open(&self, path: &Path) -> io::Result<Arc<CachedFile>> {
        let metadata = std::fs::metadata(path)?;
        if !metadata.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file",
            ));
        }
        let stamp = Stamp::of(&metadata);
        {
            let mut state = self.lock();
            state.tick += 1;
            let tick = state.tick;
            if let Some(entry) = state.entries.get_mut(path)
                && entry.file.size == metadata.len()
                && entry.file.stamp == stamp
            {
                entry.last_used = tick;
                return Ok(Arc::clone(&entry.file));
            }
        }
        let file = Arc::new(CachedFile::load(path)?);
        {
            let mut state = self.lock();
            state.tick += 1;
            let last_used = state.tick;
            state.entries.insert(
                path.to_owned(),
                Entry {
                    file: Arc::clone(&file),
                    last_used,
                },
            );
        }
        self.enforce_capacity(path);
        Ok(file)
    }

    /// The value of type `T` derived from `file`, built by `build` on first use and cached
    /// with the file. `build` returns the value and the bytes it occupies (an estimate is
    /// fine; it drives eviction). Concurrent first uses on one file build it once.
    ///
    /// # Errors
    /// Whatever `build` returns; nothing is cached then.
    pub fn derived<T, E>(
        &self,
        file: &Arc<CachedFile>,
        build: impl FnOnce(&CachedFile) -> Result<(T, u64), E>,
    ) -> Result<Arc<T>, E>
    where
        T: Any + Send + Sync,
    {
        let built = {
            let mut slots = file.derived.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((_, value)) = slots.iter().find(|(id, _)| *id == TypeId::of::<T>())
                && let Ok(value) = Arc::clone(value).downcast::<T>()
            {
                return Ok(value);
            }
            let (value, cost) = build(file)?;
            let value = Arc::new(value);
            slots.push((
                TypeId::of::<T>(),
                Arc::clone(&value) as Arc<dyn Any + Send + Sync>,
            ));
            file.derived_bytes.fetch_add(cost, Ordering::Relaxed);
            value
        };
        self.enforce_capacity(&file.path);
        Ok(built)
    }

    /// The most bytes the cache holds (see the module docs for the accounting).
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// How many files are cached.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether no file is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes the cached entries account for.
    pub fn cost(&self) -> u64 {
        self.lock().entries.values().map(|e| e.file.cost()).sum()
    }

    /// Drops least recently used entries other than `keep` until the cache fits; drops `keep`
    /// too when it alone is larger than the capacity.
    fn enforce_capacity(&self, keep: &Path) {
        let mut state = self.lock();
        let mut total: u64 = state.entries.values().map(|e| e.file.cost()).sum();
        while total > self.capacity {
            let victim = state
                .entries
                .iter()
                .filter(|(path, _)| path.as_path() != keep)
                .min_by_key(|(_, e)| e.last_used)
                .map(|(path, _)| path.clone())
                .or_else(|| state.entries.contains_key(keep).then(|| keep.to_owned()));
            let Some(victim) = victim else { break };
            if let Some(entry) = state.entries.remove(&victim) {
                total = total.saturating_sub(entry.file.cost());
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for FileCache {
    fn default() -> FileCache {
        FileCache::new(DEFAULT_CAPACITY_BYTES)
    }
}

impl CachedFile {
    fn load(path: &Path) -> io::Result<CachedFile> {
        let mut handle = File::open(path)?;
        // Size and time from the open handle, so they describe the bytes we hold.
        let metadata = handle.metadata()?;
        let size = metadata.len();
        let bytes = if size >= MAP_THRESHOLD {
            // SAFETY: stored outputs are written once, to a temporary name, then renamed into
            // place (SPEC §4); nothing rewrites a file in place, so the mapped bytes stay
            // valid for the map's lifetime (a rename or unlink leaves the mapped inode alone).
            #[allow(unsafe_code)]
            let map = unsafe { memmap2::Mmap::map(&handle)? };
            Bytes::Mapped(map)
        } else {
            let mut buffer = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
            handle.read_to_end(&mut buffer)?;
            Bytes::Owned(buffer)
        };
        Ok(CachedFile {
            path: path.to_owned(),
            size: bytes.as_slice().len() as u64,
            stamp: Stamp::of(&metadata),
            bytes,
            lines: OnceLock::new(),
            derived: Mutex::new(Vec::new()),
            derived_bytes: AtomicU64::new(0),
        })
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The canonical path the file was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's line index, built on first use.
    pub fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::build(self.bytes()))
    }

    fn cost(&self) -> u64 {
        let index = self.lines.get().map_or(0, |l| l.heap_bytes() as u64);
        self.size + index + self.derived_bytes.load(Ordering::Relaxed)
    }
}

impl std::fmt::Debug for CachedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachedFile")
            .field("path", &self.path)
            .field("size", &self.size)
            .field("mapped", &matches!(self.bytes, Bytes::Mapped(_)))
            .finish_non_exhaustive()
    }
}

impl Bytes {
    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Owned(bytes) => bytes,
            Bytes::Mapped(map) => map,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, content: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        path
    }

    #[test]
    fn a_second_open_of_an_unchanged_file_is_served_from_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "a.txt", b"one\ntwo\n");
        let cache = FileCache::default();
        let first = cache.open(&path).unwrap();
        let second = cache.open(&path).unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(second.lines().line_count(), 2);
    }

    #[test]
    fn a_changed_size_or_mtime_reloads_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "a.txt", b"one\n");
        let cache = FileCache::default();
        let first = cache.open(&path).unwrap();
        std::fs::write(&path, b"one\ntwo\nthree\n").unwrap();
        let second = cache.open(&path).unwrap();
        assert!(!Arc::ptr_eq(&first, &second));
        assert_eq!(second.bytes(), b"one\ntwo\nthree\n");
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn derived_values_are_built_once_per_file_and_type() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "a.json", br#"{"k": [1, 2]}"#);
        let cache = FileCache::default();
        let file = cache.open(&path).unwrap();
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
        let file = cache.open(&path).unwrap();
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
        cache.open(&a).unwrap();
        cache.open(&b).unwrap();
        cache.open(&a).unwrap();
        cache.open(&c).unwrap();
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
        let file = cache.open(&path).unwrap();
        assert_eq!(file.size(), 100);
        assert!(cache.is_empty());
    }

    #[test]
    fn directories_and_missing_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let cache = FileCache::default();
        assert_eq!(
            cache.open(dir.path()).unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
        assert_eq!(
            cache.open(&dir.path().join("nope")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    #[test]
    fn large_files_are_mapped_and_read_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let content: Vec<u8> = (0..MAP_THRESHOLD + 10)
            .map(|i| if i % 80 == 79 { b'\n' } else { b'x' })
            .collect();
        let path = write(dir.path(), "big", &content);
        let file = FileCache::default().open(&path).unwrap();
        assert!(format!("{file:?}").contains("mapped: true"));
        assert_eq!(file.bytes(), content.as_slice());
    }
}
