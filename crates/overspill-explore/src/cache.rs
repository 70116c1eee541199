//! The file cache: each file's bytes, its line index, and whatever a tool derives from it
//! (a parsed `serde_json::Value`, …), kept across calls (docs/tools.md#1-common-rules).
//!
//! Files come in open ([`RootFile`], from [`overspill_store::ReadRoot::open`]) and are read
//! through that handle, never reopened by name. Entries are keyed by canonical path and checked
//! against the open file's size and modification time on every open, so a changed file is
//! re-read. Bytes are read into memory, never mapped from the file: a mapped file cut short by
//! another process faults (`SIGBUS`) and ends the whole process, a read cannot. Large files are
//! read into anonymous memory that asks for huge pages, which costs a fifth of the page faults
//! a plain `Vec` takes on a 100 MB file. The cache is bounded by bytes: an entry
//! costs its file size plus its line index plus what each derived value declares; past the
//! capacity the least recently used entries are dropped (a caller still holding one keeps it
//! alive until it is done).
//!
//! Derived values live in typed slots: [`FileCache::derived`] builds a `T` from the file once
//! and hands out `Arc<T>` afterwards. The JSON tools keep their parsed document there:
//!
//! ```
//! # use std::sync::Arc;
//! # use overspill_explore::FileCache;
//! # use overspill_store::ReadRoot;
//! # let dir = tempfile::tempdir().unwrap();
//! # std::fs::write(dir.path().join("a.json"), br#"{"a": 1}"#).unwrap();
//! # let root = ReadRoot::new(dir.path()).unwrap();
//! let cache = FileCache::new(64 << 20);
//! let file = cache.open(root.open("a.json").unwrap()).unwrap();
//! let value: Arc<serde_json::Value> = cache
//!     .derived(&file, |f| serde_json::from_slice(f.bytes()).map(|v| (v, 3 * f.size())))
//!     .unwrap();
//! assert_eq!(value["a"], 1);
//! ```

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::SystemTime;

use overspill_store::RootFile;

use crate::line_index::LineIndex;

/// The default capacity: room for a 100 MB JSON file, its parsed value and a few smaller files.
pub const DEFAULT_CAPACITY_BYTES: u64 = 1 << 30;

/// Files at least this large are read into anonymous memory with huge pages.
const LARGE_FILE: usize = 4 << 20;

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
    bytes: bytes::Bytes,
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

/// A file's bytes, shareable: on the heap, or for a large file in an anonymous mapping
/// (private memory, not the file's pages: nothing another process does to the file can reach
/// it). `query`'s document takes its strings as slices of them rather than copies
/// (`jq::Document`), so they live as long as the file or that document.
fn read_bytes(file: &mut RootFile) -> io::Result<bytes::Bytes> {
    if file.len() < LARGE_FILE as u64 {
        return file.read_to_end().map(bytes::Bytes::from);
    }
    let map = file.read_with(|size| {
        let map = memmap2::MmapMut::map_anon(size.max(1))?;
        // A hint: huge pages fault in 2 MiB at a time; refused, the read just costs more.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        Ok(AnonymousBuffer { map, len: size })
    })?;
    Ok(bytes::Bytes::from_owner(ReadOnly {
        map: map.map.make_read_only()?,
        len: map.len,
    }))
}

/// An anonymous mapping of at least one page standing for `len` bytes (a mapping cannot be
/// empty).
struct AnonymousBuffer {
    map: memmap2::MmapMut,
    len: usize,
}

impl AsMut<[u8]> for AnonymousBuffer {
    fn as_mut(&mut self) -> &mut [u8] {
        &mut self.map[..self.len]
    }
}

/// The same mapping once read, made read-only.
struct ReadOnly {
    map: memmap2::Mmap,
    len: usize,
}

impl AsRef<[u8]> for ReadOnly {
    fn as_ref(&self) -> &[u8] {
        &self.map[..self.len]
    }
}

impl FileCache {
    /// A cache holding at most about `capacity_bytes` (see the module docs for the accounting).
    pub fn new(capacity_bytes: u64) -> FileCache {
        FileCache {
            capacity: capacity_bytes,
            state: Mutex::new(State::default()),
        }
    }

    /// `file` (opened through the read root), from the cache when its size and stamp
    /// (modification time, inode, change time) are those of the cached entry for its path,
    /// else read afresh from the open handle.
    ///
    /// # Errors
    /// The I/O error of the read, or the file kept changing while it was read
    /// ([`RootFile::read_to_end`]).
    pub fn open(&self, mut file: RootFile) -> io::Result<Arc<CachedFile>> {
        let path = file.path().to_owned();
        let stamp = Stamp::of(file.metadata());
        {
            let mut state = self.lock();
            state.tick += 1;
            let tick = state.tick;
            if let Some(entry) = state.entries.get_mut(&path)
                && entry.file.size == file.len()
                && entry.file.stamp == stamp
            {
                entry.last_used = tick;
                return Ok(Arc::clone(&entry.file));
            }
        }
        let bytes = read_bytes(&mut file)?;
        let file = Arc::new(CachedFile {
            path: path.clone(),
            size: bytes.len() as u64,
            // Of the version read: the snapshot's, which may differ from the open's.
            stamp: Stamp::of(file.metadata()),
            bytes,
            lines: OnceLock::new(),
            derived: Mutex::new(Vec::new()),
            derived_bytes: AtomicU64::new(0),
        });
        {
            let mut state = self.lock();
            state.tick += 1;
            let last_used = state.tick;
            state.entries.insert(
                path.clone(),
                Entry {
                    file: Arc::clone(&file),
                    last_used,
                },
            );
        }
        self.enforce_capacity(&path);
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
    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The file's bytes as a shared handle: slices of it keep the bytes alive without a copy.
    pub(crate) fn shared_bytes(&self) -> bytes::Bytes {
        self.bytes.clone()
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
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;
