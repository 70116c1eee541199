use super::*;

#[test]
fn a_stream_over_its_limit_spills_and_reads_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut spill = Spill::new(4, dir.path());
    spill.push(b"abc");
    spill.push(b"defgh");
    spill.push(b"ij");
    let (mut spilled, lost) = spill.finish();
    assert!(lost.is_none());
    assert!(
        matches!(spilled, Spilled::File { len: 10, .. }),
        "{spilled:?}"
    );
    assert_eq!(spilled.text().unwrap().as_deref(), Some("abcdefghij"));
    let mut out = Vec::new();
    spilled.write_to(&mut out).unwrap();
    assert_eq!(out, b"abcdefghij");
}

#[test]
fn a_stream_within_its_limit_stays_in_memory_and_bytes_that_are_not_utf8_are_no_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut spill = Spill::new(4, &dir.path().join("never"));
    spill.push(b"\xff\xfe");
    let (mut spilled, _) = spill.finish();
    assert!(matches!(spilled, Spilled::Held(_)));
    assert_eq!(spilled.text().unwrap(), None);
    assert!(!dir.path().join("never").exists());
}
