//! The scratchpad inside rig: wrapped tools, the exploration tools, usage feedback and the
//! budget, through rig's tool dispatch and real agent runs on a scripted model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../examples/k8s_agent/scripted_model.rs"]
mod scripted_model;

use std::path::Path;
use std::sync::{Arc, Mutex};

use overspill::budget::{Baseline, thousands};
use overspill::config::{Rule, ServerRules, ToolPattern};
use overspill::{Scratchpad, ToolFormat};
use overspill_rig::{AgentBuilderExt, InterceptedTool, exploration_tools, host_tools};
use rig_agent::AgentBuilder;
use rig_core::completion::{CompletionRequest, Message};
use rig_core::message::{ToolName, UserContent};
use rig_core::tool::{
    DynamicTool, ErasedTool, PortableTool, Tool, ToolContext, ToolErrorKind, ToolExecutionError,
    ToolOutput, ToolResult, tool_definition,
};
use scripted_model::{Reply, Turn, last_tool_result, pointer_file, scripted, tool_results};
use serde_json::{Value, json};

/// Interception starts at this many tokens in these tests.
const THRESHOLD: u64 = 200;

fn pad(dir: &Path) -> Scratchpad {
    Scratchpad::builder()
        .scratchpad_dir(dir)
        .provider("openai")
        .model("gpt-4o")
        .context_window(128_000)
        .intercept_all(THRESHOLD)
        .build()
        .unwrap()
}

/// Access-log lines, as a text tool returns them.
struct Logs;

impl PortableTool for Logs {
    const NAME: &'static str = "fetch_logs";
    type Args = LogsArgs;
    type Output = String;
    type Error = ToolExecutionError;

    fn description(&self) -> String {
        "Fetch the last access-log lines of the api service.".to_owned()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"lines": {"type": "integer"}}, "required": ["lines"]})
    }

    async fn call(&self, args: LogsArgs) -> Result<String, ToolExecutionError> {
        Ok(log_lines(args.lines))
    }
}

#[derive(serde::Deserialize)]
struct LogsArgs {
    lines: usize,
}

fn log_lines(lines: usize) -> String {
    (0..lines)
        .map(|i| {
            format!(
                "10.0.3.{} GET /api/orders/{i} 200 {}ms\n",
                i % 250,
                3 + i % 40
            )
        })
        .collect()
}

/// A pod list, as a tool with structured output returns it (a JSON block).
struct Pods;

impl Tool for Pods {
    const NAME: &'static str = "k8s_list_pods";
    type Args = PodsArgs;
    type Output = Value;
    type Error = ToolExecutionError;

    fn description(&self) -> String {
        "List the pods of a namespace.".to_owned()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"count": {"type": "integer"}}})
    }

    async fn call(
        &self,
        _context: &mut ToolContext,
        args: PodsArgs,
    ) -> Result<Value, ToolExecutionError> {
        Ok(pod_list(args.count))
    }
}

#[derive(serde::Deserialize)]
struct PodsArgs {
    count: usize,
}

fn pod_list(count: usize) -> Value {
    let items: Vec<Value> = (0..count)
        .map(|i| json!({"name": format!("api-{i}"), "namespace": "prod", "phase": if i % 7 == 3 { "Failed" } else { "Running" }}))
        .collect();
    json!({"kind": "PodList", "items": items})
}

/// A tool that always fails, with a message far over the threshold.
struct Broken;

impl PortableTool for Broken {
    const NAME: &'static str = "broken";
    type Args = Value;
    type Output = String;
    type Error = ToolExecutionError;

    fn description(&self) -> String {
        "Always fails.".to_owned()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }

    async fn call(&self, _args: Value) -> Result<String, ToolExecutionError> {
        Err(ToolExecutionError::provider(log_lines(500)))
    }
}

/// A tool that records the arguments it was called with.
#[derive(Clone, Default)]
struct Record {
    seen: Arc<Mutex<Vec<Value>>>,
}

impl PortableTool for Record {
    const NAME: &'static str = "post_to_ticket";
    type Args = Value;
    type Output = String;
    type Error = ToolExecutionError;

