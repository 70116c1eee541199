use super::*;
use crate::test_support::Fixture;

#[test]
fn a_listing_that_fits_is_left_whole() {
    let fixture = Fixture::new(&[]);
    let mut text = "a\nb\nc".to_owned();
    assert_eq!(cut_lines(&fixture.ctx, &mut text), None);
    assert_eq!(text, "a\nb\nc");
}

#[test]
fn a_listing_too_long_keeps_the_lines_that_fit() {
    let fixture = Fixture::with_budget(&[], 128_000, 1_000, 0);
    let mut text: String = (0..2_000).map(|i| format!("key{i}: number\n")).collect();
    text.pop();
    let (kept, total) = cut_lines(&fixture.ctx, &mut text).unwrap();
    assert_eq!(total, 2_000);
    assert!(kept > 10 && kept < 2_000, "{kept}");
    assert_eq!(text.lines().count(), kept);
    assert!(fits(&fixture.ctx, &text));
    // What the search measured: the kept lines and the next one, with its newline.
    let one_more = format!("{text}\nkey{kept}: number\n");
    assert!(!fits(&fixture.ctx, &one_more));
}
