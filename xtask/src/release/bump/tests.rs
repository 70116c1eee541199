use super::*;

const ROOT: &str = r#"[workspace]
members = ["crates/a"]

[workspace.package]
version = "0.1.0"   # lock-step (docs/releasing.md)
edition = "2024"

[workspace.dependencies]
# Internal crates.
overspill-tokens = { path = "crates/overspill-tokens", version = "0.1.0" }
overspill = { version = "=0.1.0", path = "crates/overspill" }
serde = { version = "1.0", features = ["derive"] }
regex = "1.11"

[workspace.dependencies.overspill-store]
path = "crates/overspill-store"
version = "0.1.0"
"#;

fn internal() -> BTreeSet<&'static str> {
    ["overspill-tokens", "overspill", "overspill-store"]
        .into_iter()
        .collect()
}

#[test]
fn the_bump_rewrites_exactly_the_workspace_and_internal_versions() {
    let out = bump_root_manifest(ROOT, &internal(), &"0.2.0".parse().unwrap()).unwrap();
    let expected = ROOT
        .replace(
            "version = \"0.1.0\"   # lock-step",
            "version = \"0.2.0\"   # lock-step",
        )
        .replace(
            "overspill-tokens\", version = \"0.1.0\"",
            "overspill-tokens\", version = \"0.2.0\"",
        )
        .replace("version = \"=0.1.0\"", "version = \"=0.2.0\"")
        .replace(
            "overspill-store\"\nversion = \"0.1.0\"",
            "overspill-store\"\nversion = \"0.2.0\"",
        );
    assert_eq!(out, expected);
    assert!(out.contains("serde = { version = \"1.0\""));
}

#[test]
fn an_internal_entry_without_a_version_makes_the_bump_fail_clearly() {
    let root = "[workspace.package]\nversion = \"0.1.0\"\n\n[workspace.dependencies]\noverspill-tokens = { path = \"crates/overspill-tokens\" }\n";
    let message = bump_root_manifest(root, &internal(), &"0.2.0".parse().unwrap())
        .unwrap_err()
        .to_string();
    assert!(message.contains("overspill-tokens"), "{message}");
    assert!(message.contains("by hand"), "{message}");
}

#[test]
fn a_manifest_without_a_workspace_version_makes_the_bump_fail() {
    let message = bump_root_manifest("[workspace]\n", &internal(), &"0.2.0".parse().unwrap())
        .unwrap_err()
        .to_string();
    assert!(message.contains("[workspace.package] version"), "{message}");
}

#[test]
fn keys_that_merely_contain_version_and_other_crates_are_left_alone() {
    let root = "[workspace.package]\nversion = '0.1.0'\nrust-version = \"1.95\"\n\n\
                [workspace.dependencies]\n\
                tokens = { package = \"overspill-tokens\", path = \"p\", version = \"^0.1.0\" }\n\
                other = { version = \"0.1.0\" } # not ours\n";
    let out = bump_root_manifest(root, &internal(), &"1.0.0".parse().unwrap()).unwrap();
    assert_eq!(
        out,
        "[workspace.package]\nversion = \"1.0.0\"\nrust-version = \"1.95\"\n\n\
         [workspace.dependencies]\n\
         tokens = { package = \"overspill-tokens\", path = \"p\", version = \"^1.0.0\" }\n\
         other = { version = \"0.1.0\" } # not ours\n"
    );
}
