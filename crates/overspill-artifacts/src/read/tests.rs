//! Tests of `read_artifact` (docs/artifacts.md acceptance).

use std::fs;
use std::path::Path;
use std::sync::Arc;

use overspill_budget::{Budget, BudgetSettings};
use overspill_explore::{ExploreContext, Registry};
use serde_json::{Value, json};

use super::*;
use crate::listing::tests::write_numbered;

/// A worker of `run` with a fresh budget: 128k window, margin 0.20, per-call cap `cap`.
fn worker(run: &Run, cap: u64) -> ExploreContext {
    let settings = BudgetSettings {
        max_extraction_tokens: cap,
        ..BudgetSettings::for_window(128_000)
    };
    let budget = Arc::new(Budget::new(settings, 0).unwrap());
    ExploreContext::new(
        run.open_worker_read_root().unwrap(),
        overspill_tokens::o200k(),
        budget,
    )
}

fn started(memory: &Path, session: Option<&str>, run_id: &str) -> Run {
    let run = Run::new(memory, session, run_id, 1).unwrap();
    run.start(overspill_store::DEFAULT_MAX_SESSION_RUNS)
        .unwrap();
    run
}

/// A result artifact of `lines` numbered log lines.
fn put_result(run: &Run, name: &str, lines: usize) -> String {
    let content: String = (1..=lines)
        .map(|i| format!("{i:05} worker log line: pod web-{i} restarted after OOMKilled\n"))
        .collect();
    fs::write(run.artifacts_dir().join(name), &content).unwrap();
    content
}

/// The `file: …` reference of a pointer.
fn pointer_file(pointer: &str) -> &str {
    pointer
        .lines()
        .find_map(|l| l.strip_prefix("file: "))
        .unwrap_or_else(|| panic!("no file line in {pointer}"))
}

fn parse(answer: &str) -> Value {
    serde_json::from_str(answer).unwrap_or_else(|e| panic!("not JSON ({e}): {answer}"))
}

#[test]
fn large_artifact_gives_a_pointer_whose_file_opens_in_place_with_head() {
    let memory = tempfile::tempdir().unwrap();
    let run = started(memory.path(), Some("s1"), "run-1");
    put_result(&run, "task-3-result.txt", 4_000);
    let ctx = worker(&run, 2_000);

    let pointer = read_artifact(Some(&run), Reader::Worker(&ctx), "task-3-result.txt", None);
    assert!(pointer.starts_with("[overspill]"), "{pointer}");
    assert_eq!(pointer_file(&pointer), "../../artifacts/task-3-result.txt");
    assert!(pointer.contains("4,000 lines"), "{pointer}");
    // The pointer itself costs the budget nothing.
    assert_eq!(ctx.budget().tokens_extracted(), 0);

    let head = Registry::new().dispatch(
        &ctx,
        "head",
        &json!({"file": pointer_file(&pointer), "lines": 2}).to_string(),
    );
    assert!(
        head.starts_with(
            "1: 00001 worker log line: pod web-1 restarted after OOMKilled\n\
             2: 00002 worker log line: pod web-2 restarted after OOMKilled\n"
        ),
        "{head}"
    );
    // Nothing was copied into the worker's scratchpad, and nothing was charged for the pointer.
    let copied = fs::read_dir(run.worker_scratchpad_dir()).unwrap().count();
    assert_eq!(copied, 0);
    assert!(ctx.budget().tokens_intercepted() > 2_000);
}

#[test]
fn small_artifact_is_inlined_and_charged_to_the_budget() {
    let memory = tempfile::tempdir().unwrap();
    let run = started(memory.path(), Some("s1"), "run-1");
    let content = put_result(&run, "task-1-result.txt", 3);
    let ctx = worker(&run, 2_000);
    let before = ctx.budget().used();

    let answer = read_artifact(Some(&run), Reader::Worker(&ctx), "task-1-result.txt", None);
    assert!(answer.starts_with(content.trim_end()), "{answer}");
    let footer = answer.lines().last().unwrap();
    assert!(
        footer.starts_with("--- read_artifact: task-1-result.txt (3 lines) | ~"),
        "{footer}"
    );
    let tokens = overspill_tokens::o200k().count(&answer) as u64;
    assert_eq!(ctx.budget().used() - before, tokens);
    assert_eq!(ctx.budget().tokens_extracted(), tokens);
    assert_eq!(ctx.budget().tokens_intercepted(), 0);
}

