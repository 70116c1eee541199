//! What the proxy bench shares: the upstream servers it fronts, the session it drives and its HTTP client.
//!
//! Each test or bench binary uses part of it, so what one leaves unused is not dead.
#![allow(dead_code)]

pub mod first_answer;
pub mod http_client;
pub mod http_upstream;
pub mod session;
pub mod upstream;

use std::time::Duration;

/// The median of `times` (the mean of the middle two for an even count; zero for none).
pub fn median(mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    match times.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => times[n / 2],
        n => (times[n / 2 - 1] + times[n / 2]) / 2,
    }
}
