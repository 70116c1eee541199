//! Today's date for the changelog heading, in UTC (`jiff`, the workspace's one date crate).

use jiff::Timestamp;
use jiff::tz::Offset;

/// Today in UTC as `YYYY-MM-DD`.
pub fn today_utc() -> String {
    Offset::UTC.to_datetime(Timestamp::now()).date().to_string()
}

#[cfg(test)]
mod tests;
