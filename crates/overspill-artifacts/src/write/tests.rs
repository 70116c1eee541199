use super::*;
use std::path::Path;

fn run(memory: &Path) -> Run {
    Run::new(memory, Some("s"), "r", 0).unwrap()
}

#[test]
fn write_stores_runbook_draft_md_as_coordinator_runbook_draft_md() {
    let memory = tempfile::tempdir().unwrap();
    let run = run(memory.path());
    let answer = write_artifact(Some(&run), "runbook-draft.md", "# Draft\n");
    assert_eq!(
        answer,
        json!({"written": true, "filename": "coordinator-runbook-draft.md", "replaced": false})
    );
    let stored =
        fs::read_to_string(run.artifacts_dir().join("coordinator-runbook-draft.md")).unwrap();
    assert_eq!(stored, "# Draft\n");
}

#[test]
fn write_stores_notes_as_coordinator_notes_txt() {
    let memory = tempfile::tempdir().unwrap();
    let run = run(memory.path());
    assert_eq!(
        write_artifact(Some(&run), "notes", "n")["filename"],
        json!("coordinator-notes.txt")
    );
    assert!(run.artifacts_dir().join("coordinator-notes.txt").is_file());
}

#[test]
fn second_write_of_a_name_reports_replaced_true() {
    let memory = tempfile::tempdir().unwrap();
    let run = run(memory.path());
    assert_eq!(
        write_artifact(Some(&run), "notes", "first")["replaced"],
        json!(false)
    );
    assert_eq!(
        write_artifact(Some(&run), "notes", "second, longer")["replaced"],
        json!(true)
    );
    // Same size as before: still replaced, not mistaken for identical content.
    assert_eq!(
        write_artifact(Some(&run), "coordinator-notes.txt", "SECOND, LONGER")["replaced"],
        json!(true)
    );
    let stored = fs::read_to_string(run.artifacts_dir().join("coordinator-notes.txt")).unwrap();
    assert_eq!(stored, "SECOND, LONGER");
}

#[test]
fn traversal_name_cannot_leave_the_artifacts_dir() {
    let memory = tempfile::tempdir().unwrap();
    let run = run(memory.path());
    let answer = write_artifact(Some(&run), "../../etc/x", "pwned");
    assert_eq!(answer["filename"], json!("coordinator-etc-x.txt"));
    let files: Vec<_> = walk(memory.path());
    assert_eq!(files, [run.artifacts_dir().join("coordinator-etc-x.txt")]);
}

#[test]
fn write_without_persistence_says_memory_dir_must_be_set() {
    let answer = write_artifact(None, "notes", "x");
    assert_eq!(answer["written"], json!(false));
    let error = answer["error"].as_str().unwrap();
    assert!(error.contains("`memory_dir`"), "{error}");
    assert_eq!(answer.as_object().unwrap().len(), 2);
}

#[test]
fn write_with_an_unusable_name_is_refused() {
    let memory = tempfile::tempdir().unwrap();
    let answer = write_artifact(Some(&run(memory.path())), "../..", "x");
    assert_eq!(answer["written"], json!(false));
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("no usable characters")
    );
}

#[test]
fn write_leaves_no_temporary_file_and_is_private() {
    let memory = tempfile::tempdir().unwrap();
    let run = run(memory.path());
    run.write_artifact("a.md", "x").unwrap();
    let names: Vec<_> = fs::read_dir(run.artifacts_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["coordinator-a.md"]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(run.artifacts_dir()), 0o700);
        assert_eq!(mode(&run.artifacts_dir().join("coordinator-a.md")), 0o600);
    }
}

#[test]
fn the_write_artifact_tool_reads_its_arguments() {
    let memory = tempfile::tempdir().unwrap();
    let run = run(memory.path());
    let tool = overspill_explore::Registry::none().with(WriteArtifact::new(Some(run.clone())));
    let call = |arguments| tool.answer(None, "write_artifact", &arguments);
    let ok = call(json!({"name": "plan.md", "content": "# Plan"}));
    assert_eq!(
        ok,
        r#"{"written":true,"filename":"coordinator-plan.md","replaced":false}"#
    );
    let unknown = call(json!({"name": "a", "content": "b", "mode": "x"}));
    assert!(
        unknown.contains(r#""error":"invalid_argument""#),
        "{unknown}"
    );
    assert!(unknown.contains("name, content"), "{unknown}");
    let missing = call(json!({"name": "a"}));
    assert!(missing.contains("content"), "{missing}");
}

#[test]
fn task_result_is_stored_as_task_id_result_txt_and_listed() {
    let memory = tempfile::tempdir().unwrap();
    let run = run(memory.path());
    assert_eq!(
        run.write_task_result("3", "a").unwrap().filename,
        "task-3-result.txt"
    );
    let odd = run.write_task_result("../fix pods", "b").unwrap();
    assert_eq!(odd.filename, "task-___fix_pods-result.txt");
    assert!(run.write_task_result("3", "c").unwrap().replaced);
    let mut names = run.available().unwrap().names;
    names.sort();
    assert_eq!(names, ["task-3-result.txt", "task-___fix_pods-result.txt"]);
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}
