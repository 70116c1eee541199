use super::*;

#[test]
fn sanitize_replaces_each_char_outside_the_safe_set() {
    assert_eq!(sanitize_name("get pods (all)", "x"), "get_pods__all_");
    assert_eq!(sanitize_name("../etc", "x"), "___etc");
    assert_eq!(sanitize_name("A-z_09", "x"), "A-z_09");
}

#[test]
fn hostile_tool_names_become_one_plain_visible_component() {
    // Issue 22, item 8: traversal, hidden, empty, 10,000 characters, an embedded newline,
    // and a leading dash (read as an option by the tools a user runs on the directory).
    let long = "x".repeat(10_000);
    for (tool, expected) in [
        ("../../x", "______x".to_owned()),
        (".x", "_x".to_owned()),
        ("", "output".to_owned()),
        (long.as_str(), "x".repeat(64)),
        ("a\nb", "a_b".to_owned()),
        ("-rf", "_rf".to_owned()),
        ("--help", "_-help".to_owned()),
    ] {
        let name = sanitize_name(tool, "output");
        assert_eq!(name, expected, "{tool:?}");
        assert!(!name.starts_with(['.', '-']) && name.len() <= MAX_NAME_CHARS);
        assert!(
            name.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        );
    }
}

#[test]
fn sanitize_cuts_to_64_chars() {
    let long = "t".repeat(200);
    assert_eq!(sanitize_name(&long, "x").len(), 64);
    let wide = "é".repeat(100);
    assert_eq!(sanitize_name(&wide, "x"), "_".repeat(64));
}

#[test]
fn content_hash_is_stable_across_versions() {
    // BLAKE3("hello") is fixed by the BLAKE3 spec; a change here renames every stored file.
    assert_eq!(content_hash(b"hello"), "ea8f163db3868292");
    assert_eq!(content_hash(b"hello").len(), 16);
}

#[test]
fn count_lines_counts_a_missing_final_newline_as_a_line() {
    assert_eq!(count_lines(""), 0);
    assert_eq!(count_lines("a"), 1);
    assert_eq!(count_lines("a\n"), 1);
    assert_eq!(count_lines("a\n\n"), 2);
    assert_eq!(count_lines("a\r\nb"), 2);
}
