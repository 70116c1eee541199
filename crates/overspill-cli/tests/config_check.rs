//! `overspill config check`, driven as a subprocess.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};

fn overspill(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_overspill"))
        .args(args)
        .output()
        .expect("the overspill binary runs")
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

const VALID: &str = r#"
memory_dir = "./.overspill"
[agent.llm]
context_window = 128000
[agent.scratchpad]
enabled = true
[mcp.servers.k8s.scratchpad]
"*" = { min_tokens = 256 }
"k8s_list_*" = { min_tokens = 512 }
"k8s_list_pods" = { min_tokens = 384 }
"#;

#[test]
fn config_check_prints_each_tools_threshold_and_winning_pattern() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "overspill.toml", VALID);
    let out = overspill(&[
        "config",
        "check",
        &file,
        "--tools",
        "k8s=k8s_list_pods,k8s_list_nodes,k8s_get",
    ]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains(r#"k8s_list_pods   384  via "k8s_list_pods""#),
        "{stdout}"
    );
    assert!(
        stdout.contains(r#"k8s_list_nodes  512  via "k8s_list_*""#),
        "{stdout}"
    );
    assert!(
        stdout.contains(r#"k8s_get         256  via "*""#),
        "{stdout}"
    );
}

#[test]
fn config_check_exits_1_naming_the_bad_key() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "bad.toml",
        "[mcp.servers.k8s.scratchpad]\n\"foo_[bar\" = {}\n",
    );
    let out = overspill(&["config", "check", &file]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(r#"mcp.servers.k8s.scratchpad."foo_[bar""#),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn config_check_with_a_malformed_tools_argument_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "overspill.toml", VALID);
    let out = overspill(&["config", "check", &file, "--tools", "no-equals-sign"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn unknown_subcommand_is_a_usage_error() {
    let out = overspill(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}
