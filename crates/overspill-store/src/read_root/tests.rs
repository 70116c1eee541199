//! Tests of `ReadRoot`, kept beside the module in a file of their own.

use std::fs;
use std::path::Path;

use super::*;

/// `outside/secret.txt` beside `root/` with `root/f.txt`, `root/a/b/g.txt`.
struct Tree {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn tree() -> Tree {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let outside = tmp.path().join("outside");
    fs::create_dir_all(root.join("a/b")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(root.join("f.txt"), "f").unwrap();
    fs::write(root.join("a/b/g.txt"), "g").unwrap();
    fs::write(outside.join("secret.txt"), "secret").unwrap();
    Tree {
        _tmp: tmp,
        root,
        outside,
    }
}

fn read_root(t: &Tree) -> ReadRoot {
    ReadRoot::new(&t.root).unwrap()
}

fn canonical(p: &Path) -> PathBuf {
    fs::canonicalize(p).unwrap()
}

#[cfg(unix)]
fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[test]
fn resolve_accepts_plain_and_nested_names() {
    let t = tree();
    let r = read_root(&t);
    assert_eq!(
        r.resolve("f.txt").unwrap(),
        canonical(&t.root.join("f.txt"))
    );
    assert_eq!(
        r.resolve("a/b/g.txt").unwrap(),
        canonical(&t.root.join("a/b/g.txt"))
    );
    assert_eq!(
        r.resolve("./a//b/./g.txt").unwrap(),
        canonical(&t.root.join("a/b/g.txt"))
    );
    assert_eq!(r.resolve("a/b/").unwrap(), canonical(&t.root.join("a/b")));
}

#[test]
fn resolve_allows_dotdot_that_stays_inside() {
    let t = tree();
    let r = read_root(&t);
    assert_eq!(
        r.resolve("a/b/../../f.txt").unwrap(),
        canonical(&t.root.join("f.txt"))
    );
    assert_eq!(r.resolve("a/..").unwrap(), canonical(&t.root));
}

#[test]
fn resolve_rejects_parent_traversal() {
    let t = tree();
    let r = read_root(&t);
    assert!(matches!(r.resolve("../x"), Err(PathError::Escapes)));
    assert!(matches!(
        r.resolve("../outside/secret.txt"),
        Err(PathError::Escapes)
    ));
    assert!(matches!(r.resolve(".."), Err(PathError::Escapes)));
}

#[test]
fn resolve_rejects_climbing_out_through_a_subdirectory() {
    let t = tree();
    let r = read_root(&t);
    assert!(matches!(r.resolve("a/../../x"), Err(PathError::Escapes)));
    // Climbing out and back in is still a lexical escape.
    assert!(matches!(
        r.resolve("a/../../root/f.txt"),
        Err(PathError::Escapes)
    ));
}

#[test]
fn resolve_rejects_absolute_paths() {
    let t = tree();
    let r = read_root(&t);
    assert!(matches!(r.resolve("/etc/passwd"), Err(PathError::Absolute)));
    let inside = canonical(&t.root.join("f.txt"));
    assert!(matches!(
        r.resolve(inside.to_str().unwrap()),
        Err(PathError::Absolute)
    ));
}

#[test]
fn resolve_rejects_nul_and_empty() {
    let t = tree();
    let r = read_root(&t);
    assert!(matches!(r.resolve("a\0b"), Err(PathError::Nul)));
    assert!(matches!(r.resolve(""), Err(PathError::Empty)));
}

#[test]
fn resolve_never_expands_tilde() {
    let t = tree();
    let r = read_root(&t);
    assert!(matches!(
        r.resolve("~/.ssh/id_rsa"),
        Err(PathError::NotFound)
    ));
    fs::create_dir_all(t.root.join("~/.ssh")).unwrap();
    fs::write(
        t.root.join("~/.ssh/id_rsa"),
        "in-root file named like a key",
    )
    .unwrap();
    assert_eq!(
        r.resolve("~/.ssh/id_rsa").unwrap(),
        canonical(&t.root.join("~/.ssh/id_rsa"))
    );
}

#[test]
fn resolve_reports_missing_files_inside_as_not_found() {
    let t = tree();
    let r = read_root(&t);
    assert!(matches!(
        r.resolve("missing.json"),
        Err(PathError::NotFound)
    ));
    assert!(matches!(
        r.resolve("a/missing/deeper.json"),
        Err(PathError::NotFound)
    ));
    // A file used as a directory.
    assert!(matches!(r.resolve("f.txt/x"), Err(PathError::NotFound)));
}

#[cfg(unix)]
#[test]
fn symlink_to_etc_passwd_inside_root_is_rejected() {
    let t = tree();
    symlink("/etc/passwd", t.root.join("passwd"));
    symlink(t.outside.join("secret.txt"), t.root.join("secret"));
    let r = read_root(&t);
    assert!(matches!(r.resolve("passwd"), Err(PathError::Escapes)));
    assert!(matches!(r.resolve("secret"), Err(PathError::Escapes)));
}

#[cfg(unix)]
#[test]
fn symlinked_directory_pointing_out_is_rejected() {
    let t = tree();
    symlink(&t.outside, t.root.join("out"));
    symlink("../../..", t.root.join("a/b/up3"));
    let r = read_root(&t);
    assert!(matches!(
        r.resolve("out/secret.txt"),
        Err(PathError::Escapes)
    ));
    assert!(matches!(r.resolve("out"), Err(PathError::Escapes)));
    // Not existing behind the link: the link itself is judged, so nothing can be probed.
    assert!(matches!(
        r.resolve("out/no-such-file"),
        Err(PathError::Escapes)
    ));
    assert!(matches!(
        r.resolve("a/b/up3/outside/secret.txt"),
        Err(PathError::Escapes)
    ));
}

#[cfg(unix)]
#[test]
fn dangling_symlink_is_rejected() {
    let t = tree();
    symlink(t.root.join("gone"), t.root.join("dangling"));
    symlink(t.outside.join("gone"), t.root.join("dangling-out"));
    let r = read_root(&t);
    assert!(matches!(r.resolve("dangling"), Err(PathError::Dangling)));
    assert!(matches!(
        r.resolve("dangling/x.txt"),
        Err(PathError::Dangling)
    ));
    assert!(matches!(
        r.resolve("dangling-out"),
        Err(PathError::Dangling)
    ));
}

#[cfg(unix)]
#[test]
fn in_root_symlink_is_accepted() {
    let t = tree();
    symlink("a/b", t.root.join("b-link"));
    symlink("b/g.txt", t.root.join("a/g-link"));
    let r = read_root(&t);
    assert_eq!(
        r.resolve("b-link/g.txt").unwrap(),
        canonical(&t.root.join("a/b/g.txt"))
    );
    assert_eq!(
        r.resolve("a/g-link").unwrap(),
        canonical(&t.root.join("a/b/g.txt"))
    );
    // `..` is lexical: `b-link/..` is the root, not `a`.
    assert_eq!(
        r.resolve("b-link/../f.txt").unwrap(),
        canonical(&t.root.join("f.txt"))
    );
}

#[cfg(unix)]
#[test]
fn symlinked_root_is_accepted() {
    let t = tree();
    let link = t.outside.join("root-link");
    symlink(&t.root, &link);
    let r = ReadRoot::new(&link).unwrap();
    assert_eq!(r.dir(), link);
    assert_eq!(r.canonical_dir(), canonical(&t.root));
    assert_eq!(
        r.resolve("a/b/g.txt").unwrap(),
        canonical(&t.root.join("a/b/g.txt"))
    );
    assert!(matches!(
        r.resolve("../secret.txt"),
        Err(PathError::Escapes)
    ));
}

#[test]
fn worker_reads_artifacts_from_its_scratchpad_base() {
    let t = tree();
    let run = t.root.join("run-1");
    fs::create_dir_all(run.join("iteration-1/scratchpad")).unwrap();
    fs::create_dir_all(run.join("artifacts")).unwrap();
    fs::write(run.join("artifacts/x.txt"), "x").unwrap();
    fs::write(
        run.join("iteration-1/scratchpad/tool-0123456789abcdef.json"),
        "{}",
    )
    .unwrap();
    let r = read_root(&t)
        .with_base(run.join("iteration-1/scratchpad"))
        .unwrap();
    assert_eq!(
        r.resolve("../../artifacts/x.txt").unwrap(),
        canonical(&run.join("artifacts/x.txt"))
    );
    assert_eq!(
        r.resolve("tool-0123456789abcdef.json").unwrap(),
        canonical(&run.join("iteration-1/scratchpad/tool-0123456789abcdef.json"))
    );
    // Up to the session dir (the read root) is fine, past it is not.
    assert_eq!(
        r.resolve("../../../f.txt").unwrap(),
        canonical(&t.root.join("f.txt"))
    );
    assert!(matches!(
        r.resolve("../../../../outside/secret.txt"),
        Err(PathError::Escapes)
    ));
    assert_eq!(r.base_dir(), t.root.join("run-1/iteration-1/scratchpad"));
}

#[test]
fn base_may_not_exist_yet_but_must_lie_inside_the_root() {
    let t = tree();
    let r = read_root(&t);
    let later = r
        .with_base(t.root.join("run-2/iteration-0/scratchpad"))
        .unwrap();
    assert!(matches!(
        later.resolve("../../artifacts/x.txt"),
        Err(PathError::NotFound)
    ));
    assert!(matches!(r.with_base(&t.outside), Err(PathError::Escapes)));
    assert!(matches!(
        r.with_base(t.root.join("a/../../outside")),
        Err(PathError::Escapes)
    ));
}

#[cfg(unix)]
#[test]
fn base_through_a_symlink_pointing_out_is_refused() {
    let t = tree();
    symlink(&t.outside, t.root.join("out"));
    assert!(matches!(
        read_root(&t).with_base(t.root.join("out")),
        Err(PathError::Escapes)
    ));
}

#[cfg(unix)]
#[test]
fn overspill_internal_names_read_as_not_found() {
    let t = tree();
    fs::create_dir_all(t.root.join(".overspill-meta")).unwrap();
    fs::write(t.root.join(".overspill-meta/f.txt.json"), "{}").unwrap();
    fs::write(t.root.join(".overspill-tmp-abc"), "partial").unwrap();
    symlink(".overspill-meta", t.root.join("meta-link"));
    let r = read_root(&t);
    for path in [
        ".overspill-meta",
        ".overspill-meta/f.txt.json",
        ".overspill-tmp-abc",
        "a/../.overspill-meta",
        ".OVERSPILL-META/f.txt.json",
        "meta-link/f.txt.json",
    ] {
        assert!(
            matches!(r.resolve(path), Err(PathError::NotFound)),
            "{path}"
        );
    }
}

#[cfg(unix)]
#[test]
fn permission_denied_is_an_io_error_not_an_escape() {
    use std::os::unix::fs::PermissionsExt;
    let t = tree();
    let locked = t.root.join("locked");
    fs::create_dir(&locked).unwrap();
    fs::write(locked.join("inner.txt"), "x").unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read_dir(&locked).is_ok() {
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o700)).unwrap();
        eprintln!("skipping: running with privileges that ignore directory permissions");
        return;
    }
    let got = read_root(&t).resolve("locked/inner.txt");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o700)).unwrap();
    match got {
        Err(e @ PathError::Io { .. }) => assert_eq!(e.code(), "io_error"),
        other => panic!("expected an I/O error, got {other:?}"),
    }
}