    fn description(&self) -> String {
        "Attach a pod and a note to the incident ticket.".to_owned()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {
            "pod": {"type": "object"},
            "note": {"type": "string"},
            "excerpt": {"type": "string"},
        }})
    }

    async fn call(&self, args: Value) -> Result<String, ToolExecutionError> {
        self.seen.lock().unwrap().push(args);
        Ok("posted".to_owned())
    }
}

/// Runs `tool` as rig's dispatch does: raw JSON arguments in, a tool result out.
async fn dispatch(tool: &impl ErasedTool, args: Value) -> ToolResult {
    tool.execute(args.to_string(), &mut ToolContext::new())
        .await
}

fn text(result: &ToolResult) -> &str {
    result.output().as_text().expect("a text result")
}

/// The text of every tool result in a run's transcript, in order.
fn answers(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|message| match message {
            Message::User { content } => Some(content),
            _ => None,
        })
        .flatten()
        .filter_map(|part| match part {
            UserContent::ToolResult(result) => result
                .content
                .first()
                .and_then(|block| block.as_text().map(str::to_owned)),
            _ => None,
        })
        .collect()
}

fn tool_call(turn: &Message) -> Option<String> {
    match turn {
        Message::Assistant(turn) => turn.content.iter().find_map(|part| match part {
            rig_core::completion::AssistantContent::ToolCall(call) => {
                Some(call.function.name.to_string())
            }
            _ => None,
        }),
        _ => None,
    }
}

#[tokio::test]
async fn a_wrapped_tool_below_its_threshold_returns_its_output_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let pad = pad(dir.path());

    let logs = InterceptedTool::new(Logs, &pad);
    let result = dispatch(&logs, json!({"lines": 3})).await;
    assert!(result.is_success());
    assert_eq!(text(&result), log_lines(3));

    let pods = InterceptedTool::new(Pods, &pad);
    let result = dispatch(&pods, json!({"count": 2})).await;
    assert_eq!(result.output(), &ToolOutput::json(pod_list(2)));

    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    assert_eq!(pad.finish(), None);
}

#[tokio::test]
async fn a_wrapped_tool_above_its_threshold_returns_the_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let pad = pad(dir.path());

    let logs = InterceptedTool::new(Logs, &pad);
    let result = dispatch(&logs, json!({"lines": 400})).await;
    let pointer = text(&result);
    assert!(
        pointer.starts_with("[overspill] The result of `fetch_logs` was too large"),
        "{pointer}"
    );
    let file = pointer_file(pointer);
    assert_eq!(
        std::fs::read_to_string(dir.path().join(&file)).unwrap(),
        log_lines(400)
    );

    // A JSON result is stored as the JSON the model would have read, and explorable as JSON.
    let pods = InterceptedTool::new(Pods, &pad);
    let result = dispatch(&pods, json!({"count": 100})).await;
    let pointer = text(&result);
    assert!(
        pointer.contains("items: array[100] of object{name, namespace, phase}"),
        "{pointer}"
    );
    let found = pad.call_value(
        "get_in",
        &json!({"file": pointer_file(pointer), "path": "$.items[3].phase"}),
    );
    assert!(found.starts_with("1: Failed\n--- get_in:"), "{found}");

    let usage = pad.finish().unwrap();
    assert!(usage.tokens_intercepted > 2 * THRESHOLD);
}

#[tokio::test]
async fn a_per_tool_threshold_or_a_server_decides_instead_of_intercept_all() {
    let dir = tempfile::tempdir().unwrap();
    let pad = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .context_window(128_000)
        .server_rules(
            "k8s",
            ServerRules::new(vec![Rule::new(ToolPattern::new("k8s_*").unwrap(), 50)]).unwrap(),
        )
        .build()
        .unwrap();
    // No threshold for a tool of no server: it passes through, however large.
    let plain = InterceptedTool::new(Pods, &pad);
    assert!(
        dispatch(&plain, json!({"count": 40}))
            .await
            .output()
            .as_json()
            .is_some()
    );
    // The server's rules, or the tool's own threshold, intercept it.
    let served = InterceptedTool::new(Pods, &pad).server("k8s");
    assert!(text(&dispatch(&served, json!({"count": 40})).await).starts_with("[overspill]"));
    let own = InterceptedTool::new(Logs, &pad).min_tokens(50);
    assert!(text(&dispatch(&own, json!({"lines": 40})).await).starts_with("[overspill]"));
}

