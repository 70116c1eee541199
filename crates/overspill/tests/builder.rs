//! Building a scratchpad: modes, validation, directories and the baseline.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use overspill::budget::Baseline;
use overspill::config::Config;
use overspill::tokens::counter_for;
use overspill::{BuildError, Intercepted, Scratchpad, ScratchpadBuilder, ToolFormat, ToolOutput};
use serde_json::{Value, json};

fn config(memory: &std::path::Path, extra: &str) -> Config {
    Config::from_toml_str(&format!(
        r#"
memory_dir = "{}"
[agent.llm]
provider = "anthropic"
model = "claude-sonnet-4"
context_window = 200000
[agent.scratchpad]
enabled = true
max_extraction_tokens = 4000
[orchestration.worker.analyst.llm]
provider = "gemini"
model = "gemini-2.5-pro"
context_window = 100000
[orchestration.worker.analyst.scratchpad]
max_extraction_tokens = 5000
[mcp.servers.k8s.scratchpad]
"*" = {{ min_tokens = 64 }}
{extra}
"#,
        memory.display()
    ))
    .unwrap()
}

/// The coordinator of run `run-1`.
fn coordinator(config: &Config) -> Scratchpad {
    Scratchpad::from_config(config)
        .coordinator()
        .run("run-1", 0)
        .build()
        .unwrap()
}

/// The worker `analyst` of run `run-1`, to finish building.
fn analyst(config: &Config) -> ScratchpadBuilder {
    Scratchpad::from_config(config)
        .worker("analyst")
        .run("run-1", 1)
}

#[test]
fn single_agent_from_config_lays_out_memory_dir_and_takes_its_settings() {
    let memory = tempfile::tempdir().unwrap();
    let pad = Scratchpad::from_config(&config(memory.path(), ""))
        .build()
        .unwrap();
    let dir = memory.path().join("scratchpad");
    assert!(dir.is_dir());
    assert_eq!(pad.scratchpad_dir(), Some(dir.as_path()));
    assert_eq!(pad.read_root(), Some(dir.as_path()));
    assert_eq!(pad.counter().name(), "claude≈cl100k×1.1");
    let budget = pad.budget().unwrap();
    assert_eq!(budget.usable(), 160_000);
    assert_eq!(budget.max_extraction_tokens(), 4_000);
    assert_eq!(pad.effective_turn_limit(10), 16);
    assert_eq!(pad.threshold("k8s", "anything"), Some(64));
    assert_eq!(pad.agent_id(), "main");
}

#[test]
fn worker_mode_uses_its_merged_settings_and_reads_under_the_session_dir() {
    let memory = tempfile::tempdir().unwrap();
    let pad = Scratchpad::from_config(&config(memory.path(), ""))
        .worker("analyst")
        .session("s-1")
        .run("run-7", 2)
        .build()
        .unwrap();
    let session = memory.path().join("s-1");
    let scratchpad = session.join("run-7/iteration-2/scratchpad");
    assert!(scratchpad.is_dir());
    assert!(session.join("run-7/artifacts").is_dir());
    assert_eq!(pad.scratchpad_dir(), Some(scratchpad.as_path()));
    assert_eq!(pad.read_root(), Some(session.as_path()));
    assert_eq!(pad.agent_id(), "analyst");
    assert_eq!(pad.counter().name(), "gemma3");
    assert_eq!(pad.budget().unwrap().max_extraction_tokens(), 5_000);
    assert_eq!(pad.budget().unwrap().usable(), 80_000);
    let names = pad.tool_names();
    assert_eq!(names.last(), Some(&"read_artifact"));
    assert!(!names.contains(&"write_artifact"));
    assert!(pad.system_prompt_section().contains("read_artifact"));
}

