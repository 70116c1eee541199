use super::*;

use tiktoken_rs::{cl100k_base_singleton, o200k_base_singleton};

fn vocabularies() -> [(&'static Vocabulary, &'static Tokenizer); 2] {
    [
        (&O200K_BASE, bpe_openai::o200k_base()),
        (&CL100K_BASE, bpe_openai::cl100k_base()),
    ]
}

#[test]
fn tables_built_from_the_embedded_vocabularies_equal_bpe_openais_prebuilt_ones() {
    // A map's serialized order follows its capacity, which a deserialized map (as bpe-openai's
    // are) gets from its length: compare both after one trip through the format.
    let round_trip = |bpe: &BytePairEncoding| {
        let bytes = rmp_serde::to_vec(bpe).expect("serializes");
        let bpe: BytePairEncoding = rmp_serde::from_slice(&bytes).expect("deserializes");
        rmp_serde::to_vec(&bpe).expect("serializes")
    };
    for (vocabulary, prebuilt) in vocabularies() {
        let built = round_trip(&vocabulary.build());
        let prebuilt = rmp_serde::to_vec(&prebuilt.bpe).expect("serializes");
        assert!(built == prebuilt, "{} tables differ", vocabulary.name);
    }
}

#[test]
fn the_probe_counts_are_tiktokens() {
    let reference = [o200k_base_singleton(), cl100k_base_singleton()];
    for ((vocabulary, _), tiktoken) in vocabularies().into_iter().zip(reference) {
        assert_eq!(
            tiktoken.encode_ordinary(PROBE).len(),
            vocabulary.probe_count,
            "{}",
            vocabulary.name
        );
    }
}

fn cache_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    set_mode(dir.path(), 0o700);
    dir
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) {}

/// The one file the first build left in `dir`.
fn cached_file(dir: &Path) -> PathBuf {
    let files: Vec<PathBuf> = fs::read_dir(dir)
        .expect("cache directory")
        .map(|entry| entry.expect("entry").path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files.into_iter().next().expect("one file")
}

#[test]
fn a_cached_table_is_loaded_by_the_next_process_and_counts_the_same() {
    let dir = cache_dir();
    let vocabulary = &CL100K_BASE;
    let text = "The cached table counts the same: 東京, 1234, {\"ok\": true}\n";
    let first = vocabulary.tokenizer_cached_in(Some(dir.path()));
    let file = cached_file(dir.path());
    assert!(vocabulary.load(&file).is_some(), "the cached copy loads");
    let second = vocabulary.tokenizer_cached_in(Some(dir.path()));
    assert_eq!(first.count(text), second.count(text));
    assert_eq!(
        first.count(text),
        bpe_openai::cl100k_base().count(text),
        "same as bpe-openai's own"
    );
}

#[test]
fn a_damaged_cached_table_is_ignored_and_rebuilt() {
    let dir = cache_dir();
    let vocabulary = &CL100K_BASE;
    vocabulary.tokenizer_cached_in(Some(dir.path()));
    let file = cached_file(dir.path());
    let whole = fs::read(&file).expect("cached table");

    let mut flipped = whole.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    let truncated = &whole[..whole.len() - 1000];
    let mut other_format = whole.clone();
    other_format[FORMAT.len() - 2] = b'9';
    for damaged in [&flipped[..], truncated, &other_format[..], b"", FORMAT] {
        fs::write(&file, damaged).expect("write");
        assert!(vocabulary.load(&file).is_none());
        // The next use rebuilds it and puts a good copy back.
        let tokenizer = vocabulary.tokenizer_cached_in(Some(dir.path()));
        assert_eq!(tokenizer.count("Hello, world!"), 4);
        assert_eq!(fs::read(&file).expect("rewritten"), whole);
    }
}

#[cfg(unix)]
#[test]
fn a_cached_table_others_could_have_written_is_not_read() {
    let dir = cache_dir();
    let vocabulary = &CL100K_BASE;
    vocabulary.tokenizer_cached_in(Some(dir.path()));
    let file = cached_file(dir.path());
    assert!(vocabulary.load(&file).is_some());

    set_mode(&file, 0o662);
    assert!(vocabulary.load(&file).is_none(), "group-writable file");
    set_mode(&file, 0o600);
    set_mode(dir.path(), 0o777);
    assert!(vocabulary.load(&file).is_none(), "world-writable directory");
    set_mode(dir.path(), 0o700);
    assert!(vocabulary.load(&file).is_some());

    // A second name for the file, or a link in its place, is not read.
    let other = dir.path().join("second-name");
    fs::hard_link(&file, &other).expect("hard link");
    assert!(vocabulary.load(&file).is_none(), "two links");
    fs::remove_file(&other).expect("remove");
    let moved = dir.path().join("moved");
    fs::rename(&file, &moved).expect("rename");
    std::os::unix::fs::symlink(&moved, &file).expect("symlink");
    assert!(vocabulary.load(&file).is_none(), "a symlink");
}

#[cfg(unix)]
#[test]
fn a_cache_written_under_a_loose_umask_is_private_and_read_again() {
    // Under umask 002 (many desktops) a plain create would give 0664, which the reader refuses.
    let dir = cache_dir();
    set_mode(dir.path(), 0o775);
    let vocabulary = &CL100K_BASE;
    vocabulary.tokenizer_cached_in(Some(dir.path()));
    let file = cached_file(dir.path());
    use std::os::unix::fs::PermissionsExt;
    let mode = |path: &Path| fs::metadata(path).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(dir.path()), 0o700, "the directory was made private");
    assert!(vocabulary.load(&file).is_some());
}

