//! A whole host integration in one loop: a scripted "model" calls a tool whose result is far
//! too large for its context, gets a pointer instead, and explores the stored result.
//!
//! Run it with `cargo run -p overspill --example agent_loop`.

use overspill::{Intercepted, Scratchpad, ToolFormat, ToolOutput};
use serde_json::{Value, json};

/// The host's own tool: a pod list of ~600 KB, as `kubectl get pods -o json` would print it.
fn k8s_list_pods() -> ToolOutput {
    let items: Vec<Value> = (0..1_500)
        .map(|i| {
            let phase = if i % 97 == 0 { "Failed" } else { "Running" };
            json!({
                "metadata": {"name": format!("api-{i:04}"), "namespace": "payments"},
                "spec": {"nodeName": format!("node-{}", i % 12), "containers": [{"image": "api:2.14"}]},
                "status": {"phase": phase, "restartCount": (i * 7) % 5},
            })
        })
        .collect();
    ToolOutput::mcp(json!({"structuredContent": {"kind": "PodList", "items": items}}))
}

/// What the model decides on each turn. A real host asks its LLM; this one follows a script,
/// using the file name the pointer gave it.
fn scripted_model(turn: u32, file: &str) -> Option<(&'static str, Value)> {
    Some(match turn {
        0 => ("k8s_list_pods", json!({})),
        1 => ("schema", json!({"file": file, "max_depth": 3})),
        2 => (
            "grep",
            json!({"file": file, "pattern": "\"Failed\"", "context": 0, "max_matches": 3}),
        ),
        3 => (
            "iterate_over",
            json!({"file": file, "path": "$.items", "fields": "metadata.name,status.phase", "limit": 3}),
        ),
        _ => return None,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let memory = tempfile::tempdir()?;
    let host_prompt = "You are an SRE assistant with access to a Kubernetes cluster.";
    let host_tools = [
        json!({"name": "k8s_list_pods", "description": "List every pod.", "inputSchema": {"type": "object"}}),
    ];

    // 1. One scratchpad per agent: where outputs go, which model counts, how big the window is.
    let pad = Scratchpad::builder()
        .memory_dir(memory.path())
        .provider("openai")
        .model("gpt-4o")
        .context_window(128_000)
        .host_system_prompt(host_prompt)
        .host_tools(host_tools.clone())
        .server_rules("k8s", overspill::config::ServerRules::fallback()) // "*" = 5,120 tokens
        .build()?;

    // 2. What the model is offered: the host's prompt and tools plus the scratchpad's.
    let system = format!("{host_prompt}\n\n{}", pad.system_prompt_section());
    let mut tools = host_tools.to_vec();
    tools.extend(pad.tool_definitions(ToolFormat::OpenAi));
    println!(
        "system prompt: {} tokens; {} tools offered",
        pad.counter().count(&system),
        tools.len()
    );

    let mut file = String::new();
    for turn in 0..pad.effective_turn_limit(4) {
        let Some((tool, arguments)) = scripted_model(turn, &file) else {
            break;
        };
        println!("\n>>> turn {turn}: {tool} {arguments}");
        let result = if pad.handles(tool) {
            // 3. The scratchpad's own tools: answered (and charged to the budget) by `call`.
            pad.call_value(tool, &arguments)
        } else if tool == "k8s_list_pods" {
            // 4. The host's tools: every result goes through `intercept`.
            match pad.intercept("k8s", tool, k8s_list_pods()) {
                Intercepted::Inline(output) => output.into_mcp().to_string(),
                Intercepted::Pointer(text) | Intercepted::Failed(text) => text,
            }
        } else {
            format!("there is no tool `{tool}`")
        };
        if let Some(name) = result.lines().find_map(|line| line.strip_prefix("file: ")) {
            file = name.to_owned();
        }
        println!("{result}");
        // 5. After each LLM turn, the usage the provider reports keeps the budget honest (here a
        // stand-in: what the budget already holds plus 120 output tokens).
        pad.observe_llm_usage(pad.budget().map_or(0, |b| b.used()), 120);
    }

    // 6. The agent is done: one usage event.
    if let Some(usage) = pad.finish() {
        print!("\n{}", usage.to_sse());
    }
    Ok(())
}
