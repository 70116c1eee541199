//! The overspill tour inside a real rig agent, offline.
//!
//! A rig agent with one tool, `k8s_list_pods` (it returns the 1.7 MB pod list bundled for
//! `overspill tour`), runs on a scripted model that makes the calls a model would: the tool,
//! then `schema`, `iterate_over` and `get_in` on the pointer it got instead of the list. The
//! example prints what the model saw at each step, and the usage event at the end.
//!
//! ```sh
//! cargo run -p overspill-rig --example k8s_agent
//! ```

mod scripted_model;

use std::error::Error;
use std::path::PathBuf;

use overspill::Scratchpad;
use overspill::budget::thousands;
use overspill::config::DEFAULT_MIN_TOKENS;
use overspill_rig::{AgentBuilderExt, InterceptedTool};
use rig_agent::AgentBuilder;
use rig_core::completion::{AssistantContent, CompletionRequest, Message};
use rig_core::message::UserContent;
use rig_core::tool::{PortableTool, tool_definition};
use scripted_model::{Reply, Turn, last_tool_result, pointer_file, scripted, tool_results};
use serde_json::{Value, json};

const PREAMBLE: &str = "You are an SRE assistant for the production cluster. Answer from the \
                        cluster's own data, and name the pods you mean.";

/// Lines of an answer shown before the rest is elided (the model sees all of them).
const SHOWN_LINES: usize = 16;

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let dir = tempfile::tempdir()?;
    let list_pods = ListPods::bundled()?;

    // The scratchpad: one per agent. Its baseline counts the agent's preamble and tools.
    let pad = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .provider("openai")
        .model("gpt-4o")
        .context_window(128_000)
        .intercept_all(DEFAULT_MIN_TOKENS)
        .host_system_prompt(PREAMBLE)
        .host_tools(overspill_rig::host_tools([tool_definition(&list_pods)]))
        .build()?;

    // The agent: its tool, wrapped, then the scratchpad (prompt section, tools, usage feedback).
    let agent = AgentBuilder::new(model())
        .preamble(PREAMBLE)
        .tool(InterceptedTool::new(list_pods, &pad))
        .scratchpad(&pad)
        .build();

    let turns = pad.effective_turn_limit(4) as usize;
    let response = agent
        .prompt("Which pod has failed, and why?")
        .max_turns(turns)
        .await?;

    print_transcript(&response.messages);
    println!("\nanswer: {}", response.output());

    // Each turn's reported usage reached the budget (the `UsageFeedback` hook).
    if let (Some(call), Some(budget)) = (response.completion_calls.last(), pad.budget()) {
        println!(
            "\nthe last turn reported {} input + {} output tokens; the budget's estimate of the \
             context, which follows the reports and never falls: {} of {} usable tokens",
            thousands(call.usage.input_tokens.unwrap_or(0)),
            thousands(call.usage.output_tokens.unwrap_or(0)),
            thousands(budget.used()),
            thousands(budget.usable()),
        );
    }

    // When the agent is done, the host emits the usage event.
    let usage = pad.finish().ok_or("nothing was intercepted")?;
    print!("\nthe usage event:\n{}", usage.to_sse());
    let seen = usage.tokens_extracted;
    println!(
        "The exploration answers cost {} tokens of context instead of the pod list's {}.",
        thousands(seen),
        thousands(usage.tokens_intercepted),
    );
    Ok(())
}

