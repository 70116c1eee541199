use super::*;

fn md(src: &str, depth: usize) -> Outline {
    markdown(src.as_bytes(), &LineIndex::build(src.as_bytes()), depth)
}

#[test]
fn markdown_shows_the_heading_tree_with_line_ranges_and_list_keys() {
    let src = "# Notes\n\nintro\n## 2.14.1\n- date: 2026-11-02\n- **Author**: ana\n- date: again\n```\n# not a heading\n```\n### Fixes ###\n## 2.14.0\ntext\n";
    let outline = md(src, 4);
    assert_eq!(
        outline.text,
        "markdown: 13 lines, 4 headings\n# Notes [L1-L13]\n  ## 2.14.1 [L4-L11]\n    - keys: date, Author (3 list items)\n    ### Fixes [L11]\n  ## 2.14.0 [L12-L13]"
    );
    assert_eq!(outline.summary, "markdown outline, 4 headings in 3 levels");
    let shallow = md(src, 1);
    assert!(shallow.elided);
    assert_eq!(shallow.text.lines().count(), 2);
}

#[test]
fn text_shows_line_count_longest_line_and_a_sample() {
    let long = "x".repeat(300);
    let src = format!("first\nsecond\n{long}\n\nfifth\nsixth\n");
    let outline = text(src.as_bytes(), &LineIndex::build(src.as_bytes()));
    let expected_sample: String = "x".repeat(MAX_CHARS);
    assert_eq!(
        outline.text,
        format!(
            "text: 6 lines, {} bytes\nlongest line: L3 (300 chars)\nsample (lines 1-5):\n1: first\n2: second\n3: {expected_sample} …\n4: \n5: fifth",
            src.len()
        )
    );
}

#[test]
fn an_empty_file_has_no_sample() {
    let outline = text(b"", &LineIndex::build(b""));
    assert_eq!(outline.text, "text: 0 lines, 0 bytes");
}