#[test]
fn a_worker_reads_result_artifacts_in_place_and_its_event_carries_its_name() {
    let memory = tempfile::tempdir().unwrap();
    let config = config(memory.path(), "");
    let coordinator = coordinator(&config);
    assert!(coordinator.tool_names() == ["write_artifact", "read_artifact"]);
    let written = coordinator.call(
        "write_artifact",
        r##"{"name": "brief.md", "content": "# Brief\nRestart api-7.\n"}"##,
    );
    assert_eq!(
        written,
        r#"{"written":true,"filename":"coordinator-brief.md","replaced":false}"#
    );
    assert_eq!(coordinator.finish(), None);
    // The coordinator intercepts nothing: it has no scratchpad.
    assert!(matches!(
        coordinator.intercept("k8s", "k8s_logs", ToolOutput::text("x".repeat(10_000))),
        Intercepted::Inline(_)
    ));

    let worker = analyst(&config).build().unwrap();
    let text = worker.call("read_artifact", r#"{"filename": "coordinator-brief.md"}"#);
    assert!(
        text.starts_with("# Brief\nRestart api-7.\n--- read_artifact:"),
        "{text}"
    );
    let head = worker.call(
        "head",
        r#"{"file": "../../artifacts/coordinator-brief.md"}"#,
    );
    assert!(
        head.starts_with("1: # Brief\n2: Restart api-7.\n--- head:"),
        "{head}"
    );
    let event = worker.finish().unwrap();
    assert_eq!(event.agent_id, "analyst");
    assert!(event.tokens_extracted > 0);
}

#[test]
fn the_baseline_counts_prompt_section_tool_definitions_and_host_texts() {
    let dir = tempfile::tempdir().unwrap();
    let host_tool = json!({"name": "k8s_list_pods", "description": "List pods.", "inputSchema": {"type": "object"}});
    let pad = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .provider("openai")
        .model("gpt-4o")
        .context_window(128_000)
        .host_system_prompt("You are an SRE assistant.")
        .host_tools([host_tool.clone()])
        .build()
        .unwrap();
    let counter = counter_for("openai", "gpt-4o");
    let expected = Baseline::new(counter)
        .system_prompt(pad.system_prompt_section())
        .tool_values(&pad.tool_definitions(ToolFormat::Mcp))
        .host_text("You are an SRE assistant.")
        .tool_value(&host_tool)
        .total();
    assert_eq!(pad.budget().unwrap().baseline(), expected);
    assert!(expected > 500, "{expected}");
}

/// `o200k_base`, keeping count of the texts it was asked to count.
struct Tally(std::sync::atomic::AtomicUsize);

impl overspill::tokens::TokenCounter for Tally {
    fn count(&self, text: &str) -> usize {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        overspill::tokens::o200k().count(text)
    }

    fn count_up_to(&self, text: &str, limit: usize) -> Option<usize> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        overspill::tokens::o200k().count_up_to(text, limit)
    }

    fn name(&self) -> &'static str {
        "o200k_base"
    }
}

