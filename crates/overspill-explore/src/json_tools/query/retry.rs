//! The smaller call that a refused `query` offers as its retry (docs/tools.md#query): never
//! the refused call, and a call that fits when run as it is.
//!
//! A window of several results asks for as many as the rendered ones show fit (counted, where
//! halving again would run the filter again), or for half when rendering stopped at the byte
//! cap. A window whose first result is too large on its own cannot shrink that way: the retry
//! shows part of that result instead, in query's own terms, chosen by what the result is (one
//! probe evaluation tells):
//!
//! | the result | the retry's filter | its window |
//! |---|---|---|
//! | an array | `F \| .[]`, one element per result | the first elements that fit |
//! | an object | `F \| path(.[]) as [$k] \| {($k): .[$k]}`, one key and its value per result | the first keys that fit |
//! | an array of one element, an object of one key | `F \| .[0]`, `F \| .key` | |
//! | a string | `F \| .[:n]` | `n` characters, computed to fit |
//! | a number | `F \| tojson \| .[:n]` | `n` digits, computed to fit |
//!
//! `F` is the refused filter when it has one result (`.`, `keys`, `.items`); the result at
//! `offset` of a filter with several is `X[offset]` for a filter `X[]` over one array, else
//! `first(F)` or `nth(offset; F)`. Elements and keys are paged with `offset` and `limit` like
//! any results, so a model reads on from the retry. With a 10,000-token cap:
//!
//! ```text
//! refused: {"filter": "keys"}       (a million keys)
//! retry:   {"filter": "keys | .[]", "offset": 0, "limit": 1392}
//! refused: {"filter": "."}          (a document that is one 50 MB string)
//! retry:   {"filter": ".[:21257]", "offset": 0}
//! ```

use serde_json::Value;

use super::{Args, cached_document};
use crate::args::{MAX_STRING_BYTES, Page};
use crate::call::Call;
use crate::context::ExploreContext;
use crate::fit;
use crate::jq::{self, Limits, Window};
use crate::json_tools::document;
use crate::json_tools::window::render_cap;
use crate::tool::Extraction;

/// The filter that shows an object one key and its value per result, walking the keys in place
/// (`keys_unsorted` would build all of them first, which the memory guard refuses for a million).
const ENTRIES: &str = "path(.[]) as [$k] | {($k): .[$k]}";

/// The next smaller call after `args` was refused, having produced `got`: fewer results, or
/// part of the one result that is too large on its own. `None` when the result cannot be cut
/// (or the filter that would cut it is too long to send).
pub fn smaller(ctx: &ExploreContext, args: &Args, got: &Extraction) -> Option<Call> {
    let returned = got.returned;
    // One result rendered in full is all the window holds: only cutting it shows less. One
    // rendered before the byte cap stopped the rest is a window of one to try.
    let several = returned > 1 || (returned == 1 && got.body.is_empty());
    if several && args.page.limit.is_none_or(|limit| limit > 1) {
        // Results rendered in full tell how many of them fit: counting is arithmetic, where
        // halving again would run the filter again. A rendering stopped at the byte cap
        // (`got.body` empty) is halved.
        let fitting = fit::units_that_fit(ctx, got, 0);
        return Some(Call::new(
            "query",
            &Args {
                page: Page::new(
                    args.page.offset,
                    Some(fitting.unwrap_or(returned / 2).max(1)),
                ),
                ..args.clone()
            },
        ));
    }
    let probed = probe(ctx, args)?;
    let (part, limit) = match &probed.shape {
        Shape::Array { length: 0 } | Shape::Object { length: 0, .. } => return None,
        Shape::Array { length: 1 } => (".[0]".to_owned(), None),
        Shape::Object {
            length: 1,
            only_key: Some(key),
        } => {
            // One key and its value of an object a retry listed: that key's value.
            if let Some(listed) = entries_of(ctx, args) {
                return query(args, pipe(listed, &key_path(key)), None);
            }
            (key_path(key), None)
        }
        Shape::Array { length } => (".[]".to_owned(), Some(first_page(ctx, *length))),
        Shape::Object { length, .. } => (ENTRIES.to_owned(), Some(first_page(ctx, *length))),
        Shape::Text {
            scalar,
            chars,
            start,
        } => {
            // One character less than the whole at most: the retry must show less.
            let n = chars_that_fit(ctx, start, chars.checked_sub(1).filter(|&n| n > 0)?);
            let cut = if *scalar { "tojson | " } else { "" };
            (format!("{cut}.[:{n}]"), None)
        }
    };
    let selected = selector(ctx, args, probed.only);
    query(args, pipe(&selected, &part), limit)
}

