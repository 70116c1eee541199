use super::*;

#[test]
fn detect_single_line_json_object_and_array() {
    assert_eq!(Format::detect(r#"{"a":1,"b":[1,2]}"#), Format::Json);
    assert_eq!(Format::detect("  \n[1, 2, 3]\n"), Format::Json);
}

#[test]
fn detect_json_scalars_as_text() {
    for scalar in ["42", "\"a string\"", "true", "null", "-1.5e3"] {
        assert_eq!(Format::detect(scalar), Format::Text, "{scalar}");
    }
}

#[test]
fn detect_broken_json_as_text() {
    assert_eq!(Format::detect(r#"{"a": 1,}"#), Format::Text);
    assert_eq!(Format::detect("[1, 2] trailing"), Format::Text);
    assert_eq!(Format::detect("{not json at all"), Format::Text);
}

#[test]
fn detect_json_that_serde_json_would_refuse_as_json() {
    // RFC 8259 grammar decides; the stored file keeps such numbers verbatim.
    assert_eq!(
        Format::detect("[1e400, 123456789012345678901234567890]"),
        Format::Json
    );
}

#[test]
fn detect_markdown_by_atx_heading() {
    assert_eq!(Format::detect("# Title\nbody"), Format::Markdown);
    assert_eq!(Format::detect("intro\n\n###### Six\n"), Format::Markdown);
    assert_eq!(Format::detect("text\n##\tTabbed\n"), Format::Markdown);
    assert_eq!(Format::detect("   ## Indented three\n"), Format::Markdown);
}

#[test]
fn detect_shebang_script_as_text() {
    assert_eq!(
        Format::detect("#!/bin/sh\nset -eu\necho done\n"),
        Format::Text
    );
}

#[test]
fn detect_non_headings_as_text() {
    for text in [
        "#tag\n",
        "####### seven\n",
        "    # four spaces\n",
        "#\n",
        "a # b\n",
    ] {
        assert_eq!(Format::detect(text), Format::Text, "{text:?}");
    }
}

#[test]
fn detect_heading_past_line_50_as_text() {
    let mut text = "plain line\n".repeat(50);
    text.push_str("# Late heading\n");
    assert_eq!(Format::detect(&text), Format::Text);
    let on_line_50 = format!("{}# Heading on line 50\n", "plain line\n".repeat(49));
    assert_eq!(Format::detect(&on_line_50), Format::Markdown);
}

#[test]
fn detect_empty_text_as_text() {
    assert_eq!(Format::detect(""), Format::Text);
}

#[test]
fn extension_and_display_name_each_format() {
    let all = [Format::Json, Format::Markdown, Format::Text];
    let ext: Vec<_> = all.iter().map(|f| f.extension()).collect();
    let shown: Vec<_> = all.iter().map(|f| f.to_string()).collect();
    assert_eq!(ext, ["json", "md", "txt"]);
    assert_eq!(shown, ["json", "markdown", "text"]);
}

#[test]
fn from_path_reads_the_extension_only() {
    assert_eq!(Format::from_path(Path::new("pods-0123.json")), Format::Json);
    assert_eq!(
        Format::from_path(Path::new("a/README.MD")),
        Format::Markdown
    );
    assert_eq!(
        Format::from_path(Path::new("notes.markdown")),
        Format::Markdown
    );
    assert_eq!(Format::from_path(Path::new("log.txt")), Format::Text);
    assert_eq!(Format::from_path(Path::new("Makefile")), Format::Text);
}

#[test]
fn format_serialises_as_its_display_name() {
    assert_eq!(
        serde_json::to_string(&Format::Markdown).unwrap(),
        "\"markdown\""
    );
    let back: Format = serde_json::from_str("\"json\"").unwrap();
    assert_eq!(back, Format::Json);
}