#[test]
fn building_counts_no_token_and_the_baseline_is_counted_at_the_first_exploration_call() {
    let tally: &'static Tally = Box::leak(Box::new(Tally(Default::default())));
    let counted = || tally.0.load(std::sync::atomic::Ordering::SeqCst);
    let dir = tempfile::tempdir().unwrap();
    let builder = |counter| {
        Scratchpad::builder()
            .scratchpad_dir(dir.path())
            .context_window(128_000)
            .host_system_prompt("You are an SRE assistant.")
            .counter(counter)
    };
    let pad = builder(tally).build().unwrap();
    assert_eq!(counted(), 0, "building counted");
    std::fs::write(
        dir.path().join("notes.txt"),
        "restart the worker pods first\n",
    )
    .unwrap();
    let answer = pad.call("head", r#"{"file": "notes.txt"}"#);
    assert!(counted() > 0);
    // The same call on a scratchpad whose baseline was counted before it: the same budget left.
    let counted_first = builder(overspill::tokens::o200k()).build().unwrap();
    let baseline = counted_first.budget().unwrap().baseline();
    assert_eq!(pad.budget().unwrap().baseline(), baseline);
    assert_eq!(
        answer,
        counted_first.call("head", r#"{"file": "notes.txt"}"#)
    );
    assert!(answer.contains("budget tokens left"), "{answer}");
}

#[test]
fn excluded_tools_are_neither_listed_nor_answered() {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .context_window(128_000)
        .without_tools(["grep"])
        .build()
        .unwrap();
    assert!(!pad.handles("grep"));
    assert!(!pad.system_prompt_section().contains("- grep"));
    assert!(
        pad.tool_definitions(ToolFormat::Anthropic)
            .iter()
            .all(|t| t["name"] != "grep")
    );
    let answer = pad.call("grep", r#"{"file": "x", "pattern": "y"}"#);
    assert!(
        answer.starts_with(r#"{"error":"invalid_argument""#),
        "{answer}"
    );
    assert!(answer.contains("there is no tool `grep`"), "{answer}");
}

#[test]
fn build_errors_name_the_setting_to_change() {
    let dir = tempfile::tempdir().unwrap();
    let no_dir = Scratchpad::builder()
        .context_window(1_000)
        .build()
        .unwrap_err();
    assert!(matches!(no_dir, BuildError::NoDirectory { .. }));
    assert!(no_dir.to_string().contains("memory_dir"));

    let no_window = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .build()
        .unwrap_err();
    assert!(
        no_window.to_string().contains("context_window"),
        "{no_window}"
    );

    let no_run = Scratchpad::builder()
        .memory_dir(dir.path())
        .worker("w")
        .context_window(1_000)
        .build()
        .unwrap_err();
    assert!(
        no_run.to_string().contains(".run(run_id, iteration)"),
        "{no_run}"
    );

    let bad_run = Scratchpad::builder()
        .memory_dir(dir.path())
        .worker("w")
        .run("../x", 0)
        .context_window(1_000)
        .build()
        .unwrap_err();
    assert!(bad_run.to_string().contains("run id"), "{bad_run}");

    let margin = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .context_window(1_000)
        .context_safety_margin(0.99)
        .build()
        .unwrap_err();
    assert!(
        margin.to_string().contains("context_safety_margin"),
        "{margin}"
    );

    let disabled = Config::from_toml_str("[agent.scratchpad]\nenabled = false\n").unwrap();
    let off = Scratchpad::from_config(&disabled)
        .scratchpad_dir(dir.path())
        .context_window(1_000)
        .build()
        .unwrap_err();
    assert!(matches!(off, BuildError::Disabled { .. }), "{off}");
}

#[test]
fn a_host_that_is_the_switch_builds_from_a_configuration_that_never_says_enabled() {
    // A file of servers and their rules only, as the MCP proxy's `--config` takes it.
    let servers = Config::from_toml_str(
        "[mcp.servers.k8s]\ncommand = \"kubectl-mcp\"\n[mcp.servers.k8s.scratchpad]\n\
         \"*\" = { min_tokens = 100 }\n",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let refused = Scratchpad::from_config(&servers)
        .scratchpad_dir(dir.path())
        .context_window(1_000)
        .build()
        .unwrap_err();
    assert!(
        refused.to_string().contains("not written"),
        "the error does not claim a key the file lacks: {refused}"
    );
    let pad = Scratchpad::from_config(&servers)
        .enabled(true)
        .scratchpad_dir(dir.path())
        .context_window(1_000)
        .build()
        .unwrap();
    assert_eq!(pad.agent_id(), "main");
}

#[test]
fn the_scratchpad_dir_is_created_when_missing() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("a/b/pad");
    Scratchpad::builder()
        .scratchpad_dir(&dir)
        .context_window(1_000)
        .build()
        .unwrap();
    assert!(dir.is_dir());
}

#[test]
fn cleanup_removes_a_single_agents_dir_and_refuses_a_worker() {
    let memory = tempfile::tempdir().unwrap();
    let pad = Scratchpad::from_config(&config(memory.path(), ""))
        .intercept_all(1)
        .build()
        .unwrap();
    assert!(
        pad.intercept("x", "y", ToolOutput::text("some output"))
            .is_pointer()
    );
    assert!(pad.cleanup().unwrap());
    assert!(!memory.path().join("scratchpad").exists());
    assert!(!pad.cleanup().unwrap());

    let dir = tempfile::tempdir().unwrap();
    let direct = Scratchpad::builder()
        .scratchpad_dir(dir.path().join("pad"))
        .context_window(1_000)
        .build()
        .unwrap();
    assert!(direct.cleanup().unwrap());
    assert!(!dir.path().join("pad").exists());

    let worker = Scratchpad::from_config(&config(memory.path(), ""))
        .worker("w")
        .run("r", 0)
        .build()
        .unwrap();
    assert!(worker.cleanup().is_err());
}

#[test]
fn every_tool_of_a_role_is_listed_and_answered_by_its_one_registry() {
    let memory = tempfile::tempdir().unwrap();
    let config = config(memory.path(), "");
    let coordinator = coordinator(&config);
    let unknown = coordinator.call("grep", r#"{"file": "x", "pattern": "y"}"#);
    assert!(
        unknown
            .contains("there is no tool `grep` here; the tools are: write_artifact, read_artifact"),
        "{unknown}"
    );
    // An artifact tool's arguments are read against its schema like an exploration tool's.
    let misspelt = coordinator.call("read_artifact", r#"{"file": "brief.md"}"#);
    assert!(
        misspelt.starts_with(r#"{"error":"invalid_argument""#) && misspelt.contains("filename"),
        "{misspelt}"
    );

    let worker = analyst(&config).build().unwrap();
    let names = worker.tool_names();
    let listed: Vec<Value> = worker.tool_definitions(ToolFormat::Mcp);
    assert_eq!(
        listed
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect::<Vec<_>>(),
        names
    );
    assert!(worker.handles("read_artifact") && !worker.handles("write_artifact"));
    // A pointer offers the tools that read the stored file, not the artifact tools.
    let log: String = (0..3_000)
        .map(|i| format!("line {i} of the log\n"))
        .collect();
    let Intercepted::Pointer(pointer) = worker.intercept("k8s", "k8s_logs", ToolOutput::text(log))
    else {
        panic!("a 30,000-token log is intercepted");
    };
    assert!(pointer.contains("grep"), "{pointer}");
    assert!(!pointer.contains("read_artifact"), "{pointer}");
}

#[test]
fn a_large_artifact_points_to_the_tools_the_worker_has_as_it_calls_them() {
    let memory = tempfile::tempdir().unwrap();
    let config = config(memory.path(), "");
    let coordinator = coordinator(&config);
    let rows: String = (0..4_000)
        .map(|i| format!("row {i}: status ok, latency {} ms\n", i % 97))
        .collect();
    let written = coordinator.call(
        "write_artifact",
        &json!({"name": "rows.txt", "content": rows}).to_string(),
    );
    assert!(written.contains(r#""written":true"#), "{written}");
    let worker = analyst(&config)
        .tool_prefix("sp_")
        .without_tools(["query"])
        .build()
        .unwrap();
    let pointer = worker.call("read_artifact", r#"{"filename": "coordinator-rows.txt"}"#);
    assert!(pointer.starts_with("[overspill]"), "{pointer}");
    let offered = pointer
        .lines()
        .find(|line| line.starts_with("Explore it with these tools"))
        .unwrap();
    assert!(
        offered.contains("sp_grep") && offered.contains("sp_head"),
        "{offered}"
    );
    assert!(!offered.contains("query"), "{offered}");
}
