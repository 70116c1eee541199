//! A shared store: stored results kept in object storage (S3 and the stores that speak it, or a
//! directory), with this machine's directory as a bounded cache of it
//! (docs/storage.md#a-shared-store).
//!
//! Every file a [`Store`](crate::Store) with a shared store writes goes to the objects too,
//! before the write returns, under its path relative to the cache directory: the key of
//! `{cache}/principals/3f…/k8s_list_pods-9a….json` is `principals/3f…/k8s_list_pods-9a….json`
//! (below the URL's prefix). A [`ReadRoot`](crate::ReadRoot) with a shared store that does not
//! find a file fetches it, once, into the same place, and reads it there. Keys are therefore
//! confined as paths are: a read root's keys all lie below its own directory's, and the
//! directory of one principal is never another's.
//!
//! The cache is bounded: when the files this process has added pass the limit, the least
//! recently read stored files (and their metadata records) of the whole cache directory are
//! removed until a quarter of the limit is free, by one process at a time. Any of them can be
//! fetched again; nothing else in the directory (budgets' ledgers, run markers) is touched.

use std::fmt;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use crate::atomic::{Flush, RESERVED_PREFIX, create_private_dir_all, fill_new, write_replacing};
use crate::metadata::{self, METADATA_DIR, Metadata};

#[cfg(feature = "object-store")]
mod objects;
#[cfg(feature = "object-store")]
pub use objects::open_url;
#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "redis")]
pub use redis::{Redis, RedisCounter, RedisError};

/// The cache's size limit when none is given: 1 GiB.
pub const DEFAULT_CACHE_BYTES: u64 = 1 << 30;

/// The lock file one sweep of the cache holds, in the cache directory.
const SWEEP_LOCK: &str = ".overspill-cache.lock";

/// The directory, in each store directory of the cache, of the marks that say when each result
/// was last read ([`SharedStore::mark_read`]).
const READS_DIR: &str = ".overspill-reads";

/// How close in time two reads of a result may be and be marked once: the precision of the
/// cache's "least recently read".
const MARK_EVERY: Duration = Duration::from_secs(1);

/// The marks a process remembers making ([`SharedStore::mark_read`]); past this many it
/// forgets them all and marks each result once more.
const MARKS_REMEMBERED: usize = 4096;

/// How deep below the cache directory a sweep looks for stores: a worker's scratchpad is at
/// `{session}/{run}/iteration-{n}/scratchpad`, four levels down.
const SWEEP_DEPTH: usize = 6;

/// The objects of a shared store: what `--store URL` names. Implemented on the `object_store`
/// crate by [`open_url`] (feature `object-store`).
///
/// Keys are relative, `/`-separated, and never empty; an implementation puts them below its
/// own prefix.
pub trait Objects: Send + Sync {
    /// Where the objects are, for messages: the URL without credentials.
    fn location(&self) -> &str;

    /// Stores `bytes` under `key` unless an object is there already (a create-only put: the
    /// keys are content-addressed, so an object already there holds the same bytes).
    ///
    /// # Errors
    ///
    /// [`ObjectsError`] when the store cannot be reached or refuses the write.
    fn put_new(&self, key: &str, bytes: &[u8]) -> Result<(), ObjectsError>;

    /// The object under `key`, or `None` when there is none.
    ///
    /// # Errors
    ///
    /// [`ObjectsError`] when the store cannot be reached or refuses the read.
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, ObjectsError>;

    /// Writes the object under `key` to `out` as it arrives; `false` when there is none. By
    /// default a [`get`](Self::get), then the write; a store that streams overlaps the two.
    ///
    /// # Errors
    ///
    /// [`ObjectsError`] when the store cannot be reached, refuses the read, or `out` fails.
    fn get_into(&self, key: &str, out: &mut dyn std::io::Write) -> Result<bool, ObjectsError> {
        let Some(bytes) = self.get(key)? else {
            return Ok(false);
        };
        out.write_all(&bytes).map_err(|error| ObjectsError {
            location: self.location().to_owned(),
            what: format!("was read, but its copy could not be written here: {error}"),
            advice: "check the free space and permissions of the proxy's --dir",
        })?;
        Ok(true)
    }

    /// The keys directly below the directory key `dir` (`principals/3f…/.overspill-meta`),
    /// and the directories there, each as a whole key; nothing for a directory with nothing.
    ///
    /// # Errors
    ///
    /// [`ObjectsError`] when the store cannot be reached or refuses the listing.
    fn list(&self, dir: &str) -> Result<Listing, ObjectsError>;

