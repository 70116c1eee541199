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
