//! The OpenAI encodings' tables: built on first use from the published vocabularies embedded
//! in this crate, and kept between processes in a cache directory when the host names one
//! (docs/tokens.md#where-the-tables-come-from).
//!
//! A vocabulary is 0.8–1.7 MB compressed; the search tables `bpe` builds from it are 15–32 MB.
//! Embedding the built tables would make every binary that counts tokens 47 MB larger, so the
//! crate embeds the vocabularies and builds the tables the first time an encoding counts
//! (about a second for `o200k_base`). A cached copy loads in tens of milliseconds.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bpe::byte_pair_encoding::{BytePairEncoding, read_tiktoken};
use bpe_openai::Tokenizer;

#[cfg(test)]
mod tests;

/// One published vocabulary and the pre-tokenizer that goes with it.
pub(crate) struct Vocabulary {
    pub(crate) name: &'static str,
    /// The `.tiktoken` file as OpenAI publishes it, gzip-compressed (assets/openai/NOTICE).
    gzipped: &'static [u8],
    /// The pre-tokenizer's splitting pattern, which [`Vocabulary::with_pretokenizer`] follows
    /// with the two patterns both encodings end with ([`SPACE_BEFORE_SPACE`], [`SPACES`]).
    split: &'static str,
    /// The count of [`PROBE`], checked after a cached table is loaded.
    probe_count: usize,
}

/// A text of letters, accents, CJK, digits, punctuation and whitespace runs, counted by a
/// loaded table before it is trusted.
pub(crate) const PROBE: &str = "Grüße aus 東京! 1234 tokens,\n\n  {\"ok\": true}";

/// The hash factor that makes `bpe`'s token hashes collision-free on both vocabularies.
const HASH_FACTOR: u64 = 17_846_336_922_010_275_747;

/// The letter/number classes of `cl100k_base`'s splitting pattern; the two look-ahead patterns
/// after it stand for tiktoken's `\s+(?!\S)`.
const CL100K_SPLIT: &str = concat!(
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)",
    r"|[^\r\n\p{L}\p{N}]?\p{L}+",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*",
    r"|\s*[\r\n]+",
    r"|\s+$",
);

const O200K_SPLIT: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"|\s*[\r\n]+",
    r"|\s+$",
);

/// Whitespace followed by one more whitespace character, which the splitter drops again: the
/// run stops one short of a following non-space, as `\s+(?!\S)` would.
const SPACE_BEFORE_SPACE: &str = r"\s+\s";
const SPACES: &str = r"\s+";

pub(crate) static O200K_BASE: Vocabulary = Vocabulary {
    name: "o200k_base",
    gzipped: include_bytes!("../../assets/openai/o200k_base.tiktoken.gz"),
    split: O200K_SPLIT,
    probe_count: 17,
};

pub(crate) static CL100K_BASE: Vocabulary = Vocabulary {
    name: "cl100k_base",
    gzipped: include_bytes!("../../assets/openai/cl100k_base.tiktoken.gz"),
    split: CL100K_SPLIT,
    probe_count: 19,
};

/// Where built tables are kept, once the host has said (see [`crate::keep_tables_in`]).
static CACHE_DIR: OnceLock<PathBuf> = OnceLock::new();

/// The environment variable that names a cache directory when the host names none: the tables
/// go in its `tables/` (an absolute path; a relative one is ignored).
pub const CACHE_VAR: &str = "OVERSPILL_CACHE_DIR";

/// The directory the host named, else `$OVERSPILL_CACHE_DIR/tables`.
fn cache_dir() -> Option<PathBuf> {
    CACHE_DIR.get().cloned().or_else(|| {
        let dir = PathBuf::from(std::env::var_os(CACHE_VAR)?);
        dir.is_absolute().then(|| dir.join("tables"))
    })
}

/// Names the directory built tables are kept in. `false` if one was already named.
pub(crate) fn keep_in(dir: PathBuf) -> bool {
    CACHE_DIR.set(dir).is_ok()
}

