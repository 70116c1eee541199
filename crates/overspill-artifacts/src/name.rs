//! Artifact file names: the sanitised name a coordinator's write gets, and the plain-name check
//! every name or id a model sends must pass (docs/artifacts.md).
//!
//! Two rules, on purpose different. A coordinator *chooses* a name for new content, so its name
//! is cleaned up into something safe ([`coordinator_file_name`]). A file name the model sends to
//! read an artifact *points at* something that already exists, so it is never rewritten: it is
//! accepted as it is or refused with a reason ([`check_file_name`]). Run ids follow the store's
//! rule ([`overspill_store::validate_id`]).

/// Every file a coordinator writes starts with this, so it can never overwrite a worker's
/// result (`task-…-result.txt`) or a tool-output artifact.
pub const COORDINATOR_PREFIX: &str = "coordinator-";

/// Longest file name [`coordinator_file_name`] produces, in bytes (prefix and extension
/// included): far below every common filesystem's 255-byte limit, and short enough to read in
/// a prompt.
pub const MAX_FILE_NAME_BYTES: usize = 128;

/// Longest extension kept, in characters; a longer one is treated as part of the name.
pub const MAX_EXTENSION_CHARS: usize = 8;

/// The extension given to a name without a valid one.
pub const DEFAULT_EXTENSION: &str = "txt";

/// Why a name was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NameError {
    /// Nothing usable was left of a coordinator's name after cleaning it.
    #[error(
        "the artifact name `{0}` has no usable characters; use letters, digits, `-`, `_` and an \
         extension, e.g. `runbook-draft.md`"
    )]
    NoUsableCharacters(String),
    /// A file name to read is not a plain file name.
    #[error(
        "`filename` {0}; pass a file name exactly as listed in `available` or in the task, \
         without directories"
    )]
    NotPlain(&'static str),
}

/// The file name a coordinator's `write_artifact(name, …)` is stored under:
/// `coordinator-{clean name}.{ext}`.
///
/// Cleaning: control characters are dropped; path separators, whitespace and other punctuation
/// become `-` (letters and digits of any script, `_`, `-` and `.` are kept); each run of such
/// characters collapses to one (`.` when the run ends with a dot, `-` otherwise), so no `..`
/// survives; runs at either end go, so the name never starts with a dot. A name that
/// already starts with `coordinator-` is not prefixed twice, so writing the file name a
/// previous write returned replaces that file. The extension is the part after the last dot
/// when it is 1–8 ASCII letters or digits; otherwise `.txt` is appended. The whole name is cut
/// to [`MAX_FILE_NAME_BYTES`].
///
/// The result is a single path component that never starts with a dot: joined to the
/// artifacts directory it names a file directly inside it.
///
/// ```
/// use overspill_artifacts::coordinator_file_name;
///
/// assert_eq!(coordinator_file_name("runbook-draft.md").unwrap(), "coordinator-runbook-draft.md");
/// assert_eq!(coordinator_file_name("notes").unwrap(), "coordinator-notes.txt");
/// assert_eq!(coordinator_file_name("../../etc/x").unwrap(), "coordinator-etc-x.txt");
/// assert_eq!(coordinator_file_name("coordinator-notes.txt").unwrap(), "coordinator-notes.txt");
/// ```
///
/// # Errors
/// [`NameError::NoUsableCharacters`] when nothing is left after cleaning (`""`, `"../.."`).
pub fn coordinator_file_name(name: &str) -> Result<String, NameError> {
    let mut clean = clean_str(name);
    if let Some(rest) = clean.strip_prefix(COORDINATOR_PREFIX) {
        let rest = clean_str(rest);
        if !rest.is_empty() {
            clean = rest;
        }
    }
    if clean.is_empty() {
        return Err(NameError::NoUsableCharacters(name.to_owned()));
    }
    let (stem, extension) = match clean.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && is_extension(ext) => (stem, ext),
        _ => (clean.as_str(), DEFAULT_EXTENSION),
    };
    let room = MAX_FILE_NAME_BYTES - COORDINATOR_PREFIX.len() - 1 - extension.len();
    let stem = trim_edges(cut_to_bytes(stem, room));
    if stem.is_empty() {
        // Only possible when the stem's first character alone is wider than the room left.
        return Err(NameError::NoUsableCharacters(name.to_owned()));
    }
    Ok(format!("{COORDINATOR_PREFIX}{stem}.{extension}"))
}

/// Checks that `value` is a plain file name: one non-empty path component with no separator,
/// no `..`, no control character and no leading dot, at most 255 bytes.
///
/// ```
/// use overspill_artifacts::check_file_name;
///
/// assert!(check_file_name("task-3-result.txt").is_ok());
/// assert!(check_file_name("../../etc/passwd").is_err());
/// ```
///
/// # Errors
/// [`NameError::NotPlain`] saying what is wrong and what to send instead.
pub fn check_file_name(value: &str) -> Result<(), NameError> {
    let refuse = |reason| Err(NameError::NotPlain(reason));
    if value.is_empty() {
        return refuse("is empty");
    }
    if value.contains(['/', '\\']) {
        return refuse("contains a path separator");
    }
    if value.contains("..") {
        return refuse("contains `..`");
    }
    if value.chars().any(char::is_control) {
        return refuse("contains a control character");
    }
    if value.starts_with('.') {
        return refuse("starts with a dot (hidden files are not artifacts)");
    }
    if value.len() > 255 {
        return refuse("is longer than 255 bytes");
    }
    Ok(())
}

/// Whether `ext` is a valid extension: 1–8 ASCII letters or digits.
fn is_extension(ext: &str) -> bool {
    (1..=MAX_EXTENSION_CHARS).contains(&ext.len()) && ext.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Maps characters and collapses each run of `-`, `.` and replaced characters into one
/// character (`.` if the run ends with a dot, so `(v2).md` keeps its extension; else `-`);
/// runs at either end are dropped.
fn clean_str(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut pending: Option<char> = None;
    for c in name.chars() {
        match c {
            c if c.is_control() => {}
            c if c.is_alphanumeric() || c == '_' => {
                if let Some(joint) = pending.take()
                    && !out.is_empty()
                {
                    out.push(joint);
                }
                out.push(c);
            }
            '.' => pending = Some('.'),
            _ => pending = Some('-'),
        }
    }
    out
}

/// `name` without leading or trailing dots and dashes.
fn trim_edges(name: &str) -> &str {
    name.trim_matches(['.', '-'])
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn cut_to_bytes(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests;
