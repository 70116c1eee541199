//! The regular-expression natives under `test`, `match`, `capture`, `scan`, `split`,
//! `splits`, `sub` and `gsub` (jaq's `matches`, `split_matches` and `split_`), rewritten to
//! stop before they allocate past a limit: jaq's collect every match of a string before
//! returning, so `[match(""; "g")]` on a 20 MB string allocated 7 GB and aborted the process.
//! Here each match is accounted for before its value is built — the array a call returns
//! and the match objects in it count as one value, at most [`Limits::max_value_bytes`]
//! ([`fits_value`]), and toward the run's total ([`reserve`]) — and the clock is read as
//! matches are found ([`Meter`]).
//!
//! [`Limits::max_value_bytes`]: super::guard::Limits::max_value_bytes
//!
//! The engine is `regex-automata`'s meta regex (a lazy DFA that finds where a match is, then
//! a capture engine on that match only), where jaq uses `regex-bites` (a Pike VM over the
//! whole string): the same syntax and flags, linear time, much faster, and size limits on
//! the compiled pattern. One difference: `\w`, `\d`, `\s` and case-insensitive matching are
//! Unicode-aware, as in jq. The results have jaq's shape (an array of match arrays: the
//! whole match, then each capture that took part, each `{offset, length, string, name?}`
//! with offsets and lengths in characters).

use std::cell::RefCell;
use std::sync::Arc;

use jaq_core::box_iter::{BoxIter, box_once};
use jaq_core::native::{Fun, v};
use jaq_core::{Error, Exn, Native, ValX};
use jaq_json::{Map, Val};
use jaq_std::ValT as _;
use regex_automata::PatternID;
use regex_automata::meta::Regex;
use regex_automata::util::syntax;

use super::guard::{Data, Meter, PIECE_BYTES, Tripped, fits_value, halt, reserve};
use super::text::CharStarts;
use crate::lossy::char_count;

/// The longest pattern compiled.
pub(crate) const MAX_PATTERN_BYTES: usize = 16 << 10;

/// Caps on the compiled pattern and on the lazy DFA's cache (user patterns always get
/// limits), as `grep` sets them.
const NFA_SIZE_LIMIT: usize = 4 << 20;
const DFA_CACHE_BYTES: usize = 16 << 20;

/// What one match object costs in jaq's values: a map of three or four entries (its hash
/// index, its entries, the reference-counted box) and the boxed slice of the matched text.
const MATCH_OBJECT_BYTES: u64 = 320;

/// The natives of this module, by jaq's names: `matches` (the matches), `split_matches`
/// (the text between matches and the matches, interleaved), `split_` (the text between).
pub(crate) fn natives() -> Vec<Fun<Data>> {
    vec![
        ("matches", v(2), Native::new(|cv| run(cv, Parts::MATCHES))),
        (
            "split_matches",
            v(2),
            Native::new(|cv| run(cv, Parts::BOTH)),
        ),
        ("split_", v(2), Native::new(|cv| run(cv, Parts::BETWEEN))),
    ]
}

/// Which parts of the text a native returns.
#[derive(Clone, Copy)]
struct Parts {
    between: bool,
    matches: bool,
}

impl Parts {
    const MATCHES: Parts = Parts {
        between: false,
        matches: true,
    };
    const BOTH: Parts = Parts {
        between: true,
        matches: true,
    };
    const BETWEEN: Parts = Parts {
        between: true,
        matches: false,
    };
}

fn run<'a>(mut cv: jaq_core::Cv<'a, Data>, parts: Parts) -> BoxIter<'a, ValX<'a, Val>> {
    let flags = cv.0.pop_var();
    let pattern = cv.0.pop_var();
    match prepare(&pattern, &flags, &cv.1) {
        Ok((regex, flags)) => match split(&cv.1, &regex, flags, parts) {
            Ok(found) => box_once(Ok(found)),
            Err(_) => halt(),
        },
        Err(error) => box_once(Err(Exn::from(error))),
    }
}