/// The calls the model makes: the tool, then the exploration tools on the file its pointer names.
fn model() -> scripted_model::ScriptedModel {
    scripted([
        Turn::fixed(Reply::call("k8s_list_pods", json!({}))),
        Turn::new(|request| {
            let file = pointer_file(&last_tool_result(request));
            Reply::call("schema", json!({"file": file, "max_depth": 3}))
        }),
        Turn::new(|request| {
            let file = file_of_the_pointer(request);
            Reply::call(
                "iterate_over",
                json!({"file": file, "path": "$.items", "offset": 78, "limit": 5,
                       "fields": "metadata.name,metadata.namespace,status.phase"}),
            )
        }),
        Turn::new(|request| {
            let pod = failed_pod(&last_tool_result(request)).unwrap_or_default();
            let index = pod["_index"].as_u64().unwrap_or(0);
            let file = file_of_the_pointer(request);
            Reply::call(
                "get_in",
                json!({"file": file, "path": format!("$.items[{index}].status")}),
            )
        }),
        Turn::new(|request| {
            let status = last_tool_result(request);
            let reason = quoted_after(&status, "\"reason\": ").unwrap_or("no reason given");
            let pod = failed_pod(&tool_results(request).join("\n")).unwrap_or_default();
            Reply::text(format!(
                "`{}` (namespace `{}`) has failed: its container was terminated, reason {reason}.",
                pod["metadata.name"].as_str().unwrap_or("?"),
                pod["metadata.namespace"].as_str().unwrap_or("?"),
            ))
        }),
    ])
}

/// The tool the agent offers: the cluster's pods, as `kubectl get pods -A -o json` prints them.
struct ListPods {
    json: String,
}

impl ListPods {
    /// The pod list `overspill tour` ships (read from the repository).
    fn bundled() -> Result<ListPods, Box<dyn Error>> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../overspill-cli/assets/tour/pods.json");
        let json = std::fs::read_to_string(&path).map_err(|error| {
            format!(
                "cannot read the bundled pod list {}: {error}; run the example from the \
                 overspill repository",
                path.display()
            )
        })?;
        Ok(ListPods { json })
    }
}

impl PortableTool for ListPods {
    const NAME: &'static str = "k8s_list_pods";
    type Args = Value;
    type Output = String;
    type Error = std::convert::Infallible;

    fn description(&self) -> String {
        "List every pod of the cluster, in all namespaces, as JSON.".to_owned()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }

    async fn call(&self, _args: Value) -> Result<String, Self::Error> {
        Ok(self.json.clone())
    }
}

/// Prints each call the model made and what it got back.
fn print_transcript(messages: &[Message]) {
    for message in messages {
        match message {
            Message::Assistant(turn) => {
                for part in &turn.content {
                    if let AssistantContent::ToolCall(call) = part {
                        let arguments = Value::Object(call.function.arguments.clone());
                        println!("\n$ {} {arguments}", call.function.name);
                    }
                }
            }
            Message::User { content } => {
                for part in content {
                    if let UserContent::ToolResult(result) = part {
                        for block in &result.content {
                            print_answer(block.as_text().unwrap_or("(not text)"));
                        }
                    }
                }
            }
            Message::System { .. } => {}
        }
    }
}

/// An answer, its middle elided when long; the first lines and the footer (its cost) stay.
fn print_answer(text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= SHOWN_LINES + 1 {
        println!("{text}");
        return;
    }
    for line in &lines[..SHOWN_LINES] {
        println!("{line}");
    }
    println!(
        "   … {} more lines (the model sees them; the example skips them)",
        lines.len() - SHOWN_LINES - 1
    );
    println!("{}", lines[lines.len() - 1]);
}

/// The file the pointer names (the pointer is the conversation's first tool result).
fn file_of_the_pointer(request: &CompletionRequest) -> String {
    tool_results(request)
        .iter()
        .map(|text| pointer_file(text))
        .find(|file| !file.is_empty())
        .unwrap_or_default()
}

/// The row of the first pod an `iterate_over` answer shows as `Failed`.
fn failed_pod(answer: &str) -> Option<Value> {
    answer
        .lines()
        .find(|line| line.contains("\"status.phase\":\"Failed\""))
        .and_then(|line| serde_json::from_str(line.trim().trim_end_matches(',')).ok())
}

/// The string value after `key` in `text` (`"reason": "OOMKilled"` → `OOMKilled`).
fn quoted_after<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let rest = &text[text.find(key)? + key.len()..];
    rest.strip_prefix('"')?.split('"').next()
}
