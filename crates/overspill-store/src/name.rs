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
mod tests;
