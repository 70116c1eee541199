use super::*;

#[test]
fn local_origins_are_this_machine_at_any_port() {
    for origin in [
        "http://localhost",
        "http://localhost:6274",
        "https://127.0.0.1:8",
        "http://[::1]:9",
    ] {
        assert!(is_local_origin(origin), "{origin}");
    }
    for origin in [
        "http://evil.example",
        "http://localhost.evil.example",
        "null",
        "file://x",
    ] {
        assert!(!is_local_origin(origin), "{origin}");
    }
}

#[test]
fn secrets_compare_equal_only_when_equal() {
    assert!(same(b"abc", b"abc"));
    assert!(!same(b"abc", b"abd") && !same(b"ab", b"abc"));
}

#[test]
fn session_ids_are_128_random_bits_in_hex() {
    let (a, b) = (session_id().unwrap(), session_id().unwrap());
    assert_eq!(a.len(), 32);
    assert_ne!(a, b);
}