/// `query` with `filter` on the file of `args`, from the first result; `None` when the filter
/// is longer than an argument may be.
fn query(args: &Args, filter: String, limit: Option<u64>) -> Option<Call> {
    (filter.len() <= MAX_STRING_BYTES).then(|| {
        Call::new(
            "query",
            &Args {
                file: args.file.clone(),
                filter,
                page: Page::new(0, limit),
            },
        )
    })
}

/// What the result at the refused window's offset is.
#[derive(Debug, PartialEq)]
enum Shape {
    Array {
        length: u64,
    },
    Object {
        length: u64,
        /// The key of an object that has one.
        only_key: Option<String>,
    },
    /// A string, or the JSON text of a number (`scalar`): its length in characters and the
    /// characters it starts with (as many as could possibly fit).
    Text {
        scalar: bool,
        chars: u64,
        start: String,
    },
}

/// The probe's answer: the shape of the result, and whether it is the filter's only result
/// (the probe counts two results at most: `total` is 1 only for a filter with one).
struct Probed {
    shape: Shape,
    only: bool,
}

/// Evaluates the refused filter once more, describing the result at its offset instead of
/// rendering it.
fn probe(ctx: &ExploreContext, args: &Args) -> Option<Probed> {
    // No character past the render cap can be returned: a cut never needs more.
    let chars = render_cap(ctx);
    let filter = format!(
        "{} | if type == \"string\" then [\"string\", length, .[:{chars}]] \
         elif type == \"array\" then [\"array\", length] \
         elif type == \"object\" then [\"object\", length, \
           (if length == 1 then keys_unsorted[0] else null end)] \
         else tojson | [\"scalar\", length, .[:{chars}]] end",
        enclosed(&args.filter)
    );
    let outcome = evaluate(ctx, &args.file, &filter, args.page.offset)?;
    let described: Value = serde_json::from_str(outcome.results.first()?).ok()?;
    let length = described[1].as_u64()?;
    let text = || described[2].as_str().map(str::to_owned);
    let shape = match described[0].as_str()? {
        "array" => Shape::Array { length },
        "object" => Shape::Object {
            length,
            only_key: text(),
        },
        kind => Shape::Text {
            scalar: kind != "string",
            chars: length,
            start: text()?,
        },
    };
    Some(Probed {
        shape,
        only: outcome.total == Some(1),
    })
}

/// The first window of elements or keys the retry asks for: all of them, but no more than
/// could fit (every result costs a token at least); the registry narrows it from what renders.
fn first_page(ctx: &ExploreContext, length: u64) -> u64 {
    length.min(ctx.token_limit()).max(1)
}

/// The largest `n` (at least 1, at most `most`) such that the first `n` characters of `start`,
/// written as a JSON string, fit one call: a binary search over the counts.
fn chars_that_fit(ctx: &ExploreContext, start: &str, most: u64) -> u64 {
    // `ends[i]` is where the first `i + 1` characters end.
    let ends: Vec<usize> = start
        .char_indices()
        .map(|(at, _)| at)
        .skip(1)
        .chain((!start.is_empty()).then_some(start.len()))
        .collect();
    let most = usize::try_from(most).unwrap_or(usize::MAX).min(ends.len());
    let fits = |n: usize| {
        serde_json::to_string(&start[..ends[n - 1]]).is_ok_and(|text| fit::fits(ctx, &text))
    };
    // `lo` characters fit (one is taken to: nothing shorter exists), `hi` do not.
    if most == 0 || fits(most) {
        return most.max(1) as u64;
    }
    let (mut lo, mut hi) = (1, most);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo as u64
}

