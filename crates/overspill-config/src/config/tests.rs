use super::*;

#[test]
fn config_serializes_its_effective_view() {
    let config = Config::from_toml_str(
        r#"
memory_dir = "m"
[agent.llm]
context_window = 128000
[agent.scratchpad]
enabled = true
[orchestration.worker.w.scratchpad]
turn_depth_bonus = 1
[mcp.servers.k8s.scratchpad]
"k8s_*" = { min_tokens = 7 }
"#,
    )
    .unwrap();
    let text = toml::to_string(&config).unwrap();
    assert!(text.contains("context_window = 128000"), "{text}");
    assert!(text.contains("source = \"top_level\""), "{text}");
    assert!(text.contains("pattern = \"k8s_*\""), "{text}");
    assert!(text.contains("min_tokens = 7"), "{text}");
    // The worker's view is merged: enabled is inherited.
    let worker = text
        .split("[workers.w.scratchpad]")
        .nth(1)
        .unwrap_or_default();
    assert!(worker.contains("enabled = true"), "{text}");
}