impl Vocabulary {
    /// The tokenizer: from the cache when a valid copy is there, else built (and cached).
    pub(crate) fn tokenizer(&self) -> Tokenizer {
        self.tokenizer_cached_in(cache_dir().as_deref())
    }

    fn tokenizer_cached_in(&self, dir: Option<&Path>) -> Tokenizer {
        let cached = dir.map(|dir| dir.join(self.file_name()));
        if let Some(tokenizer) = cached.as_deref().and_then(|path| self.load(path)) {
            return tokenizer;
        }
        let bpe = self.build();
        if let Some(path) = cached {
            // The cache only saves time: a directory that cannot be written is no error.
            let _ = store(self, &path, &bpe);
        }
        self.with_pretokenizer(bpe)
    }

    #[expect(
        clippy::expect_used,
        reason = "the patterns are constants, compiled by every test that counts"
    )]
    fn with_pretokenizer(&self, bpe: BytePairEncoding) -> Tokenizer {
        // `true` marks a pattern whose last character is a one character look-ahead (the
        // regex engine has no look-around).
        let patterns = [
            (self.split, false),
            (SPACE_BEFORE_SPACE, true),
            (SPACES, false),
        ];
        Tokenizer::new_lookahead(bpe, &patterns, false)
            .expect("the embedded pre-tokenizer patterns compile")
    }

    /// The tables built from the embedded vocabulary.
    #[expect(
        clippy::expect_used,
        reason = "the vocabularies are embedded at build time and decoded by every test that counts"
    )]
    pub(crate) fn build(&self) -> BytePairEncoding {
        let mut text = String::new();
        flate2::read::GzDecoder::new(self.gzipped)
            .read_to_string(&mut text)
            .expect("the embedded vocabulary decompresses");
        let tokens = read_tiktoken(&text).expect("the embedded vocabulary is base64 tokens");
        BytePairEncoding::from_dictionary(tokens, Some(HASH_FACTOR))
    }

    /// The cache file's name: the encoding, and a key that changes with the vocabulary, this
    /// crate's version, the cache format and the way the `bpe` crate and its dependencies lay
    /// tables out ([`layout`]), so a copy written by other code is never read.
    fn file_name(&self) -> String {
        let mut key = blake3::Hasher::new();
        key.update(FORMAT);
        key.update(env!("CARGO_PKG_VERSION").as_bytes());
        key.update(layout().as_bytes());
        key.update(self.gzipped);
        let hex = key.finalize().to_hex();
        format!("{}{}.bpe", self.prefix(), &hex.as_str()[..16])
    }

    /// What every cache file of this encoding starts with: `o200k_base-`.
    fn prefix(&self) -> String {
        format!("{}-", self.name)
    }

    /// A cached table, if the file is there, is private to this user, holds exactly what was
    /// written (its hash) and counts the probe text right.
    fn load(&self, path: &Path) -> Option<Tokenizer> {
        let bytes = read_private(path)?;
        let payload = bytes.strip_prefix(FORMAT)?;
        let (hash, payload) = payload.split_first_chunk::<32>()?;
        if blake3::hash(payload) != blake3::Hash::from_bytes(*hash) {
            return None;
        }
        let bpe: BytePairEncoding = rmp_serde::from_slice(payload).ok()?;
        let tokenizer = self.with_pretokenizer(bpe);
        (tokenizer.count(PROBE) == self.probe_count).then_some(tokenizer)
    }
}

/// The first bytes of a cache file; a new layout gets a new line.
const FORMAT: &[u8] = b"overspill bpe table 1\n";

/// Larger than any table (`o200k_base`'s is 32 MB): a bigger file is not one of ours.
const MAX_TABLE_BYTES: u64 = 128 << 20;

/// Temporary files older than this are left by a process that died while writing.
const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(600);

