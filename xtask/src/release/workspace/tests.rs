use super::*;

#[test]
fn inheritance_is_read_from_the_manifest_text() {
    let doc: toml::Table = toml::from_str(
        r#"
[package]
name = "overspill-budget"
version.workspace = true

[dependencies]
overspill-tokens = { workspace = true }
serde = "1"

[target.'cfg(unix)'.dev-dependencies]
overspill-store = { workspace = true, features = ["x"] }
"#,
    )
    .unwrap();
    assert!(inherits_version(&doc));
    let names: Vec<String> = inherited_dependencies(&doc).into_iter().collect();
    assert_eq!(names, ["overspill-store", "overspill-tokens"]);

    let own: toml::Table =
        toml::from_str("[package]\nname = \"x\"\nversion = \"0.1.0\"\n").unwrap();
    assert!(!inherits_version(&own));
}
