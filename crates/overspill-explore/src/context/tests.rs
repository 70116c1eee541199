use serde_json::json;

use crate::test_support::Fixture;

fn outside_root_is_refused_without_reading(fixture: &Fixture, file: &str) {
    let error = fixture.error("head", json!({"file": file}));
    assert_eq!(error["error"], "path_outside_root", "{file}: {error}");
    assert_eq!(error["file"], file);
    assert!(fixture.ctx.cache().is_empty(), "{file} was read");
    assert_eq!(fixture.ctx.budget().tokens_extracted(), 0);
}

#[test]
fn parent_escape_is_path_outside_root_and_nothing_is_read() {
    let fixture = Fixture::new(&[("a.txt", b"x\n")]);
    outside_root_is_refused_without_reading(&fixture, "../../etc/passwd");
}

#[test]
fn absolute_path_is_path_outside_root_and_nothing_is_read() {
    let fixture = Fixture::new(&[("a.txt", b"x\n")]);
    outside_root_is_refused_without_reading(&fixture, "/etc/passwd");
    let error = fixture.error("head", json!({"file": "/etc/passwd"}));
    assert_eq!(
        error["message"],
        "`/etc/passwd`: absolute paths are not accepted; pass a file name from a pointer or a path relative to the read root"
    );
}

#[cfg(unix)]
#[test]
fn planted_symlink_out_of_the_root_is_path_outside_root_and_nothing_is_read() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), b"secret\n").unwrap();
    let fixture = Fixture::new(&[("a.txt", b"x\n")]);
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        fixture.path().join("planted.txt"),
    )
    .unwrap();
    outside_root_is_refused_without_reading(&fixture, "planted.txt");
    let text = fixture.call("grep", json!({"file": "planted.txt", "pattern": "secret"}));
    assert!(
        !text.contains("secret\n") && text.starts_with(r#"{"error":"path_outside_root""#),
        "{text}"
    );
}

#[test]
fn missing_file_is_not_found_with_advice() {
    let fixture = Fixture::new(&[("a.txt", b"x\n")]);
    assert_eq!(
        fixture.call("head", json!({"file": "nope.json"})),
        r#"{"error":"not_found","file":"nope.json","message":"`nope.json`: no such file under the read root; use a file name exactly as a pointer gives it"}"#
    );
}

#[test]
fn a_directory_is_an_invalid_file_argument() {
    let fixture = Fixture::new(&[("sub/a.txt", b"x\n")]);
    let error = fixture.error("head", json!({"file": "sub"}));
    assert_eq!(error["error"], "invalid_argument");
    assert_eq!(error["argument"], "file");
}

#[test]
fn relative_paths_inside_the_root_work() {
    let fixture = Fixture::new(&[("sub/a.txt", b"inside\n")]);
    assert_eq!(
        fixture.body("head", json!({"file": "sub/../sub/a.txt"})),
        "1: inside"
    );
}

#[test]
fn line_cap_leaves_room_for_the_footer() {
    let fixture = Fixture::with_budget(&[], 128_000, 10_000, 0);
    assert_eq!(fixture.ctx.token_limit(), 10_000);
    assert_eq!(fixture.ctx.line_cap(), 10_000 - super::LINE_RESERVE_TOKENS);
    let nearly_spent = Fixture::with_budget(&[], 1_000, 10_000, 790);
    assert_eq!(nearly_spent.ctx.token_limit(), 10);
    assert_eq!(nearly_spent.ctx.line_cap(), super::MIN_LINE_CAP_TOKENS);
}
