use super::*;
use proptest::prelude::*;

#[test]
fn name_with_extension_gets_only_the_prefix() {
    assert_eq!(
        coordinator_file_name("runbook-draft.md").unwrap(),
        "coordinator-runbook-draft.md"
    );
    assert_eq!(
        coordinator_file_name("archive.tar.gz").unwrap(),
        "coordinator-archive.tar.gz"
    );
}

#[test]
fn name_without_extension_gets_txt() {
    assert_eq!(
        coordinator_file_name("notes").unwrap(),
        "coordinator-notes.txt"
    );
    assert_eq!(
        coordinator_file_name("notes.").unwrap(),
        "coordinator-notes.txt"
    );
    assert_eq!(
        coordinator_file_name("v1.2 notes").unwrap(),
        "coordinator-v1.2-notes.txt"
    );
    assert_eq!(
        coordinator_file_name("data.verylongext").unwrap(),
        "coordinator-data.verylongext.txt"
    );
    assert_eq!(
        coordinator_file_name("résumé.md").unwrap(),
        "coordinator-résumé.md"
    );
    assert_eq!(
        coordinator_file_name("a.mdé").unwrap(),
        "coordinator-a.mdé.txt"
    );
}

#[test]
fn traversal_and_separators_cannot_leave_the_directory() {
    assert_eq!(
        coordinator_file_name("../../etc/x").unwrap(),
        "coordinator-etc-x.txt"
    );
    assert_eq!(
        coordinator_file_name("..\\..\\boot.ini").unwrap(),
        "coordinator-boot.ini"
    );
    assert_eq!(
        coordinator_file_name("/abs/path.md").unwrap(),
        "coordinator-abs-path.md"
    );
    assert_eq!(coordinator_file_name("a..b").unwrap(), "coordinator-a.b");
    assert_eq!(
        coordinator_file_name("x/../y").unwrap(),
        "coordinator-x-y.txt"
    );
}

#[test]
fn control_chars_and_leading_dots_are_removed() {
    assert_eq!(
        coordinator_file_name("\u{0}no\ntes\u{7f}.md").unwrap(),
        "coordinator-notes.md"
    );
    assert_eq!(
        coordinator_file_name(".hidden").unwrap(),
        "coordinator-hidden.txt"
    );
    assert_eq!(
        coordinator_file_name(".overspill-meta").unwrap(),
        "coordinator-overspill-meta.txt"
    );
    assert_eq!(
        coordinator_file_name("  runbook draft (v2).md ").unwrap(),
        "coordinator-runbook-draft-v2.md"
    );
}

#[test]
fn existing_coordinator_prefix_is_not_doubled() {
    assert_eq!(
        coordinator_file_name("coordinator-notes.txt").unwrap(),
        "coordinator-notes.txt"
    );
    assert_eq!(
        coordinator_file_name("coordinator-").unwrap(),
        "coordinator-coordinator.txt"
    );
    assert_eq!(
        coordinator_file_name("coordinator-.x").unwrap(),
        "coordinator-coordinator.x"
    );
    assert_eq!(
        coordinator_file_name("coordinator- x").unwrap(),
        "coordinator-x.txt"
    );
}

#[test]
fn long_names_are_cut_and_keep_their_extension() {
    let name = coordinator_file_name(&format!("{}.json", "a".repeat(500))).unwrap();
    assert_eq!(name.len(), MAX_FILE_NAME_BYTES);
    assert!(name.ends_with("a.json"));
    let wide = coordinator_file_name(&"é".repeat(300)).unwrap();
    assert!(wide.len() <= MAX_FILE_NAME_BYTES);
    assert!(wide.ends_with("é.txt"));
}

#[test]
fn names_with_nothing_usable_are_refused() {
    for name in ["", "   ", "..", "../..", "/", "\u{1}\u{2}", "---", "!!!"] {
        assert_eq!(
            coordinator_file_name(name),
            Err(NameError::NoUsableCharacters(name.to_owned())),
            "{name:?}"
        );
    }
}

#[test]
fn file_name_check_refuses_paths_and_says_why() {
    assert!(check_file_name("task-3-result.txt").is_ok());
    assert!(check_file_name("coordinator-notes.txt").is_ok());
    for bad in [
        "", "a/b", "a\\b", "..", "../x", "x..y", ".hidden", "a\nb", "a\0b",
    ] {
        assert!(check_file_name(bad).is_err(), "{bad:?}");
    }
    let message = check_file_name("../../etc/passwd").unwrap_err().to_string();
    assert_eq!(
        message,
        "`filename` contains a path separator; pass a file name exactly as listed in \
             `available` or in the task, without directories"
    );
    let long = "a".repeat(256);
    assert!(check_file_name(&long).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn coordinator_names_are_always_one_safe_component(name in any::<String>()) {
        if let Ok(file) = coordinator_file_name(&name) {
            prop_assert!(file.starts_with(COORDINATOR_PREFIX));
            prop_assert!(file.len() <= MAX_FILE_NAME_BYTES);
            prop_assert!(check_file_name(&file).is_ok(), "{file:?}");
            let (_, ext) = file.rsplit_once('.').unwrap();
            prop_assert!(is_extension(ext));
            let joined = std::path::Path::new("artifacts").join(&file);
            prop_assert_eq!(joined.parent(), Some(std::path::Path::new("artifacts")));
            prop_assert_eq!(coordinator_file_name(&file), Ok(file.clone()));
        }
    }

    #[test]
    fn accepted_file_names_name_a_file_directly_inside_the_dir(name in any::<String>()) {
        if check_file_name(&name).is_ok() {
            let joined = std::path::Path::new("artifacts").join(&name);
            prop_assert_eq!(joined.parent(), Some(std::path::Path::new("artifacts")));
            prop_assert!(!name.contains("..") && !name.starts_with('.'));
        }
    }

    #[test]
    fn path_like_names_are_always_accepted_or_cleaned(
        parts in proptest::collection::vec("(\\.\\.|\\.|[a-z]{1,6}|/|\\\\| )", 1..8)
    ) {
        let name: String = parts.concat();
        if let Ok(file) = coordinator_file_name(&name) {
            prop_assert!(!file.contains('/') && !file.contains('\\') && !file.contains(".."));
        }
    }
}