/// The hash of a tiny table as this build serializes it. `bpe` reads its automata back without
/// checking them, so a table written by another version of `bpe`, `daachorse` or `rmp-serde`
/// must never be read: any change in how they lay a table out changes these bytes, and with
/// them every cache file's name.
fn layout() -> &'static blake3::Hash {
    static LAYOUT: OnceLock<blake3::Hash> = OnceLock::new();
    LAYOUT.get_or_init(|| {
        let tokens = (0..=u8::MAX)
            .map(|byte| vec![byte])
            .chain([b"ab".to_vec(), b"abc".to_vec()]);
        let tiny = BytePairEncoding::from_dictionary(tokens, Some(HASH_FACTOR));
        blake3::hash(&rmp_serde::to_vec(&tiny).unwrap_or_default())
    })
}

/// Writes the table to a new, private temporary file (a name nobody can guess, created, never
/// opened through a link) and renames it into place, so a reader sees all of a copy or none;
/// two processes building at once each write a whole copy. Then removes this encoding's copies
/// of other versions and temporary files a killed process left.
fn store(vocabulary: &Vocabulary, path: &Path, bpe: &BytePairEncoding) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    private_dir(dir)?;
    let payload = rmp_serde::to_vec(bpe).map_err(std::io::Error::other)?;
    let mut file = tempfile::Builder::new()
        .prefix(".")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    file.write_all(FORMAT)?;
    file.write_all(blake3::hash(&payload).as_bytes())?;
    file.write_all(&payload)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|error| error.error)?;
    remove_stale(dir, &vocabulary.prefix(), path);
    Ok(())
}

/// Removes `prefix*.bpe` files other than `keep`, and temporary files older than
/// [`STALE_TEMPORARY`]. Best effort: what cannot be removed stays.
fn remove_stale(dir: &Path, prefix: &str, keep: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let old_copy = name.starts_with(prefix) && name.ends_with(".bpe") && path != keep;
        let left_over = name.starts_with('.')
            && name.ends_with(".tmp")
            && entry
                .metadata()
                .and_then(|meta| meta.modified())
                .ok()
                .and_then(|modified| modified.elapsed().ok())
                .is_some_and(|age| age > STALE_TEMPORARY);
        if old_copy || left_over {
            let _ = fs::remove_file(path);
        }
    }
}

/// The cache directory, made if missing (mode 0700), and made private if it is this user's
/// own; refused if it is a link or another user's.
#[cfg(unix)]
fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    match fs::symlink_metadata(dir) {
        Ok(meta) if meta.is_dir() && meta.uid() == effective_uid() => {
            if meta.mode() & 0o077 != 0 {
                fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
            }
            Ok(())
        }
        Ok(_) => Err(std::io::Error::other(format!(
            "{} is not a directory of this user's",
            dir.display()
        ))),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir),
        Err(error) => Err(error),
    }
}

#[cfg(not(unix))]
fn private_dir(dir: &Path) -> std::io::Result<()> {
    fs::create_dir_all(dir)
}

#[cfg(unix)]
fn effective_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// The file's bytes, if it and its directory belong to this user and nobody else can write
/// them: the file opened without following a link, checked on the open handle, with no other
/// name (one link). A table is trusted once its hash matches, so only this user may have
/// written it.
#[cfg(unix)]
fn read_private(path: &Path) -> Option<Vec<u8>> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let me = effective_uid();
    let private = |meta: &fs::Metadata| meta.uid() == me && meta.mode() & 0o022 == 0;
    let dir = fs::symlink_metadata(path.parent()?).ok()?;
    if !dir.is_dir() || !private(&dir) {
        return None;
    }
    let nofollow = i32::try_from(rustix::fs::OFlags::NOFOLLOW.bits()).ok()?;
    let mut file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(nofollow)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || !private(&meta) || meta.nlink() != 1 || meta.len() > MAX_TABLE_BYTES {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).ok()?);
    file.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

#[cfg(not(unix))]
fn read_private(path: &Path) -> Option<Vec<u8>> {
    let mut file = fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > MAX_TABLE_BYTES {
        return None;
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}