#[tokio::test]
async fn a_tool_error_passes_through() {
    let dir = tempfile::tempdir().unwrap();
    let pad = pad(dir.path());
    let broken = InterceptedTool::new(Broken, &pad);

    let result = dispatch(&broken, json!({})).await;
    let error = result.error().expect("the tool's error");
    assert_eq!(error.kind(), ToolErrorKind::Provider);
    assert_eq!(error.message(), log_lines(500));
    assert_eq!(error.model_feedback(), Some(log_lines(500).as_str()));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);

    // Arguments the inner tool cannot read fail as rig would fail them.
    let logs = InterceptedTool::new(Logs, &pad);
    let result = dispatch(&logs, json!({"lines": "many"})).await;
    assert_eq!(result.error().unwrap().kind(), ToolErrorKind::InvalidArgs);
}

#[tokio::test]
async fn wrapped_tools_keep_their_definitions_in_every_form() {
    let dir = tempfile::tempdir().unwrap();
    let pad = pad(dir.path());

    // A portable tool and a contextual one.
    assert_eq!(
        tool_definition(&InterceptedTool::new(Logs, &pad)),
        tool_definition(&Logs)
    );
    assert_eq!(
        tool_definition(&InterceptedTool::new(Pods, &pad)),
        tool_definition(&Pods)
    );

    // A dynamic one keeps its definition and is intercepted like the others.
    let dynamic = DynamicTool::new(
        ToolName::new("tail_logs").unwrap(),
        "Tail the api logs.",
        json!({"type": "object", "properties": {"lines": {"type": "integer"}}}),
        |args| {
            Box::pin(async move {
                let lines = args["lines"].as_u64().unwrap_or(0) as usize;
                Ok(ToolOutput::text(log_lines(lines)))
            })
        },
    );
    let wrapped = InterceptedTool::new(dynamic.clone(), &pad).into_dynamic();
    assert_eq!(wrapped.definition(), dynamic.definition());
    assert!(wrapped.is_live());
    assert_eq!(
        wrapped
            .execute(json!({"lines": 2}))
            .await
            .unwrap()
            .as_text(),
        Some(log_lines(2).as_str())
    );
    let pointer = wrapped.execute(json!({"lines": 400})).await.unwrap();
    assert!(
        pointer
            .as_text()
            .unwrap()
            .starts_with("[overspill] The result of `tail_logs`")
    );
}

#[tokio::test]
async fn the_exploration_tools_rig_definitions_equal_overspills_own() {
    let dir = tempfile::tempdir().unwrap();
    let pad = pad(dir.path());

    let tools = exploration_tools(&pad);
    let own = pad.tool_definitions(ToolFormat::Mcp);
    assert_eq!(tools.len(), own.len());
    for (tool, own) in tools.iter().zip(&own) {
        let definition = tool.definition();
        assert_eq!(
            json!({
                "name": definition.name.as_str(),
                "description": definition.description,
                "inputSchema": definition.parameters,
            }),
            *own
        );
    }
    assert_eq!(
        tools
            .iter()
            .map(|t| t.name().to_string())
            .collect::<Vec<_>>(),
        pad.tool_names()
    );

    // With a prefix the rig names carry it, and the calls still reach the scratchpad.
    let prefixed = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .context_window(128_000)
        .tool_prefix("sp_")
        .build()
        .unwrap();
    let tools = exploration_tools(&prefixed);
    let head = tools
        .iter()
        .find(|t| t.name().as_str() == "sp_head")
        .unwrap();
    std::fs::write(dir.path().join("notes.txt"), "one\ntwo\n").unwrap();
    let answer = head.execute(json!({"file": "notes.txt"})).await.unwrap();
    assert!(
        answer
            .as_text()
            .unwrap()
            .starts_with("1: one\n2: two\n--- head:"),
        "{answer:?}"
    );
}

