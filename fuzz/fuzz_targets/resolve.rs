//! `ReadRoot::resolve` on arbitrary bytes: a path it accepts is always inside the canonical
//! root and never a reserved `.overspill-` name, whatever the input (docs/security.md).
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use overspill_store::ReadRoot;

/// A root with files, a directory, and symlinks that stay inside or lead out, beside a
/// directory that must never be reached.
struct Fixture {
    _dir: tempfile::TempDir,
    root: ReadRoot,
    based: ReadRoot,
    canonical: PathBuf,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        for d in [
            root.join("a/b"),
            root.join(".overspill-meta"),
            outside.clone(),
        ] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        for f in [
            root.join("f.txt"),
            root.join("a/b/g.txt"),
            outside.join("secret.txt"),
        ] {
            std::fs::write(f, "x").expect("write");
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            symlink("a", root.join("in_link")).expect("symlink");
            symlink("../../..", root.join("a/b/esc")).expect("symlink");
            symlink(&outside, root.join("out_link")).expect("symlink");
            symlink("loop", root.join("loop")).expect("symlink");
        }
        let read_root = ReadRoot::new(&root).expect("root");
        let based = read_root.with_base(root.join("a/b")).expect("base");
        let canonical = std::fs::canonicalize(&root).expect("canonical");
        Fixture {
            _dir: dir,
            root: read_root,
            based,
            canonical,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let fixture = fixture();
    let (use_base, path) = match data.split_first() {
        Some((first, rest)) => (first & 1 == 1, String::from_utf8_lossy(rest)),
        None => (false, String::from_utf8_lossy(data)),
    };
    let root = if use_base {
        &fixture.based
    } else {
        &fixture.root
    };
    if let Ok(resolved) = root.resolve(&path) {
        let below = resolved
            .strip_prefix(&fixture.canonical)
            .unwrap_or_else(|_| {
                panic!("{path:?} resolved outside the root: {}", resolved.display())
            });
        assert!(
            !below.to_string_lossy().contains(".overspill-"),
            "{path:?} reached a reserved name: {}",
            resolved.display()
        );
    }
});
