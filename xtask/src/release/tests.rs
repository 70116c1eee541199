use super::*;

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn options_parse_every_flag() {
    let options = Options::parse(&args(&[
        "--dry-run",
        "--version",
        "0.2.0",
        "--no-verify",
        "--allow-dirty",
        "--root",
        "/tmp/ws",
    ]))
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
    let message = Options::parse(&args(&["--allow-dirty"]))
        .unwrap_err()
        .to_string();
    assert!(message.contains("only goes with --dry-run"), "{message}");
}

#[test]
fn bad_options_say_what_was_expected() {
    let message = Options::parse(&args(&["--version", "two"]))
        .unwrap_err()
        .to_string();
    assert!(message.contains("MAJOR.MINOR.PATCH"), "{message}");
    let message = Options::parse(&args(&["--version"]))
        .unwrap_err()
        .to_string();
    assert!(message.contains("needs a value"), "{message}");
    let message = Options::parse(&args(&["--publish"]))
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("unknown release option `--publish`"),
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
