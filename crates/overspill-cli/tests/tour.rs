//! `overspill tour`, run as a user runs it (issue 10 acceptance).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};

fn tour(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_overspill"))
        .arg("tour")
        .args(args)
        .env_remove("NO_COLOR")
        .output()
        .expect("the overspill binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn tour_exits_0_and_prints_the_pointer_and_a_savings_line() {
    let out = tour(&[]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(
        text.contains("\n[overspill] The result of `k8s_list_pods` was too large for your context"),
        "{text}"
    );
    assert!(
        text.contains("\nshape: object{apiVersion, items: array[450] of object{"),
        "{text}"
    );
    let savings = text
        .lines()
        .find(|l| l.starts_with("The model saw "))
        .expect("a savings line");
    assert!(
        savings.contains(" tokens of the raw output: ") && savings.contains(" tokens saved ("),
        "{savings}"
    );
    assert!(text.contains("event: aura.scratchpad_usage\ndata: {\"agent_id\":\"main\""));
}

#[test]
fn tour_prints_no_colour_when_stdout_is_not_a_terminal() {
    let out = tour(&[]);
    assert!(!stdout(&out).contains('\x1b'));
}

#[test]
fn tour_with_dir_keeps_the_stored_output_for_later_exploration() {
    let dir = tempfile::tempdir().unwrap();
    let pad = dir.path().join("tour-pad");
    let out = tour(&["--dir", pad.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let file = stdout(&out)
        .lines()
        .find_map(|l| l.strip_prefix("file: "))
        .unwrap()
        .to_owned();
    assert!(pad.join(&file).is_file());
    let grep = Command::new(env!("CARGO_BIN_EXE_overspill"))
        .args(["tool", "grep", "--dir", pad.to_str().unwrap(), "--args"])
        .arg(format!(
            r#"{{"file": "{file}", "pattern": "\"Failed\"", "context": 0}}"#
        ))
        .output()
        .unwrap();
    assert!(stdout(&grep).contains("\"phase\": \"Failed\""), "{grep:?}");
}

#[test]
fn tour_asset_is_exactly_what_the_generator_prints() {
    let generator =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/gen_samples.py");
    if !generator.is_file() {
        eprintln!("skipped: {} is absent", generator.display());
        return;
    }
    let Ok(out) = Command::new("python3")
        .arg(&generator)
        .args(["pods", "450"])
        .output()
    else {
        eprintln!("skipped: python3 is absent");
        return;
    };
    let asset =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/tour/pods.json")).unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stdout == asset,
        "assets/tour/pods.json differs from `gen_samples.py pods 450`"
    );
    assert!(
        (1_000_000..=2_000_000).contains(&asset.len()),
        "{} bytes",
        asset.len()
    );
}

#[test]
fn tour_runs_every_exploration_step_and_each_answers_without_an_error() {
    let out = tour(&[]);
    let text = stdout(&out);
    for tool in [
        "schema",
        "item_schema",
        "iterate_over",
        "get_in",
        "grep",
        "query",
    ] {
        let step = text
            .split(&format!(". {tool}: "))
            .nth(1)
            .unwrap_or_else(|| panic!("no {tool} step: {text}"));
        let answer = step.lines().nth(2).unwrap_or_default();
        assert!(!answer.starts_with("{\"error\""), "{tool}: {answer}");
        assert!(
            step.contains(&format!("\n--- {tool}: ")),
            "{tool} has no footer: {step}"
        );
    }
    // The window and the path point at the bundled list's first failed pod.
    assert!(text.contains(r#"{"_index":80,"#) && text.contains(r#""status.phase":"Failed"}"#));
    assert!(
        text.contains(": {\n") && text.contains("  \"phase\": \"Failed\","),
        "{text}"
    );
}
