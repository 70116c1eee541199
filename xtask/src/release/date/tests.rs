use super::*;

#[test]
fn known_days_map_to_their_dates() {
    assert_eq!(civil_date(0), (1970, 1, 1));
    assert_eq!(civil_date(-1), (1969, 12, 31));
    assert_eq!(civil_date(59), (1970, 3, 1));
    assert_eq!(civil_date(11_016), (2000, 2, 29));
    assert_eq!(civil_date(11_017), (2000, 3, 1));
    assert_eq!(civil_date(19_782), (2024, 2, 29));
    assert_eq!(civil_date(20_424), (2025, 12, 2));
    assert_eq!(civil_date(47_540), (2100, 2, 28)); // 2100 is not a leap year
    assert_eq!(civil_date(47_541), (2100, 3, 1));
}

#[test]
fn consecutive_days_advance_the_date_by_one() {
    let mut previous = civil_date(-800);
    for days in -799..80_000 {
        let next = civil_date(days);
        let rolled_day = next.2 == previous.2 + 1 && next.1 == previous.1;
        let rolled_month =
            next.2 == 1 && (next.1 == previous.1 + 1 || (next.1, previous.1) == (1, 12));
        assert!(rolled_day || rolled_month, "{previous:?} -> {next:?}");
        previous = next;
    }
}

#[test]
fn today_is_formatted_for_a_changelog_heading() {
    let today = today_utc();
    assert_eq!(today.len(), 10, "{today}");
    assert_eq!(&today[4..5], "-");
    assert_eq!(&today[7..8], "-");
}