#[tokio::test]
async fn an_agent_sees_the_prompt_section_and_every_tool() {
    let dir = tempfile::tempdir().unwrap();
    let preamble = "You are an SRE assistant.";
    let pad = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .context_window(128_000)
        .intercept_all(THRESHOLD)
        .host_system_prompt(preamble)
        .host_tools(host_tools([tool_definition(&Logs)]))
        .build()
        .unwrap();
    let seen: Arc<Mutex<Option<CompletionRequest>>> = Arc::default();
    let capture = Arc::clone(&seen);
    let model = scripted([Turn::new(move |request| {
        *capture.lock().unwrap() = Some(request.clone());
        Reply::text("nothing to do")
    })]);
    let agent = AgentBuilder::new(model)
        .preamble(preamble)
        .tool(InterceptedTool::new(Logs, &pad))
        .scratchpad(&pad)
        .build();
    agent.prompt("Anything wrong?").await.unwrap();

    let request = seen.lock().unwrap().take().unwrap();
    let Some(Message::System { content }) = request.chat_history.first() else {
        panic!("no system message: {:?}", request.chat_history);
    };
    assert_eq!(
        *content,
        format!("{preamble}\n{}", pad.system_prompt_section())
    );
    let mut offered: Vec<String> = request.tools.iter().map(|t| t.name.to_string()).collect();
    offered.sort();
    let mut expected: Vec<String> = pad.tool_names().iter().map(|n| (*n).to_owned()).collect();
    expected.push("fetch_logs".to_owned());
    expected.sort();
    assert_eq!(offered, expected);

    // The agent's own tool is in the baseline, counted as overspill counts any definition.
    let without = Scratchpad::builder()
        .scratchpad_dir(dir.path())
        .context_window(128_000)
        .host_system_prompt(preamble)
        .build()
        .unwrap();
    let definition =
        Baseline::new(pad.counter()).tool_values(&host_tools([tool_definition(&Logs)]));
    assert!(definition.total() > 0);
    assert_eq!(
        pad.budget().unwrap().baseline(),
        without.budget().unwrap().baseline() + definition.total()
    );
}

#[tokio::test]
async fn usage_reaches_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let pad = pad(dir.path());
    let model = scripted([
        Turn::fixed(Reply::call("fetch_logs", json!({"lines": 400}))).with_usage(20_000, 40),
        Turn::new(|request| {
            let file = pointer_file(&last_tool_result(request));
            Reply::call("head", json!({"file": file, "lines": 5}))
        })
        .with_usage(30_000, 60),
        Turn::fixed(Reply::text("The api serves orders.")).with_usage(35_000, 100),
    ]);
    let agent = AgentBuilder::new(model)
        .tool(InterceptedTool::new(Logs, &pad))
        .scratchpad(&pad)
        .build();
    let response = agent
        .prompt("What does the api serve?")
        .max_turns(pad.effective_turn_limit(2) as usize)
        .await
        .unwrap();

    let budget = pad.budget().unwrap();
    // The last turn's report is the estimate: it already holds every extraction before it.
    assert_eq!(budget.used(), 35_100);
    // The head answer's footer was written after the second turn's report raised the estimate.
    let head = answers(&response.messages).pop().unwrap();
    let charged = budget.tokens_extracted();
    let left = budget.usable() - 30_060 - charged;
    assert!(
        head.contains(&format!(
            "~{} of {} budget tokens left",
            thousands(left),
            thousands(budget.usable())
        )),
        "{head}"
    );

    let usage = pad.finish().unwrap();
    assert_eq!(usage.tokens_extracted, charged);
    assert!(usage.tokens_intercepted > THRESHOLD);
    assert_eq!(pad.finish(), None);
}

