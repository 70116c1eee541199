//! The artifacts a run holds, newest first: what a "not found" answer and a rejected plan list
//! so the model can correct a name (docs/artifacts.md).

use std::fs;
use std::io;
use std::path::Path;
use std::time::SystemTime;

use serde_json::{Map, Value, json};

/// Most artifact names listed in one answer; the rest are counted in `available_omitted`.
pub const MAX_LISTED: usize = 40;

/// The artifacts of one run, newest first, cut to [`MAX_LISTED`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Available {
    /// File names, newest first (ties by name).
    pub names: Vec<String>,
    /// How many more artifacts exist beyond `names`.
    pub omitted: usize,
}

impl Available {
    /// Lists the artifacts in `dir`. An artifact is a regular file whose name does not start
    /// with a dot: temporary files of in-flight writes, overspill's own records and symbolic
    /// links are not artifacts. A directory that does not exist holds no artifacts.
    ///
    /// # Errors
    /// The directory exists but cannot be read.
    pub fn in_dir(dir: &Path) -> io::Result<Available> {
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Available::default()),
            Err(e) => return Err(e),
        };
        let mut found: Vec<(SystemTime, String)> = Vec::new();
        for entry in entries {
            let entry = entry?;
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            // `DirEntry::metadata` does not follow symlinks, so a link is never listed.
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            found.push((meta.modified().unwrap_or(SystemTime::UNIX_EPOCH), name));
        }
        found.sort_by(|(a_time, a_name), (b_time, b_name)| {
            b_time.cmp(a_time).then_with(|| a_name.cmp(b_name))
        });
        let omitted = found.len().saturating_sub(MAX_LISTED);
        let names = found
            .into_iter()
            .take(MAX_LISTED)
            .map(|(_, name)| name)
            .collect();
        Ok(Available { names, omitted })
    }

    /// Adds `available` and, only when more exist, `available_omitted` to `object`.
    pub fn insert_into(&self, object: &mut Map<String, Value>) {
        object.insert("available".to_owned(), json!(self.names));
        if self.omitted > 0 {
            object.insert("available_omitted".to_owned(), json!(self.omitted));
        }
    }

    /// The names as one line for a message: `a.txt, b.md (and 5 more)`, or `none`.
    pub fn describe(&self) -> String {
        if self.names.is_empty() {
            return "none".to_owned();
        }
        let mut text = self.names.join(", ");
        if self.omitted > 0 {
            text.push_str(&format!(" (and {} more)", self.omitted));
        }
        text
    }
}

/// Whether `dir/name` is an artifact by the rule of [`Available::in_dir`]. `name` must already
/// be a plain name ([`crate::check_file_name`]).
pub(crate) fn is_artifact(dir: &Path, name: &str) -> bool {
    !name.starts_with('.') && fs::symlink_metadata(dir.join(name)).is_ok_and(|meta| meta.is_file())
}

#[cfg(test)]
pub(crate) mod tests;
