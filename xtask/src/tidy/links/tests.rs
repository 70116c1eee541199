use super::*;

#[test]
fn paths_are_read_up_to_their_last_character() {
    assert_eq!(
        named_paths("see `crates/overspill-mcp/src/relay.rs`, and docs/tools.md#windows."),
        ["crates/overspill-mcp/src/relay.rs", "docs/tools.md#windows"]
    );
    assert!(named_paths("../shared/crates/x and target/tests/y and crates/<name>/z").is_empty());
}

#[test]
fn a_missing_page_anchor_or_source_file_is_reported_with_where_it_is_named() {
    let root = tempfile::tempdir().unwrap();
    fs::create_dir_all(root.path().join("docs")).unwrap();
    fs::create_dir_all(root.path().join("crates/a/src")).unwrap();
    fs::write(root.path().join("README.md"), "# R\n").unwrap();
    fs::write(
        root.path().join("docs/a.md"),
        "# A\n## Here\nsee docs/a.md#here, docs/a.md#gone, docs/b.md and `stdio.rs`, `lib.rs`\n",
    )
    .unwrap();
    let spec = outside_spec();
    fs::write(
        root.path().join("crates/a/src/lib.rs"),
        format!("//! A ({spec}4), docs/a.md#here\n"),
    )
    .unwrap();
    let found: Vec<String> = problems(root.path())
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(
        found
            .iter()
            .any(|p| p.contains("docs/a.md:3") && p.contains("#gone"))
    );
    assert!(found.iter().any(|p| p.contains("docs/b.md")));
    assert!(found.iter().any(|p| p.contains("stdio.rs")));
    assert!(found.iter().any(|p| p.contains("crates/a/src/lib.rs:1")));
}

#[test]
fn a_markdown_link_is_read_from_its_page_and_reported_when_it_leads_nowhere() {
    let root = tempfile::tempdir().unwrap();
    fs::create_dir_all(root.path().join("docs")).unwrap();
    fs::write(root.path().join("README.md"), "# R\n[a](docs/a.md#here)\n").unwrap();
    fs::write(root.path().join("docs/b.md"), "# B\n## There\n").unwrap();
    fs::write(
        root.path().join("docs/a.md"),
        "# A\n## Here\n[b](b.md#there), [own](#here), [site](https://example.org/x.md#y)\n\
         [gone](c.md), [no heading](b.md#here), [own, missing](#there), [root](/docs/b.md)\n\
         ```\n[not a link](nowhere.md)\n```\n",
    )
    .unwrap();
    let found: Vec<String> = problems(root.path())
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(
        found
            .iter()
            .any(|p| p.contains("docs/a.md:4") && p.contains("`c.md`"))
    );
    assert!(
        found
            .iter()
            .any(|p| p.contains("docs/a.md:4") && p.contains("b.md#here"))
    );
    assert!(
        found
            .iter()
            .any(|p| p.contains("docs/a.md:4") && p.contains("#there"))
    );
}