#[test]
fn writing_a_table_replaces_copies_of_other_versions() {
    let dir = cache_dir();
    let vocabulary = &CL100K_BASE;
    let old = dir.path().join("cl100k_base-0123456789abcdef.bpe");
    let other_encoding = dir.path().join("o200k_base-0123456789abcdef.bpe");
    let fresh_temporary = dir.path().join(".in-progress.tmp");
    for path in [&old, &other_encoding, &fresh_temporary] {
        fs::write(path, b"old").expect("write");
    }
    vocabulary.tokenizer_cached_in(Some(dir.path()));
    assert!(!old.exists(), "the old copy of this encoding is gone");
    assert!(other_encoding.exists(), "another encoding's copy stays");
    assert!(
        fresh_temporary.exists(),
        "another process may be writing it"
    );
    assert!(dir.path().join(vocabulary.file_name()).exists());
}

#[test]
fn the_layout_fingerprint_is_stable_within_a_build() {
    assert_eq!(layout(), layout());
    assert_ne!(layout(), &blake3::hash(b""));
}

#[test]
fn a_cache_directory_that_cannot_be_made_only_costs_the_build() {
    let dir = cache_dir();
    let not_a_directory = dir.path().join("file");
    fs::write(&not_a_directory, "").expect("write");
    let tokenizer = CL100K_BASE.tokenizer_cached_in(Some(&not_a_directory.join("tables")));
    assert_eq!(tokenizer.count("Hello, world!"), 4);
    // A link in the directory's place is not written through.
    #[cfg(unix)]
    {
        let elsewhere = cache_dir();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(elsewhere.path(), &link).expect("symlink");
        let tokenizer = CL100K_BASE.tokenizer_cached_in(Some(&link));
        assert_eq!(tokenizer.count("Hello, world!"), 4);
        assert_eq!(fs::read_dir(elsewhere.path()).expect("dir").count(), 0);
    }
}

#[test]
fn the_cache_file_name_changes_with_the_vocabulary() {
    assert_ne!(O200K_BASE.file_name(), CL100K_BASE.file_name());
    assert!(O200K_BASE.file_name().starts_with("o200k_base-"));
    assert!(O200K_BASE.file_name().ends_with(".bpe"));
}
