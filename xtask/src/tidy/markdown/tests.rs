use super::*;

#[test]
fn anchors_are_made_as_github_makes_them() {
    let page = "# The MCP proxy: `overspill mcp`\n## Sessions\n```\n# not a heading\n```\n\
                ## Sessions\n## See [the tools](tools.md) &amp; more\nSetext\n---\n";
    let anchors = anchors(page);
    assert!(anchors.contains("the-mcp-proxy-overspill-mcp"));
    assert!(anchors.contains("sessions") && anchors.contains("sessions-1"));
    assert!(anchors.contains("see-the-tools--more"), "{anchors:?}");
    assert!(anchors.contains("setext"));
    assert!(!anchors.contains("not-a-heading"));
}

#[test]
fn links_are_found_with_their_lines_and_not_in_code() {
    let page = "# A\n\nsee [b](b.md#x) and ![i](img.png)\n`[c](c.md)`\n\n```\n[d](d.md)\n```\n\
                [e]: e.md\nand [e] and <https://example.org>\n";
    let found: Vec<(usize, String)> = links(page)
        .into_iter()
        .map(|link| (link.line, link.destination))
        .collect();
    let expected = [
        (3, "b.md#x"),
        (3, "img.png"),
        (10, "e.md"),
        (10, "https://example.org"),
    ]
    .map(|(line, destination)| (line, destination.to_owned()));
    assert_eq!(found, expected);
}

#[test]
fn the_first_code_line_of_a_section_is_found_or_its_absence_named() {
    let page =
        "# R\n## Running the tests\n\nRun:\n\n```sh\n\ncargo xtask test\nmore\n```\n## Next\n";
    assert_eq!(
        first_code_line(page, "Running the tests").unwrap(),
        "cargo xtask test"
    );
    let error = first_code_line(page, "Building").unwrap_err().to_string();
    assert!(error.contains("no `## Building` section"), "{error}");
    let empty = "## Running the tests\nno block\n## Next\n```\ncargo x\n```\n";
    let error = first_code_line(empty, "Running the tests")
        .unwrap_err()
        .to_string();
    assert!(error.contains("has no code block"), "{error}");
}

#[test]
fn sections_hold_their_opening_code_and_tables() {
    let page = "# Tools\n\n### `head`: the first lines\n\n| argument | default | |\n|---|---|---|\n\
                | `file` | required | |\n| `lines` | 50 | how many (`0` shows none) |\n\n\
                ### JSON paths\n\nText `code` here.\n\n| form | meaning |\n|---|---|\n| `$` | all |\n";
    let found = sections(page);
    assert_eq!(found.len(), 3);
    assert_eq!(found[1].opening_code.as_deref(), Some("head"));
    assert_eq!(found[1].line, 3);
    assert_eq!(
        found[1].tables,
        [vec![
            vec!["argument", "default", ""],
            vec!["`file`", "required", ""],
            vec!["`lines`", "50", "how many (`0` shows none)"],
        ]]
    );
    assert_eq!(found[2].opening_code, None);
    assert_eq!(
        found[2].tables,
        [vec![vec!["form", "meaning"], vec!["`$`", "all"]]]
    );
}
