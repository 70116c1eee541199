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
pub(crate) mod tests {
    use super::*;
    use std::time::Duration;

    /// Writes `count` artifacts named `artifact-00.txt`, … with strictly increasing modification
    /// times, so the last one written is the newest.
    pub(crate) fn write_numbered(dir: &Path, count: usize) {
        fs::create_dir_all(dir).unwrap();
        let base = SystemTime::now() - Duration::from_secs(10_000);
        for i in 0..count {
            let path = dir.join(format!("artifact-{i:02}.txt"));
            fs::write(&path, format!("artifact {i}\n")).unwrap();
            let file = fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(base + Duration::from_secs(i as u64))
                .unwrap();
        }
    }

    #[test]
    fn forty_five_artifacts_list_forty_newest_and_omit_five() {
        let dir = tempfile::tempdir().unwrap();
        write_numbered(dir.path(), 45);
        let available = Available::in_dir(dir.path()).unwrap();
        assert_eq!(available.names.len(), 40);
        assert_eq!(available.omitted, 5);
        assert_eq!(available.names[0], "artifact-44.txt");
        assert_eq!(available.names[39], "artifact-05.txt");
        let mut object = Map::new();
        available.insert_into(&mut object);
        assert_eq!(object["available_omitted"], json!(5));
    }

    #[test]
    fn available_omitted_is_absent_when_all_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        write_numbered(dir.path(), 3);
        let available = Available::in_dir(dir.path()).unwrap();
        assert_eq!(
            available.names,
            ["artifact-02.txt", "artifact-01.txt", "artifact-00.txt"]
        );
        let mut object = Map::new();
        available.insert_into(&mut object);
        assert_eq!(
            Value::Object(object),
            json!({"available": ["artifact-02.txt", "artifact-01.txt", "artifact-00.txt"]})
        );
        assert_eq!(
            available.describe(),
            "artifact-02.txt, artifact-01.txt, artifact-00.txt"
        );
    }

    #[test]
    fn hidden_files_directories_and_symlinks_are_not_artifacts() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("real.txt"), "x").unwrap();
        fs::write(dir.path().join(".overspill-tmp-abc"), "x").unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("link.txt")).unwrap();
        let available = Available::in_dir(dir.path()).unwrap();
        assert_eq!(available.names, ["real.txt"]);
        assert!(is_artifact(dir.path(), "real.txt"));
        assert!(!is_artifact(dir.path(), "sub"));
        assert!(!is_artifact(dir.path(), "link.txt"));
        assert!(!is_artifact(dir.path(), ".overspill-tmp-abc"));
    }

    #[test]
    fn a_missing_directory_holds_no_artifacts() {
        let dir = tempfile::tempdir().unwrap();
        let available = Available::in_dir(&dir.path().join("nope")).unwrap();
        assert_eq!(available, Available::default());
        assert_eq!(available.describe(), "none");
    }
}
