//! `.[]` without a copy: the iteration the rewrite puts in place of jaq's (`super::rewrite`).
//!
//! jaq iterates an array or an object (`.[]`, and so `..`, `paths`, `map`, `to_entries`…) by
//! taking it out of its shared handle, which copies the whole container when anything else
//! holds it — and the document always does. `.[]` over an object of 1,000,000 keys copied
//! every entry and key first (100 MB for a one-line filter), `..` copied every container on its
//! way down. These natives yield the same items, in the same order, with the same paths, from
//! the shared container itself, one at a time (docs/performance.md, "Memory"). An update
//! through them (`.[] |= f`) is jaq's own: it builds the new container anyway.
//!
//! `keys_unsorted` and `key_values` (under `keys` and `to_entries`) are replaced for the same
//! reason: jaq's took the container out of its handle before listing it.

use jaq_core::box_iter::box_once;
use jaq_core::native::{Fun, v};
use jaq_core::path::Opt;
use jaq_core::{Exn, Native, ValT, ValX, ValXs};
use jaq_json::Val;

use super::guard::{ARRAY_BYTES, Data, HALT, SLOT_BYTES, STRING_BYTES, reserve};

/// `.[]`: the items of an array, the values of an object; jaq's error for anything else.
pub(crate) const EACH: &str = "__overspill_each";
/// `.[]?`: the same, and nothing for anything else.
pub(crate) const EACH_OPTIONAL: &str = "__overspill_each_opt";

/// The two iteration natives, each usable as a path (`path(.[])`) and in an update.
pub(crate) fn natives() -> Vec<Fun<Data>> {
    vec![
        each::<false>(EACH),
        each::<true>(EACH_OPTIONAL),
        (
            "keys_unsorted",
            v(0),
            Native::new(|cv| box_once(pairs(cv.1, STRING_BYTES, |key, _| key))),
        ),
        (
            "key_values",
            v(0),
            Native::new(|cv| {
                // A pair is an array of two, with a box for its key.
                let each = ARRAY_BYTES + 2 * SLOT_BYTES + STRING_BYTES;
                box_once(pairs(cv.1, each, |key, value| {
                    [key, value].into_iter().collect()
                }))
            }),
        ),
    ]
}

/// The native `name` for `.[]`, or for `.[]?` when `OPTIONAL`: a const parameter, since jaq
/// takes its natives as function pointers, which cannot capture the option.
fn each<const OPTIONAL: bool>(name: &'static str) -> Fun<Data> {
    fn opt<const OPTIONAL: bool>() -> Opt {
        if OPTIONAL {
            Opt::Optional
        } else {
            Opt::Essential
        }
    }
    (
        name,
        v(0),
        Native::new(|cv| items(cv.1, opt::<OPTIONAL>()))
            .with_paths(|cv| {
                let (value, path) = cv.1;
                items_at(value, path, |path, key| path.cons(key), opt::<OPTIONAL>())
            })
            .with_update(|cv, f| box_once(cv.1.map_values(opt::<OPTIONAL>(), f))),
    )
}

/// `pair(key, value)` for each item of an array (its index as the key) or entry of an
/// object, as one array; jaq's error for anything else. What the list will hold (`each`
/// bytes an item, besides its slot) is accounted for before it is built.
fn pairs<'a>(value: Val, each: u64, pair: impl Fn(Val, Val) -> Val) -> ValX<'a, Val> {
    let len = match &value {
        Val::Arr(items) => items.len(),
        Val::Obj(map) => map.len(),
        _ => 0,
    } as u64;
    if reserve(len.saturating_mul(SLOT_BYTES + each)).is_err() {
        return Err(Exn::halt(HALT));
    }
    match &value {
        Val::Arr(items) => Ok(items
            .iter()
            .enumerate()
            .map(|(i, item)| pair(Val::from(i as isize), item.clone()))
            .collect()),
        Val::Obj(map) => Ok(map
            .iter()
            .map(|(key, value)| pair(key.clone(), value.clone()))
            .collect()),
        _ => match value.key_values().find_map(Result::err) {
            Some(error) => Err(Exn::from(error)),
            None => Ok(Val::Arr(jaq_json::Rc::new(Vec::new()))),
        },
    }
}

/// The items of `value`, read from its shared handle.
fn items<'a>(value: Val, opt: Opt) -> ValXs<'a, Val> {
    match value {
        Val::Arr(items) => Box::new((0..items.len()).map(move |i| Ok(items[i].clone()))),
        Val::Obj(map) => Box::new(
            (0..map.len())
                .filter_map(move |i| map.get_index(i).map(|(_, value)| Ok(value.clone()))),
        ),
        _ if matches!(opt, Opt::Optional) => Box::new(std::iter::empty()),
        other => not_iterable(other),
    }
}

/// [`items`] with the path of each (`path` extended by its index or key with `cons`, jaq's
/// path list, whose type jaq does not name outside itself).
fn items_at<'a, P: Clone + 'a>(
    value: Val,
    path: P,
    cons: impl Fn(P, Val) -> P + 'a,
    opt: Opt,
) -> ValXs<'a, (Val, P), Val> {
    match value {
        Val::Arr(items) => Box::new(
            (0..items.len())
                .map(move |i| Ok((items[i].clone(), cons(path.clone(), Val::from(i as isize))))),
        ),
        Val::Obj(map) => Box::new((0..map.len()).filter_map(move |i| {
            let (key, value) = map.get_index(i)?;
            Some(Ok((value.clone(), cons(path.clone(), key.clone()))))
        })),
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
