//! Path resolution against what `resolve_properties.rs` does not generate (docs/security.md "never
//! follow a path out of the read root"): symlinks planted at random places with random
//! targets (chains, loops, absolute targets in and out), NUL bytes, backslashes, names past
//! the file system's limits, and arbitrary unicode. Whatever the tree and the path, `resolve`
//! refuses or returns an existing canonical path inside the canonical root, and its message
//! never shows a path outside the root.
//!
//! Defence guarded: `ReadRoot::resolve`'s lexical check followed by canonicalisation and the
//! containment check on the real path.

// Helpers outside #[test] fns panic on fixture failures like the tests do.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;

use overspill_store::{PathError, ReadRoot};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Directories of the planted tree, relative to the root.
const DIRS: &[&str] = &["", "d1", "d2", "d2/d3"];

/// Names the links get; the paths below use them too.
const LINK_NAMES: &[&str] = &["l0", "l1", "l2", "l3", "l4", "l5"];

/// A link target: relative climbs, siblings, other links (chains and loops), absolute paths
/// inside and outside the root.
#[derive(Clone, Debug)]
enum Target {
    Relative(&'static str),
    AbsoluteInside(&'static str),
    AbsoluteOutside,
    SystemRoot,
}

fn target() -> impl Strategy<Value = Target> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "..", "../..", "../../..", "../outside", "../../outside", "d1", "d3", "f.txt",
            "l0", "l1", "l2", "l3/..", "./l4", "missing", "../d2/d3/..", ".overspill-meta",
        ])
        .prop_map(Target::Relative),
        1 => prop::sample::select(vec!["", "d1", "d2/d3/h.txt", "l1"]).prop_map(Target::AbsoluteInside),
        1 => Just(Target::AbsoluteOutside),
        1 => Just(Target::SystemRoot),
    ]
}

/// A planted link: in which directory, which name, which target.
fn link() -> impl Strategy<Value = (usize, usize, Target)> {
    (0..DIRS.len(), 0..LINK_NAMES.len(), target())
}

fn component() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(vec![
            "..", ".", "d1", "d2", "d3", "f.txt", "h.txt", "l0", "l1", "l2", "l3", "l4", "l5",
            "outside", "secret.txt", ".overspill-meta",
        ])
        .prop_map(str::to_owned),
        1 => "\\PC{1,6}",
        1 => prop::sample::select(vec![
            "a\0b", "\0", "..\\..\\outside", "d1\\f.txt", "C:", "C:\\", "\\\\server\\share",
            "%2e%2e", "\u{2025}", "\u{FF0E}\u{FF0E}", ".\u{200B}.", "~", "~root", "$HOME",
            " ..", ".. ", "...", "d1 ",
        ])
        .prop_map(str::to_owned),
        // Past NAME_MAX (255 bytes) in ASCII and in multi-byte characters.
        1 => (200usize..400).prop_map(|n| "n".repeat(n)),
        1 => (60usize..120).prop_map(|n| "é中".repeat(n)),
    ]
}

fn user_path() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(component(), 1..8),
        prop::sample::select(vec!["/", "//", "/./", "\\"]),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(parts, separator, trailing)| {
            let mut path = parts.join(separator);
            if trailing {
                path.push('/');
            }
            path
        })
}

struct Tree {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    canonical_root: PathBuf,
    outside: String,
}