#[test]
fn artifact_over_the_remaining_budget_gives_a_pointer() {
    let memory = tempfile::tempdir().unwrap();
    let run = started(memory.path(), Some("s1"), "run-1");
    put_result(&run, "task-1-result.txt", 40);
    let settings = BudgetSettings {
        context_window: 2_000,
        ..BudgetSettings::for_window(2_000)
    };
    let budget = Arc::new(Budget::new(settings, 1_500).unwrap());
    let ctx = ExploreContext::new(
        run.open_worker_read_root().unwrap(),
        overspill_tokens::o200k(),
        budget,
    );
    let answer = read_artifact(Some(&run), Reader::Worker(&ctx), "task-1-result.txt", None);
    assert_eq!(pointer_file(&answer), "../../artifacts/task-1-result.txt");
    assert_eq!(ctx.budget().tokens_extracted(), 0);
}

#[test]
fn coordinator_always_gets_the_artifact_inline() {
    let memory = tempfile::tempdir().unwrap();
    let run = started(memory.path(), Some("s1"), "run-1");
    let content = put_result(&run, "task-3-result.txt", 20_000);
    assert_eq!(
        read_artifact(Some(&run), Reader::Coordinator, "task-3-result.txt", None),
        content
    );
}

#[test]
fn missing_artifact_among_45_lists_the_40_newest_and_omits_5() {
    let memory = tempfile::tempdir().unwrap();
    let run = started(memory.path(), Some("s1"), "run-1");
    write_numbered(run.artifacts_dir(), 45);
    let ctx = worker(&run, 2_000);
    let answer = parse(&read_artifact(
        Some(&run),
        Reader::Worker(&ctx),
        "nope.txt",
        None,
    ));
    assert_eq!(answer["found"], json!(false));
    assert_eq!(answer["filename"], json!("nope.txt"));
    let available = answer["available"].as_array().unwrap();
    assert_eq!(available.len(), 40);
    assert_eq!(available[0], json!("artifact-44.txt"));
    assert_eq!(answer["available_omitted"], json!(5));
    assert_eq!(ctx.budget().tokens_extracted(), 0);
}

#[test]
fn missing_artifact_in_a_small_run_lists_all_without_available_omitted() {
    let memory = tempfile::tempdir().unwrap();
    let run = started(memory.path(), None, "run-1");
    write_numbered(run.artifacts_dir(), 2);
    let answer = read_artifact(Some(&run), Reader::Coordinator, "task-9-result.txt", None);
    assert_eq!(
        parse(&answer),
        json!({"found": false, "filename": "task-9-result.txt", "available": ["artifact-01.txt", "artifact-00.txt"]})
    );
}

#[test]
fn cross_run_read_of_another_run_in_the_same_session_works() {
    let memory = tempfile::tempdir().unwrap();
    let earlier = started(memory.path(), Some("s1"), "run-1");
    let small = put_result(&earlier, "task-1-result.txt", 2);
    put_result(&earlier, "task-2-result.txt", 4_000);
    let run = started(memory.path(), Some("s1"), "run-2");
    let ctx = worker(&run, 2_000);

    let inline = read_artifact(
        Some(&run),
        Reader::Worker(&ctx),
        "task-1-result.txt",
        Some("run-1"),
    );
    assert!(inline.starts_with(small.trim_end()), "{inline}");
    assert!(
        inline.contains("\n--- read_artifact: task-1-result.txt of run run-1 (2 lines) | ~"),
        "{inline}"
    );

    let pointer = read_artifact(
        Some(&run),
        Reader::Worker(&ctx),
        "task-2-result.txt",
        Some("run-1"),
    );
    let file = pointer_file(&pointer);
    assert_eq!(file, "../../../run-1/artifacts/task-2-result.txt");
    let head =
        Registry::new().dispatch(&ctx, "head", &json!({"file": file, "lines": 1}).to_string());
    assert!(head.starts_with("1: 00001 worker log line"), "{head}");

    let missing = parse(&read_artifact(
        Some(&run),
        Reader::Coordinator,
        "x.txt",
        Some("run-1"),
    ));
    assert_eq!(missing["run_id"], json!("run-1"));
    assert_eq!(missing["available"].as_array().unwrap().len(), 2);
    // The current run named explicitly is the current run.
    let own = parse(&read_artifact(
        Some(&run),
        Reader::Coordinator,
        "x.txt",
        Some("run-2"),
    ));
    assert_eq!(own["available"], json!([]));
}

