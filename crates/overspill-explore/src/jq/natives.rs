//! The native filters a query may call: jaq's, with those that reach the environment, the
//! clock or the log replaced, those that loop or allocate without bound in one call replaced
//! by bounded ones ([`super::text`], [`super::ordering`], [`super::regex`]), those
//! that copy a shared container before reading it by ones that do not
//! ([`super::iterate`]), plus the guards of [`super::guard`].
//!
//! Every jaq native is accounted for: it is either replaced, or listed in [`KEPT`] with why
//! it is safe as it is. A jaq upgrade that adds a native fails the test that checks this,
//! so a new native is audited before a filter can call it.

use std::collections::HashSet;

use jaq_core::box_iter::BoxIter;
use jaq_core::native::{Fun, v};
use jaq_core::{Exn, Native, ValX};
use jaq_json::Val;

use super::guard::{self as guard, Data, HALT, fail, guards, tick};

/// jaq's natives kept as they are, by name and arity. Each runs in time linear in its input
/// (or in its argument filter, whose steps are ticked), cannot make a value nest deeper than
/// its input by more than one level, and allocates at most a few times its input before the
/// size check measures its result:
///
/// - numbers and dates (`floor` … `yn`, `fromdateiso8601`, `strptime`, `mktime`, …): a
///   number or a fixed-size array from a number or a string, in constant or linear time;
///   `jn` and `yn` loop once per unit of their order, so the rewrite checks the order
///   first (at most [`super::guard::MAX_BESSEL_ORDER`]);
/// - `strftime`: its format is checked first (the rewrite calls the guard's format check),
///   as a directive may widen to 255 characters;
/// - strings (`ascii_downcase`, `ltrimstr`, `trim`, `utf8bytelength`, `implode`,
///   `tobytes`, …): at most the input's size; `escape_html` 6×, `escape_sh` 4×,
///   `encode_uri` 3×, `encode_base64` 4/3× (the only ones above 1×);
/// - arrays and objects (`length`, `reverse`, `has`, `bsearch`): one pass or a binary
///   search (`keys_unsorted` and `key_values` are replaced by `super::iterate`'s, which
///   do not copy the container first);
/// - control (`error_empty`, `halt`, `first`, `last`, `limit`, `skip`, `path`,
///   `path_value`): their work is their argument filter's, which ticks; `path_value` is
///   checked for nesting.
pub(crate) const KEPT: &[(&str, usize)] = &[
    // Control: the work is the argument filter's.
    ("error_empty", 0),
    ("halt", 1),
    ("path", 1),
    ("path_value", 1),
    ("first", 1),
    ("last", 1),
    ("limit", 2),
    ("skip", 2),
    // Arrays, objects, any value.
    ("reverse", 0),
    ("length", 0),
    ("has", 1),
    ("bsearch", 1),
    ("tobytes", 0),
    // Strings.
    ("utf8bytelength", 0),
    ("implode", 0),
    ("ascii_downcase", 0),
    ("ascii_upcase", 0),
    ("startswith", 1),
    ("endswith", 1),
    ("ltrimstr", 1),
    ("rtrimstr", 1),
    ("trim", 0),
    ("ltrim", 0),
    ("rtrim", 0),
    ("escape_sh", 0),
    ("escape_html", 0),
    ("unescape_html", 0),
    ("encode_uri", 0),
    ("decode_uri", 0),
    ("encode_base64", 0),
    ("decode_base64", 0),
    // Dates.
    ("fromdateiso8601", 0),
    ("todateiso8601", 0),
    ("strftime", 1),
    ("gmtime", 0),
    ("strptime", 1),
    ("mktime", 0),
    // Numbers (`jn` and `yn` loop over their order: the rewrite checks it first).
    ("floor", 0),
    ("round", 0),
    ("ceil", 0),
    ("acos", 0),
    ("acosh", 0),
    ("asin", 0),
    ("asinh", 0),
    ("atan", 0),
    ("atanh", 0),
    ("cbrt", 0),
    ("cos", 0),
    ("cosh", 0),
    ("erf", 0),
    ("erfc", 0),
    ("exp", 0),
    ("exp10", 0),
    ("exp2", 0),
    ("expm1", 0),
    ("fabs", 0),
    ("frexp", 0),
    ("ilogb", 0),
    ("j0", 0),
    ("j1", 0),
    ("lgamma", 0),
    ("log", 0),
    ("log10", 0),
    ("log1p", 0),
    ("log2", 0),
    ("modf", 0),
    ("nearbyint", 0),
    ("rint", 0),
    ("sin", 0),
    ("sinh", 0),
    ("sqrt", 0),
    ("tan", 0),
    ("tanh", 0),
    ("tgamma", 0),
    ("trunc", 0),
    ("y0", 0),
    ("y1", 0),
    ("atan2", 2),
    ("copysign", 2),
    ("fdim", 2),
    ("fmax", 2),
    ("fmin", 2),
    ("fmod", 2),
    ("hypot", 2),
    ("jn", 2),
    ("ldexp", 2),
    ("nextafter", 2),
    ("pow", 2),
    ("remainder", 2),
    ("scalbln", 2),
    ("yn", 2),
    ("fma", 3),
];

