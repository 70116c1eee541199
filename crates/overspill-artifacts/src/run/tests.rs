use super::*;
use std::fs;

#[test]
fn run_directories_follow_the_store_layout() {
    let run = Run::new("/m", Some("s"), "r", 3).unwrap();
    assert_eq!(run.run_dir(), Path::new("/m/s/r"));
    assert_eq!(run.artifacts_dir(), Path::new("/m/s/r/artifacts"));
    assert_eq!(run.iteration_dir(), Path::new("/m/s/r/iteration-3"));
    assert_eq!(
        run.worker_scratchpad_dir(),
        Path::new("/m/s/r/iteration-3/scratchpad")
    );
    assert_eq!(run.worker_read_root_dir(), Path::new("/m/s"));
    assert_eq!(
        (run.session_id(), run.run_id(), run.iteration()),
        (Some("s"), "r", 3)
    );
    assert_eq!(
        run.at_iteration(4).unwrap().iteration_dir(),
        Path::new("/m/s/r/iteration-4")
    );
}

#[test]
fn worker_read_root_is_the_run_dir_without_a_session() {
    let run = Run::new("/m", None, "r", 0).unwrap();
    assert_eq!(run.worker_read_root_dir(), Path::new("/m/r"));
    assert_eq!(run.session_dir(), None);
}

#[test]
fn starting_a_run_prunes_the_oldest_runs_of_the_session() {
    let memory = tempfile::tempdir().unwrap();
    for i in 0..4 {
        Run::new(memory.path(), Some("s"), &format!("run-{i}"), 0)
            .unwrap()
            .start(3)
            .unwrap();
    }
    let mut left: Vec<String> = fs::read_dir(memory.path().join("s"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["run-1", "run-2", "run-3"]);
    let run = Run::new(memory.path(), Some("s"), "run-3", 0).unwrap();
    assert!(run.artifacts_dir().is_dir());
    assert!(run.worker_scratchpad_dir().is_dir());
}

#[test]
fn sibling_runs_stay_inside_the_session() {
    let run = Run::new("/m", Some("s"), "r", 2).unwrap();
    assert_eq!(
        run.sibling("other").unwrap().artifacts_dir(),
        Path::new("/m/s/other/artifacts")
    );
    assert!(matches!(run.sibling("../x"), Err(RunError::Layout(_))));
    assert!(matches!(run.sibling(".."), Err(RunError::Layout(_))));
    let lone = Run::new("/m", None, "r", 0).unwrap();
    assert!(matches!(
        lone.sibling("other"),
        Err(RunError::OutsideSession(_))
    ));
    assert_eq!(
        lone.sibling("r").unwrap().artifacts_dir(),
        Path::new("/m/r/artifacts")
    );
}
