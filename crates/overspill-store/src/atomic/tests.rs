use super::*;

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn write_if_absent_creates_then_reports_existing() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        write_if_absent(dir.path(), "a.txt", b"abc").unwrap(),
        Written::Created
    );
    assert_eq!(
        write_if_absent(dir.path(), "a.txt", b"abc").unwrap(),
        Written::Existed
    );
    assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), b"abc");
    assert_eq!(names(dir.path()), ["a.txt"]);
}

#[test]
fn write_if_absent_replaces_a_file_of_the_wrong_size() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), b"ab").unwrap();
    assert_eq!(
        write_if_absent(dir.path(), "a.txt", b"abc").unwrap(),
        Written::Replaced
    );
    assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), b"abc");
    assert_eq!(names(dir.path()), ["a.txt"]);
}

#[cfg(unix)]
#[test]
fn write_if_absent_replaces_a_same_size_file_that_has_other_hard_links() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let backup = tempfile::tempdir().unwrap();
    write_if_absent(dir.path(), "a.txt", b"abc").unwrap();
    fs::hard_link(dir.path().join("a.txt"), backup.path().join("a.txt")).unwrap();
    assert_eq!(
        write_if_absent(dir.path(), "a.txt", b"abc").unwrap(),
        Written::Replaced
    );
    let nlink = |p: &Path| fs::metadata(p).unwrap().nlink();
    assert_eq!(nlink(&dir.path().join("a.txt")), 1);
    assert_eq!(nlink(&backup.path().join("a.txt")), 1);
    assert_eq!(fs::read(backup.path().join("a.txt")).unwrap(), b"abc");
    assert_eq!(names(dir.path()), ["a.txt"]);
}

#[cfg(unix)]
#[test]
fn renaming_unless_taken_names_a_free_name_with_one_link_and_leaves_a_taken_one_alone() {
    // The naming used where the file system cannot rename without replacing (NFS): this
    // test runs it directly, since the test machine's file system can.
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let temp = |content: &[u8]| {
        let mut temp = tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .tempfile_in(dir.path())
            .unwrap();
        temp.write_all(content).unwrap();
        temp.into_temp_path()
    };
    let path = dir.path().join("a.txt");
    assert_eq!(
        rename_unless_taken(temp(b"first"), &path).unwrap(),
        Naming::Named
    );
    assert_eq!(fs::metadata(&path).unwrap().nlink(), 1);
    assert_eq!(
        rename_unless_taken(temp(b"second"), &path).unwrap(),
        Naming::Taken
    );
    assert_eq!(fs::read(&path).unwrap(), b"first");
    // The refused temporary file is removed, not left beside the name.
    assert_eq!(names(dir.path()), ["a.txt"]);
}

#[cfg(unix)]
#[test]
fn naming_if_free_gives_one_link_and_reports_a_taken_name() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let temp = || {
        tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .tempfile_in(dir.path())
            .unwrap()
    };
    let path = dir.path().join("a.txt");
    assert_eq!(name_if_free(temp(), &path).unwrap(), Naming::Named);
    assert_eq!(fs::metadata(&path).unwrap().nlink(), 1);
    assert_eq!(name_if_free(temp(), &path).unwrap(), Naming::Taken);
    assert_eq!(names(dir.path()), ["a.txt"]);
}

#[cfg(unix)]
#[test]
fn written_files_are_0600_and_created_dirs_0700() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("x/y");
    create_private_dir_all(&nested).unwrap();
    write_if_absent(&nested, "f", b"1").unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir.path().join("x")), 0o700);
    assert_eq!(mode(&nested), 0o700);
    assert_eq!(mode(&nested.join("f")), 0o600);
}

#[test]
fn sweep_removes_only_stale_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join(format!("{TEMP_PREFIX}old"));
    let fresh = dir.path().join(format!("{TEMP_PREFIX}fresh"));
    let kept = dir.path().join("tool-0123456789abcdef.txt");
    for p in [&old, &fresh, &kept] {
        fs::write(p, b"x").unwrap();
    }
    let long_ago = SystemTime::now() - Duration::from_secs(2 * 60 * 60);
    for p in [&old, &kept] {
        fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
    }
    sweep_stale_temp_files(dir.path());
    assert!(!old.exists());
    assert!(fresh.exists());
    assert!(kept.exists());
}
