use super::*;

#[test]
fn single_agent_layout_uses_memory_dir_scratchpad() {
    let l = Layout::single_agent("/m");
    assert_eq!(
        (l.role(), l.scratchpad_dir(), l.artifacts_dir(), l.run_dir()),
        (
            Role::SingleAgent,
            Some(Path::new("/m/scratchpad")),
            None,
            None
        )
    );
    assert_eq!(l.read_root_dir(), Path::new("/m/scratchpad"));
    assert_eq!(l.read_base_dir(), Path::new("/m/scratchpad"));
}

#[test]
fn worker_layout_with_session_reads_the_session_dir() {
    let l = Layout::worker("/m", Some("s"), "r", 3).unwrap();
    assert_eq!(
        l.scratchpad_dir(),
        Some(Path::new("/m/s/r/iteration-3/scratchpad"))
    );
    assert_eq!(l.artifacts_dir(), Some(Path::new("/m/s/r/artifacts")));
    assert_eq!(l.run_dir(), Some(Path::new("/m/s/r")));
    assert_eq!(l.session_dir(), Some(Path::new("/m/s")));
    assert_eq!(l.read_root_dir(), Path::new("/m/s"));
    assert_eq!(
        l.read_base_dir(),
        Path::new("/m/s/r/iteration-3/scratchpad")
    );
}

#[test]
fn worker_layout_without_session_reads_the_run_dir() {
    let l = Layout::worker("/m", None, "r", 0).unwrap();
    assert_eq!(
        l.scratchpad_dir(),
        Some(Path::new("/m/r/iteration-0/scratchpad"))
    );
    assert_eq!(l.artifacts_dir(), Some(Path::new("/m/r/artifacts")));
    assert_eq!(l.read_root_dir(), Path::new("/m/r"));
    assert_eq!(l.session_dir(), None);
}

#[test]
fn coordinator_has_artifacts_but_no_scratchpad() {
    let l = Layout::coordinator("/m", Some("s"), "r").unwrap();
    assert_eq!(l.scratchpad_dir(), None);
    assert_eq!(l.artifacts_dir(), Some(Path::new("/m/s/r/artifacts")));
    assert_eq!(l.read_base_dir(), Path::new("/m/s/r"));
    let w = l.for_iteration(1).unwrap();
    assert_eq!(
        (w.role(), w.session_id(), w.run_id()),
        (Role::Worker { iteration: 1 }, Some("s"), Some("r"))
    );
}

#[test]
fn invalid_run_and_session_ids_are_refused() {
    for bad in [
        "",
        ".",
        "..",
        "a/b",
        "a\\b",
        "x..y",
        ".hidden",
        "scratchpad",
        ".overspill-meta",
        "tab\there",
        &"r".repeat(129),
    ] {
        assert!(
            matches!(
                Layout::coordinator("/m", None, bad),
                Err(LayoutError::InvalidId { what: "run id", .. })
            ),
            "{bad:?}"
        );
        assert!(
            matches!(
                Layout::worker("/m", Some(bad), "r", 0),
                Err(LayoutError::InvalidId {
                    what: "session id",
                    ..
                })
            ),
            "{bad:?}"
        );
    }
    for good in ["run-2026-12-02", "0b9c2f1e-uuid", "~", "ünïcode", "a.b"] {
        assert!(
            Layout::coordinator("/m", Some(good), good).is_ok(),
            "{good:?}"
        );
    }
}

#[test]
fn invalid_id_message_says_what_to_do() {
    let e = Layout::coordinator("/m", None, "a/b")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "invalid run id `a/b`: it contains a path separator; use a single name without `/` or `\\`"
    );
}

#[test]
fn worker_read_root_accepts_artifacts_two_levels_up() {
    let tmp = tempfile::tempdir().unwrap();
    let l = Layout::worker(tmp.path(), Some("s"), "r", 1).unwrap();
    l.create_dirs().unwrap();
    fs::write(l.artifacts_dir().unwrap().join("x.txt"), "x").unwrap();
    let root = l.open_read_root().unwrap();
    assert_eq!(
        root.open("../../artifacts/x.txt")
            .unwrap()
            .read_to_end()
            .unwrap(),
        b"x"
    );
    let pointer = crate::relative_ref(
        l.scratchpad_dir().unwrap(),
        &l.artifacts_dir().unwrap().join("x.txt"),
    )
    .unwrap();
    assert_eq!(pointer, "../../artifacts/x.txt");
}

#[test]
fn cleanup_removes_the_single_agent_dir_only() {
    let tmp = tempfile::tempdir().unwrap();
    let l = Layout::single_agent(tmp.path());
    l.create_dirs().unwrap();
    fs::write(l.scratchpad_dir().unwrap().join("t-1.txt"), "x").unwrap();
    fs::write(tmp.path().join("keep.txt"), "x").unwrap();
    assert!(l.cleanup().unwrap());
    assert!(!l.scratchpad_dir().unwrap().exists());
    assert!(tmp.path().join("keep.txt").exists());
    assert!(!l.cleanup().unwrap());
    assert!(matches!(
        Layout::coordinator(tmp.path(), None, "r")
            .unwrap()
            .cleanup(),
        Err(LayoutError::WrongRole(_))
    ));
}