/// The native filters a query may call.
pub(crate) fn natives() -> Vec<Fun<Data>> {
    let mut ours: Vec<Fun<Data>> = replacements();
    ours.extend(super::text::natives());
    ours.extend(super::ordering::natives());
    ours.extend(super::regex::natives());
    ours.extend(super::iterate::natives());
    let replaced: HashSet<(&str, usize)> = ours
        .iter()
        .map(|(name, args, _)| (*name, args.len()))
        .collect();
    // Only audited natives: one a jaq upgrade adds is not callable until it is audited.
    let kept: HashSet<(&str, usize)> = KEPT.iter().copied().collect();
    let mut funs: Vec<Fun<Data>> = jaq_natives()
        .filter(|(name, args, _)| {
            let native = (*name, args.len());
            kept.contains(&native) && !replaced.contains(&native)
        })
        .collect();
    funs.extend(ours);
    funs.extend(guards());
    funs
}

/// Every native jaq defines for the value type queries run on.
fn jaq_natives() -> impl Iterator<Item = Fun<Data>> {
    jaq_core::funs::<Data>()
        .chain(jaq_std::base_funs::<Data>())
        .chain(jaq_std::extra_funs::<Data>())
        .chain(jaq_json::funs::<Data>())
}

fn replacements() -> Vec<Fun<Data>> {
    let range = Native::new(|mut cv| {
        let by = cv.0.pop_var();
        let upto = cv.0.pop_var();
        let from = cv.0.pop_var();
        Box::new(ticking_range(from, upto, by))
    });
    vec![
        ("env", v(0), Native::new(|_| unavailable("env"))),
        ("now", v(0), Native::new(|_| unavailable("now"))),
        ("localtime", v(0), Native::new(|_| unavailable("localtime"))),
        (
            "strflocaltime",
            v(1),
            Native::new(|_| unavailable("strflocaltime")),
        ),
        (
            "debug_empty",
            v(0),
            Native::new(|_| Box::new(std::iter::empty())),
        ),
        (
            "stderr_empty",
            v(0),
            Native::new(|_| Box::new(std::iter::empty())),
        ),
        ("range", v(3), range),
    ]
}

fn unavailable<'a>(name: &str) -> BoxIter<'a, ValX<'a, Val>> {
    guard::refuse(name);
    fail(&format!(
        "`{name}` is not available in query: a filter sees only the stored file, not the \
         environment or the clock"
    ))
}

/// `range($from; $upto; $by)` as jaq defines it, one tick per item.
fn ticking_range<'a>(from: Val, upto: Val, by: Val) -> impl Iterator<Item = ValX<'a, Val>> + 'a {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let direction = by.partial_cmp(&Val::from(0isize)).unwrap_or(Equal);
    let mut next: Option<Val> = Some(from);
    std::iter::from_fn(move || {
        let x = next.take()?;
        let more = match direction {
            Greater => x < upto,
            Less => x > upto,
            Equal => x != upto,
        };
        if !more {
            return None;
        }
        if tick().is_err() {
            return Some(Err(Exn::halt(HALT)));
        }
        match x.clone() + by.clone() {
            Ok(following) => next = Some(following),
            Err(error) => return Some(Err(Exn::from(error))),
        }
        Some(Ok(x))
    })
}

#[cfg(test)]
mod tests;
