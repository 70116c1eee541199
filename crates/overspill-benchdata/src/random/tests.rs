use super::SplitMix64;

#[test]
fn splitmix64_matches_its_published_sequence() {
    // The first outputs for seed 1234567 of the reference implementation.
    let mut r = SplitMix64::new(1_234_567);
    assert_eq!(r.next_u64(), 6_457_827_717_110_365_317);
    assert_eq!(r.next_u64(), 3_203_168_211_198_807_973);
}

#[test]
fn weighted_never_picks_a_zero_weight() {
    let mut r = SplitMix64::new(3);
    for _ in 0..1_000 {
        assert_ne!(*r.weighted(&[("a", 5), ("never", 0), ("b", 1)]), "never");
    }
}
