//! The native filters a query may call: jaq's, minus those that reach the environment, the
//! clock or the log, plus the guards of [`super::jq_guard`].

use jaq_core::box_iter::BoxIter;
use jaq_core::native::{Fun, v};
use jaq_core::{Exn, Native, ValX};
use jaq_json::Val;

use super::jq_guard::{Data, HALT, fail, guards, tick};

/// Natives that must not run, replaced.
const REPLACED: [&str; 7] = [
    "env",
    "now",
    "localtime",
    "strflocaltime",
    "debug_empty",
    "stderr_empty",
    "range",
];

/// The native filters a query may call: jaq's, minus those touching the environment, the
/// clock or the log, plus the guards.
pub(crate) fn natives() -> Vec<Fun<Data>> {
    let replaced = |(name, _, _): &Fun<Data>| !REPLACED.contains(name);
    let mut funs: Vec<Fun<Data>> = jaq_core::funs::<Data>()
        .chain(jaq_std::base_funs::<Data>())
        .chain(jaq_std::extra_funs::<Data>())
        .chain(jaq_json::funs::<Data>())
        .filter(replaced)
        .collect();
    funs.extend(guards());
    funs.extend(replacements());
    funs
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
