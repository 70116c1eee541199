//! File-name pieces: sanitised tool names and slugs, the content hash, line counts.

/// Longest sanitised tool name or slug, in characters (docs/storage.md).
pub const MAX_NAME_CHARS: usize = 64;

/// Hex characters of the BLAKE3 hash used in a file name.
pub const HASH_HEX_CHARS: usize = 16;

/// Replaces every character outside `[A-Za-z0-9_-]` with `_`, and a leading `-` too (a
/// file name starting with `-` reads as an option to `rm`, `ls` and friends), and cuts the
/// result to 64 characters; an empty name becomes `fallback`. Whatever a host or an MCP
/// server calls its tool, the name is one plain, visible path component: no `/`, no `..`, no
/// leading `.`, no control characters.
///
/// ```
/// use overspill_store::sanitize_name;
///
/// assert_eq!(sanitize_name("k8s.list/pods", "output"), "k8s_list_pods");
/// assert_eq!(sanitize_name("ünï", "output"), "_n_");
/// assert_eq!(sanitize_name("", "output"), "output");
/// assert_eq!(sanitize_name("-rf", "output"), "_rf");
/// ```
pub fn sanitize_name(name: &str, fallback: &str) -> String {
    let clean: String = name
        .chars()
        .take(MAX_NAME_CHARS)
        .enumerate()
        .map(|(i, c)| {
            if c.is_ascii_alphanumeric() || c == '_' || (c == '-' && i > 0) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() {
        fallback.to_owned()
    } else {
        clean
    }
}

/// The first 16 hex characters of the BLAKE3 hash of `content`.
///
/// ```
/// assert_eq!(overspill_store::content_hash(b"").len(), 16);
/// ```
pub fn content_hash(content: &[u8]) -> String {
    let hex = blake3::hash(content).to_hex();
    hex[..HASH_HEX_CHARS].to_owned()
}

/// Lines in `text`: the number of `\n`, plus one when the text does not end in `\n`
/// (so `""` has 0 lines, `"a"` and `"a\n"` have 1, `"a\nb"` has 2).
///
/// ```
/// assert_eq!(overspill_store::count_lines("a\nb"), 2);
/// ```
pub fn count_lines(text: &str) -> usize {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    newlines + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

#[cfg(test)]
mod tests {
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
}
