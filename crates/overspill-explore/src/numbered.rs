//! Numbered lines as the line tools show them: absolute 1-based numbers, lossy UTF-8, and a
//! line too long for one call cut with a note saying how to read the rest (docs/tools.md#1-common-rules).
//!
//! ```text
//!  98: {
//!  99:   "kind": "Pod",
//! 100:   "message": "Back-off restarting failed container"
//! ```
//!
//! `grep` adds a marker column: `>` on matching lines, a space on context lines, and `--`
//! between regions.
//!
//! A window of lines can be far larger than what may be returned (`head` of a million
//! lines). [`NumberedLines::over_limit`] tells the tool, after each line, whether what it has
//! rendered already costs more than the token limit, so it stops there: rendering costs
//! O(limit), whatever the window asked for.

use serde_json::json;

use crate::context::{ExploreContext, MIN_LINE_CAP_TOKENS};
use crate::lossy;

/// The marker column of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// No marker column (head, slice, read).
    None,
    /// A matching line (`>`).
    Match,
    /// A context line around a match (a space).
    Context,
}

/// Which characters of each line to show (`slice`'s `start_char`/`max_chars`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CharWindow {
    /// First character shown (0-based).
    pub start: u64,
    /// At most this many characters; `None` to the end of the line.
    pub max: Option<u64>,
}

/// Accumulates numbered lines into a body.
#[derive(Debug)]
pub struct NumberedLines<'a> {
    ctx: &'a ExploreContext,
    file: &'a str,
    width: usize,
    chars: Option<CharWindow>,
    body: String,
    lossy: bool,
    cut: Vec<u64>,
    pushed: u64,
    /// Body length at which the next count is taken.
    check_at: usize,
    over: bool,
    /// Tokens a line may cost before it is cut: the context's cap, less the file name the
    /// cut note quotes.
    line_cap: u64,
}

/// How a line was shown, for footers that talk about one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown {
    /// Characters shown.
    pub chars: u64,
    /// The line's length in characters (counted only when a window or a cut needed it).
    pub total_chars: Option<u64>,
}

