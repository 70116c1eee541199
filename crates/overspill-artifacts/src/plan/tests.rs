use super::*;
use std::fs;

fn run_with(memory: &std::path::Path, files: &[&str]) -> Run {
    let run = Run::new(memory, Some("s"), "r", 1).unwrap();
    fs::create_dir_all(run.artifacts_dir()).unwrap();
    for file in files {
        fs::write(run.artifacts_dir().join(file), "x").unwrap();
    }
    run
}

#[test]
fn plan_listing_an_existing_and_a_missing_artifact_is_rejected_naming_the_missing_one() {
    let memory = tempfile::tempdir().unwrap();
    let run = run_with(memory.path(), &["a.txt"]);
    let plan = [
        PlanTask::new("collect", ["a.txt"]),
        PlanTask::new("analyse", ["a.txt", "b.txt"]),
    ];
    let error = validate_plan_artifacts(Some(&run), &plan).unwrap_err();
    let PlanError::MissingArtifacts {
        missing, available, ..
    } = &error
    else {
        panic!("{error}")
    };
    assert_eq!(
        missing,
        &[MissingArtifact {
            task: "analyse".into(),
            filename: "b.txt".into()
        }]
    );
    assert_eq!(available.names, ["a.txt"]);
    assert_eq!(
        error.to_string(),
        "the plan is rejected: `b.txt` (task `analyse`) is not in run `r`; available \
             artifacts: a.txt. List only available files, or let a task produce the file first \
             and list it in a later iteration"
    );
    assert_eq!(
        error.to_json(),
        json!({
            "error": "plan_artifacts_missing",
            "message": error.to_string(),
            "missing": [{"task": "analyse", "filename": "b.txt"}],
            "available": ["a.txt"],
        })
    );
}

#[test]
fn plan_with_artifacts_is_rejected_when_persistence_is_off() {
    let plan = [
        PlanTask::new("t1", Vec::<String>::new()),
        PlanTask::new("t2", ["a.txt"]),
    ];
    let error = validate_plan_artifacts(None, &plan).unwrap_err();
    assert!(matches!(&error, PlanError::PersistenceOff { tasks } if tasks == &["t2"]));
    assert_eq!(
        error.to_string(),
        "the plan is rejected: task `t2` lists input artifacts, but persistence is off (no \
             `memory_dir`); set `memory_dir` in the configuration, or put the content in the task \
             descriptions"
    );
    assert_eq!(
        error.to_json()["error"],
        json!("artifacts_need_persistence")
    );
}

#[test]
fn valid_plan_is_accepted() {
    let memory = tempfile::tempdir().unwrap();
    let run = run_with(memory.path(), &["a.txt", "task-1-result.txt"]);
    let plan = [
        PlanTask::new("t1", ["a.txt"]),
        PlanTask::new("t2", ["task-1-result.txt", "a.txt"]),
    ];
    assert!(validate_plan_artifacts(Some(&run), &plan).is_ok());
}

#[test]
fn plan_without_artifacts_is_accepted_even_without_persistence() {
    assert!(validate_plan_artifacts(None, &[PlanTask::new("t1", Vec::<String>::new())]).is_ok());
    assert!(validate_plan_artifacts(None, &[]).is_ok());
}

#[test]
fn path_like_and_hidden_names_count_as_missing() {
    let memory = tempfile::tempdir().unwrap();
    let run = run_with(memory.path(), &["a.txt"]);
    fs::write(run.run_dir().join("outside.txt"), "x").unwrap();
    fs::create_dir_all(run.artifacts_dir().join("sub")).unwrap();
    let plan = [PlanTask::new(
        "t",
        ["../outside.txt", ".hidden", "sub", "a.txt"],
    )];
    let PlanError::MissingArtifacts { missing, .. } =
        validate_plan_artifacts(Some(&run), &plan).unwrap_err()
    else {
        panic!("expected missing artifacts")
    };
    let names: Vec<&str> = missing.iter().map(|m| m.filename.as_str()).collect();
    assert_eq!(names, ["../outside.txt", ".hidden", "sub"]);
}

#[test]
fn rejection_lists_forty_available_and_counts_the_rest() {
    let memory = tempfile::tempdir().unwrap();
    let run = Run::new(memory.path(), Some("s"), "r", 1).unwrap();
    crate::listing::tests::write_numbered(run.artifacts_dir(), 45);
    let error =
        validate_plan_artifacts(Some(&run), &[PlanTask::new("t", ["nope.txt"])]).unwrap_err();
    let json = error.to_json();
    assert_eq!(json["available"].as_array().unwrap().len(), 40);
    assert_eq!(json["available_omitted"], json!(5));
    assert!(error.to_string().contains("(and 5 more)"));
}
