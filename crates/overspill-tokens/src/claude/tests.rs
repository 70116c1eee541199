use super::*;

#[test]
fn scale_up_rounds_one_point_one_times_up() {
    let cases = [
        (0, 0),
        (1, 2),
        (5, 6),
        (9, 10),
        (10, 11),
        (11, 13),
        (20, 22),
        (95, 105),
    ];
    for (n, scaled) in cases {
        assert_eq!(scale_up(n), scaled, "n = {n}");
        assert_eq!(scale_up(n), (11 * n).div_ceil(10), "n = {n}");
    }
}

#[test]
fn largest_unscaled_within_is_the_exact_inverse_of_scale_up() {
    for limit in 0..2_000 {
        let n = largest_unscaled_within(limit);
        assert!(scale_up(n) <= limit, "limit = {limit}");
        assert!(scale_up(n + 1) > limit, "limit = {limit}");
    }
    // No overflow at the top of the range.
    assert_eq!(
        largest_unscaled_within(usize::MAX),
        usize::MAX - usize::MAX.div_ceil(11)
    );
}

#[test]
fn claude_name_marks_the_approximation() {
    assert_eq!(claude().name(), "claude≈cl100k×1.1");
}

#[test]
fn a_single_token_text_counts_two_and_does_not_fit_in_its_byte_length() {
    // One byte, one cl100k token, two Claude tokens: the plain byte
    // shortcut (bytes <= limit) would be wrong here.
    assert_eq!(claude().count("a"), 2);
    assert!(!claude().fits_within("a", 1));
    assert!(claude().fits_within("a", 2));
    assert_eq!(claude().count_up_to("a", 1), None);
    assert_eq!(claude().count_up_to("a", 2), Some(2));
}
