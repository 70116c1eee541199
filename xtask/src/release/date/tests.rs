use super::*;

#[test]
fn today_is_formatted_for_a_changelog_heading() {
    let today = today_utc();
    assert_eq!(today.len(), 10, "{today}");
    assert_eq!(&today[4..5], "-");
    assert_eq!(&today[7..8], "-");
    assert!(today.as_str() >= "2026-01-01", "{today}");
}
