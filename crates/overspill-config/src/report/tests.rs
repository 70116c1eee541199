use super::*;

const CONFIG: &str = r#"
memory_dir = "./.overspill"
[agent.llm]
provider = "openai"
model = "gpt-4o"
context_window = 128000
[agent.scratchpad]
enabled = true
[orchestration.worker.analyst]
mcp_filter = ["web_*"]
[orchestration.worker.analyst.llm]
context_window = 200000
[orchestration.worker.analyst.scratchpad]
max_extraction_tokens = 5000
[mcp.servers.k8s.scratchpad]
"*" = { min_tokens = 5120 }
"k8s_list_*" = { min_tokens = 2048 }
"k8s_get_pod_logs" = {}
[mcp.servers.web.scratchpad]
"search" = { min_tokens = 1000 }
"#;

fn config(text: &str) -> Config {
    Config::from_toml_str(text).unwrap()
}

fn inventory(args: &[&str]) -> ToolInventory {
    let mut tools = ToolInventory::new();
    for arg in args {
        tools.add_arg(arg).unwrap();
    }
    tools
}

#[test]
fn report_shows_patterns_by_precedence_and_each_tools_winner() {
    let config = config(CONFIG);
    let tools = inventory(&[
        "k8s=k8s_list_pods,k8s_get_pod_logs,search,k8s_get",
        "web=search,fetch",
        "gh=issues",
    ]);
    let expected = r#"memory_dir = "./.overspill"

agent: scratchpad enabled
  llm: provider openai, model gpt-4o, context_window 128000
  context_safety_margin 0.2, max_extraction_tokens 10000, turn_depth_bonus 6
  mcp_filter: not set (every tool)
worker analyst: scratchpad enabled
  llm: provider openai, model gpt-4o, context_window 200000
  context_safety_margin 0.2, max_extraction_tokens 5000, turn_depth_bonus 6
  mcp_filter = ["web_*"]

server gh: no [mcp.servers.gh.scratchpad] table, nothing intercepted
  tools:
    issues  not intercepted

server k8s: 3 patterns (longest match wins; equal length → smaller min_tokens)
  "k8s_get_pod_logs"  min_tokens = 5120
  "k8s_list_*"        min_tokens = 2048
  "*"                 min_tokens = 5120
  tools:
    k8s_list_pods     2048  via "k8s_list_*"
    k8s_get_pod_logs  5120  via "k8s_get_pod_logs"
    search            1000  via "*" (lowered from 5120, see warnings)
    k8s_get           5120  via "*"

server web: 1 pattern (longest match wins; equal length → smaller min_tokens)
  "search"  min_tokens = 1000
  tools:
    search  1000  via "search"
    fetch   not intercepted

warnings:
  - tool "search" has different thresholds on servers k8s (5120 via "*") and web (1000 via "search"); all of them use the smallest, 1000
  - server gh has no [mcp.servers.gh.scratchpad] table: none of its tools is intercepted
  - worker analyst: its mcp_filter ["web_*"] reaches none of the 5 intercepted tools, so its scratchpad has nothing to intercept
"#;
    assert_eq!(CheckReport::new(&config, &tools).to_string(), expected);
}

#[test]
fn report_without_tools_lists_patterns_and_no_warnings() {
    let config = config(CONFIG);
    let tools = ToolInventory::new();
    let report = CheckReport::new(&config, &tools);
    assert!(report.warnings().is_empty());
    let text = report.to_string();
    assert!(text.contains("server web: 1 pattern (longest"), "{text}");
    assert!(!text.contains("tools:"), "{text}");
    assert!(text.ends_with("\nno warnings\n"), "{text}");
}

#[test]
fn report_of_the_empty_config_says_nothing_is_intercepted() {
    let config = Config::default();
    let tools = ToolInventory::new();
    let text = CheckReport::new(&config, &tools).to_string();
    assert!(
        text.starts_with("memory_dir: not set\n\nagent: scratchpad disabled\n"),
        "{text}"
    );
    assert!(
        text.contains("no [mcp.servers.<name>.scratchpad] table: no tool output is intercepted")
    );
}

#[test]
fn report_names_the_legacy_memory_dir() {
    let config = config("[orchestration.artifacts]\nmemory_dir = \"m\"\n");
    let tools = ToolInventory::new();
    let text = CheckReport::new(&config, &tools).to_string();
    assert!(
        text.starts_with(
            "memory_dir = \"m\"  (from [orchestration.artifacts], the legacy location)\n"
        ),
        "{text}"
    );
}

#[test]
fn filter_reaching_no_intercepted_tool_is_reported() {
    let config = config(&format!("{CONFIG}\n[agent]\nmcp_filter = []\n"));
    let tools = inventory(&["k8s=k8s_get"]);
    let report = CheckReport::new(&config, &tools);
    assert!(report.warnings().contains(&CheckWarning::NothingReachable {
        worker: None,
        filter: config.agent().mcp_filter.clone(),
        intercepted: 1,
    }));
    assert!(
        report
            .to_string()
            .contains("agent: its mcp_filter [] reaches none of the 1 intercepted tools")
    );
}

#[test]
fn a_disabled_agent_is_not_warned_about_reach() {
    let config = config("[agent]\nmcp_filter = []\n[mcp.servers.k8s.scratchpad]\n\"*\" = {}\n");
    let tools = inventory(&["k8s=a"]);
    assert!(CheckReport::new(&config, &tools).warnings().is_empty());
}

#[test]
fn enabled_without_any_pattern_is_warned() {
    let config = config(
        "memory_dir = \"m\"\n[agent.llm]\ncontext_window = 9\n[agent.scratchpad]\nenabled = true\n",
    );
    let tools = ToolInventory::new();
    let report = CheckReport::new(&config, &tools);
    assert_eq!(report.warnings(), [CheckWarning::NoRules]);
}

#[test]
fn odd_server_names_are_quoted_in_table_names() {
    let config = Config::default();
    let tools = inventory(&["my server=a"]);
    let text = CheckReport::new(&config, &tools).to_string();
    assert!(
        text.contains(r#"server my server: no [mcp.servers."my server".scratchpad] table"#),
        "{text}"
    );
}