impl<'a> NumberedLines<'a> {
    /// Lines of `file` whose numbers are at most `last_number` (sets the number column width).
    pub fn new(ctx: &'a ExploreContext, file: &'a str, last_number: u64) -> NumberedLines<'a> {
        // Below about four bytes a token, text this short is not worth counting yet.
        let check_at = usize::try_from(ctx.token_limit())
            .unwrap_or(usize::MAX)
            .saturating_mul(4)
            .saturating_add(4096);
        NumberedLines {
            ctx,
            file,
            width: last_number.max(1).to_string().len(),
            chars: None,
            body: String::new(),
            lossy: false,
            cut: Vec::new(),
            pushed: 0,
            check_at,
            over: false,
            line_cap: ctx
                .line_cap()
                .saturating_sub(ctx.counter().count(file) as u64)
                .max(MIN_LINE_CAP_TOKENS),
        }
    }

    /// Shows only `window` of each line.
    #[must_use]
    pub fn with_chars(mut self, window: Option<CharWindow>) -> NumberedLines<'a> {
        self.chars = window;
        self
    }

    /// Appends line `number` with its raw `bytes`.
    pub fn push(&mut self, number: u64, bytes: &[u8], mark: Mark) -> Shown {
        self.pushed += 1;
        if !self.body.is_empty() {
            self.body.push('\n');
        }
        match mark {
            Mark::None => {}
            Mark::Match => self.body.push('>'),
            Mark::Context => self.body.push(' '),
        }
        self.body
            .push_str(&format!("{number:>width$}: ", width = self.width));

        let cap = usize::try_from(self.line_cap).unwrap_or(usize::MAX);
        let start = self.chars.map_or(0, |w| w.start);
        let max = self.chars.and_then(|w| w.max);
        // Enough text to fill any cap: no token is longer than 64 bytes in practice.
        let probe_bytes = cap.saturating_mul(64).max(4096);
        let piece = if self.chars.is_some() {
            lossy::piece(bytes, start, max, probe_bytes)
        } else {
            lossy::prefix(bytes, probe_bytes)
        };
        self.lossy |= piece.lossy;
        let mut total_chars = self.chars.map(|_| lossy::char_count(bytes) as u64);
        let kept = fit_prefix(self.ctx, &piece.text, cap);
        let shown_chars = piece.text[..kept].chars().count() as u64;
        self.body.push_str(&piece.text[..kept]);
        if kept < piece.text.len() || piece.truncated {
            let total = *total_chars.get_or_insert_with(|| lossy::char_count(bytes) as u64);
            self.cut.push(number);
            let next = start + shown_chars;
            let call = json!({
                "file": self.file, "start": number, "end": number,
                "start_char": next, "max_chars": shown_chars.max(1),
            });
            self.body.push_str(&format!(
                " … [line {number} cut: chars {start}..{next} of {total} shown; read on with slice {call}]",
                start = thousands(start),
                next = thousands(next),
                total = thousands(total),
            ));
        }
        Shown {
            chars: shown_chars,
            total_chars,
        }
    }

    /// How many lines have been cut so far.
    pub fn cut_lines(&self) -> usize {
        self.cut.len()
    }

    /// How many lines have been pushed.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Whether the lines pushed so far already cost more tokens than may be returned now, so
    /// the tool can stop rendering. Counts only once the body is long enough to matter, then
    /// each time it has doubled, so checking after every line costs O(body) in all.
    pub fn over_limit(&mut self) -> bool {
        if self.over || self.body.len() < self.check_at {
            return self.over;
        }
        let limit = usize::try_from(self.ctx.token_limit()).unwrap_or(usize::MAX);
        if self.ctx.counter().count_up_to(&self.body, limit).is_none() {
            self.over = true;
        } else {
            self.check_at = self.body.len().saturating_mul(2);
        }
        self.over
    }

    /// The tokens the whole window would cost, scaled from the part rendered: for each
    /// `(done, total)`, `done` of `total` units (lines, bytes) cost what the body costs. The
    /// smallest scaling wins; never less than the body itself.
    pub fn estimate(&self, scales: &[(u64, u64)]) -> u64 {
        let counted = self.ctx.counter().count(&self.body) as u128;
        let scaled = scales
            .iter()
            .map(|&(done, total)| counted * u128::from(total.max(done)) / u128::from(done.max(1)))
            .min()
            .unwrap_or(counted);
        u64::try_from(scaled.max(counted)).unwrap_or(u64::MAX)
    }

    /// Appends the `--` separator between grep regions.
    pub fn separator(&mut self) {
        if !self.body.is_empty() {
            self.body.push_str("\n--");
        }
    }

    /// The body and the footer notes (cut lines, lossy decoding).
    pub fn finish(self) -> (String, Vec<String>) {
        let mut notes = Vec::new();
        match self.cut.as_slice() {
            [] => {}
            [one] => notes.push(format!(
                "line {} was cut to fit (see the note at its end)",
                thousands(*one)
            )),
            many => notes.push(format!(
                "{} long lines were cut to fit (see the notes at their ends)",
                many.len()
            )),
        }
        if self.lossy {
            notes.push("invalid UTF-8 shown as \u{FFFD}".to_owned());
        }
        (self.body, notes)
    }
}

/// The byte length of the longest prefix of `text` (on a character boundary) that costs at
/// most `cap` tokens.
pub(crate) fn fit_prefix(ctx: &ExploreContext, text: &str, cap: usize) -> usize {
    // No counter gives more than two tokens per byte, so short text needs no counting.
    if text.len().saturating_mul(2) <= cap {
        return text.len();
    }
    let counter = ctx.counter();
    if counter.count_up_to(text, cap).is_some() {
        return text.len();
    }
    // Binary search over character boundaries: `lo` fits, `hi` does not.
    let (mut lo, mut hi) = (0usize, text.len());
    while hi - lo > 1 {
        let mut mid = text.floor_char_boundary(lo + (hi - lo) / 2);
        if mid <= lo {
            mid = text.ceil_char_boundary(lo + 1);
            if mid >= hi {
                break;
            }
        }
        if counter.count_up_to(&text[..mid], cap).is_some() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// `12345` → `12,345`: the budget crate's formatter, the one place numbers get separators.
pub(crate) use overspill_budget::thousands;
