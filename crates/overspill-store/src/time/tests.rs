use std::time::{Duration, UNIX_EPOCH};

use super::*;

#[test]
fn formats_known_instants() {
    assert_eq!(format_rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    let leap_day = UNIX_EPOCH + Duration::from_millis(951_782_400_000 + 3_723_456);
    assert_eq!(format_rfc3339(leap_day), "2000-02-29T01:02:03.456Z");
    let end_of_2026 = UNIX_EPOCH + Duration::from_secs(1_798_761_599);
    assert_eq!(format_rfc3339(end_of_2026), "2026-12-31T23:59:59.000Z");
}

#[test]
fn parse_inverts_format_for_every_day_of_several_centuries() {
    for days in (0..150_000u64).step_by(37) {
        let t = UNIX_EPOCH + Duration::from_millis(days * 86_400_000 + 45_296_789);
        assert_eq!(parse_rfc3339(&format_rfc3339(t)), Some(t), "day {days}");
    }
}

#[test]
fn parse_rejects_malformed_timestamps() {
    for bad in [
        "",
        "2026-13-01T00:00:00Z",
        "2026-01-01 00:00:00Z",
        "2026-01-01T00:00:00+01:00",
        "1969-12-31T23:59:59Z",
        "2026-01-01T00:00:00.Z",
    ] {
        assert_eq!(parse_rfc3339(bad), None, "{bad}");
    }
    assert!(parse_rfc3339("2026-01-01T00:00:00Z").is_some());
}

#[test]
fn format_truncates_to_milliseconds_and_clamps_the_past_to_the_epoch() {
    let almost = UNIX_EPOCH + Duration::new(59, 999_999_999);
    assert_eq!(format_rfc3339(almost), "1970-01-01T00:00:59.999Z");
    let before = UNIX_EPOCH - Duration::from_secs(1);
    assert_eq!(format_rfc3339(before), "1970-01-01T00:00:00.000Z");
}

#[test]
fn parse_reads_a_fraction_of_one_to_nine_digits() {
    let at = |nanos| Some(UNIX_EPOCH + Duration::new(1, nanos));
    assert_eq!(parse_rfc3339("1970-01-01T00:00:01Z"), at(0));
    assert_eq!(parse_rfc3339("1970-01-01T00:00:01.5Z"), at(500_000_000));
    assert_eq!(
        parse_rfc3339("1970-01-01T00:00:01.123456789Z"),
        at(123_456_789)
    );
    assert_eq!(parse_rfc3339("1970-01-01T00:00:01.1234567891Z"), None);
}
