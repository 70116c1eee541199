use super::*;

#[test]
fn key_path_quotes_only_segments_that_are_not_bare_keys() {
    let path = KeyPath::root()
        .key("mcp")
        .key("servers")
        .key("k8s")
        .key("scratchpad")
        .key("k8s_[list");
    assert_eq!(
        path.to_string(),
        r#"mcp.servers.k8s.scratchpad."k8s_[list""#
    );
}

#[test]
fn key_path_shows_array_indices_and_empty_keys() {
    let path = KeyPath::root().key("agent").key("mcp_filter").index(2);
    assert_eq!(path.to_string(), "agent.mcp_filter[2]");
    assert_eq!(KeyPath::root().key("a").key("").to_string(), r#"a."""#);
}

#[test]
fn quoted_escapes_quotes_backslashes_and_controls() {
    assert_eq!(quoted(r#"a"b\c"#), r#""a\"b\\c""#);
    assert_eq!(quoted("x\ny\u{1}"), r#""x\ny\u0001""#);
}

#[test]
fn location_counts_lines_and_character_columns() {
    let text = "a = 1\nébc = 2\n";
    let at = Location::in_text(text, text.find("c =").unwrap_or(0), None);
    assert_eq!((at.line, at.column), (2, 3));
    assert_eq!(at.to_string(), "line 2, column 3");
    let at = Location::in_text(text, 0, Some(Path::new("x.toml")));
    assert_eq!(at.to_string(), "x.toml:1:1");
}

#[test]
fn location_clamps_offsets_past_the_end_and_inside_characters() {
    let text = "é";
    assert_eq!(Location::in_text(text, 1, None).column, 1);
    assert_eq!(Location::in_text(text, 99, None).column, 2);
}
