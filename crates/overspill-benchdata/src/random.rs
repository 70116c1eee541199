//! The one random sequence of the generators: SplitMix64, fixed forever so a seed always
//! gives the same bytes.

/// A SplitMix64 generator (Steele, Lea and Flood, 2014): the seeded sequence behind every
/// generated input, public so that tests building corpora of their own use the same one.
///
/// ```
/// let mut random = overspill_benchdata::SplitMix64::new(1_234_567);
/// assert_eq!(random.next_u64(), 6_457_827_717_110_365_317);
/// assert!(random.below(10) < 10);
/// ```
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// The sequence of `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next number of the sequence.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` must not be 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `low..=high`.
    pub(crate) fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.next_u64() % (high - low + 1)
    }

    pub(crate) fn choice<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.next_u64() as usize % items.len()]
    }

    /// One of `items`, each as likely as its weight.
    pub(crate) fn weighted<'a, T>(&mut self, items: &'a [(T, u64)]) -> &'a T {
        let total: u64 = items.iter().map(|(_, w)| w).sum();
        let mut pick = self.next_u64() % total;
        for (item, weight) in items {
            if pick < *weight {
                return item;
            }
            pick -= weight;
        }
        &items[items.len() - 1].0
    }

    /// `n` lowercase hex digits.
    pub(crate) fn hex(&mut self, n: usize) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        (0..n)
            .map(|_| char::from(DIGITS[(self.next_u64() & 15) as usize]))
            .collect()
    }

    /// An RFC 3339 time on `2026-11-day`.
    pub(crate) fn timestamp(&mut self, day: u64) -> String {
        format!(
            "2026-11-{day:02}T{:02}:{:02}:{:02}Z",
            self.between(0, 23),
            self.between(0, 59),
            self.between(0, 59)
        )
    }
}

#[cfg(test)]
mod tests;