    /// Whether the store can be used now: reached, with the credentials given, the bucket
    /// there (for a readiness check).
    ///
    /// # Errors
    ///
    /// [`ObjectsError`] saying what is wrong.
    fn check(&self) -> Result<(), ObjectsError>;
}

/// What [`Objects::list`] found below a directory key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    /// The objects directly below it, as whole keys.
    pub keys: Vec<String>,
    /// The directories directly below it, as whole keys (no trailing `/`).
    pub dirs: Vec<String>,
}

/// Why a shared store could not be used. The message names the store (never a credential)
/// and says what to check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the shared store {location} {what}; {advice}")]
pub struct ObjectsError {
    /// The store's URL, without credentials.
    pub location: String,
    /// What failed, e.g. `cannot be reached: connection refused`.
    pub what: String,
    /// What to do about it.
    pub advice: &'static str,
}

/// A shared store and this machine's cache of it. Cheap to clone; one per process is enough,
/// shared by every store and read root that uses it.
#[derive(Clone)]
pub struct SharedStore {
    inner: Arc<Inner>,
}

struct Inner {
    objects: Arc<dyn Objects>,
    /// The cache directory, with every symlink resolved.
    cache_dir: PathBuf,
    /// Past this many bytes added, a sweep runs.
    cache_limit: u64,
    /// Bytes this process added to the cache since its last sweep.
    added: AtomicU64,
    /// Whether a fetched copy is flushed before it gets its name: not where a restart of the
    /// machine can be told ([`BOOT_MARK`]), since the copies are then discarded after one.
    cache_flush: Flush,
    /// The marks this process made, and when ([`SharedStore::mark_read`]).
    marked: std::sync::Mutex<std::collections::HashMap<PathBuf, SystemTime>>,
}

/// The file in the cache directory that holds the boot id of the machine that last used it.
const BOOT_MARK: &str = ".overspill-cache-boot";

/// This boot of the machine, where the system says (Linux): a copy written without `fsync`
/// can be torn only by a crash of the machine, which changes it.
fn boot_id() -> Option<String> {
    let id = fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let id = id.trim();
    (!id.is_empty()).then(|| id.to_owned())
}

impl fmt::Debug for SharedStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedStore")
            .field("location", &self.inner.objects.location())
            .field("cache_dir", &self.inner.cache_dir)
            .field("cache_limit", &self.inner.cache_limit)
            .finish_non_exhaustive()
    }
}

impl PartialEq for SharedStore {
    fn eq(&self, other: &SharedStore) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for SharedStore {}

impl SharedStore {
    /// `objects`, cached in `cache_dir` (created 0700 if missing) up to about `cache_limit`
    /// bytes. Sweeps the cache once, so a process starting over a full one makes room first.
    ///
    /// # Errors
    ///
    /// When the cache directory cannot be created or resolved.
    pub fn new(
        objects: Arc<dyn Objects>,
        cache_dir: &Path,
        cache_limit: u64,
    ) -> io::Result<SharedStore> {
        create_private_dir_all(cache_dir)?;
        let cache_dir = fs::canonicalize(cache_dir)?;
        let boot = boot_id();
        let mark = cache_dir.join(BOOT_MARK);
        if let Some(boot) = &boot {
            let lock = sweep_lock(&cache_dir)?;
            lock.lock()?;
            match fs::read_to_string(&mark) {
                Ok(last) if last != *boot => {
                    // The machine restarted since this cache was last used: a copy written
                    // without a flush may be torn, so none is kept. All are in the objects.
                    let mut cached = Vec::new();
                    collect_stored(&cache_dir, 0, &mut cached);
                    let mut reads = std::collections::HashSet::new();
                    for file in cached {
                        let _ = fs::remove_file(file.path);
                        if let Some(dir) = file.mark.parent() {
                            reads.insert(dir.to_path_buf());
                        }
                    }
                    // Marks of reads before the restart: nothing they mark is left.
                    for dir in reads {
                        let _ = fs::remove_dir_all(dir);
                    }
                    write_replacing(&cache_dir, BOOT_MARK, boot.as_bytes())?;
                }
                Ok(_) => {}
                // A directory used without a shared store until now keeps what it has (those
                // files were flushed when written): from here on it is a cache.
                Err(_) => write_replacing(&cache_dir, BOOT_MARK, boot.as_bytes())?,
            }
            let _ = lock.unlock();
        }
        let shared = SharedStore {
            inner: Arc::new(Inner {
                objects,
                cache_dir,
                cache_limit,
                added: AtomicU64::new(0),
                cache_flush: if boot.is_some() {
                    Flush::No
                } else {
                    Flush::Yes
                },
                marked: std::sync::Mutex::default(),
            }),
        };
        shared.sweep();
        Ok(shared)
    }

