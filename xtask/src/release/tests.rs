use super::*;

/// The release options `cargo xtask release <args>` reads, checked.
fn parse(args: &[&str]) -> anyhow::Result<Options> {
    let args: Vec<&str> = std::iter::once("release")
        .chain(args.iter().copied())
        .collect();
    match crate::tests::parse(&args)? {
        Some(crate::Task::Release(options)) => Ok(options.checked()?.clone()),
        other => panic!("{args:?} is not release: {other:?}"),
    }
}

#[test]
fn options_parse_every_flag() {
    let options = parse(&[
        "--dry-run",
        "--version",
        "0.2.0",
        "--no-verify",
        "--allow-dirty",
        "--root",
        "/tmp/ws",
    ])
    .unwrap();
    assert_eq!(
        options,
        Options {
            dry_run: true,
            version: Some("0.2.0".parse().unwrap()),
            no_verify: true,
            allow_dirty: true,
            root: Some(PathBuf::from("/tmp/ws")),
        }
    );
}

#[test]
fn allow_dirty_without_dry_run_is_refused() {
    let message = parse(&["--allow-dirty"]).unwrap_err().to_string();
    assert!(message.contains("only goes with --dry-run"), "{message}");
}

#[test]
fn bad_options_say_what_was_expected() {
    let message = parse(&["--version", "two"]).unwrap_err().to_string();
    assert!(message.contains("MAJOR.MINOR.PATCH"), "{message}");
    let message = parse(&["--version"]).unwrap_err().to_string();
    assert!(
        message.contains("a value is required for '--version <X.Y.Z>'"),
        "{message}"
    );
    let message = parse(&["--publish"]).unwrap_err().to_string();
    assert!(
        message.contains("unexpected argument '--publish'"),
        "{message}"
    );
}

#[test]
fn a_long_dirty_list_is_cut_after_ten_lines() {
    let dirty: Vec<String> = (0..12).map(|i| format!(" M file{i}")).collect();
    let message = dirty_message(&dirty);
    assert!(message.contains("12 uncommitted change(s)"), "{message}");
    assert!(message.contains("file9") && !message.contains("file10"));
    assert!(message.contains("... and 2 more"));
    assert!(!message.contains("out of date"));
}

#[test]
fn a_changed_lock_file_is_explained() {
    let message = dirty_message(&[" M Cargo.lock".to_owned()]);
    assert!(
        message.contains("Cargo.lock that changes on its own"),
        "{message}"
    );
}