#[tokio::test]
async fn budget_exhaustion_gives_the_too_large_answers_through_rig() {
    let dir = tempfile::tempdir().unwrap();
    let pad = pad(dir.path());
    let usable = pad.budget().unwrap().usable();
    let model = scripted([
        Turn::fixed(Reply::call("fetch_logs", json!({"lines": 2_000}))).with_usage(3_000, 20),
        // The provider reports a context all but full: nothing is left for extractions.
        Turn::new(|request| {
            let file = pointer_file(&last_tool_result(request));
            Reply::call("head", json!({"file": file, "lines": 100}))
        })
        .with_usage(usable - 50, 20),
        Turn::new(|request| {
            let file = pointer_file(&tool_results(request)[0]);
            Reply::call(
                "grep",
                json!({"file": file, "pattern": "GET", "context": 0}),
            )
        }),
        Turn::fixed(Reply::text("Out of room.")),
    ]);
    let agent = AgentBuilder::new(model)
        .tool(InterceptedTool::new(Logs, &pad))
        .scratchpad(&pad)
        .build();
    let response = agent
        .prompt("Summarise the logs.")
        .max_turns(8)
        .await
        .unwrap();

    let parsed: Vec<Value> = answers(&response.messages)
        .iter()
        .filter_map(|answer| serde_json::from_str(answer).ok())
        .collect();
    let errors: Vec<&str> = parsed.iter().filter_map(|a| a["error"].as_str()).collect();
    assert_eq!(errors, ["head_too_large", "grep_too_large"], "{parsed:?}");
    assert!(parsed[0]["remaining_budget_tokens"].as_u64().unwrap() < 100);
    // A refused extraction is charged nothing.
    assert_eq!(pad.budget().unwrap().tokens_extracted(), 0);
    assert_eq!(pad.budget().unwrap().used(), usable - 30);
}

