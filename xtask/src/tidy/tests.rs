use super::*;

const STORE_ON_EXPLORE: &str = r#"
[package]
name = "overspill-store"
version = "0.1.0"

[dependencies]
serde = "1"
overspill-explore = { path = "../overspill-explore" }
"#;

#[test]
fn store_depending_on_explore_is_a_forbidden_edge() {
    let problems = layer_problems("overspill-store", &[], STORE_ON_EXPLORE).unwrap();
    assert_eq!(
        problems,
        vec![Problem::ForbiddenEdge {
            krate: "overspill-store".into(),
            dependency: "overspill-explore".into(),
            section: "dependencies".into(),
        }]
    );
    let message = problems[0].to_string();
    assert!(
        message.contains("overspill-store -> overspill-explore"),
        "{message}"
    );
}

#[test]
fn renamed_and_dev_dependencies_are_checked() {
    let manifest = r#"
[dev-dependencies]
tok = { package = "overspill-budget", path = "../overspill-budget" }
"#;
    let problems = layer_problems("overspill-tokens", &[], manifest).unwrap();
    assert_eq!(problems.len(), 1);
    assert!(
        matches!(&problems[0], Problem::ForbiddenEdge { dependency, section, .. }
            if dependency == "overspill-budget" && section == "dev-dependencies")
    );
}

#[test]
fn allowed_edges_pass() {
    let manifest = r#"
[dependencies]
overspill-tokens = { workspace = true }
"#;
    assert!(
        layer_problems("overspill-budget", &["overspill-tokens"], manifest)
            .unwrap()
            .is_empty()
    );
}

/// A whole synthetic workspace: tidy must fail on it, naming crate and edge.
#[test]
fn tidy_fails_on_a_synthetic_workspace_with_a_broken_layer() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (krate, _) in LAYERS {
        let crate_dir = root.join("crates").join(krate);
        fs::create_dir_all(crate_dir.join("src")).unwrap();
        let manifest = if *krate == "overspill-store" {
            STORE_ON_EXPLORE.to_owned()
        } else {
            format!("[package]\nname = \"{krate}\"\n")
        };
        fs::write(crate_dir.join("Cargo.toml"), manifest).unwrap();
        let doc = match *krate {
            "overspill-config" => "",
            // A doc without its invariant section is as incomplete as no doc.
            "overspill-budget" => "//! Owns a thing.\n",
            _ => "//! Owns a thing.\n//!\n//! # Architecture invariant\n//!\n//! Never more.\n",
        };
        fs::write(crate_dir.join("src/lib.rs"), doc).unwrap();
    }
    fs::write(
        root.join("README.md"),
        "# x\n\n## Running the tests\n\n```sh\ncargo test --workspace\n```\n",
    )
    .unwrap();
    let rows: String = LAYERS
        .iter()
        .map(|(krate, deps)| {
            let deps = if deps.is_empty() {
                "—".to_owned()
            } else {
                deps.join(", ")
            };
            format!("| `{krate}` | {deps} |\n")
        })
        .collect();
    fs::create_dir_all(root.join("docs")).unwrap();
    fs::write(
        root.join("docs/architecture.md"),
        format!("## Allowed dependency graph\n\n| crate | may depend on |\n|---|---|\n{rows}"),
    )
    .unwrap();
    fs::write(
        root.join(tool_docs::TOOLS_PAGE),
        tool_docs::sections_of(&tool_docs::registered()),
    )
    .unwrap();
    fs::write(root.join("docs/mcp-proxy.md"), "at most 8 proxies\n").unwrap();
    fs::create_dir_all(root.join(".ci")).unwrap();
    fs::write(
        root.join(".ci/run"),
        "#!/bin/sh\n# cargo test --workspace\n",
    )
    .unwrap();

    // A binary of one command and no flags: this workspace states none.
    let facts = Facts {
        max_depth: 8,
        command: flag_docs::CommandFacts {
            name: "overspill".into(),
            flags: Default::default(),
            subcommands: Vec::new(),
        },
    };
    let problems = check(root, &facts).unwrap();
    let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(
        text.iter()
            .any(|p| p.contains("overspill-store -> overspill-explore")),
        "{text:?}"
    );
    assert!(problems.contains(&Problem::MissingCrateDoc {
        krate: "overspill-config".into()
    }));
    assert!(problems.contains(&Problem::MissingCrateDoc {
        krate: "overspill-budget".into()
    }));
    assert!(problems.contains(&Problem::CiSkipsTests {
        command: "cargo test --workspace".into()
    }));
    // The empty lib.rs is a module without its doc too.
    assert!(problems.contains(&Problem::MissingModuleDoc {
        file: "crates/overspill-config/src/lib.rs".into()
    }));
    assert_eq!(problems.len(), 5, "{text:?}");
}

#[test]
fn readme_test_command_is_the_first_line_of_the_block() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("README.md"),
        "## Running the tests\n\nRun:\n\n```sh\ncargo xtask test\n```\n## Next\n",
    )
    .unwrap();
    assert_eq!(readme_test_command(dir.path()).unwrap(), "cargo xtask test");
}

/// The real workspace is tidy: this is how tidy runs as part of the tests.
#[test]
fn this_workspace_is_tidy() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let problems = check(root, flag_docs::binary_facts()).unwrap();
    let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(problems.is_empty(), "{text:#?}");
}

