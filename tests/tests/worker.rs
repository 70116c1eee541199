//! Orchestration end to end: the coordinator hands content over as artifacts; each worker has
//! its own scratchpad and budget, reads the session's artifacts in place, and reports its own
//! usage.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use overspill::config::Config;
use overspill::{Intercepted, Scratchpad, ToolOutput};
use overspill_e2e::{POD_LIST, every_tool_on_pods};

fn config(memory: &std::path::Path) -> Config {
    Config::from_toml_str(&format!(
        r#"
memory_dir = "{}"
[agent.llm]
provider = "openai"
model = "gpt-4o"
context_window = 128000
[agent.scratchpad]
enabled = true
[orchestration.worker.analyst.scratchpad]
max_extraction_tokens = 6000
[mcp.servers.k8s.scratchpad]
"*" = {{ min_tokens = 2048 }}
"#,
        memory.display()
    ))
    .unwrap()
}

fn file_of(pointer: &str) -> String {
    pointer
        .lines()
        .find_map(|l| l.strip_prefix("file: "))
        .unwrap()
        .to_owned()
}

/// Runs every tool this build offers (the single-agent test holds the build to all nine).
#[test]
fn worker_intercepts_explores_with_every_tool_reads_artifacts_and_reports_usage() {
    let memory = tempfile::tempdir().unwrap();
    let config = config(memory.path());

    // The coordinator starts the run and hands over a brief.
    let coordinator = Scratchpad::from_config(&config)
        .coordinator()
        .session("s-1")
        .run("run-1", 0)
        .build()
        .unwrap();
    let written = coordinator.call(
        "write_artifact",
        r##"{"name": "brief.md", "content": "# Brief\nFind the failed pods.\n"}"##,
    );
    assert!(
        written.contains(r#""filename":"coordinator-brief.md""#),
        "{written}"
    );
    // An earlier worker's large result, written by the host.
    let run = coordinator.run().unwrap();
    run.write_task_result("pods", POD_LIST).unwrap();

    let worker = Scratchpad::from_config(&config)
        .worker("analyst")
        .session("s-1")
        .run("run-1", 1)
        .build()
        .unwrap();
    assert_eq!(worker.budget().unwrap().max_extraction_tokens(), 6_000);

    // Its own tool output: intercepted into its iteration's scratchpad.
    let Intercepted::Pointer(pointer) =
        worker.intercept("k8s", "k8s_list_pods", ToolOutput::text(POD_LIST))
    else {
        panic!("over the threshold");
    };
    let file = file_of(&pointer);
    assert!(
        memory
            .path()
            .join("s-1/run-1/iteration-1/scratchpad")
            .join(&file)
            .is_file()
    );
    for (tool, arguments) in every_tool_on_pods(&file) {
        if !worker.handles(tool) {
            eprintln!("{tool} is not registered in this build: not run here");
            continue;
        }
        let text = worker.call(tool, &arguments);
        if tool == "read" {
            assert!(text.starts_with(r#"{"error":"read_too_large""#), "{text}");
        } else {
            assert!(!text.starts_with("{\"error\""), "{tool}: {text}");
        }
    }

    // The brief fits: inline, charged. The pod list does not: a pointer to it in place.
    let brief = worker.call("read_artifact", r#"{"filename": "coordinator-brief.md"}"#);
    assert!(
        brief.starts_with("# Brief\nFind the failed pods.\n--- read_artifact:"),
        "{brief}"
    );
    let big = worker.call("read_artifact", r#"{"filename": "task-pods-result.txt"}"#);
    let in_place = file_of(&big);
    assert_eq!(in_place, "../../artifacts/task-pods-result.txt");
    let grep = worker.call(
        "grep",
        &format!(
            r#"{{"file": "{in_place}", "pattern": "\"Failed\"", "context": 0, "max_matches": 2}}"#
        ),
    );
    assert!(grep.contains("\"phase\": \"Failed\""), "{grep}");
    // Nothing was copied into the scratchpad.
    let stored = std::fs::read_dir(memory.path().join("s-1/run-1/iteration-1/scratchpad"))
        .unwrap()
        .filter(|e| {
            !e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with('.')
        })
        .count();
    assert_eq!(stored, 1);

    let counter = worker.counter();
    let event = worker.finish().unwrap();
    assert_eq!(event.agent_id, "analyst");
    assert_eq!(event.session_id.as_deref(), Some("s-1"));
    // Its own output plus the artifact kept out of its context.
    assert_eq!(event.tokens_intercepted, 2 * counter.count(POD_LIST) as u64);
    assert!(event.tokens_extracted > 0);

    // A second worker starts with a fresh budget: workers never share one.
    let other = Scratchpad::from_config(&config)
        .worker("reviewer")
        .session("s-1")
        .run("run-1", 1)
        .build()
        .unwrap();
    assert_eq!(other.budget().unwrap().tokens_extracted(), 0);
    assert_eq!(other.finish(), None);
    assert_eq!(coordinator.finish(), None, "the coordinator has no budget");
}
