//! Loading and validation: defaults, merging, host keys, and every error.

use std::path::Path;

use crate::{
    Config, ConfigError, DEFAULT_MIN_TOKENS, MemoryDirSource, PatternError, ScratchpadSettings,
};

fn load(text: &str) -> Config {
    match Config::from_toml_str(text) {
        Ok(config) => config,
        Err(err) => panic!("expected the config to load, got: {err}"),
    }
}

fn error(text: &str) -> ConfigError {
    match Config::from_toml_str(text) {
        Ok(config) => panic!("expected an error, loaded: {config:?}"),
        Err(err) => err,
    }
}

/// An enabled agent with everything it needs, to which tests add lines.
const ENABLED: &str = r#"
memory_dir = "./.overspill"
[agent.llm]
context_window = 128000
[agent.scratchpad]
enabled = true
"#;

// ---- defaults and merging ----

#[test]
fn defaults_from_an_empty_file() {
    let config = load("");
    assert_eq!(config.agent().scratchpad, ScratchpadSettings::default());
    assert!(!config.agent().scratchpad.enabled);
    assert_eq!(config.memory_dir(), None);
    assert_eq!(config.servers().count(), 0);
    assert_eq!(config, Config::default());
}

#[test]
fn defaults_from_an_empty_scratchpad_table() {
    let config = load("[agent.scratchpad]\n");
    let sp = &config.agent().scratchpad;
    assert!(!sp.enabled);
    assert_eq!(sp.context_safety_margin, 0.20);
    assert_eq!(sp.max_extraction_tokens, 10_000);
    assert_eq!(sp.turn_depth_bonus, 6);
}

#[test]
fn partial_overrides_keep_other_defaults() {
    let config = load("[agent.scratchpad]\nmax_extraction_tokens = 4000\n");
    let sp = &config.agent().scratchpad;
    assert_eq!(sp.max_extraction_tokens, 4000);
    assert_eq!(sp.context_safety_margin, 0.20);
    assert_eq!(sp.turn_depth_bonus, 6);
    assert!(!sp.enabled);
}

#[test]
fn worker_override_without_enabled_inherits_the_agents_enabled_true() {
    let config = load(&format!(
        "{ENABLED}\n[orchestration.worker.analyst.scratchpad]\nmax_extraction_tokens = 5000\n"
    ));
    let analyst = config.worker("analyst").unwrap();
    assert!(analyst.scratchpad.enabled);
    assert_eq!(analyst.scratchpad.max_extraction_tokens, 5000);
    assert_eq!(analyst.scratchpad.context_safety_margin, 0.20);
    assert_eq!(config.effective("analyst"), analyst);
}

#[test]
fn worker_settings_merge_over_the_agents_field_by_field() {
    let config = load(&format!(
        r#"{ENABLED}
context_safety_margin = 0.3
turn_depth_bonus = 2
[agent.llm.extra]
[orchestration.worker.analyst.llm]
context_window = 200000
[orchestration.worker.analyst.scratchpad]
turn_depth_bonus = 9
[orchestration.worker.quiet.scratchpad]
enabled = false
"#
    ));
    let analyst = config.effective("analyst");
    assert_eq!(analyst.llm.context_window, Some(200_000));
    assert_eq!(analyst.scratchpad.context_safety_margin, 0.3);
    assert_eq!(analyst.scratchpad.turn_depth_bonus, 9);
    assert!(!config.effective("quiet").scratchpad.enabled);
    assert_eq!(config.agent().scratchpad.turn_depth_bonus, 2);
}

#[test]
fn worker_llm_override_inherits_provider_and_model() {
    let config = load(
        r#"
[agent.llm]
provider = "anthropic"
model = "claude-sonnet-4"
[orchestration.worker.w.llm]
model = "claude-haiku"
"#,
    );
    let w = &config.effective("w").llm;
    assert_eq!(w.provider.as_deref(), Some("anthropic"));
    assert_eq!(w.model.as_deref(), Some("claude-haiku"));
}