#[test]
fn overlong_name_is_not_found_not_an_escape() {
    let t = tree();
    let got = read_root(&t).resolve(&"n".repeat(300));
    assert!(matches!(got, Err(PathError::NotFound)), "{got:?}");
}

#[cfg(unix)]
#[test]
fn symlink_loop_is_an_io_error_not_an_escape() {
    let t = tree();
    symlink(t.root.join("loop-b"), t.root.join("loop-a"));
    symlink(t.root.join("loop-a"), t.root.join("loop-b"));
    let got = read_root(&t).resolve("loop-a");
    match got {
        Err(e @ PathError::Io { .. }) => assert_eq!(e.code(), "io_error"),
        other => panic!("expected an I/O error, got {other:?}"),
    }
}

#[cfg(unix)]
#[test]
fn error_messages_never_print_paths_outside_the_root() {
    let t = tree();
    symlink(&t.outside, t.root.join("out"));
    symlink(t.outside.join("gone"), t.root.join("dangling"));
    let r = read_root(&t);
    let outside = t.outside.to_string_lossy().into_owned();
    let parent = t.root.parent().unwrap().to_string_lossy().into_owned();
    for path in [
        "out/secret.txt",
        "out/nothing",
        "dangling",
        "../outside/secret.txt",
        "/etc/passwd",
        "missing",
        "a\0b",
        "",
    ] {
        let message = r.resolve(path).unwrap_err().to_string();
        assert!(
            !message.contains(&outside) && !message.contains(&parent) && !message.contains("/etc"),
            "{path}: {message}"
        );
    }
}

#[test]
fn new_requires_an_existing_directory() {
    let t = tree();
    assert!(matches!(
        ReadRoot::new(t.root.join("missing")),
        Err(PathError::NotFound)
    ));
    assert!(matches!(
        ReadRoot::new(t.root.join("f.txt")),
        Err(PathError::Io { .. })
    ));
}

#[test]
fn error_codes_follow_the_tool_error_vocabulary() {
    let codes: Vec<&str> = [
        PathError::Empty,
        PathError::Nul,
        PathError::Absolute,
        PathError::Escapes,
        PathError::Dangling,
        PathError::NotFound,
    ]
    .iter()
    .map(PathError::code)
    .collect();
    assert_eq!(
        codes,
        [
            "invalid_argument",
            "invalid_argument",
            "path_outside_root",
            "path_outside_root",
            "not_found",
            "not_found"
        ]
    );
}
