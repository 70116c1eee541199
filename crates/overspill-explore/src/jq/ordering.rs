//! The natives that compare values in a loop — `sort`, `sort_by`, `group_by`, `min_by`,
//! `max_by`, `contains`, `indices` — rewritten to count their work with a [`Meter`], so the
//! time limit holds inside them (jaq's own run to the end: `group_by(.)` on 5,000,000
//! numbers, 17 s). They give the results and errors jaq's give.

use std::cmp::Ordering;

use jaq_core::box_iter::{BoxIter, box_once};
use jaq_core::native::{Fun, v};
use jaq_core::{Bind, Ctx, Error, Exn, Native, ValX};
use jaq_json::Val;

use jaq_json::Rc;

use super::guard::{
    ARRAY_BYTES, Data, Meter, SLOT_BYTES, STRING_BYTES, Tripped, fits_value, halt, reserve,
};

/// Work units one comparison counts: a comparison can walk a whole value, so the clock is
/// read every 16 of them.
const COMPARISON: u64 = 256;

/// The natives of this module, by jaq's names.
pub(crate) fn natives() -> Vec<Fun<Data>> {
    let f = || Box::from([Bind::Fun(())]);
    vec![
        (
            "sort",
            v(0),
            Native::new(|cv| {
                let mut meter = Meter::default();
                match into_vec(cv.1) {
                    // The sorted array is as large as the input: refuse it before sorting.
                    Ok(items) if fits_value(items.len() as u64 * 16).is_err() => halt(),
                    Ok(items) => {
                        let order =
                            sorted_order(items.len(), |i, j| items[i].cmp(&items[j]), &mut meter);
                        outcome(
                            order
                                .map(|order| order.into_iter().map(|i| items[i].clone()).collect()),
                        )
                    }
                    Err(error) => box_once(Err(error)),
                }
            }),
        ),
        (
            "sort_by",
            f(),
            Native::new(|mut cv| {
                let key = key_argument(&mut cv.0);
                let result = into_vec(cv.1).and_then(|items| {
                    fits_value(items.len() as u64 * 16).map_err(tripped)?;
                    let mut meter = Meter::default();
                    let keyed = keyed(&items, key, &mut meter)?;
                    let order = sorted_by_key(&keyed, &mut meter).map_err(tripped)?;
                    Ok(order
                        .into_iter()
                        .map(|i| keyed[i].1.clone())
                        .collect::<Val>())
                });
                box_once(result)
            }),
        ),
        (
            "group_by",
            f(),
            Native::new(|mut cv| {
                let key = key_argument(&mut cv.0);
                let result = into_vec(cv.1).and_then(|items| {
                    let mut meter = Meter::default();
                    let keyed = keyed(&items, key, &mut meter)?;
                    let order = sorted_by_key(&keyed, &mut meter).map_err(tripped)?;
                    grouped(&keyed, &order, &mut meter).map_err(tripped)
                });
                box_once(result)
            }),
        ),
        by_or_empty::<false>("min_by_or_empty"),
        by_or_empty::<true>("max_by_or_empty"),
        (
            "contains",
            v(1),
            Native::new(|mut cv| {
                let needle = cv.0.pop_var();
                let mut meter = Meter::default();
                outcome(contains(&cv.1, &needle, &mut meter).map(Val::from))
            }),
        ),
        (
            "indices",
            v(1),
            Native::new(|mut cv| {
                let needle = cv.0.pop_var();
                match indices(&cv.1, &needle) {
                    Ok(Ok(found)) => box_once(Ok(found)),
                    Ok(Err(error)) => box_once(Err(Exn::from(error))),
                    Err(_) => halt(),
                }
            }),
        ),
    ]
}

/// `min_by_or_empty` or, when `MAX`, `max_by_or_empty`, named `name` (a const parameter: jaq
/// takes its natives as function pointers, which cannot capture which of the two).
fn by_or_empty<const MAX: bool>(name: &'static str) -> Fun<Data> {
    (
        name,
        Box::from([Bind::Fun(())]),
        Native::new(|mut cv| {
            let key = key_argument(&mut cv.0);
            // jaq keeps the first of equal minima and the last of equal maxima.
            let replaces = |best: &Key, y: &Key| if MAX { y >= best } else { y < best };
            let result = into_vec(cv.1).and_then(|items| extreme(&items, key, replaces));
            Box::new(result.transpose().into_iter())
        }),
    )
}

/// The filter argument of `sort_by(f)` and its kin, popped from `ctx`, as the key of a value.
fn key_argument<'a>(ctx: &mut Ctx<'a, Data>) -> impl Fn(Val) -> Result<Key, Exn<'a, Val>> + 'a {
    let (f, fc) = ctx.pop_fun();
    move |x: Val| f.run((fc.clone(), x)).collect::<Result<Vec<_>, _>>()
}

/// A native's result: its value, or the halt of a tripped limit.
fn outcome<'a>(result: Result<Val, Tripped>) -> BoxIter<'a, ValX<'a, Val>> {
    match result {
        Ok(value) => box_once(Ok(value)),
        Err(_) => halt(),
    }
}

