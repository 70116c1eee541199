//! A single agent end to end: configuration → intercept → every exploration tool → usage event.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use overspill::config::Config;
use overspill::{Intercepted, Scratchpad, ToolFormat, ToolOutput};
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
[mcp.servers.k8s.scratchpad]
"*" = {{ min_tokens = 5120 }}
"k8s_list_*" = {{ min_tokens = 2048 }}
"#,
        memory.display()
    ))
    .unwrap()
}

#[test]
fn every_exploration_tool_is_offered_and_answered() {
    let memory = tempfile::tempdir().unwrap();
    let pad = Scratchpad::from_config(&config(memory.path()))
        .build()
        .unwrap();
    let mut called = Vec::new();
    for (tool, _) in every_tool_on_pods("x.json") {
        assert!(pad.handles(tool), "{tool} is not offered");
        called.push(tool);
    }
    // A tool added to the registry needs its call here too.
    let mut registered = overspill::explore::Registry::new().exploration_names();
    called.sort_unstable();
    registered.sort_unstable();
    assert_eq!(called, registered);
}

/// Runs every tool this build offers; `every_exploration_tool_is_offered_and_answered` holds
/// the calls to the registry's tools.
#[test]
fn single_agent_intercepts_explores_with_every_tool_and_reports_usage() {
    let memory = tempfile::tempdir().unwrap();
    let pad = Scratchpad::from_config(&config(memory.path()))
        .host_system_prompt("You are an SRE assistant.")
        .build()
        .unwrap();
    pad.set_server_tools("k8s", ["k8s_list_pods", "k8s_get_pod_logs"]);
    assert_eq!(pad.threshold("k8s", "k8s_list_pods"), Some(2048));
    let counter = pad.counter();
    let budget = pad.budget().unwrap();
    let baseline = budget.baseline();
    assert_eq!(budget.used(), baseline);

    // The tool result: far more than the context can take.
    let raw_tokens = counter.count(POD_LIST) as u64;
    let Intercepted::Pointer(pointer) =
        pad.intercept("k8s", "k8s_list_pods", ToolOutput::text(POD_LIST))
    else {
        panic!("the pod list is over its threshold");
    };
    assert!(counter.count(&pointer) <= 400);
    assert_eq!(budget.tokens_intercepted(), raw_tokens);
    assert_eq!(
        budget.used(),
        baseline,
        "interception costs the context nothing"
    );
    let file = pointer
        .lines()
        .find_map(|l| l.strip_prefix("file: "))
        .unwrap()
        .to_owned();
    assert!(memory.path().join("scratchpad").join(&file).is_file());

    // Every tool the model is offered answers, and is charged exactly what it returns.
    let offered: Vec<String> = pad
        .tool_definitions(ToolFormat::Mcp)
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    let mut charged = 0;
    for (tool, arguments) in every_tool_on_pods(&file) {
        if !offered.iter().any(|name| name == tool) {
            eprintln!("{tool} is not registered in this build: not run here");
            continue;
        }
        let text = pad.call(tool, &arguments);
        if tool == "read" {
            // 320k tokens cannot be read whole: a structured refusal with a retry that fits.
            let error: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(error["error"], "read_too_large", "{text}");
            let retry = &error["retry"];
            let again = pad.call_value(retry["tool"].as_str().unwrap(), &retry["arguments"]);
            assert!(!again.starts_with("{\"error\""), "{again}");
            charged += counter.count(&again) as u64;
            continue;
        }
        assert!(!text.starts_with("{\"error\""), "{tool}: {text}");
        let footer = text.lines().last().unwrap();
        assert!(
            footer.starts_with(&format!("--- {tool}: ")),
            "{tool}: {footer}"
        );
        assert!(
            footer.ends_with(" of 102,400 budget tokens left ---"),
            "{footer}"
        );
        charged += counter.count(&text) as u64;
    }
    assert_eq!(budget.tokens_extracted(), charged);
    assert_eq!(budget.used(), baseline + charged);

    // Ground truth from the provider raises the estimate; it never lowers it.
    pad.observe_llm_usage(baseline + charged + 1_000, 200);
    assert_eq!(budget.used(), baseline + charged + 1_200);
    pad.observe_llm_usage(10, 10);
    assert_eq!(budget.used(), baseline + charged + 1_200);

    let event = pad.finish().unwrap();
    assert_eq!(event.agent_id, "main");
    assert_eq!(event.tokens_intercepted, raw_tokens);
    assert_eq!(event.tokens_extracted, charged);
    assert_eq!(
        event.to_sse(),
        format!(
            "event: aura.scratchpad_usage\ndata: {{\"agent_id\":\"main\",\"tokens_intercepted\":{raw_tokens},\"tokens_extracted\":{charged}}}\n\n"
        )
    );
    assert_eq!(pad.finish(), None, "one event per agent");
}

#[test]
fn the_same_session_shared_by_threads_charges_atomically() {
    let memory = tempfile::tempdir().unwrap();
    let pad = Scratchpad::from_config(&config(memory.path()))
        .max_extraction_tokens(2_000)
        .build()
        .unwrap();
    let pointer = pad.intercept("k8s", "k8s_list_pods", ToolOutput::text(POD_LIST));
    let file = pointer
        .replacement()
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("file: "))
        .unwrap()
        .to_owned();
    let budget = pad.budget().unwrap();
    let room = budget.remaining();
    let counter = pad.counter();
    let answers: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let pad = pad.clone();
                let file = file.clone();
                scope.spawn(move || {
                    (0..40)
                        .map(|i| {
                            let start = 1 + (t * 40 + i) * 50;
                            pad.call(
                                "slice",
                                &format!(
                                    r#"{{"file": "{file}", "start": {start}, "end": {}}}"#,
                                    start + 49
                                ),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let charged: u64 = answers
        .iter()
        .filter(|a| !a.starts_with("{\"error\""))
        .map(|a| counter.count(a) as u64)
        .sum();
    assert!(
        answers
            .iter()
            .any(|a| a.starts_with("{\"error\":\"slice_too_large\""))
    );
    assert_eq!(budget.tokens_extracted(), charged);
    assert!(charged <= room, "{charged} > {room}");
}
