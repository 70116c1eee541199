use super::*;
use crate::release::workspace::test_support::{package, workspace};

#[test]
fn versions_parse_and_order_numerically() {
    let v: Version = "0.10.2".parse().unwrap();
    assert_eq!(v.to_string(), "0.10.2");
    assert_eq!(v.tag(), "v0.10.2");
    assert!(v > "0.9.99".parse().unwrap());
    assert!("1.0.0".parse::<Version>().unwrap() > v);
}

#[test]
fn malformed_versions_are_rejected_with_the_expected_shape() {
    for bad in [
        "",
        "1",
        "1.2",
        "1.2.3.4",
        "1.2.x",
        "01.2.3",
        "1.2.3-rc.1",
        " 1.2.3",
    ] {
        let message = bad.parse::<Version>().unwrap_err().to_string();
        assert!(message.contains("MAJOR.MINOR.PATCH"), "{bad}: {message}");
    }
}

#[test]
fn a_requirement_names_a_version_only_when_it_pins_all_three_numbers() {
    let v: Version = "0.1.0".parse().unwrap();
    let names = |text: &str| v.is_named_by(&text.parse().unwrap());
    for named in ["0.1.0", "^0.1.0", "=0.1.0", " = 0.1.0"] {
        assert!(names(named), "{named}");
    }
    for other in [
        "*",
        "0.1",
        "~0.1.0",
        ">=0.1.0",
        "0.1.1",
        "^0.1.0, <0.2",
        "0.1.0-rc.1",
    ] {
        assert!(!names(other), "{other}");
    }
}

#[test]
fn lock_step_workspace_passes() {
    let ws = workspace(
        "0.1.0",
        vec![
            package("overspill-tokens", "0.1.0", &[]),
            package(
                "overspill-budget",
                "0.1.0",
                &[("overspill-tokens", "^0.1.0")],
            ),
        ],
    );
    let (version, problems) = check(&ws);
    assert_eq!(version, Some("0.1.0".parse().unwrap()));
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn a_crate_at_another_version_is_a_version_mismatch_naming_both_versions() {
    let mut store = package("overspill-store", "0.2.0", &[]);
    store.inherits_version = false;
    let ws = workspace(
        "0.1.0",
        vec![package("overspill-tokens", "0.1.0", &[]), store],
    );
    let (_, problems) = check(&ws);
    let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 2, "{text:?}");
    assert!(text.iter().any(|p| {
        p.contains("version mismatch: overspill-store is at 0.2.0 but the workspace is at 0.1.0")
    }));
    assert!(text.iter().any(|p| p.contains("version.workspace = true")));
}

#[test]
fn an_internal_requirement_on_another_version_is_reported() {
    let ws = workspace(
        "0.2.0",
        vec![
            package("overspill-tokens", "0.2.0", &[]),
            package(
                "overspill-budget",
                "0.2.0",
                &[("overspill-tokens", "^0.1.0")],
            ),
        ],
    );
    let (_, problems) = check(&ws);
    assert_eq!(
        problems,
        vec![LockStepProblem::Requirement {
            where_: "overspill-budget".into(),
            dependency: "overspill-tokens".into(),
            requirement: "^0.1.0".into(),
            workspace: "0.2.0".into(),
        }]
    );
}

#[test]
fn workspace_dependency_entries_must_name_the_workspace_version() {
    let mut ws = workspace("0.1.0", vec![package("overspill-tokens", "0.1.0", &[])]);
    ws.internal_requirements = vec![("overspill-tokens".into(), None)];
    let (_, problems) = check(&ws);
    assert_eq!(problems.len(), 1);
    let message = problems[0].to_string();
    assert!(message.contains("[workspace.dependencies]"), "{message}");
    assert!(message.contains("none (path only)"), "{message}");
}

#[test]
fn internal_dependencies_must_be_inherited_from_the_workspace() {
    let mut budget = package(
        "overspill-budget",
        "0.1.0",
        &[("overspill-tokens", "^0.1.0")],
    );
    budget.inherited_dependencies.clear();
    let ws = workspace(
        "0.1.0",
        vec![package("overspill-tokens", "0.1.0", &[]), budget],
    );
    let (_, problems) = check(&ws);
    assert_eq!(
        problems,
        vec![LockStepProblem::NotInherited {
            krate: "overspill-budget".into(),
            dependency: "overspill-tokens".into(),
        }]
    );
}

#[test]
fn a_path_only_internal_dev_dependency_is_allowed_because_publish_drops_it() {
    let mut budget = package("overspill-budget", "0.1.0", &[("overspill-tokens", "*")]);
    budget.dependencies[0].kind = cargo_metadata::DependencyKind::Development;
    let ws = workspace(
        "0.1.0",
        vec![package("overspill-tokens", "0.1.0", &[]), budget],
    );
    assert!(check(&ws).1.is_empty());
}

#[test]
fn a_missing_or_malformed_workspace_version_is_reported() {
    let mut ws = workspace("0.1", vec![]);
    assert!(matches!(
        check(&ws).1.as_slice(),
        [LockStepProblem::NoWorkspaceVersion { found: Some(_) }]
    ));
    ws.version = None;
    assert!(check(&ws).1[0].to_string().contains("add it"));
}
