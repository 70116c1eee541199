//! The budget as footers and errors show it, and the one place numbers get
//! thousands separators.

use std::fmt;

/// `n` with a comma between each group of three digits: `93,210`.
///
/// Every number the model sees with separators goes through this function, so
/// footers, errors and pointers agree.
///
/// ```
/// use overspill_budget::thousands;
///
/// assert_eq!(thousands(0), "0");
/// assert_eq!(thousands(999), "999");
/// assert_eq!(thousands(93_210), "93,210");
/// assert_eq!(thousands(1_234_567), "1,234,567");
/// ```
#[must_use]
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A snapshot of one budget: what is left, what is used, what it started from
/// and what it can hold.
///
/// `Display` gives the short form footers print; the alternate form (`{:#}`,
/// or [`WindowHint::long`]) adds the used and baseline figures for errors.
/// Remaining and used are estimates (`~`); the baseline and usable are exact.
///
/// ```
/// use overspill_budget::WindowHint;
///
/// let hint = WindowHint { remaining: 93_210, used: 9_190, baseline: 4_000, usable: 102_400 };
/// assert_eq!(hint.to_string(), "~93,210 of 102,400 budget tokens left");
/// assert_eq!(
///     hint.long(),
///     "~93,210 of 102,400 budget tokens left (~9,190 used, including a 4,000-token baseline)"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowHint {
    /// Tokens still free for extractions: `usable − used`, or 0 once used
    /// reaches usable.
    pub remaining: u64,
    /// The current estimate of the agent's context, baseline included.
    pub used: u64,
    /// Tokens the agent's context holds before any extraction.
    pub baseline: u64,
    /// The window less the safety margin.
    pub usable: u64,
}

impl WindowHint {
    /// The long form, for errors: the short form plus the used and baseline
    /// figures. The same text as `format!("{hint:#}")`.
    #[must_use]
    pub fn long(&self) -> String {
        format!("{self:#}")
    }
}

impl fmt::Display for WindowHint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "~{} of {} budget tokens left",
            thousands(self.remaining),
            thousands(self.usable)
        )?;
        if f.alternate() {
            write!(
                f,
                " (~{} used, including a {}-token baseline)",
                thousands(self.used),
                thousands(self.baseline)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
