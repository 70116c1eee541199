//! A service log with INFO/DEBUG/WARN/ERROR lines.

use std::io::{self, Write};

use crate::CountingWriter;
use crate::random::SplitMix64;

const SERVICES: &[&str] = &["checkout", "payments", "search", "auth", "inventory"];

const LEVELS: &[(&str, u64)] = &[("INFO ", 70), ("DEBUG", 15), ("WARN ", 10), ("ERROR", 5)];

/// Writes log lines until `bytes`.
pub(crate) fn write<W: Write>(out: &mut CountingWriter<'_, W>, bytes: u64) -> io::Result<()> {
    let mut r = SplitMix64::new(7);
    let mut line = String::with_capacity(256);
    let mut i = 0u64;
    while out.written < bytes {
        line.clear();
        let level = *r.weighted(LEVELS);
        let service = *r.choice(SERVICES);
        let request_id = r.hex(16);
        let ms = r.between(1, 3_000);
        let message = match level {
            "ERROR" => match r.between(0, 2) {
                0 => format!(
                    "upstream timeout after {ms}ms calling {}",
                    r.choice(SERVICES)
                ),
                1 => "database connection refused: dial tcp 10.0.3.42:5432: connect: connection refused"
                    .to_owned(),
                _ => format!(
                    "panic recovered: index out of range [{}] with length {}",
                    r.between(5, 99),
                    r.between(0, 4)
                ),
            },
            "WARN " => match r.between(0, 2) {
                0 => format!("slow request {ms}ms"),
                1 => "retrying request (attempt 2/3)".to_owned(),
                _ => "cache miss ratio above 0.4".to_owned(),
            },
            _ => format!(
                "{} /api/v1/{} {} {ms}ms",
                r.choice(&["GET", "POST", "PUT"]),
                r.choice(&["orders", "cart", "items", "users"]),
                r.choice(&[200, 200, 201, 204, 404])
            ),
        };
        use std::fmt::Write as _;
        // Writing to a String cannot fail.
        let _ = writeln!(
            line,
            "2026-11-12T{:02}:{:02}:{:02}.{:03}Z {level} [{service}] request_id={request_id} {message}",
            (i / 3_600) % 24,
            (i / 60) % 60,
            i % 60,
            r.between(0, 999)
        );
        out.write_all(line.as_bytes())?;
        i += 1;
    }
    Ok(())
}