    /// Where the objects are, for messages.
    pub fn location(&self) -> &str {
        self.inner.objects.location()
    }

    /// The cache directory (every symlink resolved).
    pub fn cache_dir(&self) -> &Path {
        &self.inner.cache_dir
    }

    /// Whether the objects can be used now ([`Objects::check`]).
    ///
    /// # Errors
    ///
    /// [`ObjectsError`] saying what is wrong.
    pub fn check(&self) -> Result<(), ObjectsError> {
        self.inner.objects.check()
    }

    /// The metadata records of the store directory `dir` (a key such as `principals/3f…`, or
    /// `""` for the top), oldest first, as [`Store::list`](crate::Store::list) reads them on
    /// disk: what `overspill ls --store` shows. A record that is not one is skipped with a
    /// warning.
    ///
    /// # Errors
    ///
    /// [`ObjectsError`] when the store cannot be listed or read.
    pub fn records(&self, dir: &str) -> Result<Vec<Metadata>, ObjectsError> {
        let meta_dir = join_key(dir, METADATA_DIR);
        let mut all = Vec::new();
        for key in self.inner.objects.list(&meta_dir)?.keys {
            let Some(bytes) = self.inner.objects.get(&key)? else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            if let Some(meta) = metadata::decode(&text, Path::new(&key)) {
                all.push(meta);
            }
        }
        metadata::oldest_first(&mut all);
        Ok(all)
    }

    /// The store directories below the directory key `dir`, as keys: those that hold metadata
    /// records, at any depth up to six levels (the depth of a worker's scratchpad).
    ///
    /// # Errors
    ///
    /// [`ObjectsError`] when the store cannot be listed.
    pub fn store_dirs(&self, dir: &str) -> Result<Vec<String>, ObjectsError> {
        let mut found = Vec::new();
        let mut pending = vec![(dir.to_owned(), 0)];
        while let Some((dir, depth)) = pending.pop() {
            for below in self.inner.objects.list(&dir)?.dirs {
                let name = below.rsplit('/').next().unwrap_or_default();
                if name == METADATA_DIR {
                    found.push(dir.clone());
                } else if !name.starts_with(RESERVED_PREFIX) && depth < SWEEP_DEPTH {
                    pending.push((below, depth + 1));
                }
            }
        }
        found.sort();
        Ok(found)
    }

    /// The key of `path`, a file below the cache directory (resolved, or below its resolved
    /// form): its components joined with `/`. `None` for a path outside the cache directory or
    /// not valid UTF-8.
    pub(crate) fn key_of(&self, path: &Path) -> Option<String> {
        let below = path.strip_prefix(&self.inner.cache_dir).ok()?;
        let mut key = String::new();
        for component in below.components() {
            let Component::Normal(name) = component else {
                return None;
            };
            if !key.is_empty() {
                key.push('/');
            }
            key.push_str(name.to_str()?);
        }
        (!key.is_empty()).then_some(key)
    }

    /// Whether the files of `dir` (resolved) have keys: `dir` is the cache directory or below
    /// it, and its path is UTF-8.
    pub(crate) fn holds(&self, dir: &Path) -> bool {
        self.key_of(&dir.join("x")).is_some()
    }

    /// Puts `bytes`, written at `path` in the cache, to the objects (create-only).
    pub(crate) fn put(&self, path: &Path, bytes: &[u8]) -> Result<(), ObjectsError> {
        let key = self.key_of(path).ok_or_else(|| self.outside(path))?;
        self.inner.objects.put_new(&key, bytes)?;
        self.added(bytes.len());
        Ok(())
    }

    /// Fetches the object of `path` into the cache at `path`. `Ok(false)` when the objects
    /// have none (nor does the cache, then).
    pub(crate) fn fetch(&self, path: &Path) -> Result<bool, ObjectsError> {
        let Some(key) = self.key_of(path) else {
            return Ok(false);
        };
        let Some(dir) = path.parent() else {
            return Ok(false);
        };
        let cache_error = |error: std::io::Error| ObjectsError {
            location: self.location().to_owned(),
            what: format!("was read, but its copy could not be cached here: {error}"),
            advice: "check the free space and permissions of the proxy's --dir",
        };
        // Written as it arrives, into a temporary file named once it is whole: the download
        // and the write overlap, and no reader meets a part. Its directory is made only for a
        // result that exists, with a metadata directory, so that sweeps count it as a store's.
        let mut outcome = Ok(false);
        let mut bytes = 0;
        let named = fill_new(
            &self.inner.cache_dir,
            path,
            self.inner.cache_flush,
            |file| {
                let mut counted = Counted { file, bytes: 0 };
                outcome = self.inner.objects.get_into(&key, &mut counted);
                bytes = counted.bytes;
                Ok(matches!(outcome, Ok(true)))
            },
        )
        .map_err(cache_error)?;
        outcome?;
        if named {
            create_private_dir_all(&dir.join(METADATA_DIR)).map_err(cache_error)?;
            self.added(bytes);
        }
        Ok(named)
    }