#[test]
fn run_id_with_traversal_is_refused() {
    let memory = tempfile::tempdir().unwrap();
    let run = started(memory.path(), Some("s1"), "run-1");
    for bad in ["../x", "..", "a/b", "a\\b", ".hidden"] {
        let answer = parse(&read_artifact(
            Some(&run),
            Reader::Coordinator,
            "a.txt",
            Some(bad),
        ));
        assert_eq!(answer["error"], json!("invalid_argument"), "{bad}");
        assert_eq!(answer["argument"], json!("run_id"), "{bad}");
    }
    let answer = parse(&read_artifact(
        Some(&run),
        Reader::Coordinator,
        "a.txt",
        Some("../x"),
    ));
    assert_eq!(
        answer["message"],
        json!(
            "invalid run id `../x`: it contains a path separator; use a single name without `/` \
             or `\\`; pass a run id of this session, or leave `run_id` out"
        )
    );
}

#[test]
fn filename_with_separators_or_dotdot_is_refused() {
    let memory = tempfile::tempdir().unwrap();
    let run = started(memory.path(), Some("s1"), "run-1");
    fs::write(run.run_dir().join("secret.txt"), "x").unwrap();
    let ctx = worker(&run, 2_000);
    for bad in [
        "../secret.txt",
        "../../etc/passwd",
        "/etc/passwd",
        "..",
        "a/b.txt",
        ".overspill-run",
    ] {
        let answer = parse(&read_artifact(Some(&run), Reader::Worker(&ctx), bad, None));
        assert_eq!(answer["error"], json!("invalid_argument"), "{bad}");
        assert_eq!(answer["argument"], json!("filename"), "{bad}");
    }
}

#[test]
fn cross_run_read_without_a_session_is_refused() {
    let memory = tempfile::tempdir().unwrap();
    let other = started(memory.path(), None, "run-1");
    put_result(&other, "task-1-result.txt", 2);
    let run = started(memory.path(), None, "run-2");
    let answer = parse(&read_artifact(
        Some(&run),
        Reader::Coordinator,
        "task-1-result.txt",
        Some("run-1"),
    ));
    assert_eq!(answer["error"], json!("invalid_argument"));
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("without a session id"),
        "{answer}"
    );
}

#[test]
fn read_without_persistence_says_memory_dir_must_be_set() {
    let answer = parse(&read_artifact(None, Reader::Coordinator, "a.txt", None));
    assert_eq!(answer["found"], json!(false));
    assert!(answer["error"].as_str().unwrap().contains("`memory_dir`"));
}

#[cfg(unix)]
#[test]
fn symlink_in_the_artifacts_dir_is_not_an_artifact() {
    let memory = tempfile::tempdir().unwrap();
    let run = started(memory.path(), Some("s1"), "run-1");
    let outside = memory.path().join("outside.txt");
    fs::write(&outside, "secret").unwrap();
    std::os::unix::fs::symlink(&outside, run.artifacts_dir().join("link.txt")).unwrap();
    let answer = parse(&read_artifact(
        Some(&run),
        Reader::Coordinator,
        "link.txt",
        None,
    ));
    assert_eq!(
        answer,
        json!({"found": false, "filename": "link.txt", "available": []})
    );
}

