//! Property: whatever path a model sends, `ReadRoot::resolve` either refuses it or returns a
//! canonical path inside the canonical root; and it accepts every path that really is inside.

// Helpers outside #[test] fns panic on fixture failures like the tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Component, Path, PathBuf};

use overspill_store::{PathError, ReadRoot};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// A root full of traps, beside a directory it must never reach:
///
/// ```text
/// outside/secret.txt
/// root/f.txt  root/a/b/g.txt  root/ü/x.txt  root/~/x.txt  root/.overspill-meta/rec.json
/// root/in_link -> a           root/a/up -> ..              root/a/b/esc -> ../../..
/// root/out_link -> outside    root/dangling -> missing     root/meta_link -> .overspill-meta
/// ```
struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let outside = tmp.path().join("outside");
    for dir in ["a/b", "ü", "~", ".overspill-meta"] {
        fs::create_dir_all(root.join(dir)).unwrap();
    }
    fs::create_dir_all(&outside).unwrap();
    for file in [
        "f.txt",
        "a/b/g.txt",
        "ü/x.txt",
        "~/x.txt",
        ".overspill-meta/rec.json",
    ] {
        fs::write(root.join(file), file).unwrap();
    }
    fs::write(outside.join("secret.txt"), "secret").unwrap();
    symlink("a", root.join("in_link")).unwrap();
    symlink("..", root.join("a/up")).unwrap();
    symlink("../../..", root.join("a/b/esc")).unwrap();
    symlink(&outside, root.join("out_link")).unwrap();
    symlink("missing", root.join("dangling")).unwrap();
    symlink(".overspill-meta", root.join("meta_link")).unwrap();
    Fixture {
        _tmp: tmp,
        root,
        outside,
    }
}

fn component() -> impl Strategy<Value = String> {
    prop_oneof![
        // Names that exist somewhere in the tree, so many paths resolve.
        6 => prop::sample::select(vec!["..", ".", "a", "b", "f.txt", "g.txt", "x.txt", "ü", "~", "in_link", "up"]).prop_map(str::to_owned),
        // The traps.
        3 => prop::sample::select(vec![
            "..", "esc", "out_link", "dangling", "meta_link", ".overspill-meta", "rec.json", "secret.txt", "outside", "root", "",
        ])
        .prop_map(str::to_owned),
        1 => "[a-zé中 .-]{1,4}",
    ]
}

fn user_path() -> impl Strategy<Value = (String, bool)> {
    let separator = prop::sample::select(vec!["/", "//", "/./"]);
    (
        prop::bool::weighted(0.1),
        prop::collection::vec((component(), separator), 1..6),
        any::<bool>(),
    )
        .prop_map(|(absolute, parts, based)| {
            let mut path = String::from(if absolute { "/" } else { "" });
            for (i, (name, sep)) in parts.iter().enumerate() {
                if i > 0 {
                    path.push_str(sep);
                }
                path.push_str(name);
            }
            (path, based)
        })
}

/// Lexical normalisation below the root, starting at `base`; `None` when it climbs out.
fn lexical(base: &[&str], user: &str) -> Option<Vec<String>> {
    let mut parts: Vec<String> = base.iter().map(|s| (*s).to_owned()).collect();
    for c in Path::new(user).components() {
        match c {
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(n) => parts.push(n.to_str().unwrap().to_owned()),
            _ => {}
        }
    }
    Some(parts)
}

#[test]
fn resolve_either_errors_or_stays_inside_the_canonical_root() {
    let f = fixture();
    let root = ReadRoot::new(&f.root).unwrap();
    let based = root.with_base(f.root.join("a/b")).unwrap();
    let canonical_root = fs::canonicalize(&f.root).unwrap();
    let outside = f.outside.to_string_lossy().into_owned();
    let accepted = std::cell::Cell::new(0u32);

    let mut runner = TestRunner::new(Config {
        cases: 768,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&user_path(), |(path, use_base)| {
            let (read_root, base): (&ReadRoot, &[&str]) = if use_base {
                (&based, &["a", "b"])
            } else {
                (&root, &[])
            };
            let got = read_root.resolve(&path);

            // The invariant.
            match &got {
                Ok(p) => {
                    prop_assert_eq!(&fs::canonicalize(p).unwrap(), p, "not canonical");
                    let below = p.strip_prefix(&canonical_root).expect("outside the root");
                    prop_assert!(
                        !below.to_string_lossy().contains(".overspill-"),
                        "reserved name reached: {}",
                        p.display()
                    );
                    accepted.set(accepted.get() + 1);
                }
                Err(e) => prop_assert!(
                    !e.to_string().contains(&outside),
                    "message leaks a path: {}",
                    e
                ),
            }

            // The oracle: what the rules say the answer is.
            if path.starts_with('/') {
                prop_assert!(matches!(got, Err(PathError::Absolute)), "{path}: {got:?}");
            } else if path.is_empty() {
                prop_assert!(matches!(got, Err(PathError::Empty)));
            } else if let Some(parts) = lexical(base, &path) {
                let target = parts.iter().fold(canonical_root.clone(), |p, c| p.join(c));
                let expect_ok = fs::canonicalize(&target)
                    .ok()
                    .filter(|real| {
                        real.strip_prefix(&canonical_root)
                            .is_ok_and(|b| !b.to_string_lossy().contains(".overspill-"))
                    })
                    .filter(|_| !parts.iter().any(|c| c.starts_with(".overspill-")));
                match expect_ok {
                    Some(real) => prop_assert_eq!(got.ok(), Some(real), "{}", path),
                    None => prop_assert!(got.is_err(), "{path} accepted"),
                }
            } else {
                prop_assert!(matches!(got, Err(PathError::Escapes)), "{path}: {got:?}");
            }
            Ok(())
        })
        .unwrap();
    // The generator reaches real files, so the property is not vacuous.
    assert!(
        accepted.get() > 40,
        "only {} paths accepted",
        accepted.get()
    );
}