/// A filter whose only result is the one at `args.page.offset` of `args.filter`: the filter itself
/// when that is its only result; `X[i]` (or `X | .key`) when the filter iterates, as `X[]`,
/// the one array (or object) `X` gives; else `first(F)` or `nth(offset; F)`.
fn selector(ctx: &ExploreContext, args: &Args, only: bool) -> String {
    let filter = enclosed(&args.filter);
    if only {
        return filter;
    }
    let offset = args.page.offset;
    if let Some(iterated) = filter
        .strip_suffix("[]")
        .filter(|_| !args.filter.contains('#'))
    {
        match single(ctx, &args.file, iterated, offset) {
            Some(Container::Array) => return format!("{iterated}[{offset}]"),
            Some(Container::Object { key: Some(key) }) => return pipe(iterated, &key_path(&key)),
            _ => {}
        }
    }
    if offset == 0 {
        format!("first({filter})")
    } else {
        format!("nth({offset}; {filter})")
    }
}

/// `X` when `args.filter` is `X | path(.[]) as [$k] | {($k): .[$k]}` (the entries a retry
/// lists) and `X` gives one object.
fn entries_of<'a>(ctx: &ExploreContext, args: &'a Args) -> Option<&'a str> {
    let listed = args
        .filter
        .trim()
        .strip_suffix(ENTRIES)?
        .trim_end()
        .strip_suffix('|')?
        .trim();
    let object = !listed.is_empty()
        && !args.filter.contains('#')
        && matches!(
            single(ctx, &args.file, listed, 0),
            Some(Container::Object { .. })
        );
    object.then_some(listed)
}

/// What a filter's one result is, when it has exactly one.
enum Container {
    Array,
    /// An object, with its key at the offset asked for.
    Object {
        key: Option<String>,
    },
}

/// Whether `filter` has exactly one result on `file` and it is an array or an object (with its
/// key at `offset`); `None` otherwise, or when it does not run.
fn single(ctx: &ExploreContext, file: &str, filter: &str, offset: u64) -> Option<Container> {
    let probe = format!(
        "{filter} | if type == \"object\" then [type, keys_unsorted[{offset}]] else [type] end"
    );
    let outcome = evaluate(ctx, file, &probe, 0)?;
    if outcome.total != Some(1) {
        return None;
    }
    let described: Value = serde_json::from_str(outcome.results.first()?).ok()?;
    match described[0].as_str()? {
        "array" => Some(Container::Array),
        "object" => Some(Container::Object {
            key: described[1].as_str().map(str::to_owned),
        }),
        _ => None,
    }
}

/// Runs `filter` on `file` and renders its result at `offset` alone, counting its results up to
/// one past that (`limit` stops the evaluation there: a probe must not walk a million results
/// to describe one).
fn evaluate(ctx: &ExploreContext, file: &str, filter: &str, offset: u64) -> Option<jq::Outcome> {
    let json = document::open(ctx, file).ok()?;
    let window = Window {
        offset,
        limit: Some(1),
    };
    let bounded = format!("limit({}; {filter})", offset.saturating_add(2));
    jq::run_with(
        &bounded,
        || cached_document(ctx, &json),
        window,
        &Limits::default(),
    )
    .ok()
}

/// `filter` ready to be followed by `| …`: a comment runs to the end of its line, so a filter
/// that may hold one ends with a line break, inside parentheses.
fn enclosed(filter: &str) -> String {
    if filter.contains('#') {
        format!("({filter}\n)")
    } else {
        filter.trim().to_owned()
    }
}

/// `selected | part`, or `part` alone when `selected` is `.`.
fn pipe(selected: &str, part: &str) -> String {
    if selected == "." {
        part.to_owned()
    } else {
        format!("{selected} | {part}")
    }
}

/// The path to an object's key: `.name`, or `.["a key"]` when the key is not a plain name.
fn key_path(key: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "and", "as", "catch", "def", "elif", "else", "end", "foreach", "if", "import", "include",
        "label", "or", "reduce", "then", "try", "__loc__",
    ];
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&key);
    if plain {
        format!(".{key}")
    } else {
        format!(".[{}]", Value::String(key.to_owned()))
    }
}

#[cfg(test)]
mod tests;
