//! Today's date for the changelog heading, in UTC, without a date crate.

use std::time::{SystemTime, UNIX_EPOCH};

/// Today in UTC as `YYYY-MM-DD`.
pub fn today_utc() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = i64::try_from(seconds / 86_400).unwrap_or(0);
    let (year, month, day) = civil_date(days);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The proleptic Gregorian date `days` after 1970-01-01.
///
/// Counts in 400-year eras starting on 1 March, so that the leap day is the
/// last day of its year and month lengths repeat in a fixed 153-day pattern.
pub fn civil_date(days: i64) -> (i64, u32, u32) {
    const DAYS_PER_ERA: i64 = 146_097; // 400 years
    let shifted = days + 719_468; // days from 0000-03-01 to 1970-01-01
    let era = shifted.div_euclid(DAYS_PER_ERA);
    let day_of_era = shifted.rem_euclid(DAYS_PER_ERA);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    // month is 1..=12 and day 1..=31 by construction.
    (year, month as u32, day as u32)
}

#[cfg(test)]
mod tests;