/// The regex and flags for `input`, with jaq's errors in jaq's order: the flags, the
/// pattern, then the input (which must be a text string).
fn prepare(pattern: &Val, flags: &Val, input: &Val) -> Result<(Arc<Regex>, Flags), Error<Val>> {
    let flags = Flags::parse(text(flags)?)?;
    let regex = compile(text(pattern)?, flags)?;
    match input {
        Val::TStr(_) => Ok((regex, flags)),
        other => Err(Error::typ(other.clone(), "string")),
    }
}

/// A string argument's text (jaq's error otherwise).
fn text(value: &Val) -> Result<&str, Error<Val>> {
    match value {
        Val::TStr(bytes) => std::str::from_utf8(bytes).map_err(Error::str),
        other => Err(Error::typ(other.clone(), "string")),
    }
}

/// jaq's regex flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
struct Flags {
    /// `g`: every match, not only the first.
    global: bool,
    /// `n`: skip empty matches.
    ignore_empty: bool,
    /// `i`.
    case_insensitive: bool,
    /// `m` (and `p`): `^` and `$` match at line ends.
    multi_line: bool,
    /// `s` (and `p`): `.` matches `\n`.
    dot_all: bool,
    /// `l`: repetitions lazy by default.
    swap_greed: bool,
    /// `x`: whitespace and `#` comments ignored.
    extended: bool,
}

impl Flags {
    fn parse(flags: &str) -> Result<Flags, Error<Val>> {
        let mut out = Flags::default();
        for flag in flags.chars() {
            match flag {
                'g' => out.global = true,
                'n' => out.ignore_empty = true,
                'i' => out.case_insensitive = true,
                'm' => out.multi_line = true,
                's' => out.dot_all = true,
                'l' => out.swap_greed = true,
                'x' => out.extended = true,
                'p' => {
                    out.multi_line = true;
                    out.dot_all = true;
                }
                other => return Err(Error::str(format!("invalid regex flag: {other}"))),
            }
        }
        Ok(out)
    }
}

thread_local! {
    /// The last regex compiled on this thread: a filter usually applies one pattern to many
    /// strings (`.[] | test("…")`), and jaq compiles it for each.
    static LAST: RefCell<Option<(String, Flags, Arc<Regex>)>> = const { RefCell::new(None) };
}

fn compile(pattern: &str, flags: Flags) -> Result<Arc<Regex>, Error<Val>> {
    let cached = LAST.with(|last| {
        last.borrow()
            .as_ref()
            .filter(|(p, f, _)| p == pattern && *f == flags)
            .map(|(_, _, regex)| Arc::clone(regex))
    });
    if let Some(regex) = cached {
        return Ok(regex);
    }
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(Error::str(format!(
            "invalid regex: the pattern is {} bytes long, more than the {MAX_PATTERN_BYTES} a \
             query compiles",
            pattern.len()
        )));
    }
    let syntax = syntax::Config::new()
        .case_insensitive(flags.case_insensitive)
        .multi_line(flags.multi_line)
        .dot_matches_new_line(flags.dot_all)
        .swap_greed(flags.swap_greed)
        .ignore_whitespace(flags.extended);
    let config = Regex::config()
        .nfa_size_limit(Some(NFA_SIZE_LIMIT))
        .hybrid_cache_capacity(DFA_CACHE_BYTES);
    let regex = Regex::builder()
        .syntax(syntax)
        .configure(config)
        .build(pattern)
        .map_err(|error| Error::str(format!("invalid regex: {}", last_line(&error.to_string()))))?;
    let regex = Arc::new(regex);
    LAST.with(|last| {
        *last.borrow_mut() = Some((pattern.to_owned(), flags, Arc::clone(&regex)));
    });
    Ok(regex)
}

/// The syntax errors are multi-line drawings; the last line is the reason.
fn last_line(message: &str) -> &str {
    message
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .map_or(message, str::trim)
}

