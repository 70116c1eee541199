use super::*;

/// The registry's tools, and docs that say what their definitions say.
fn agreeing() -> (Vec<ToolFacts>, String) {
    let tools = registered();
    let page = format!("# Tools\n\n### JSON paths\n\n{}", sections_of(&tools));
    (tools, page)
}

#[test]
fn a_page_that_says_what_the_definitions_say_passes() {
    let (tools, page) = agreeing();
    assert_eq!(page_problems(&page, &tools), []);
}

#[test]
fn this_workspaces_tools_page_says_what_the_definitions_say() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    assert_eq!(problems(root).unwrap(), []);
}

/// The acceptance of issue 42: a tool section removed from a copy of docs/tools.md fails tidy.
#[test]
fn a_copy_of_the_tools_page_without_a_tools_section_fails() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let page = fs::read_to_string(root.join(TOOLS_PAGE)).unwrap();
    let start = page.find("### `grep`").unwrap();
    let end = start + page[start..].find("\n### ").unwrap() + 1;
    let copy = tempfile::tempdir().unwrap();
    fs::create_dir_all(copy.path().join("docs")).unwrap();
    fs::write(
        copy.path().join(TOOLS_PAGE),
        format!("{}{}", &page[..start], &page[end..]),
    )
    .unwrap();
    let problems = problems(copy.path()).unwrap();
    assert_eq!(
        problems,
        [Problem::ToolSectionMissing {
            tool: "grep".into()
        }]
    );
    assert!(
        problems[0]
            .to_string()
            .contains("no section for the tool `grep`")
    );
}

#[test]
fn a_section_about_no_tool_or_a_tool_twice_is_reported() {
    let (tools, page) = agreeing();
    let page = format!(
        "{page}### `tail`: the last lines\n\n{}",
        sections_of(&tools[..1])
    );
    let problems = page_problems(&page, &tools);
    assert!(
        matches!(&problems[..], [
            Problem::ToolSectionWithoutTool { name, .. },
            Problem::ToolSectionTwice { tool, .. },
        ] if name == "tail" && *tool == tools[0].name),
        "{problems:?}"
    );
}

/// A default changed in a definition (here `head`'s `lines`), and a definition's default a page
/// does not state, fail until the page says the same.
#[test]
fn a_default_that_differs_from_the_definition_is_reported() {
    let (mut tools, page) = agreeing();
    let head = tools.iter_mut().find(|tool| tool.name == "head").unwrap();
    head.schema["properties"]["lines"]["default"] = Value::from(60);
    let problems = page_problems(&page, &tools);
    assert_eq!(
        problems,
        [Problem::ToolArgumentDiffers {
            tool: "head".into(),
            argument: "lines".into(),
            doc: Some("50".into()),
            definition: "default 60".into(),
        }]
    );
    let message = problems[0].to_string();
    assert!(
        message.contains("gives `lines` the default `50`, but its definition says default 60"),
        "{message}"
    );
}

#[test]
fn a_default_cell_is_read_as_a_value_required_or_words() {
    let tool = ToolFacts {
        name: "t".into(),
        schema: serde_json::json!({
            "properties": {
                "file": {"type": "string"},
                "cap": {"type": "integer", "default": 10000},
                "path": {"type": "string", "default": "$"},
                "loud": {"type": "boolean", "default": false},
                "limit": {"type": "integer"},
            },
            "required": ["file"],
        }),
    };
    let table =
        |rows: &str| format!("### `t`\n\n| argument | default | |\n|---|---|---|\n{rows}\n");
    let good = table(
        "| `file` | required | |\n| `cap` | 10,000 | |\n| `path` | `$` | |\n\
         | `loud` | `false` | |\n| `limit` | all | |",
    );
    assert_eq!(page_problems(&good, std::slice::from_ref(&tool)), []);
    // A value for an argument with no default, a default for a required one, a missing row and
    // a row for no argument.
    let bad = table(
        "| `file` | `x.json` | |\n| `cap` | 10,000 | |\n| `path` | `$` | |\n\
         | `limit` | 100 | |\n| `lines` | 50 | |",
    );
    let wrong: Vec<(String, Option<String>)> = page_problems(&bad, &[tool])
        .into_iter()
        .map(|problem| match problem {
            Problem::ToolArgumentDiffers { argument, doc, .. } => (argument, doc),
            other => panic!("{other:?}"),
        })
        .collect();
    let expected = [
        ("file", Some("`x.json`")),
        ("limit", Some("100")),
        ("lines", Some("50")),
        ("loud", None),
    ]
    .map(|(argument, doc)| (argument.to_owned(), doc.map(str::to_owned)));
    assert_eq!(wrong, expected);
}

#[test]
fn a_section_without_its_table_of_arguments_is_reported() {
    let tools = registered();
    let read = tools.iter().find(|tool| tool.name == "read").unwrap();
    let page =
        "### `read`: the whole file\n\n| tool | arguments |\n|---|---|\n| `read` | `file` |\n";
    assert_eq!(
        page_problems(page, std::slice::from_ref(read)),
        [Problem::ToolArgumentsMissing {
            tool: "read".into()
        }]
    );
}