fn plant(links: &[(usize, usize, Target)]) -> Tree {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let outside = tmp.path().join("outside");
    for dir in DIRS {
        fs::create_dir_all(root.join(dir)).unwrap();
    }
    fs::create_dir_all(root.join(".overspill-meta")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(root.join("f.txt"), "f").unwrap();
    fs::write(root.join("d2/d3/h.txt"), "h").unwrap();
    fs::write(outside.join("secret.txt"), "secret").unwrap();
    for (dir, name, target) in links {
        let at = root.join(DIRS[*dir]).join(LINK_NAMES[*name]);
        let target = match target {
            Target::Relative(t) => PathBuf::from(t),
            Target::AbsoluteInside(t) => root.join(t),
            Target::AbsoluteOutside => outside.clone(),
            Target::SystemRoot => PathBuf::from("/"),
        };
        // A name planted twice keeps its first target.
        let _ = symlink(target, at);
    }
    let canonical_root = fs::canonicalize(&root).unwrap();
    let outside = fs::canonicalize(&outside)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    Tree {
        _tmp: tmp,
        root,
        canonical_root,
        outside,
    }
}

fn assert_contained(tree: &Tree, path: &str, got: &Result<PathBuf, PathError>) {
    match got {
        Ok(p) => {
            let below = p
                .strip_prefix(&tree.canonical_root)
                .unwrap_or_else(|_| panic!("{path:?} escaped to {}", p.display()));
            assert!(
                !below.to_string_lossy().contains(".overspill-"),
                "{path:?} reached {}",
                p.display()
            );
            assert_eq!(&fs::canonicalize(p).unwrap(), p, "{path:?}: not canonical");
        }
        Err(e) => {
            let message = e.to_string();
            // The caller's own path may be echoed; nothing the file system revealed may be.
            assert!(
                !message.contains(&tree.outside),
                "{path:?}: the message leaks a path outside: {message}"
            );
        }
    }
}

#[test]
fn randomly_planted_symlinks_never_lead_a_resolved_path_outside_the_root() {
    let accepted = std::cell::Cell::new(0u32);
    let escaping_tried = std::cell::Cell::new(0u32);
    let mut runner = TestRunner::new(Config {
        cases: 160,
        failure_persistence: None,
        ..Config::default()
    });
    let case = (
        prop::collection::vec(link(), 0..8),
        prop::collection::vec(user_path(), 12),
        0..DIRS.len(),
    );
    runner
        .run(&case, |(links, paths, base)| {
            let tree = plant(&links);
            let root = ReadRoot::new(&tree.root).unwrap();
            let based = root.with_base(tree.root.join(DIRS[base])).unwrap();
            for path in &paths {
                for read_root in [&root, &based] {
                    let got = read_root.resolve(path);
                    assert_contained(&tree, path, &got);
                    if got.is_ok() {
                        accepted.set(accepted.get() + 1);
                    }
                    if links.iter().any(|l| matches!(l.2, Target::AbsoluteOutside)) {
                        escaping_tried.set(escaping_tried.get() + 1);
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    // The generator reaches real files, and trees with escaping links, so it is not vacuous.
    assert!(accepted.get() > 40, "only {} accepted", accepted.get());
    assert!(escaping_tried.get() > 100);
}

#[test]
fn a_link_to_outside_is_refused_however_it_is_reached() {
    let tree = plant(&[
        (0, 0, Target::AbsoluteOutside),
        (1, 1, Target::Relative("../l0")),
        (3, 2, Target::Relative("../../d1/l1")),
        (0, 3, Target::SystemRoot),
    ]);
    let root = ReadRoot::new(&tree.root).unwrap();
    for path in [
        "l0",
        "l0/secret.txt",
        "d1/l1/secret.txt",
        "d2/d3/l2/secret.txt",
        "l3/etc/passwd",
        "d1/../l0/secret.txt",
    ] {
        let got = root.resolve(path);
        assert!(matches!(got, Err(PathError::Escapes)), "{path}: {got:?}");
        assert_contained(&tree, path, &got);
    }
}

#[test]
fn a_symlink_loop_is_an_error_not_a_hang_or_a_panic() {
    let tree = plant(&[
        (0, 0, Target::Relative("l1")),
        (0, 1, Target::Relative("l0")),
        (1, 2, Target::Relative("l2")),
    ]);
    let root = ReadRoot::new(&tree.root).unwrap();
    for path in ["l0", "l1/f.txt", "d1/l2", "d1/l2/x"] {
        let got = root.resolve(path);
        assert!(got.is_err(), "{path}: {got:?}");
        assert_contained(&tree, path, &got);
    }
}

#[test]
fn nul_bytes_anywhere_are_refused_as_nul() {
    let tree = plant(&[]);
    let root = ReadRoot::new(&tree.root).unwrap();
    for path in [
        "\0",
        "f.txt\0",
        "\0f.txt",
        "d1/\0/f.txt",
        "f.txt\0../../outside",
    ] {
        assert!(
            matches!(root.resolve(path), Err(PathError::Nul)),
            "{path:?}"
        );
    }
}

#[test]
fn backslashes_are_ordinary_name_characters_on_unix() {
    // `..\..\outside` is one (missing) name here, not a climb.
    let tree = plant(&[]);
    let root = ReadRoot::new(&tree.root).unwrap();
    fs::write(tree.root.join("a\\b.txt"), "x").unwrap();
    assert_eq!(
        root.resolve("a\\b.txt").unwrap(),
        tree.canonical_root.join("a\\b.txt")
    );
    for path in [
        "..\\..\\outside\\secret.txt",
        "d1\\..\\..\\outside",
        "C:\\Windows",
    ] {
        assert!(
            matches!(root.resolve(path), Err(PathError::NotFound)),
            "{path}"
        );
    }
}

#[test]
fn names_and_paths_past_the_file_system_limits_are_refused_cleanly() {
    let tree = plant(&[]);
    let root = ReadRoot::new(&tree.root).unwrap();
    let long_name = "n".repeat(10_000);
    let deep = "d1/".repeat(3_000) + "f.txt";
    let climbing = "d1/".repeat(2_000) + &"../".repeat(2_001) + "outside";
    for path in [long_name.as_str(), &deep, &climbing, &"é".repeat(5_000)] {
        let got = root.resolve(path);
        assert!(got.is_err(), "{}…: {got:?}", &path[..20]);
        assert_contained(&tree, path, &got);
    }
    // Many `..` that stay inside are fine: the climb is counted, not the length, and it is
    // lexical, so names that do not exist on the way cost nothing.
    let inside = "d1/".repeat(500) + &"../".repeat(500) + "f.txt";
    assert_eq!(
        root.resolve(&inside).unwrap(),
        tree.canonical_root.join("f.txt")
    );
    let balanced = "d2/d3/../../".repeat(500) + "f.txt";
    assert_eq!(
        root.resolve(&balanced).unwrap(),
        tree.canonical_root.join("f.txt")
    );
}

#[test]
fn unicode_lookalikes_of_dot_dot_are_names_not_climbs() {
    let tree = plant(&[]);
    let root = ReadRoot::new(&tree.root).unwrap();
    for dots in [
        "\u{2025}",
        "\u{FF0E}\u{FF0E}",
        ".\u{200B}.",
        "\u{FE52}\u{FE52}",
    ] {
        let path = format!("{dots}/outside/secret.txt");
        assert!(
            matches!(root.resolve(&path), Err(PathError::NotFound)),
            "{path}"
        );
    }
}

#[test]
fn a_root_that_is_itself_reached_through_a_symlink_still_confines() {
    let tree = plant(&[]);
    let alias = tree.root.parent().unwrap().join("alias");
    symlink(&tree.root, &alias).unwrap();
    let root = ReadRoot::new(&alias).unwrap();
    assert_eq!(
        root.resolve("f.txt").unwrap(),
        tree.canonical_root.join("f.txt")
    );
    assert!(matches!(
        root.resolve("../outside/secret.txt"),
        Err(PathError::Escapes)
    ));
    assert!(matches!(
        root.resolve("../root/f.txt"),
        Err(PathError::Escapes)
    ));
}

#[test]
fn a_name_past_the_file_system_limit_is_not_found_rather_than_an_io_fault() {
    let tree = plant(&[]);
    let root = ReadRoot::new(&tree.root).unwrap();
    for path in ["n".repeat(300), "d1/".repeat(3_000) + "f.txt"] {
        let got = root.resolve(&path);
        assert!(matches!(got, Err(PathError::NotFound)), "{got:?}");
    }
}