/// What a tripped limit becomes inside a native that may also fail: the halt.
fn tripped<'a>(_: Tripped) -> Exn<'a, Val> {
    Exn::halt(super::guard::HALT)
}

/// The items of an array, read from its shared handle (jaq's natives took them out of it,
/// which copied the array whenever the document held it too); jaq's error otherwise.
fn into_vec<'a>(value: Val) -> Result<Rc<Vec<Val>>, Exn<'a, Val>> {
    match value {
        Val::Arr(items) => Ok(items),
        other => Err(Exn::from(Error::typ(other, "array"))),
    }
}

/// The order (indices into the items) that sorts `len` items by `cmp`, stable, as the
/// standard sort would give it. Blocks are sorted by the standard sort, then merged pass by
/// pass, so a stop costs at most the rest of one block: the standard sort of millions of
/// items, once its comparisons all answer "equal", would still move every item several
/// times before it returned.
fn sorted_order(
    len: usize,
    mut cmp: impl FnMut(usize, usize) -> Ordering,
    meter: &mut Meter,
) -> Result<Vec<usize>, Tripped> {
    const BLOCK: usize = 1 << 12;
    reserve(len as u64 * 16)?;
    let mut order: Vec<usize> = (0..len).collect();
    for block in order.chunks_mut(BLOCK) {
        block.sort_by(|&a, &b| {
            if meter.add(COMPARISON).is_err() {
                Ordering::Equal
            } else {
                cmp(a, b)
            }
        });
        if meter.stopped() {
            return finish(order, meter);
        }
    }
    let mut merged = Vec::with_capacity(len);
    let mut width = BLOCK;
    while width < len {
        merged.clear();
        for start in (0..len).step_by(2 * width) {
            let middle = (start + width).min(len);
            let end = (start + 2 * width).min(len);
            let (mut left, mut right) = (start, middle);
            while left < middle && right < end {
                meter.add(COMPARISON)?;
                // The left item first when they are equal: stable.
                if cmp(order[right], order[left]) == Ordering::Less {
                    merged.push(order[right]);
                    right += 1;
                } else {
                    merged.push(order[left]);
                    left += 1;
                }
            }
            merged.extend_from_slice(&order[left..middle]);
            merged.extend_from_slice(&order[right..end]);
        }
        std::mem::swap(&mut order, &mut merged);
        width *= 2;
    }
    Ok(order)
}

fn finish<T>(value: T, meter: &Meter) -> Result<T, Tripped> {
    if meter.stopped() {
        Err(super::guard::tripped().unwrap_or(Tripped::Time))
    } else {
        Ok(value)
    }
}

type Key = Vec<Val>;

/// Each item with its key (all outputs of `f`, as jaq compares them); the first error of
/// `f`, or the halt once a limit trips.
fn keyed<'a>(
    items: &[Val],
    key: impl Fn(Val) -> Result<Key, Exn<'a, Val>>,
    meter: &mut Meter,
) -> Result<Vec<(Key, Val)>, Exn<'a, Val>> {
    reserve(items.len() as u64 * KEYED_BYTES).map_err(tripped)?;
    let mut keyed = Vec::with_capacity(items.len());
    for item in items {
        meter.add(COMPARISON).map_err(tripped)?;
        keyed.push((key(item.clone())?, item.clone()));
    }
    Ok(keyed)
}

/// What one keyed item costs: its place in the list (a vector and a value), its key's vector
/// with one value in it, and a copy of the item and of the key (a new box each if strings).
const KEYED_BYTES: u64 = 24 + SLOT_BYTES + 32 + 2 * STRING_BYTES;

/// Bytes of groups built between two reservations.
const GROUP_BATCH_BYTES: u64 = 64 << 10;

/// The order of the items by their keys: stable, as jaq's `sort_by` and `group_by` are.
fn sorted_by_key(keyed: &[(Key, Val)], meter: &mut Meter) -> Result<Vec<usize>, Tripped> {
    sorted_order(keyed.len(), |i, j| keyed[i].0.cmp(&keyed[j].0), meter)
}

/// Runs of equal keys, in `order`, each an array.
fn grouped(keyed: &[(Key, Val)], order: &[usize], meter: &mut Meter) -> Result<Val, Tripped> {
    let mut groups: Vec<Val> = Vec::new();
    let mut group: Vec<Val> = Vec::new();
    let mut current: Option<&Key> = None;
    // Each group is an array of its own: accounted for as the groups are built, a batch at a
    // time, so grouping millions of distinct values stops at the limit rather than after.
    let mut pending = ARRAY_BYTES + SLOT_BYTES;
    for &i in order {
        let (key, item) = &keyed[i];
        meter.add(COMPARISON)?;
        if current.is_some_and(|c| c != key) {
            groups.push(std::mem::take(&mut group).into_iter().collect());
            pending += ARRAY_BYTES + SLOT_BYTES;
        }
        current = Some(key);
        pending += SLOT_BYTES
            + if matches!(item, Val::TStr(_) | Val::BStr(_)) {
                STRING_BYTES
            } else {
                0
            };
        if pending >= GROUP_BATCH_BYTES {
            reserve(std::mem::take(&mut pending))?;
        }
        group.push(item.clone());
    }
    reserve(pending)?;
    if !group.is_empty() {
        groups.push(group.into_iter().collect());
    }
    Ok(groups.into_iter().collect())
}

