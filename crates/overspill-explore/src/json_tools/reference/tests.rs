use super::*;

#[test]
fn numbers_past_64_bits_or_the_f64_range_are_not_exact_in_a_json_value() {
    for token in [
        "1",
        "-9223372036854775808",
        "18446744073709551615",
        "1.5e300",
        "0.1",
    ] {
        assert!(fits_a_json_value(token), "{token}");
    }
    for token in ["123456789012345678901234567890", "1e400", "-1E999"] {
        assert!(!fits_a_json_value(token), "{token}");
    }
}