    pub(crate) fn outside(&self, path: &Path) -> ObjectsError {
        ObjectsError {
            location: self.location().to_owned(),
            what: format!(
                "cannot hold {}, which is outside its cache directory {}",
                path.display(),
                self.inner.cache_dir.display()
            ),
            advice: "store results below the directory the shared store was opened with",
        }
    }

    /// Counts `bytes` added to the cache and sweeps it once a sweep is due.
    fn added(&self, bytes: usize) {
        let bytes = u64::try_from(bytes).unwrap_or(u64::MAX);
        let before = self.inner.added.fetch_add(bytes, Ordering::Relaxed);
        if before.saturating_add(bytes) > self.inner.cache_limit / 4 {
            self.sweep();
        }
    }

    /// Removes the least recently read stored files until the cache holds at most three
    /// quarters of its limit. One process at a time: a sweep that finds another under way
    /// leaves it the work. Best effort: what cannot be removed stays.
    pub fn sweep(&self) {
        let Ok(lock) = sweep_lock(&self.inner.cache_dir) else {
            return;
        };
        if lock.try_lock().is_err() {
            return;
        }
        self.inner.added.store(0, Ordering::Relaxed);
        let mut files = Vec::new();
        collect_stored(&self.inner.cache_dir, 0, &mut files);
        let mut total: u64 = files.iter().map(|f| f.bytes).sum();
        let keep = self.inner.cache_limit / 4 * 3;
        if total > self.inner.cache_limit {
            // A result is as recent as the latest of its files and its mark (each mark read
            // once): its files side by side, least recently read first.
            let mut latest: std::collections::HashMap<PathBuf, SystemTime> =
                std::collections::HashMap::new();
            for file in &files {
                let at = latest.entry(file.mark.clone()).or_insert_with(|| {
                    fs::metadata(&file.mark)
                        .and_then(|mark| mark.modified())
                        .unwrap_or(SystemTime::UNIX_EPOCH)
                });
                *at = (*at).max(file.read);
            }
            for file in &mut files {
                if let Some(at) = latest.get(&file.mark) {
                    file.read = *at;
                }
            }
            files.sort_by(|a, b| (a.read, &a.mark).cmp(&(b.read, &b.mark)));
            let mut files = files.into_iter();
            let (mut unmarked, mut kept_back) = (Vec::new(), Vec::new());
            for file in files.by_ref() {
                if total <= keep {
                    break;
                }
                match fs::remove_file(&file.path) {
                    Ok(()) => {
                        total = total.saturating_sub(file.bytes);
                        unmarked.push(file.mark);
                    }
                    Err(error) => {
                        tracing::debug!(%error, path = %file.path.display(), "not evicted");
                        kept_back.push(file.mark);
                    }
                }
            }
            // The marks of results none of whose files is left.
            let kept: std::collections::HashSet<PathBuf> =
                files.map(|file| file.mark).chain(kept_back).collect();
            for mark in unmarked {
                if !kept.contains(&mark) {
                    let _ = fs::remove_file(&mark);
                }
            }
            tracing::debug!(bytes = total, "swept the shared store's cache");
        }
        let _ = lock.unlock();
    }
}

/// A file that counts what is written to it.
struct Counted<'f> {
    file: &'f mut fs::File,
    bytes: usize,
}

impl io::Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.file.write(buf)?;
        self.bytes += written;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// `dir/name` as a key (`name` alone below the top, `""`).
fn join_key(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{}/{name}", dir.trim_end_matches('/'))
    }
}

/// The file whose lock one sweep (or the emptying after a restart) holds.
fn sweep_lock(cache_dir: &Path) -> io::Result<fs::File> {
    fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(cache_dir.join(SWEEP_LOCK))
}

/// `url` for a message when it could not be read as a URL: nothing before an `@` (where a
/// password would be), nothing after a `?` (where a token would be).
#[cfg(any(feature = "object-store", feature = "redis", test))]
pub(crate) fn redacted(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    let rest = rest.split_once('?').map_or(rest, |(before, _)| before);
    if scheme.is_empty() {
        rest.to_owned()
    } else {
        format!("{scheme}://{rest}")
    }
}

