use super::*;

/// A counter with one token per character, to test the provided methods
/// on their own.
struct PerChar;

impl TokenCounter for PerChar {
    fn count(&self, text: &str) -> usize {
        text.chars().count()
    }

    fn count_up_to(&self, text: &str, limit: usize) -> Option<usize> {
        Some(self.count(text)).filter(|&n| n <= limit)
    }

    fn name(&self) -> &'static str {
        "per-char"
    }
}

#[test]
fn provided_fits_within_follows_count_up_to() {
    assert!(PerChar.fits_within("abc", 3));
    assert!(!PerChar.fits_within("abc", 2));
    assert!(PerChar.fits_within("", 0));
}

#[test]
fn is_below_is_strict_and_zero_threshold_is_never_undercut() {
    assert!(PerChar.is_below("abc", 4));
    assert!(!PerChar.is_below("abc", 3));
    assert!(!PerChar.is_below("", 0));
    assert!(PerChar.is_below("", 1));
}

#[test]
fn counters_are_usable_as_shared_trait_objects() {
    fn assert_send_sync<T: Send + Sync + ?Sized>() {}
    assert_send_sync::<dyn TokenCounter>();
    let shared: &'static dyn TokenCounter = &PerChar;
    assert_eq!(shared.name(), "per-char");
}