/// The item whose key `replaces` every other in turn (`min_by`, `max_by`); `None` for an
/// empty array.
fn extreme<'a>(
    items: &[Val],
    key: impl Fn(Val) -> Result<Key, Exn<'a, Val>>,
    replaces: impl Fn(&Key, &Key) -> bool,
) -> Result<Option<Val>, Exn<'a, Val>> {
    let mut meter = Meter::default();
    let mut best: Option<(Key, Val)> = None;
    for item in items {
        meter.add(COMPARISON).map_err(tripped)?;
        let y = key(item.clone())?;
        match &best {
            Some((best_key, _)) if !replaces(best_key, &y) => {}
            _ => best = Some((y, item.clone())),
        }
    }
    Ok(best.map(|(_, item)| item))
}

/// jaq's `contains`: substrings, every item of `needle` inside some item of `hay`, every
/// entry of `needle` inside the same entry of `hay`, otherwise equality.
fn contains(hay: &Val, needle: &Val, meter: &mut Meter) -> Result<bool, Tripped> {
    meter.add(1)?;
    Ok(match (hay, needle) {
        (Val::BStr(h), Val::BStr(n)) | (Val::TStr(h), Val::TStr(n)) => {
            meter.add(h.len() as u64 / 64)?;
            memchr::memmem::find(h, n).is_some()
        }
        (Val::Arr(h), Val::Arr(n)) => {
            for n in n.iter() {
                let mut found = false;
                for h in h.iter() {
                    if contains(h, n, meter)? {
                        found = true;
                        break;
                    }
                }
                if !found {
                    return Ok(false);
                }
            }
            true
        }
        (Val::Obj(h), Val::Obj(n)) => {
            for (k, n) in n.iter() {
                let Some(h) = h.get(k) else {
                    return Ok(false);
                };
                if !contains(h, n, meter)? {
                    return Ok(false);
                }
            }
            true
        }
        _ => {
            meter.add(COMPARISON)?;
            hay == needle
        }
    })
}

/// Positions collected for `indices`, accounted for as they grow (each is an array slot).
struct Positions {
    found: Vec<Val>,
}

impl Positions {
    const BATCH: usize = 4096;

    fn push(&mut self, at: usize) -> Result<(), Tripped> {
        if self.found.len().is_multiple_of(Self::BATCH) {
            let after = (self.found.len() + Self::BATCH) as u64 * 16;
            fits_value(after)?;
            reserve(Self::BATCH as u64 * 16)?;
        }
        self.found.push(Val::from(at as isize));
        Ok(())
    }
}

/// jaq's `indices`: where `needle` starts in `hay` (overlapping; characters for text,
/// bytes for byte strings, items for arrays). The outer `Err` is a tripped limit, the inner
/// one jaq's error for values it cannot search.
fn indices(hay: &Val, needle: &Val) -> Result<Result<Val, Error<Val>>, Tripped> {
    let mut meter = Meter::default();
    let mut out = Positions { found: Vec::new() };
    match (hay, needle) {
        (Val::BStr(_), Val::BStr(n)) | (Val::TStr(_), Val::TStr(n)) if n.is_empty() => {}
        (Val::TStr(h), Val::TStr(n)) => {
            let mut chars = super::text::CharStarts::new(h);
            for at in overlapping(h, n) {
                meter.add(1)?;
                if let Some(index) = chars.index_of(at) {
                    out.push(index)?;
                }
            }
        }
        (Val::BStr(h), Val::BStr(n)) => {
            for at in overlapping(h, n) {
                meter.add(1)?;
                out.push(at)?;
            }
        }
        (Val::Arr(_), Val::Arr(n)) if n.is_empty() => {}
        (Val::Arr(h), Val::Arr(n)) => {
            for (at, window) in h.windows(n.len()).enumerate() {
                meter.add(1 + n.len() as u64)?;
                if window == &n[..] {
                    out.push(at)?;
                }
            }
        }
        (Val::Arr(h), n) => {
            for (at, item) in h.iter().enumerate() {
                meter.add(1)?;
                if item == n {
                    out.push(at)?;
                }
            }
        }
        (h, n) => return Ok(Err(Error::index(h.clone(), n.clone()))),
    }
    Ok(Ok(out.found.into_iter().collect()))
}

/// Byte positions where `needle` (not empty) starts in `hay`, overlapping occurrences
/// included.
fn overlapping<'h>(hay: &'h [u8], needle: &'h [u8]) -> impl Iterator<Item = usize> + 'h {
    let finder = memchr::memmem::Finder::new(needle);
    let mut from = 0usize;
    std::iter::from_fn(move || {
        let at = from + finder.find(hay.get(from..)?)?;
        from = at + 1;
        Some(at)
    })
}