/// A stored file in the cache, a candidate for eviction.
struct Cached {
    path: PathBuf,
    bytes: u64,
    /// When it was written; in a sweep, when its result was last read: the latest of its mark
    /// ([`SharedStore::mark_read`]) and its files.
    read: SystemTime,
    /// Its result's mark ([`SharedStore::mark_read`]), whether or not it exists.
    mark: PathBuf,
}

/// The stored files below `dir`: in every directory that has a metadata directory, its
/// regular files and its metadata records.
fn collect_stored(dir: &Path, depth: usize, into: &mut Vec<Cached>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let is_store = dir.join(METADATA_DIR).is_dir();
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name();
        let reserved = name.to_string_lossy().starts_with(RESERVED_PREFIX);
        if kind.is_dir() && name == METADATA_DIR && is_store {
            collect_files(&entry.path(), dir, into);
        } else if kind.is_dir() && !reserved && depth < SWEEP_DEPTH {
            collect_stored(&entry.path(), depth + 1, into);
        } else if kind.is_file() && is_store && !reserved {
            push_file(entry.path(), dir, into);
        }
    }
}

/// The metadata records in `dir`, the metadata directory of the store directory `store`.
fn collect_files(dir: &Path, store: &Path, into: &mut Vec<Cached>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let reserved = entry
            .file_name()
            .to_string_lossy()
            .starts_with(crate::atomic::TEMP_PREFIX);
        if entry.file_type().is_ok_and(|kind| kind.is_file()) && !reserved {
            push_file(entry.path(), store, into);
        }
    }
}

/// `path`, a file of the store directory `store` (or a record of it).
fn push_file(path: PathBuf, store: &Path, into: &mut Vec<Cached>) {
    let Ok(meta) = fs::symlink_metadata(&path) else {
        return;
    };
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    into.push(Cached {
        mark: store.join(READS_DIR).join(stem_of(name)),
        path,
        bytes: meta.len(),
        read: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
    });
}

impl SharedStore {
    /// Marks the result `path` belongs to as read now, so the cache keeps what is read most
    /// recently: the modification time of its mark, `{dir}/.overspill-reads/{stem}` (a
    /// result's files share the stem before the first `.`: `{tool}-{hash}`). Never the file's
    /// own times: setting them moves its change time, which tells the exploration tools' cache
    /// that the file changed, and every call would read and index it again. A result this
    /// process marked less than [`MARK_EVERY`] ago is not marked again.
    pub(crate) fn mark_read(&self, path: &Path) {
        let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str()))
        else {
            return;
        };
        let stem = stem_of(name);
        let reads = dir.join(READS_DIR);
        let mark = reads.join(stem);
        let now = SystemTime::now();
        {
            let mut marked = self
                .inner
                .marked
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let recent = marked
                .get(&mark)
                .is_some_and(|at| now.duration_since(*at).is_ok_and(|ago| ago < MARK_EVERY));
            if recent {
                return;
            }
            if marked.len() >= MARKS_REMEMBERED {
                marked.clear();
            }
            marked.insert(mark.clone(), now);
        }
        if !dir.join(METADATA_DIR).is_dir() {
            // Not a stored result (an artifact, a file of the host's): the cache never evicts
            // it, so its reads need no mark.
            return;
        }
        let marked = open_mark(&reads, stem).or_else(|error| {
            if error.kind() != io::ErrorKind::NotFound {
                return Err(error);
            }
            create_private_dir_all(&reads)?;
            open_mark(&reads, stem)
        });
        let times = fs::FileTimes::new().set_modified(now);
        if let Err(error) = marked.and_then(|file| file.set_times(times)) {
            tracing::debug!(%error, path = %mark.display(), "could not mark a cached result as read");
        }
    }
}

/// The mark `name` in the marks directory `reads`, made empty when missing. Opened as the read
/// root opens files (root_file.rs): a symlink is not followed, and a FIFO put in its place is
/// opened without waiting, then refused, for only a regular file is a mark.
fn open_mark(reads: &Path, name: &str) -> io::Result<fs::File> {
    use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
    let dir = cap_std::fs::Dir::open_ambient_dir(reads, cap_std::ambient_authority())?;
    let mut options = cap_std::fs::OpenOptions::new();
    options
        .write(true)
        .create(true)
        .truncate(false)
        .follow(FollowSymlinks::No)
        .nonblock(true);
    let file = dir.open_with(name, &options)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    Ok(file.into_std())
}

/// The result a file name belongs to: the name up to its first `.` (a stored file, its
/// companions and its metadata record share it).
fn stem_of(name: &str) -> &str {
    name.split('.').next().unwrap_or(name)
}

#[cfg(test)]
mod tests;