/// The parts of `value` (a text string) that `parts` asks for, as jaq orders them.
fn split(value: &Val, regex: &Regex, flags: Flags, parts: Parts) -> Result<Val, Tripped> {
    let Val::TStr(hay) = value else {
        return Ok(Val::from_iter(std::iter::empty()));
    };
    let hay: &[u8] = hay;
    let names: Vec<Option<&str>> = regex.group_info().pattern_names(PatternID::ZERO).collect();
    let mut out = Output::new();
    let mut meter = Meter::default();
    let mut chars = CharStarts::new(hay);
    let mut last_end = 0usize;
    let mut searched_to = 0usize;
    // The engine's iterator, which steps past empty matches as jaq's engine does.
    for caps in regex.captures_iter(hay) {
        let Some(whole) = caps.get_match() else {
            break;
        };
        let span = whole.span();
        meter.add(16 + (span.end.saturating_sub(searched_to) as u64) / 64)?;
        searched_to = span.end;
        if flags.ignore_empty && span.is_empty() {
            continue;
        }
        if parts.between {
            out.piece(value.as_sub_str(&hay[last_end..span.start]))?;
            last_end = span.end;
        }
        if parts.matches {
            let start = chars.index_at(span.start);
            let mut groups = Vec::new();
            for (group, name) in names.iter().enumerate() {
                let Some(g) = caps.get_group(group) else {
                    // jaq leaves out a group that took no part.
                    continue;
                };
                let offset = start + char_count(&hay[span.start..g.start]);
                groups.push(out.object(
                    offset,
                    char_count(&hay[g.start..g.end]),
                    value.as_sub_str(&hay[g.start..g.end]),
                    *name,
                )?);
            }
            out.matched(groups)?;
        }
        if !flags.global {
            break;
        }
    }
    if parts.between {
        out.piece(value.as_sub_str(&hay[last_end..]))?;
    }
    Ok(out.items.into_iter().collect())
}

/// The native's result, accounted for as it grows: the array and the values in it count
/// as one value, so its size is checked against [`Limits::max_value_bytes`] before each
/// match is built (and added to the run's total).
///
/// [`Limits::max_value_bytes`]: super::guard::Limits::max_value_bytes
struct Output {
    items: Vec<Val>,
    /// Bytes accounted for so far.
    bytes: u64,
    /// The keys of a match object, made once (cloning a string value is a reference count).
    keys: [Val; 4],
}

impl Output {
    fn new() -> Output {
        Output {
            items: Vec::new(),
            bytes: 0,
            keys: ["offset", "length", "string", "name"].map(|k| Val::from(k.to_owned())),
        }
    }

    fn charge(&mut self, bytes: u64) -> Result<(), Tripped> {
        self.bytes = self.bytes.saturating_add(bytes);
        fits_value(self.bytes)?;
        reserve(bytes)
    }

    /// Text between matches.
    fn piece(&mut self, text: Val) -> Result<(), Tripped> {
        self.charge(16 + PIECE_BYTES)?;
        self.items.push(text);
        Ok(())
    }

    /// One match: the whole match and its groups.
    fn matched(&mut self, groups: Vec<Val>) -> Result<(), Tripped> {
        self.charge(16 + PIECE_BYTES)?;
        self.items.push(groups.into_iter().collect());
        Ok(())
    }

    /// A `{offset, length, string, name?}` object, accounted for before it is built.
    fn object(
        &mut self,
        offset: usize,
        length: usize,
        string: Val,
        name: Option<&str>,
    ) -> Result<Val, Tripped> {
        self.charge(MATCH_OBJECT_BYTES)?;
        let [k_offset, k_length, k_string, k_name] = &self.keys;
        let mut map = Map::default();
        map.insert(k_offset.clone(), Val::from(offset as isize));
        map.insert(k_length.clone(), Val::from(length as isize));
        map.insert(k_string.clone(), string);
        if let Some(name) = name {
            map.insert(k_name.clone(), Val::from(name.to_owned()));
        }
        Ok(Val::obj(map))
    }
}
