//! RFC 3339 timestamps (`2026-12-02T09:41:07.123Z`) for metadata records, read and written by
//! `jiff`, the workspace's one date crate (docs/architecture.md).

use std::time::SystemTime;

use jiff::Timestamp;
use jiff::tz::Offset;

/// The one shape metadata times are written in: UTC, `T`, seconds, a fraction of 1–9 digits
/// (optional when read), `Z`.
const SHAPE: &str = "%Y-%m-%dT%H:%M:%S%.fZ";

/// Formats `time` as UTC RFC 3339 with millisecond precision. Times before 1970 print as the
/// epoch (metadata records are written now, never in the past).
pub(crate) fn format_rfc3339(time: SystemTime) -> String {
    let time = Timestamp::try_from(time)
        .ok()
        .filter(|time| *time >= Timestamp::UNIX_EPOCH)
        .unwrap_or(Timestamp::UNIX_EPOCH);
    format!("{time:.3}")
}

/// Parses what [`format_rfc3339`] writes (fraction optional, 1–9 digits, `Z` only).
pub(crate) fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    let written = jiff::fmt::strtime::parse(SHAPE, text)
        .ok()?
        .to_datetime()
        .ok()?;
    let time = Offset::UTC.to_timestamp(written).ok()?;
    (time >= Timestamp::UNIX_EPOCH).then(|| SystemTime::from(time))
}

#[cfg(test)]
mod tests;
