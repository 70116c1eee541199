use super::*;

fn start(memory: &Path, run: &str, max: usize) -> RunStarted {
    Layout::coordinator(memory, Some("s"), run)
        .unwrap()
        .start_run(max)
        .unwrap()
}

fn runs(memory: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(memory.join("s"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn start_run_prunes_the_oldest_runs_beyond_max_session_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let mut pruned = Vec::new();
    // Started in the reverse of their name order, so only the start time can pick them.
    for i in (1..=25).rev() {
        pruned.extend(start(tmp.path(), &format!("run-{i:02}"), DEFAULT_MAX_SESSION_RUNS).pruned);
    }
    assert_eq!(pruned, ["run-25", "run-24", "run-23", "run-22", "run-21"]);
    let left = runs(tmp.path());
    assert_eq!(left.len(), 20);
    assert_eq!((left[0].as_str(), left[19].as_str()), ("run-01", "run-20"));
}

#[test]
fn restarting_a_run_keeps_its_first_start_time() {
    let tmp = tempfile::tempdir().unwrap();
    // Names sort against start order, so neither name order nor a re-stamp passes this.
    start(tmp.path(), "z", 2);
    start(tmp.path(), "m", 2);
    start(tmp.path(), "z", 2); // "z" is still the oldest
    assert_eq!(start(tmp.path(), "a", 2).pruned, ["z"]);
    assert_eq!(runs(tmp.path()), ["a", "m"]);
}

#[test]
fn the_run_being_started_is_kept_even_with_max_zero() {
    let tmp = tempfile::tempdir().unwrap();
    start(tmp.path(), "a", 5);
    assert_eq!(start(tmp.path(), "b", 0).pruned, ["a"]);
    assert_eq!(runs(tmp.path()), ["b"]);
}

#[test]
fn runs_without_a_session_are_never_pruned() {
    let tmp = tempfile::tempdir().unwrap();
    for run in ["a", "b", "c"] {
        assert!(
            Layout::coordinator(tmp.path(), None, run)
                .unwrap()
                .start_run(1)
                .unwrap()
                .pruned
                .is_empty()
        );
    }
    assert!(["a", "b", "c"].iter().all(|r| tmp.path().join(r).is_dir()));
}

#[cfg(unix)]
#[test]
fn pruning_leaves_foreign_entries_and_symlinks_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let session = tmp.path().join("s");
    fs::create_dir_all(session.join("notes")).unwrap();
    fs::write(session.join("file.txt"), "x").unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir_all(elsewhere.join("artifacts")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, session.join("linked-run")).unwrap();
    // A host-made run without a marker is still recognised by its artifacts dir.
    fs::create_dir_all(session.join("host-run/artifacts")).unwrap();
    start(tmp.path(), "new", 1);
    assert_eq!(runs(tmp.path()), ["file.txt", "linked-run", "new", "notes"]);
    assert!(elsewhere.join("artifacts").is_dir());
}

#[test]
fn start_run_creates_the_run_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let w = Layout::worker(tmp.path(), Some("s"), "r", 4).unwrap();
    w.start_run(DEFAULT_MAX_SESSION_RUNS).unwrap();
    assert!(w.scratchpad_dir().unwrap().is_dir() && w.artifacts_dir().unwrap().is_dir());
    assert!(matches!(
        Layout::single_agent(tmp.path()).start_run(3),
        Err(LayoutError::WrongRole(_))
    ));
}
