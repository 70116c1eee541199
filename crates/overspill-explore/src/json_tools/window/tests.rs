use super::*;

#[test]
fn window_summaries_read_as_the_spec_shows_them() {
    assert_eq!(
        window_summary("items", 3, 7, 120, false, ", fields: [id,title]"),
        "(items [3..7) of 120 total, fields: [id,title])"
    );
    assert_eq!(
        window_summary("items", 0, 2, 2, true, ", fields: [id,title]"),
        "(2 items, fields: [id,title])"
    );
    assert_eq!(
        window_summary("items", 500, 120, 120, false, ""),
        "(items [500..500) of 120 total)"
    );
    assert_eq!(
        window_summary("results", 1_000, 1_010, 13_569, false, ""),
        "(results [1,000..1,010) of 13,569 total)"
    );
}