/// The acceptance of issue 42: in a copy of docs/, a default changed in docs/mcp-proxy.md
/// (`--read-timeout`'s) and a tool's section removed from docs/tools.md (`grep`'s) each fail
/// tidy's check of the docs' facts, against the binary's own flags and the registry's tools,
/// with a message that names the flag and the tool.
#[test]
fn a_copy_of_the_docs_with_a_changed_default_and_a_removed_tool_section_fails_tidy() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let copy = tempfile::tempdir().unwrap();
    for page in files_below(&root.join("docs"), |_| false).unwrap() {
        let relative = page.strip_prefix(root).unwrap();
        let mut text = fs::read_to_string(&page).unwrap();
        if relative == Path::new("docs/mcp-proxy.md") {
            text = text.replacen("`--read-timeout` (300 s", "`--read-timeout` (30 s", 1);
        } else if relative == Path::new(tool_docs::TOOLS_PAGE) {
            let start = text.find("### `grep`").unwrap();
            let end = start + text[start..].find("\n### ").unwrap() + 1;
            text.replace_range(start..end, "");
        }
        fs::create_dir_all(copy.path().join(relative).parent().unwrap()).unwrap();
        fs::write(copy.path().join(relative), text).unwrap();
    }
    let problems = doc_fact_problems(copy.path(), flag_docs::binary_facts()).unwrap();
    let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 2, "{text:#?}");
    assert_eq!(
        problems[0],
        Problem::ToolSectionMissing {
            tool: "grep".into()
        }
    );
    assert!(
        text[0].contains("no section for the tool `grep`"),
        "{text:#?}"
    );
    assert!(
        matches!(&problems[1], Problem::FlagDocDiffers { at, flag, .. }
            if at.starts_with("docs/mcp-proxy.md:") && flag == "--read-timeout"),
        "{text:#?}"
    );
    assert!(
        text[1].contains("the default 30 for `--read-timeout`, and its definition's is `300`"),
        "{text:#?}"
    );
    // The docs as they are pass.
    assert_eq!(
        doc_fact_problems(root, flag_docs::binary_facts()).unwrap(),
        []
    );
}

const TABLE: &str = "# A\n\n## Allowed dependency graph (docs/architecture.md#allowed-dependency-graph)\n\n| crate | may depend on (internal) |\n|---|---|\n| `overspill-tokens` | — |\n| `overspill-json` | — |\n| `overspill-store` | json |\n\n## Next\n| `overspill-x` | y |\n";

#[test]
fn a_layer_table_that_differs_from_layers_is_reported_per_crate() {
    let problems = layer_table_problems(TABLE).unwrap();
    let named: Vec<&str> = problems
        .iter()
        .map(|p| match p {
            Problem::LayerTableDiffers { krate, .. } => krate.as_str(),
            _ => "",
        })
        .collect();
    // The three rows agree; every other crate of LAYERS has no row.
    assert!(!named.contains(&"overspill-tokens") && !named.contains(&"overspill-store"));
    assert!(named.contains(&"overspill-budget") && !named.contains(&"overspill-x"));
    let wrong = TABLE.replace(
        "| `overspill-store` | json |",
        "| `overspill-store` | tokens |",
    );
    let problems = layer_table_problems(&wrong).unwrap();
    assert!(problems.iter().any(|p| p.to_string().starts_with(
        "docs/architecture.md's layer table gives overspill-store overspill-tokens but LAYERS"
    )));
}

#[test]
fn an_error_that_returns_its_cause_from_source_is_reported_unless_transparent() {
    let source = r#"
            #[derive(Debug, thiserror::Error)]
            pub enum E {
                #[error("cannot read {}: {error}", path.display())]
                Fine { path: std::path::PathBuf, error: std::io::Error },
                #[error(transparent)]
                Wrapped(#[from] Inner),
                #[error("cannot write: {source}")]
                Named { source: std::io::Error },
                #[error("cannot list: {0}")]
                Marked(#[source] std::io::Error),
                #[error("{0}")]
                Converted(#[from] Other),
            }
            mod inner {
                #[derive(thiserror::Error, Debug)]
                #[error("lost: {source}")]
                pub struct Lost { source: std::io::Error }
            }
            #[derive(Debug)]
            pub struct NotAnError { source: String }
        "#;
    let file = syn::parse_file(source).unwrap();
    assert_eq!(
        chained_errors(&file.items),
        ["E::Named", "E::Marked", "E::Converted", "Lost"]
    );
}

#[test]
fn a_module_without_a_doc_comment_is_reported() {
    assert!(opens_with_module_doc(
        "#![allow(x)]\n\n//! Owns a thing.\nfn f() {}\n"
    ));
    assert!(!opens_with_module_doc("use std::fs;\n//! Late.\n"));
    assert!(!opens_with_module_doc(
        "/// An item doc is not a module doc.\nfn f() {}\n"
    ));
}

#[test]
fn unit_tests_written_inline_or_read_through_path_are_reported() {
    let source = r#"
            #[cfg(test)]
            mod tests;
            mod outer {
                #[cfg(test)]
                mod tests { fn t() {} }
            }
            #[path = "elsewhere_tests.rs"]
            mod checks;
        "#;
    let file = syn::parse_file(source).unwrap();
    assert_eq!(
        misplaced_tests(&file.items),
        [
            "`mod tests` is written inline",
            "`mod checks` is read from another file through `#[path]`"
        ]
    );
}
