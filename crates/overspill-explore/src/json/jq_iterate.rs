//! `.[]` without a copy: the iteration the rewrite puts in place of jaq's (`super::jq_rewrite`).
//!
//! jaq iterates an array or an object (`.[]`, and so `..`, `paths`, `map`, `to_entries`…) by
//! taking it out of its shared handle, which copies the whole container when anything else
//! holds it — and the document always does. `.[]` over an object of 1,000,000 keys copied
//! every entry and key first (100 MB for a one-line filter), `..` copied every container on its
//! way down. These natives yield the same items, in the same order, with the same paths, from
//! the shared container itself, one at a time (docs/performance.md, "Memory"). An update
//! through them (`.[] |= f`) is jaq's own: it builds the new container anyway.

use jaq_core::box_iter::box_once;
use jaq_core::native::{Fun, v};
use jaq_core::path::Opt;
use jaq_core::{Exn, Native, ValT, ValXs};
use jaq_json::Val;

use super::jq_guard::Data;

/// `.[]`: the items of an array, the values of an object; jaq's error for anything else.
pub(crate) const EACH: &str = "__overspill_each";
/// `.[]?`: the same, and nothing for anything else.
pub(crate) const EACH_OPTIONAL: &str = "__overspill_each_opt";

/// The two iteration natives, each usable as a path (`path(.[])`) and in an update.
pub(crate) fn natives() -> Vec<Fun<Data>> {
    vec![
        (
            EACH,
            v(0),
            Native::new(|cv| items(cv.1, Opt::Essential))
                .with_paths(|cv| {
                    let (value, path) = cv.1;
                    match value {
                        Val::Arr(items) => Box::new((0..items.len()).map(move |i| {
                            Ok((items[i].clone(), path.clone().cons(Val::from(i as isize))))
                        })),
                        Val::Obj(map) => Box::new((0..map.len()).filter_map(move |i| {
                            let (key, value) = map.get_index(i)?;
                            Some(Ok((value.clone(), path.clone().cons(key.clone()))))
                        })),
                        other => not_iterable(other),
                    }
                })
                .with_update(|cv, f| box_once(cv.1.map_values(Opt::Essential, f))),
        ),
        (
            EACH_OPTIONAL,
            v(0),
            Native::new(|cv| items(cv.1, Opt::Optional))
                .with_paths(|cv| {
                    let (value, path) = cv.1;
                    match value {
                        Val::Arr(items) => Box::new((0..items.len()).map(move |i| {
                            Ok((items[i].clone(), path.clone().cons(Val::from(i as isize))))
                        })),
                        Val::Obj(map) => Box::new((0..map.len()).filter_map(move |i| {
                            let (key, value) = map.get_index(i)?;
                            Some(Ok((value.clone(), path.clone().cons(key.clone()))))
                        })),
                        _ => Box::new(std::iter::empty()),
                    }
                })
                .with_update(|cv, f| box_once(cv.1.map_values(Opt::Optional, f))),
        ),
    ]
}

/// The items of `value`, read from its shared handle.
fn items<'a>(value: Val, opt: Opt) -> ValXs<'a, Val> {
    match value {
        Val::Arr(items) => Box::new((0..items.len()).map(move |i| Ok(items[i].clone()))),
        Val::Obj(map) => Box::new(
            (0..map.len()).filter_map(move |i| map.get_index(i).map(|(_, value)| Ok(value.clone()))),
        ),
        _ if matches!(opt, Opt::Optional) => Box::new(std::iter::empty()),
        other => not_iterable(other),
    }
}

/// jaq's error for iterating over a value that is neither an array nor an object.
fn not_iterable<'a, T: 'a>(value: Val) -> ValXs<'a, T, Val> {
    Box::new(
        value
            .values()
            .filter_map(Result::err)
            .map(|error| Err(Exn::from(error))),
    )
}