#[tokio::test]
async fn a_reference_in_a_wrapped_tools_arguments_is_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let pad = pad(dir.path());
    let pods = InterceptedTool::new(Pods, &pad);
    let pointer = dispatch(&pods, json!({"count": 100})).await;
    let file = pointer_file(text(&pointer));
    let logs = dispatch(&InterceptedTool::new(Logs, &pad), json!({"lines": 400})).await;
    let log_file = pointer_file(text(&logs));

    let record = Record::default();
    let ticket = InterceptedTool::new(record.clone(), &pad);
    let result = dispatch(
        &ticket,
        json!({
            "pod": format!("overspill://{file}#$.items[3]"),
            "note": format!("overspill://{file}#$.items[3].name"),
            "excerpt": format!("overspill://{log_file}#L2-L3"),
        }),
    )
    .await;
    assert_eq!(text(&result), "posted");
    assert_eq!(
        record.seen.lock().unwrap().pop().unwrap(),
        json!({
            "pod": {"name": "api-3", "namespace": "prod", "phase": "Failed"},
            "note": "api-3",
            "excerpt": log_lines(3).lines().skip(1).map(|l| format!("{l}\n")).collect::<String>(),
        })
    );

    // A reference that cannot be resolved fails the call, naming it; the tool does not run.
    let result = dispatch(&ticket, json!({"note": "overspill://no-such-file.json"})).await;
    let error = result.error().unwrap();
    assert_eq!(error.kind(), ToolErrorKind::InvalidArgs);
    assert_eq!(error.code(), Some("not_found"));
    assert!(
        error
            .message()
            .starts_with("cannot resolve `overspill://no-such-file.json`"),
        "{}",
        error.message()
    );
    assert!(record.seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn two_agents_do_not_share_a_budget() {
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (pad_a, pad_b) = (pad(dir_a.path()), pad(dir_b.path()));
    let explorer = scripted([
        Turn::fixed(Reply::call("fetch_logs", json!({"lines": 400}))),
        Turn::new(|request| {
            let file = pointer_file(&last_tool_result(request));
            Reply::call("head", json!({"file": file, "lines": 20}))
        }),
        Turn::fixed(Reply::text("done")),
    ]);
    // The second agent is told of the first one's file, which is not in its scratchpad.
    let file_a: Arc<Mutex<String>> = Arc::default();
    let idle = {
        let file_a = Arc::clone(&file_a);
        scripted([
            Turn::new(move |_| {
                Reply::call("head", json!({"file": file_a.lock().unwrap().clone()}))
            }),
            Turn::fixed(Reply::text("done")),
        ])
    };
    let agent_a = AgentBuilder::new(explorer)
        .tool(InterceptedTool::new(Logs, &pad_a))
        .scratchpad(&pad_a)
        .build();
    let agent_b = AgentBuilder::new(idle)
        .tool(InterceptedTool::new(Logs, &pad_b))
        .scratchpad(&pad_b)
        .build();

    let response_a = agent_a
        .prompt("Look at the logs.")
        .max_turns(4)
        .await
        .unwrap();
    let pointer = answers(&response_a.messages).remove(0);
    *file_a.lock().unwrap() = pointer_file(&pointer);
    let response_b = agent_b
        .prompt("Look at the logs.")
        .max_turns(4)
        .await
        .unwrap();
    assert_eq!(
        response_b
            .messages
            .iter()
            .filter_map(tool_call)
            .collect::<Vec<_>>(),
        ["head"]
    );

    let (a, b) = (pad_a.budget().unwrap(), pad_b.budget().unwrap());
    assert!(a.tokens_extracted() > 0 && a.tokens_intercepted() > 0);
    assert_eq!(b.tokens_extracted(), 0);
    assert_eq!(b.tokens_intercepted(), 0);
    assert_eq!(pad_b.finish(), None);
    assert_eq!(
        pad_a.finish().unwrap().tokens_extracted,
        a.tokens_extracted()
    );
}

#[tokio::test]
async fn a_worker_gets_read_artifact_and_the_coordinator_write_artifact() {
    let memory = tempfile::tempdir().unwrap();
    let coordinator = Scratchpad::builder()
        .memory_dir(memory.path())
        .coordinator()
        .run("run-1", 0)
        .build()
        .unwrap();
    let worker = Scratchpad::builder()
        .memory_dir(memory.path())
        .context_window(128_000)
        .worker("analyst")
        .run("run-1", 1)
        .build()
        .unwrap();

    let names = |pad: &Scratchpad| -> Vec<String> {
        exploration_tools(pad)
            .iter()
            .map(|t| t.name().to_string())
            .collect()
    };
    assert_eq!(names(&coordinator), ["write_artifact", "read_artifact"]);
    assert_eq!(
        names(&worker).last().map(String::as_str),
        Some("read_artifact")
    );
    assert!(!names(&worker).contains(&"write_artifact".to_owned()));

    let write = exploration_tools(&coordinator).into_iter().next().unwrap();
    let written = write
        .execute(json!({"name": "brief.md", "content": "# Brief\nRestart api-7.\n"}))
        .await
        .unwrap();
    assert_eq!(
        written.as_text(),
        Some(r#"{"written":true,"filename":"coordinator-brief.md","replaced":false}"#)
    );
    let read = exploration_tools(&worker).pop().unwrap();
    let brief = read
        .execute(json!({"filename": "coordinator-brief.md"}))
        .await
        .unwrap();
    assert!(
        brief
            .as_text()
            .unwrap()
            .starts_with("# Brief\nRestart api-7.\n--- read_artifact:"),
        "{brief:?}"
    );
}

#[test]
fn the_tools_work_without_a_tokio_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let pad = pad(dir.path());
    let logs = InterceptedTool::new(Logs, &pad);
    let result = futures::executor::block_on(dispatch(&logs, json!({"lines": 400})));
    let file = pointer_file(text(&result));
    let head = exploration_tools(&pad)
        .into_iter()
        .find(|t| t.name().as_str() == "head")
        .unwrap();
    let answer =
        futures::executor::block_on(head.execute(json!({"file": file, "lines": 1}))).unwrap();
    assert!(
        answer
            .as_text()
            .unwrap()
            .starts_with("1: 10.0.3.0 GET /api/orders/0 200 3ms\n--- head:")
    );
}