#[test]
fn the_read_artifact_tool_reads_its_arguments() {
    let memory = tempfile::tempdir().unwrap();
    let run = started(memory.path(), Some("s1"), "run-1");
    put_result(&run, "task-1-result.txt", 1);
    let tool = overspill_explore::Registry::none().with(ReadArtifact::new(Some(run.clone())));
    let ok = tool.answer(
        None,
        "read_artifact",
        &json!({"filename": "task-1-result.txt"}),
    );
    assert!(ok.starts_with("00001 worker log line"), "{ok}");
    let unknown = parse(&tool.answer(None, "read_artifact", &json!({"file": "x"})));
    assert_eq!(unknown["error"], json!("invalid_argument"));
    assert!(
        unknown["message"]
            .as_str()
            .unwrap()
            .contains("filename, run_id"),
        "{unknown}"
    );
}

#[test]
fn artifact_written_by_the_coordinator_is_readable_by_a_worker() {
    let memory = tempfile::tempdir().unwrap();
    let run = started(memory.path(), Some("s1"), "run-1");
    let written = crate::write_artifact(
        Some(&run),
        "runbook draft.md",
        "# Runbook\n\nRestart web.\n",
    );
    let filename = written["filename"].as_str().unwrap();
    let ctx = worker(&run, 2_000);
    let answer = read_artifact(Some(&run), Reader::Worker(&ctx), filename, None);
    assert!(
        answer.starts_with(
            "# Runbook\n\nRestart web.\n--- read_artifact: coordinator-runbook-draft.md"
        ),
        "{answer}"
    );
}

#[test]
fn worker_whose_read_root_cannot_reach_the_artifact_gets_path_outside_root() {
    let memory = tempfile::tempdir().unwrap();
    let run = started(memory.path(), Some("s1"), "run-1");
    put_result(&run, "task-3-result.txt", 4_000);
    // A host mistake: the worker may read only its own scratchpad.
    let root = overspill_store::ReadRoot::new(run.worker_scratchpad_dir()).unwrap();
    let budget = Arc::new(Budget::new(BudgetSettings::for_window(128_000), 0).unwrap());
    let ctx = ExploreContext::new(root, overspill_tokens::o200k(), budget);
    let answer = parse(&read_artifact(
        Some(&run),
        Reader::Worker(&ctx),
        "task-3-result.txt",
        None,
    ));
    assert_eq!(answer["error"], json!("path_outside_root"));
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("the run's read root"),
        "{answer}"
    );
}

#[test]
fn non_utf8_artifact_is_shown_lossily_with_a_note() {
    let memory = tempfile::tempdir().unwrap();
    let run = started(memory.path(), Some("s1"), "run-1");
    fs::write(run.artifacts_dir().join("bytes.txt"), b"ok \xff\xfe end\n").unwrap();
    let ctx = worker(&run, 2_000);
    let answer = read_artifact(Some(&run), Reader::Worker(&ctx), "bytes.txt", None);
    assert!(
        answer.starts_with(
            "ok \u{FFFD}\u{FFFD} end\n--- read_artifact: bytes.txt (1 line); invalid UTF-8"
        ),
        "{answer}"
    );
    let coordinator = read_artifact(Some(&run), Reader::Coordinator, "bytes.txt", None);
    assert_eq!(coordinator, "ok \u{FFFD}\u{FFFD} end\n");
}

#[cfg(unix)]
#[test]
fn an_artifact_with_a_second_hard_link_is_refused_to_the_coordinator_and_to_a_worker() {
    // The read root's rule (docs/storage.md, "Hard links are refused"): another name of the
    // file may lie outside the run, so neither reader is given its content.
    let memory = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let run = started(memory.path(), Some("s1"), "run-1");
    fs::write(outside.path().join("secret.txt"), "outside secret\n").unwrap();
    fs::hard_link(
        outside.path().join("secret.txt"),
        run.artifacts_dir().join("task-3-result.txt"),
    )
    .unwrap();
    let ctx = worker(&run, 2_000);
    for reader in [Reader::Coordinator, Reader::Worker(&ctx)] {
        let answer = read_artifact(Some(&run), reader, "task-3-result.txt", None);
        assert!(!answer.contains("outside secret"), "{answer}");
        let answer = parse(&answer);
        assert_eq!(answer["error"], json!("invalid_argument"), "{answer}");
        assert!(
            answer["message"]
                .as_str()
                .unwrap()
                .contains("the file has 2 hard links"),
            "{answer}"
        );
    }
}