#[test]
fn an_unconfigured_worker_runs_with_the_agents_settings() {
    let config = load(ENABLED);
    assert_eq!(config.effective("nobody"), config.agent());
    assert!(config.worker("nobody").is_none());
}

#[test]
fn an_unconfigured_worker_does_not_inherit_the_agents_mcp_filter() {
    let config = load(&format!("{ENABLED}\n[agent]\nmcp_filter = [\"k8s_*\"]\n"));
    assert!(config.agent().mcp_filter.is_some());
    let worker = config.effective("nobody");
    assert_eq!(worker.mcp_filter, None);
    assert_eq!(worker.scratchpad, config.agent().scratchpad);
    assert_eq!(worker.llm, config.agent().llm);
}

#[test]
fn a_worker_filter_is_its_own_and_not_inherited() {
    let config = load(
        r#"
[agent]
mcp_filter = ["k8s_*"]
[orchestration.worker.a]
[orchestration.worker.b]
mcp_filter = []
"#,
    );
    assert!(
        config
            .agent()
            .mcp_filter
            .as_ref()
            .unwrap()
            .allows("k8s_get")
    );
    assert!(config.effective("a").mcp_filter.is_none());
    assert!(
        config
            .effective("b")
            .mcp_filter
            .as_ref()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn the_spec_example_loads() {
    let config = load(
        r#"
memory_dir = "./.overspill"

[agent.llm]
provider = "openai"
model = "gpt-4o"
context_window = 128000

[agent.scratchpad]
enabled = true
context_safety_margin = 0.20
max_extraction_tokens = 10000
turn_depth_bonus = 6

[orchestration.worker.analyst.llm]
context_window = 200000
[orchestration.worker.analyst.scratchpad]
max_extraction_tokens = 5000

[mcp.servers.k8s.scratchpad]
"*" = { min_tokens = 5120 }
"k8s_list_*" = { min_tokens = 2048 }
"k8s_get_pod_logs" = {}
"#,
    );
    let k8s = config.rules("k8s").unwrap();
    let rules: Vec<(&str, u64)> = k8s
        .rules()
        .iter()
        .map(|r| (r.pattern.as_str(), r.min_tokens))
        .collect();
    assert_eq!(
        rules,
        [
            ("*", 5120),
            ("k8s_list_*", 2048),
            ("k8s_get_pod_logs", 5120)
        ]
    );
    assert_eq!(
        config.effective("analyst").llm.context_window,
        Some(200_000)
    );
    assert_eq!(config.memory_dir(), Some(Path::new("./.overspill")));
}

// ---- host keys ----

#[test]
fn host_keys_outside_scratchpad_tables_are_ignored() {
    let config = load(&format!(
        r#"{ENABLED}
[agent]
name = "ops"
system_prompt = "be brief"
[agent.tools]
anything = 1

[orchestration]
max_workers = 4
[orchestration.worker.analyst]
prompt = "analyse"

[mcp]
timeout = 30
[mcp.servers.k8s]
command = "kubectl-mcp"
args = ["--read-only"]
env = {{ KUBECONFIG = "/x" }}
[mcp.servers.k8s.scratchpad]
"*" = {{}}
[mcp.servers.web]
url = "https://example.com/mcp"
"#
    ));
    assert!(config.rules("k8s").is_some());
    assert!(config.rules("web").is_none());
}

#[test]
fn host_keys_in_the_llm_table_are_ignored() {
    let config = load(
        "[agent.llm]\napi_key = \"sk-x\"\ntemperature = 0.2\nbase_url = \"http://x\"\ncontext_window = 8000\n",
    );
    assert_eq!(config.agent().llm.context_window, Some(8000));
}

// ---- memory_dir ----

#[test]
fn legacy_memory_dir_is_accepted_when_the_top_level_key_is_absent() {
    let config = load(
        "[orchestration.artifacts]\nmemory_dir = \"/var/overspill\"\n[agent.llm]\ncontext_window = 1000\n[agent.scratchpad]\nenabled = true\n",
    );
    let dir = config.memory_dir_setting().unwrap();
    assert_eq!(dir.path, Path::new("/var/overspill"));
    assert_eq!(dir.source, MemoryDirSource::OrchestrationArtifacts);
}

#[test]
fn top_level_memory_dir_wins_over_the_legacy_one() {
    let config = load("memory_dir = \"a\"\n[orchestration.artifacts]\nmemory_dir = \"b\"\n");
    let dir = config.memory_dir_setting().unwrap();
    assert_eq!(
        (dir.path.as_path(), dir.source),
        (Path::new("a"), MemoryDirSource::TopLevel)
    );
}

#[test]
fn enabled_scratchpad_without_memory_dir_is_an_error() {
    let err = error("[agent.llm]\ncontext_window = 1000\n[agent.scratchpad]\nenabled = true\n");
    assert!(
        matches!(err, ConfigError::MissingMemoryDir { .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.starts_with("line 4, column 1: agent.scratchpad.enabled = true"),
        "{message}"
    );
    assert!(
        message.contains("add memory_dir = \"./.overspill\""),
        "{message}"
    );
}

#[test]
fn a_worker_enabling_its_own_scratchpad_needs_memory_dir_too() {
    let err = error(
        "[orchestration.worker.w.llm]\ncontext_window = 1\n[orchestration.worker.w.scratchpad]\nenabled = true\n",
    );
    let ConfigError::MissingMemoryDir { enabled_by, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(
        enabled_by.to_string(),
        "orchestration.worker.w.scratchpad.enabled"
    );
}

#[test]
fn empty_memory_dir_is_an_error() {
    let err = error("memory_dir = \"\"\n");
    assert!(matches!(err, ConfigError::InvalidValue { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("memory_dir: expected a directory path"),
        "{err}"
    );
}

// ---- context_window ----

#[test]
fn enabled_agent_without_context_window_is_an_error() {
    let err = error("memory_dir = \"m\"\n[agent.scratchpad]\nenabled = true\n");
    let ConfigError::MissingContextWindow { worker, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(*worker, None);
    assert!(
        err.to_string()
            .contains("add context_window = <the model's context size in tokens> to [agent.llm]"),
        "{err}"
    );
}

#[test]
fn enabled_worker_without_context_window_names_the_worker() {
    let err = error(
        "memory_dir = \"m\"\n[agent.scratchpad]\nenabled = false\n[orchestration.worker.analyst.scratchpad]\nenabled = true\n",
    );
    let ConfigError::MissingContextWindow { worker, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(worker.as_deref(), Some("analyst"));
    let message = err.to_string();
    assert!(message.contains(r#"worker "analyst""#), "{message}");
    assert!(
        message.contains("[orchestration.worker.analyst.llm]"),
        "{message}"
    );
}

#[test]
fn a_worker_inheriting_enabled_without_any_window_is_reported_at_the_worker() {
    // The agent has a window; the worker clears nothing, so it inherits it:
    // no error. Without the agent's window, the agent itself is reported.
    load(&format!("{ENABLED}\n[orchestration.worker.w.scratchpad]\n"));
    let err = error(
        "memory_dir = \"m\"\n[agent.scratchpad]\nenabled = true\n[orchestration.worker.w.llm]\ncontext_window = 5\n",
    );
    assert!(
        matches!(err, ConfigError::MissingContextWindow { worker: None, .. }),
        "{err:?}"
    );
}

#[test]
fn context_window_zero_is_rejected() {
    let err = error("[agent.llm]\ncontext_window = 0\n");
    assert!(matches!(err, ConfigError::InvalidValue { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("agent.llm.context_window: expected a positive integer"),
        "{err}"
    );
}

// ---- scratchpad values ----

#[test]
fn margin_outside_zero_to_095_is_an_error() {
    for bad in ["0.96", "1.0", "-0.1", "nan", "inf", "1"] {
        let err = error(&format!(
            "[agent.scratchpad]\ncontext_safety_margin = {bad}\n"
        ));
        assert!(
            matches!(err, ConfigError::MarginOutOfRange { .. }),
            "{bad}: {err:?}"
        );
        assert!(
            err.to_string()
                .contains("agent.scratchpad.context_safety_margin: must be from 0.0 to 0.95"),
            "{err}"
        );
    }
}

#[test]
fn margin_bounds_and_integer_zero_are_accepted() {
    for (text, value) in [("0.95", 0.95), ("0.0", 0.0), ("0", 0.0), ("0.5", 0.5)] {
        let config = load(&format!(
            "[agent.scratchpad]\ncontext_safety_margin = {text}\n"
        ));
        assert_eq!(config.agent().scratchpad.context_safety_margin, value);
    }
}

#[test]
fn worker_margin_is_checked_at_its_own_key() {
    let err = error("[orchestration.worker.w.scratchpad]\ncontext_safety_margin = 2.0\n");
    assert_eq!(
        err.key().map(ToString::to_string).as_deref(),
        Some("orchestration.worker.w.scratchpad.context_safety_margin")
    );
}

#[test]
fn wrong_types_in_the_scratchpad_table_are_errors() {
    let err = error("[agent.scratchpad]\nenabled = \"true\"\n");
    assert!(matches!(err, ConfigError::WrongType { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "line 2, column 11: agent.scratchpad.enabled: expected a boolean (true or false), found string \"true\""
    );
    let err = error("[agent.scratchpad]\nmax_extraction_tokens = 1.5\n");
    assert!(matches!(err, ConfigError::WrongType { .. }), "{err:?}");
}

#[test]
fn max_extraction_tokens_must_be_positive_and_bonus_fit_u32() {
    assert!(matches!(
        error("[agent.scratchpad]\nmax_extraction_tokens = 0\n"),
        ConfigError::InvalidValue { .. }
    ));
    assert!(matches!(
        error("[agent.scratchpad]\nturn_depth_bonus = 4294967296\n"),
        ConfigError::InvalidValue { .. }
    ));
    assert_eq!(
        load("[agent.scratchpad]\nturn_depth_bonus = 0\n")
            .agent()
            .scratchpad
            .turn_depth_bonus,
        0
    );
}

// ---- unknown keys ----

#[test]
fn misspelled_enabled_suggests_enabled() {
    let err = error("[agent.scratchpad]\nenabledd = true\n");
    let ConfigError::UnknownKey {
        key, did_you_mean, ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(key.to_string(), "agent.scratchpad.enabledd");
    assert_eq!(*did_you_mean, Some("enabled"));
    assert_eq!(
        err.to_string(),
        "line 2, column 1: agent.scratchpad.enabledd: unknown key in [agent.scratchpad]; did you mean \
         `enabled`? (accepted keys: enabled, context_safety_margin, max_extraction_tokens, turn_depth_bonus)"
    );
}

#[test]
fn unknown_keys_in_a_worker_scratchpad_are_errors() {
    let err = error("[orchestration.worker.analyst.scratchpad]\nmax_extraction_token = 5\n");
    let ConfigError::UnknownKey {
        key, did_you_mean, ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(
        key.to_string(),
        "orchestration.worker.analyst.scratchpad.max_extraction_token"
    );
    assert_eq!(*did_you_mean, Some("max_extraction_tokens"));
    assert!(
        err.to_string()
            .contains("unknown key in [orchestration.worker.analyst.scratchpad]"),
        "{err}"
    );
}

#[test]
fn unknown_keys_in_a_pattern_entry_are_errors() {
    let err = error("[mcp.servers.k8s.scratchpad]\n\"*\" = { min_token = 5 }\n");
    let ConfigError::UnknownKey {
        key, did_you_mean, ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(
        key.to_string(),
        r#"mcp.servers.k8s.scratchpad."*".min_token"#
    );
    assert_eq!(*did_you_mean, Some("min_tokens"));
}

#[test]
fn a_key_of_another_table_says_where_it_belongs() {
    let err = error("[agent.scratchpad]\ncontext_window = 128000\n");
    assert!(
        err.to_string().contains("this key belongs in [agent.llm]"),
        "{err}"
    );
    let err = error("[orchestration.worker.w.scratchpad]\nmodel = \"x\"\n");
    assert!(
        err.to_string()
            .contains("belongs in [orchestration.worker.w.llm]"),
        "{err}"
    );
    let err = error("[mcp.servers.s.scratchpad]\n\"*\" = { enabled = true }\n");
    assert!(
        err.to_string().contains("belongs in [agent.scratchpad]"),
        "{err}"
    );
}

#[test]
fn an_unrelated_unknown_key_lists_the_accepted_keys_without_a_guess() {
    let err = error("[agent.scratchpad]\nverbose = true\n");
    let ConfigError::UnknownKey { did_you_mean, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(*did_you_mean, None);
    assert!(err.to_string().ends_with(
        "(accepted keys: enabled, context_safety_margin, max_extraction_tokens, turn_depth_bonus)"
    ));
}

#[test]
fn the_first_unknown_key_in_file_order_is_reported() {
    // toml keeps tables sorted by key; errors follow the file instead.
    let err = error("[agent.scratchpad]\nzzz = 1\naaa = 2\n");
    assert_eq!(
        err.key().map(ToString::to_string).as_deref(),
        Some("agent.scratchpad.zzz")
    );
}

// ---- patterns and thresholds ----

#[test]
fn invalid_pattern_key_stops_loading_and_names_the_full_key_path() {
    let err = error("[mcp.servers.github.scratchpad]\n\"foo_[bar\" = { min_tokens = 1 }\n");
    let ConfigError::Pattern { key, problem, at } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(
        key.to_string(),
        r#"mcp.servers.github.scratchpad."foo_[bar""#
    );
    assert_eq!(*problem, PatternError::UnclosedClass);
    assert_eq!((at.line, at.column), (2, 1));
    let message = err.to_string();
    assert!(
        message.starts_with(r#"line 2, column 1: mcp.servers.github.scratchpad."foo_[bar": unclosed character class"#),
        "{message}"
    );
    assert!(message.contains("`[[]`"), "{message}");
}

#[test]
fn empty_pattern_key_is_invalid() {
    let err = error("[mcp.servers.k8s.scratchpad]\n\"\" = {}\n");
    let ConfigError::Pattern { key, problem, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(*problem, PatternError::Empty);
    assert_eq!(key.to_string(), r#"mcp.servers.k8s.scratchpad."""#);
}

#[test]
fn empty_entry_takes_the_default_threshold() {
    let config = load("[mcp.servers.k8s.scratchpad]\n\"k8s_get_pod_logs\" = {}\n");
    assert_eq!(config.rules("k8s").unwrap().rules()[0].min_tokens, 5120);
}

#[test]
fn a_pattern_entry_may_be_a_sub_table() {
    let config = load("[mcp.servers.k8s.scratchpad.\"k8s_list_*\"]\nmin_tokens = 2048\n");
    assert_eq!(config.rules("k8s").unwrap().rules()[0].min_tokens, 2048);
}

#[test]
fn bare_integer_threshold_shows_the_table_form() {
    let err = error("[mcp.servers.k8s.scratchpad]\n\"x\" = 512\n");
    assert!(matches!(err, ConfigError::BareThreshold { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        r#"line 2, column 7: mcp.servers.k8s.scratchpad.x: a pattern takes a table, not a bare number; write "x" = { min_tokens = 512 }"#
    );
}

#[test]
fn min_tokens_must_be_a_non_negative_integer() {
    for (bad, kind) in [
        ("-1", "invalid"),
        ("512.0", "type"),
        ("\"512\"", "type"),
        ("true", "type"),
        ("9223372036854775808", "invalid"),
    ] {
        let text = format!("[mcp.servers.k8s.scratchpad]\n\"*\" = {{ min_tokens = {bad} }}\n");
        let err = match Config::from_toml_str(&text) {
            Err(err) => err,
            Ok(_) => panic!("{bad} loaded"),
        };
        match kind {
            "invalid" => assert!(
                matches!(err, ConfigError::InvalidValue { .. }),
                "{bad}: {err:?}"
            ),
            _ => assert!(
                matches!(err, ConfigError::WrongType { .. }),
                "{bad}: {err:?}"
            ),
        }
        assert!(
            err.to_string().contains(
                r#"mcp.servers.k8s.scratchpad."*".min_tokens: expected a non-negative integer"#
            ),
            "{err}"
        );
    }
    let zero = load("[mcp.servers.k8s.scratchpad]\n\"*\" = { min_tokens = 0 }\n");
    assert_eq!(zero.rules("k8s").unwrap().rules()[0].min_tokens, 0);
    let hex = load("[mcp.servers.k8s.scratchpad]\n\"*\" = { min_tokens = 0x1400 }\n");
    assert_eq!(hex.rules("k8s").unwrap().rules()[0].min_tokens, 5120);
}

#[test]
fn a_pattern_entry_of_another_type_asks_for_a_table() {
    let err = error("[mcp.servers.k8s.scratchpad]\n\"*\" = \"5120\"\n");
    assert!(
        err.to_string()
            .contains("expected a table such as { min_tokens = 5120 }, found string \"5120\""),
        "{err}"
    );
}

#[test]
fn server_tables_must_be_tables() {
    let err = error("[mcp]\nservers = 3\n");
    assert_eq!(
        err.key().map(ToString::to_string).as_deref(),
        Some("mcp.servers")
    );
    let err = error("[mcp.servers]\nk8s = \"stdio\"\n");
    assert_eq!(
        err.key().map(ToString::to_string).as_deref(),
        Some("mcp.servers.k8s")
    );
}

#[test]
fn an_empty_server_scratchpad_table_has_no_rules() {
    let config = load("[mcp.servers.k8s.scratchpad]\n");
    assert!(config.rules("k8s").unwrap().is_empty());
}

#[test]
fn mcp_filter_patterns_use_the_same_syntax_and_errors() {
    let err = error("[agent]\nmcp_filter = [\"ok_*\", \"bad_[x\"]\n");
    let ConfigError::Pattern { key, problem, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(key.to_string(), "agent.mcp_filter[1]");
    assert_eq!(*problem, PatternError::UnclosedClass);
    let err = error("[agent]\nmcp_filter = \"k8s_*\"\n");
    assert!(
        err.to_string()
            .contains("expected an array of tool-name patterns such as [\"k8s_*\"]"),
        "{err}"
    );
    let err = error("[agent]\nmcp_filter = [3]\n");
    assert_eq!(
        err.key().map(ToString::to_string).as_deref(),
        Some("agent.mcp_filter[0]")
    );
}

// ---- syntax and files ----

#[test]
fn toml_syntax_errors_keep_their_line_and_column() {
    let err = error("memory_dir = \"x\"\n[agent\n");
    assert!(matches!(err, ConfigError::Syntax { .. }), "{err:?}");
    assert!(err.to_string().contains("line 2, column"), "{err}");
}

#[test]
fn duplicate_keys_are_syntax_errors() {
    let err = error("[mcp.servers.k8s.scratchpad]\n\"*\" = {}\n'*' = {}\n");
    assert!(matches!(err, ConfigError::Syntax { .. }), "{err:?}");
}

#[test]
fn from_path_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("overspill.toml");
    std::fs::write(&file, "\n[agent.scratchpad]\nenabledd = true\n").unwrap();
    let err = Config::from_path(&file).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("{}:3:1: ", file.display())),
        "{err}"
    );

    std::fs::write(&file, "a = \n").unwrap();
    let err = Config::from_path(&file).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("{}: TOML parse error at line 1", file.display())),
        "{err}"
    );
}

#[test]
fn from_path_loads_a_valid_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("overspill.toml");
    std::fs::write(&file, ENABLED).unwrap();
    assert!(Config::from_path(&file).unwrap().agent().scratchpad.enabled);
}

#[test]
fn an_unreadable_file_is_a_read_error_naming_it() {
    let err = Config::from_path("/definitely/not/here.toml").unwrap_err();
    assert!(matches!(err, ConfigError::Read { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("cannot read the config file /definitely/not/here.toml: "),
        "{err}"
    );
}

#[test]
fn error_columns_count_characters() {
    let err = error("[mcp.servers.\"é\".scratchpad]\n\"é\" = 1\n");
    assert_eq!(err.location().map(|at| (at.line, at.column)), Some((2, 7)));
}

#[test]
fn hook_thresholds_are_read_as_a_servers_patterns() {
    let config = load(
        r#"
[hooks.claude-code.scratchpad]
"Bash" = { min_tokens = 2000 }
"mcp__*" = {}
"#,
    );
    let rules = config
        .hook_rules("claude-code")
        .expect("the table is there");
    assert_eq!(
        rules.resolve("Bash").map(|rule| rule.min_tokens),
        Some(2000)
    );
    assert_eq!(
        rules
            .resolve("mcp__github__search")
            .map(|rule| rule.min_tokens),
        Some(DEFAULT_MIN_TOKENS)
    );
    assert!(rules.resolve("Read").is_none());
    assert!(load("").hook_rules("claude-code").is_none());
}

#[test]
fn an_unknown_hook_client_is_an_error_that_suggests_the_known_one() {
    let err = error("[hooks.claude_code.scratchpad]\n\"Bash\" = {}\n");
    let text = err.to_string();
    assert!(
        text.starts_with("line 1, column 8: hooks.claude_code: unknown key in [hooks]"),
        "{text}"
    );
    assert!(text.contains("did you mean `claude-code`?"), "{text}");
}

#[test]
fn a_pattern_straight_under_a_hook_client_says_where_it_belongs() {
    let err = error("[hooks.claude-code]\n\"Bash\" = { min_tokens = 10 }\n");
    let text = err.to_string();
    assert!(
        text.contains("hooks.claude-code.Bash: unknown key in [hooks.claude-code]; this key belongs in [hooks.claude-code.scratchpad]"),
        "{text}"
    );
}

#[test]
fn a_hook_threshold_is_checked_as_a_servers() {
    let err = error("[hooks.claude-code.scratchpad]\n\"Read\" = 512\n");
    assert!(
        err.to_string()
            .contains(r#"write "Read" = { min_tokens = 512 }"#),
        "{err}"
    );
}

// ---- [store] ----

#[test]
fn a_store_table_names_the_shared_store_its_cache_and_the_budget_store() {
    let config = load(
        r#"
[store]
url = "s3://team-bucket/overspill"
cache_bytes = 2147483648
budgets = "redis://cache.internal:6379/0"
"#,
    );
    let store = config.store();
    assert_eq!(store.url.as_deref(), Some("s3://team-bucket/overspill"));
    assert_eq!(store.cache_bytes, Some(2 << 30));
    assert_eq!(
        store.budgets.as_deref(),
        Some("redis://cache.internal:6379/0")
    );
    assert_eq!(load("").store(), &crate::StoreSettings::default());
}

#[test]
fn a_store_table_with_an_unknown_key_an_empty_url_or_no_bytes_is_an_error_naming_it() {
    let said = error("[store]\nurl = \"s3://b\"\nbucket = \"b\"\n").to_string();
    assert!(said.contains("store.bucket"), "{said}");
    let said = error("[store]\nurl = \"\"\n").to_string();
    assert!(
        said.contains("store.url") && said.contains("s3://bucket/prefix"),
        "{said}"
    );
    let said = error("[store]\ncache_bytes = 0\n").to_string();
    assert!(said.contains("store.cache_bytes"), "{said}");
}
