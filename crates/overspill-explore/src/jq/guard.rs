//! What keeps a jq filter bounded and blind to everything but its input (docs/tools.md, docs/security.md).
//!
//! jaq evaluates lazily and has no hook for interruption, so the bounds are woven into the
//! program itself before it is compiled (`super::rewrite`), and the natives that can run
//! long or allocate much in one call are replaced by bounded ones (`super::natives`):
//!
//! - every definition (the standard library's and the filter's own), every step of `range`,
//!   `..`, `reduce` and `foreach`, and every 16 steps of a literal path start with a native
//!   *tick*. A tick counts steps, checks the clock every few hundred steps and measures the
//!   evaluation thread's stack, so `repeat(.)`, `range(1e12)`, `[paths]` on a huge file or
//!   runaway recursion all stop at a limit;
//! - natives that loop inside one call (sorting, grouping, `contains`, `indices`, regular
//!   expressions) count their work with a `Meter` and read the clock every few thousand
//!   units, so the time limit holds inside them too;
//! - operations that can build large values — native functions, `+`, `*`, `/`, string
//!   interpolation, array and object construction — pass their result through a *size*
//!   check (a value over [`Limits::max_value_bytes`], more than [`Limits::max_produced_bytes`]
//!   built in total). The size is what building the value allocated ([`value_bytes`]): every
//!   container held nowhere else with what it holds, every string's box, by the allocations
//!   jaq's types make, so `[paths]` counts each path array and its keys, `[..]` each string
//!   it copies, `to_entries` each pair and entry. String repetition, string splitting,
//!   `explode`, `fromjson`, `tojson`, `tostring`, `indices`, regular expressions, `sort_by`,
//!   `group_by` and `unique_by` account for what they will allocate *before* they allocate it
//!   (`reserve`, `fits_value`, a text rendered into what is left of the allowance), and no
//!   `[]` copies the container it reads (`super::iterate`);
//! - every operation that can make a value deeper — array and object construction, the value
//!   an update writes, `group_by`, `to_entries`, `path_value`, `fromjson` — checks its
//!   nesting ([`Limits::max_nesting`]), and text is rendered (`tojson`, interpolation, the
//!   results) only after an exact nesting check, so no recursion over a value's depth can
//!   exhaust the evaluation thread's stack;
//! - natives that read the environment or the clock (`env`, `now`, `localtime`,
//!   `strflocaltime`) are replaced by ones that fail with an explanation, the logging ones
//!   (`debug`, `stderr`) print nothing, and `input`/`inputs` are not defined at all.
//!
//! Once a limit trips, every later tick fails too, so no `try` can keep the filter going:
//! the run ends and the caller reports which limit it was ([`Tripped`]).

use std::cell::RefCell;
use std::io;
use std::time::{Duration, Instant};

use jaq_core::box_iter::{BoxIter, box_once};
use jaq_core::native::{Fun, v};
use jaq_core::{Error, Exn, Native, ValX};
use jaq_json::Val;

/// The data type filters run on.
pub(crate) type Data = jaq_core::data::JustLut<Val>;

/// Bounds on one query run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Evaluation steps (definition calls, native calls, `range` items, `..` steps).
    pub max_steps: u64,
    /// Wall-clock time for the whole run.
    pub max_time: Duration,
    /// Results the run may produce (counted, rendered or not).
    pub max_results: u64,
    /// Bytes of rendered results.
    pub max_output_bytes: usize,
    /// Bytes of one built value: what building it allocated, as the size check counts it.
    pub max_value_bytes: u64,
    /// Bytes of built values over the whole run. The default, 128 MB, keeps a query on a
    /// 30 MB pod list (whose document jq holds in about 150 MB) within 4 times the file
    /// plus 256 MB (docs/security.md).
    pub max_produced_bytes: u64,
    /// Nesting of a built value.
    pub max_nesting: usize,
    /// Stack the evaluation may use at a tick.
    pub max_stack_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_steps: 2_000_000,
            max_time: Duration::from_secs(5),
            max_results: 100_000,
            max_output_bytes: 16 << 20,
            max_value_bytes: 64 << 20,
            max_produced_bytes: 128 << 20,
            max_nesting: 512,
            max_stack_bytes: 64 << 20,
        }
    }
}

/// The limit that stopped a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tripped {
    /// [`Limits::max_steps`].
    Steps,
    /// [`Limits::max_time`].
    Time,
    /// [`Limits::max_stack_bytes`]: recursion too deep.
    Stack,
    /// [`Limits::max_value_bytes`].
    ValueSize,
    /// [`Limits::max_produced_bytes`].
    Produced,
    /// [`Limits::max_nesting`].
    Nesting,
}

/// The exit code of the halt a tripped limit raises (the run's owner reads [`Tripped`]).
pub(crate) const HALT: i32 = 0x0ddba11;

/// Work units a `Meter` gathers before it reports them (and the clock is read).
const METER_BATCH: u64 = 1 << 12;

/// A built value at least this large makes its size check read the clock too: copying it
/// takes long enough that 256 steps of such copies could overrun the time limit.
const LARGE_VALUE_BYTES: u64 = 1 << 20;

struct Guard {
    limits: Limits,
    steps: u64,
    work: u64,
    produced: u64,
    started: Instant,
    stack_base: usize,
    tripped: Option<Tripped>,
    /// A native that is not available in `query` was called (`input_filename`, `now`, …).
    refused: Option<String>,
    /// The sums measured last, by where they live and what they counted for (see
    /// [`Sums`]).
    sums: Sums,
}

/// Slots of [`Sums`].
const SUM_SLOTS: usize = 256;

/// Where the results of recent `+` operations live and what their top level counted for:
/// `reduce … ([]; . + [$x])` and `.[$k] += [$x]` grow a value in place, and only the growth
/// is new. A value at the address a sum had is that same value, or that one is gone (two
/// live values cannot share an address): either way, counting what it has beyond what was
/// counted there keeps the count at or above what is held. A slot is overwritten by the
/// next sum that maps to it; a lost slot only means a full count.
struct Sums([(usize, u64); SUM_SLOTS]);

impl Sums {
    /// The bytes of a sum at `address` whose top level is `bytes`, remembered for the next.
    fn new_bytes(&mut self, address: usize, bytes: u64) -> u64 {
        let slot = &mut self.0[(address >> 4) % SUM_SLOTS];
        let new = if slot.0 == address {
            bytes.saturating_sub(slot.1)
        } else {
            bytes
        };
        *slot = (address, bytes);
        new
    }
}

/// Where a value's allocation lives (0 for a value held inline).
fn address(value: &Val) -> usize {
    match value {
        Val::TStr(text) | Val::BStr(text) => std::ptr::from_ref::<bytes::Bytes>(text) as usize,
        Val::Arr(items) => jaq_json::Rc::as_ptr(items) as usize,
        Val::Obj(map) => jaq_json::Rc::as_ptr(map) as usize,
        _ => 0,
    }
}

impl Guard {
    fn out_of_time(&self) -> bool {
        self.started.elapsed() > self.limits.max_time
    }
}

thread_local! {
    static GUARD: RefCell<Option<Guard>> = const { RefCell::new(None) };
}

/// Arms the guard for a run on this thread.
pub(crate) fn arm(limits: Limits) {
    let guard = Guard {
        limits,
        steps: 0,
        work: 0,
        produced: 0,
        started: Instant::now(),
        stack_base: stack_position(),
        tripped: None,
        refused: None,
        sums: Sums([(0, 0); SUM_SLOTS]),
    };
    GUARD.with(|g| *g.borrow_mut() = Some(guard));
}

/// Disarms the guard; returns the limit that tripped, if one did.
pub(crate) fn disarm() -> Option<Tripped> {
    GUARD.with(|g| g.borrow_mut().take().and_then(|g| g.tripped))
}

/// The limit that tripped so far, if any.
pub(crate) fn tripped() -> Option<Tripped> {
    GUARD.with(|g| g.borrow().as_ref().and_then(|g| g.tripped))
}

/// Records that the filter called `name`, which `query` does not offer, so the error it
/// raises is classified by what happened rather than by its text.
pub(crate) fn refuse(name: &str) {
    GUARD.with(|g| {
        if let Some(guard) = g.borrow_mut().as_mut() {
            guard.refused = Some(name.to_owned());
        }
    });
}

/// The native not available in `query` that the filter called, if it called one.
pub(crate) fn refused() -> Option<String> {
    GUARD.with(|g| g.borrow().as_ref().and_then(|g| g.refused.clone()))
}

/// The limits of the run on this thread (the defaults when no run is armed).
pub(crate) fn limits() -> Limits {
    GUARD.with(|g| {
        g.borrow()
            .as_ref()
            .map_or_else(Limits::default, |g| g.limits)
    })
}

/// Checks the time between results; `Err` once any limit has tripped.
pub(crate) fn check_time() -> Result<(), Tripped> {
    with_guard(|g| {
        if g.out_of_time() {
            g.tripped = Some(Tripped::Time);
        }
    })
}

/// Trips `limit` (a native found it exceeded); always `Err`.
pub(crate) fn trip(limit: Tripped) -> Result<(), Tripped> {
    with_guard(|g| g.tripped = Some(limit))
}

#[inline(never)]
fn stack_position() -> usize {
    let marker = 0u8;
    std::ptr::addr_of!(marker) as usize
}

fn with_guard(f: impl FnOnce(&mut Guard)) -> Result<(), Tripped> {
    GUARD.with(|g| match g.borrow_mut().as_mut() {
        Some(guard) => {
            if guard.tripped.is_none() {
                f(guard);
            }
            guard.tripped.map_or(Ok(()), Err)
        }
        None => Ok(()),
    })
}

/// One evaluation step.
pub(crate) fn tick() -> Result<(), Tripped> {
    let here = stack_position();
    with_guard(|g| {
        g.steps += 1;
        if g.steps > g.limits.max_steps {
            g.tripped = Some(Tripped::Steps);
        } else if g.steps.is_multiple_of(256) && g.out_of_time() {
            g.tripped = Some(Tripped::Time);
        } else if g.stack_base.abs_diff(here) > g.limits.max_stack_bytes {
            g.tripped = Some(Tripped::Stack);
        }
    })
}

/// Work done inside a native; reads the clock each time the total crosses a batch.
fn work(units: u64) -> Result<(), Tripped> {
    with_guard(|g| {
        let before = g.work / METER_BATCH;
        g.work = g.work.saturating_add(units);
        if g.work / METER_BATCH != before && g.out_of_time() {
            g.tripped = Some(Tripped::Time);
        }
    })
}

/// Counts the work of one native call (comparisons, matches, scanned items) and reports it
/// to the guard in batches, so a loop inside a native stops soon after the time limit.
/// Once it has failed it keeps failing without asking the guard again, so a sort can finish
/// its remaining comparisons in no time.
#[derive(Debug, Default)]
pub(crate) struct Meter {
    pending: u64,
    stopped: bool,
}

impl Meter {
    /// Counts `units` of work; `Err` once a limit has tripped.
    pub(crate) fn add(&mut self, units: u64) -> Result<(), Tripped> {
        if self.stopped {
            return Err(tripped().unwrap_or(Tripped::Time));
        }
        self.pending = self.pending.saturating_add(units);
        if self.pending < METER_BATCH {
            return Ok(());
        }
        let result = work(std::mem::take(&mut self.pending));
        self.stopped = result.is_err();
        result
    }

    /// Whether a limit stopped the work.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }
}

/// Accounts for `bytes` a native is about to allocate: `Err` (and nothing allocated) when
/// they would take the run past [`Limits::max_produced_bytes`].
pub(crate) fn reserve(bytes: u64) -> Result<(), Tripped> {
    with_guard(|g| {
        g.produced = g.produced.saturating_add(bytes);
        if g.produced > g.limits.max_produced_bytes {
            g.tripped = Some(Tripped::Produced);
        }
    })
}

/// `Err` when a value of `bytes` (as [`value_bytes`] counts them) would be larger than
/// [`Limits::max_value_bytes`]; checked before the value is built.
pub(crate) fn fits_value(bytes: u64) -> Result<(), Tripped> {
    with_guard(|g| {
        if bytes > g.limits.max_value_bytes {
            g.tripped = Some(Tripped::ValueSize);
        }
    })
}

/// Accounts for a value a native or an operator just built, as [`value_bytes`] counts it.
pub(crate) fn built(value: &Val, check_nesting: bool) -> Result<(), Tripped> {
    account(value, measure(value, Measure::Made), check_nesting)
}

/// How a size check measures the value it is handed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Measure {
    /// What a native or an operator made: the value and all it holds alone
    /// ([`value_bytes`]). A native builds nested values of its own (each path of `paths`,
    /// each pair of `key_values`, each group of `group_by`).
    Made,
    /// An array or object just constructed (`[f]`, `{k: v}`): its own allocation, and for
    /// an object its entries and a new box for each string put in it ([`constructed_bytes`];
    /// an array's items were counted one by one as they were collected, [`collected`]).
    /// What else it holds was built, and counted, by the filters that made its items, or is
    /// the document's: measuring it again would count a value once per level it is wrapped
    /// in (`reduce` building a nested value would count its whole depth at every step).
    Constructed,
}

/// What `value` counts for under `how`.
fn measure(value: &Val, how: Measure) -> u64 {
    match how {
        Measure::Made => value_bytes(value),
        Measure::Constructed => constructed_bytes(value),
    }
}

/// Accounts for one item an array construction (`[f]`) collects, as it is collected: its
/// slot, and a box if it is a string (a copy of a string is a new box). jaq collects all the
/// items before the array exists, so `[..]` or `[paths]` over a large document would
/// otherwise hold them all before anything was measured.
fn collected(item: &Val) -> Result<(), Tripped> {
    let bytes = SLOT_BYTES
        + if matches!(item, Val::TStr(_) | Val::BStr(_)) {
            STRING_BYTES
        } else {
            0
        };
    with_guard(|g| {
        g.produced = g.produced.saturating_add(bytes);
        if g.produced > g.limits.max_produced_bytes {
            g.tripped = Some(Tripped::Produced);
        }
    })
}

/// Accounts for the result of `+`: its top level only ([`top_level_bytes`]), less what the
/// same allocation counted for at the last sum there ([`Sums`]). In `reduce … (.; . + [$x])`
/// the accumulator grows in place; counting all it holds at every step would count it
/// quadratically.
fn summed(value: &Val) -> Result<(), Tripped> {
    let size = top_level_bytes(value);
    let at = address(value);
    with_guard(|g| {
        let new = if at == 0 {
            size
        } else {
            g.sums.new_bytes(at, size)
        };
        g.produced = g.produced.saturating_add(new);
        if size > g.limits.max_value_bytes {
            g.tripped = Some(Tripped::ValueSize);
        } else if g.produced > g.limits.max_produced_bytes {
            g.tripped = Some(Tripped::Produced);
        } else if new >= LARGE_VALUE_BYTES && g.out_of_time() {
            g.tripped = Some(Tripped::Time);
        }
    })
}

/// Accounts for `bytes` just built into `value`.
/// The value is at least as large as its top level, whatever part of it was new.
fn account(value: &Val, bytes: u64, check_nesting: bool) -> Result<(), Tripped> {
    let size = bytes.max(top_level_bytes(value));
    with_guard(|g| {
        g.produced = g.produced.saturating_add(bytes);
        if size > g.limits.max_value_bytes {
            g.tripped = Some(Tripped::ValueSize);
        } else if g.produced > g.limits.max_produced_bytes {
            g.tripped = Some(Tripped::Produced);
        } else if check_nesting && nests_deeper(value, g.limits.max_nesting) {
            g.tripped = Some(Tripped::Nesting);
        } else if size >= LARGE_VALUE_BYTES && g.out_of_time() {
            g.tripped = Some(Tripped::Time);
        }
    })
}

/// What jaq's values cost in memory, by the allocations its types make (the allocator's
/// header and rounding included; docs/performance.md, "Memory"): a value's slot in an array;
/// a string's box (jaq boxes every string handle, and a copy of a string is a new box), and
/// the buffer of a string made anew; an array's shared header; an object's shared header and
/// its smallest tables; an object entry (key and value slots, hash, its share of the table);
/// a decimal or big number's shared text.
pub(crate) const SLOT_BYTES: u64 = 16;
/// See [`SLOT_BYTES`].
pub(crate) const STRING_BYTES: u64 = 48;
/// See [`SLOT_BYTES`].
pub(crate) const STRING_BUFFER_BYTES: u64 = 32;
/// See [`SLOT_BYTES`].
pub(crate) const ARRAY_BYTES: u64 = 64;
/// See [`SLOT_BYTES`].
pub(crate) const OBJECT_BYTES: u64 = 160;
/// See [`SLOT_BYTES`].
pub(crate) const ENTRY_BYTES: u64 = 64;
/// See [`SLOT_BYTES`].
pub(crate) const NUMBER_TEXT_BYTES: u64 = 80;

/// Values a size check looks at in one value before it estimates the rest from them: the
/// check runs on every value an operation builds, so its cost must not grow with the value.
const MEASURED_VALUES: usize = 4_096;

/// The bytes `value` holds that nothing else holds: what building it allocated.
///
/// A container that something else also holds (the document, a variable, a value built
/// before) was counted when it was made and costs nothing here but its slot; one held only
/// here is counted with what it holds, and so on down. A string is a new box wherever it is;
/// the text of the outermost one is counted as new (a string operation made it), the text of
/// a string inside a container is shared with the string it was copied from. Past
/// [`MEASURED_VALUES`] values, the rest of a container is estimated from the average of its
/// measured items, so the check costs the same for a value of any size.
pub(crate) fn value_bytes(value: &Val) -> u64 {
    let mut room = MEASURED_VALUES;
    held_bytes(value, true, &mut room)
}

fn held_bytes(value: &Val, outermost: bool, room: &mut usize) -> u64 {
    match value {
        Val::TStr(text) | Val::BStr(text) if outermost => {
            STRING_BYTES + STRING_BUFFER_BYTES + text.len() as u64
        }
        Val::TStr(_) | Val::BStr(_) => STRING_BYTES,
        Val::Arr(items) if jaq_json::Rc::strong_count(items) == 1 => {
            let len = items.len() as u64;
            ARRAY_BYTES + len * SLOT_BYTES + estimated(items.iter(), items.len(), room)
        }
        Val::Obj(map) if jaq_json::Rc::strong_count(map) == 1 => {
            let len = map.len() as u64;
            let values = map.iter().flat_map(|(key, value)| [key, value]);
            OBJECT_BYTES + len * ENTRY_BYTES + estimated(values, 2 * map.len(), room)
        }
        Val::Num(jaq_json::Num::Dec(text)) if jaq_json::Rc::strong_count(text) == 1 => {
            NUMBER_TEXT_BYTES + text.len() as u64
        }
        Val::Num(jaq_json::Num::BigInt(number)) if jaq_json::Rc::strong_count(number) == 1 => {
            NUMBER_TEXT_BYTES
        }
        _ if outermost => SLOT_BYTES,
        _ => 0,
    }
}

/// What `count` values hold, measured one by one while there is `room`, the rest estimated
/// at the average of those measured.
fn estimated<'v>(values: impl Iterator<Item = &'v Val>, count: usize, room: &mut usize) -> u64 {
    let (mut measured, mut bytes) = (0u64, 0u64);
    for value in values {
        if *room == 0 {
            break;
        }
        *room -= 1;
        bytes = bytes.saturating_add(held_bytes(value, false, room));
        measured += 1;
    }
    if measured == 0 {
        return 0;
    }
    let count = count as u64;
    ((u128::from(bytes) * u128::from(count)) / u128::from(measured)).min(u128::from(u64::MAX))
        as u64
}

/// An array just constructed: its header (its items were counted as they were collected).
/// An object just constructed: its allocation, its entries and a new box for each string in
/// it (see [`Measure::Constructed`]). Any other value: as [`value_bytes`].
pub(crate) fn constructed_bytes(value: &Val) -> u64 {
    let boxes = |values: &mut dyn Iterator<Item = &Val>| {
        values
            .filter(|v| matches!(v, Val::TStr(_) | Val::BStr(_)))
            .count() as u64
            * STRING_BYTES
    };
    match value {
        Val::Arr(_) => ARRAY_BYTES,
        Val::Obj(map) => {
            OBJECT_BYTES
                + map.len() as u64 * ENTRY_BYTES
                + boxes(&mut map.iter().flat_map(|(k, v)| [k, v]))
        }
        other => value_bytes(other),
    }
}

/// The top level of a value: a string's text, a container's slots or entries (see
/// [`summed`]).
pub(crate) fn top_level_bytes(value: &Val) -> u64 {
    match value {
        Val::TStr(text) | Val::BStr(text) => STRING_BYTES + text.len() as u64,
        Val::Arr(items) => ARRAY_BYTES + items.len() as u64 * SLOT_BYTES,
        Val::Obj(map) => OBJECT_BYTES + map.len() as u64 * ENTRY_BYTES,
        _ => SLOT_BYTES,
    }
}

/// Whether `value` nests deeper than `limit`, looking at a bounded number of values.
///
/// A value too wide to check fully is judged on what was seen. That is what keeps the check
/// cheap where it runs often (every array and object built, every value an update writes),
/// and it stays safe: a level hidden below 65,536 values costs a check of 65,536 values to
/// add, so the time limit bounds how deep a value can grow past the check (a few tens of
/// thousands of levels), far less than the evaluation stack holds for jaq's recursive
/// comparison and dropping (about 200 bytes a level). Rendering text, which takes several
/// times more stack a level, checks with [`nests_deeper_within`].
pub(crate) fn nests_deeper(value: &Val, limit: usize) -> bool {
    exceeds_nesting(value, limit, 1 << 16)
}

/// Whether any of the first `values` values of `value`, in the order they are written as
/// text, nests deeper than `limit`. Writing a value takes at least one byte, so a writer
/// that stops after `values` bytes can reach no other: this check, with the writer's room,
/// covers exactly what rendering can recurse into.
pub(crate) fn nests_deeper_within(value: &Val, limit: usize, values: usize) -> bool {
    exceeds_nesting(value, limit, values)
}

/// Whether `value` nests deeper than `limit`, visiting values in the order they are written
/// (each container before its items, the first item first) and at most `budget` of them.
/// The walk keeps one iterator per open container, never a container's items: a check of
/// an array of millions of items holds a few pointers, not a list of them all.
fn exceeds_nesting(value: &Val, limit: usize, budget: usize) -> bool {
    type Children<'v> = Box<dyn Iterator<Item = &'v Val> + 'v>;
    fn children(value: &Val) -> Option<Children<'_>> {
        match value {
            Val::Arr(items) => Some(Box::new(items.iter())),
            // Keys may be any value too.
            Val::Obj(map) => Some(Box::new(map.iter().flat_map(|(k, v)| [k, v]))),
            _ => None,
        }
    }
    // A container nests one level deeper than where it stands, empty or not.
    let Some(root) = children(value) else {
        return false;
    };
    if limit < 1 {
        return true;
    }
    let mut open: Vec<Children<'_>> = vec![root];
    let mut seen = 1usize;
    while let Some(items) = open.last_mut() {
        let Some(item) = items.next() else {
            open.pop();
            continue;
        };
        seen += 1;
        if seen > budget {
            return false;
        }
        if let Some(inner) = children(item) {
            if open.len() + 1 > limit {
                return true;
            }
            open.push(inner);
        }
    }
    false
}

/// `value` as compact JSON text, as `tojson` and string interpolation write it: checked for
/// nesting first (rendering recurses on it) and stopped as soon as the text passes
/// [`Limits::max_value_bytes`], so neither the stack nor the buffer can grow past a limit.
pub(crate) fn render_json(value: &Val) -> Result<Vec<u8>, Tripped> {
    let limits = limits();
    let room = usize::try_from(limits.max_value_bytes).unwrap_or(usize::MAX);
    if nests_deeper_within(value, limits.max_nesting, room) {
        trip(Tripped::Nesting)?;
    }
    // The text may take what is left of the run's allowance, and no more: it is accounted for
    // as it grows, not after.
    let left = usize::try_from(produced_left()).unwrap_or(usize::MAX);
    let mut out = CappedBytes {
        bytes: Vec::new(),
        room: room.min(left),
    };
    let pretty = jaq_json::write::Pp::default();
    if jaq_json::write::write(&mut out, &pretty, 0, value).is_err() {
        trip(if left < room {
            Tripped::Produced
        } else {
            Tripped::ValueSize
        })?;
    }
    reserve(out.bytes.len() as u64)?;
    Ok(out.bytes)
}

/// How many more bytes the run may build ([`Limits::max_produced_bytes`] less what it has).
pub(crate) fn produced_left() -> u64 {
    GUARD.with(|g| {
        g.borrow().as_ref().map_or(u64::MAX, |g| {
            g.limits.max_produced_bytes.saturating_sub(g.produced)
        })
    })
}

/// A byte buffer that refuses to grow past `room`.
struct CappedBytes {
    bytes: Vec<u8>,
    room: usize,
}

impl io::Write for CappedBytes {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.bytes.len().saturating_add(buf.len()) > self.room {
            return Err(io::Error::other("value too large"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The halt a native raises once a limit has tripped.
pub(crate) fn halt<'a, T: 'a>() -> BoxIter<'a, ValX<'a, T, Val>> {
    box_once(Err(Exn::halt(HALT)))
}

/// A native's single result, or the halt of a tripped limit.
pub(crate) fn once_or_halt<'a>(result: Result<Val, Tripped>) -> BoxIter<'a, ValX<'a, Val>> {
    match result {
        Ok(value) => box_once(Ok(value)),
        Err(_) => halt(),
    }
}

/// A native's failure with `message` (a runtime error `try` can catch).
pub(crate) fn fail<'a>(message: &str) -> BoxIter<'a, ValX<'a, Val>> {
    box_once(Err(Exn::from(Error::str(message))))
}

/// Names of the guard natives the rewrite calls.
pub(crate) const TICK: &str = "__overspill_tick";
pub(crate) const SIZE: &str = "__overspill_size";
pub(crate) const SIZE_NESTED: &str = "__overspill_size_nested";
pub(crate) const BUILT: &str = "__overspill_built";
pub(crate) const SUM: &str = "__overspill_sum";
pub(crate) const ITEM: &str = "__overspill_item";
pub(crate) const NEST: &str = "__overspill_nest";
pub(crate) const SHOWN: &str = "__overspill_shown";
pub(crate) const MUL: &str = "__overspill_mul";
pub(crate) const DIV: &str = "__overspill_div";
pub(crate) const FORMAT_ROOM: &str = "__overspill_format_room";
pub(crate) const ORDER_ROOM: &str = "__overspill_order_room";

/// The largest order `jn` and `yn` compute: they loop once per unit of it (`jn(2e9; 1.5)`
/// ran 21 s in one call), about 10 ms at this order.
pub(crate) const MAX_BESSEL_ORDER: i64 = 1_000_000;

/// How many times longer than its format `strftime`'s text can be: a directive of 2 to 5
/// bytes may be padded to 255 characters.
const FORMAT_WIDENING: u64 = 64;

/// The guard natives: `__overspill_tick` (a step), `__overspill_size` (a native's or an
/// operator's result measured; `_nested` also checks its nesting), `__overspill_built` (an
/// array or object built), `__overspill_nest` (a value an update writes), `__overspill_shown`
/// (an interpolated value rendered), `__overspill_mul`/`__overspill_div` (`*` and `/`,
/// checked before they allocate), `__overspill_format_room` (a `strftime` format checked
/// for the text it can make) and `__overspill_order_room` (the order of `jn`/`yn`).
pub(crate) fn guards() -> Vec<Fun<Data>> {
    let tick_native = Native::new(|cv| match tick() {
        Ok(()) => box_once(Ok(cv.1)),
        Err(_) => halt(),
    })
    .with_paths(|cv| match tick() {
        Ok(()) => box_once(Ok(cv.1)),
        Err(_) => halt(),
    })
    .with_update(|cv, f| match tick() {
        Ok(()) => f(cv.1),
        Err(_) => halt(),
    });
    let size = Native::new(|cv| match built(&cv.1, false).and_then(|()| tick()) {
        Ok(()) => box_once(Ok(cv.1)),
        Err(_) => halt(),
    })
    .with_paths(|cv| box_once(Ok(cv.1)))
    .with_update(|cv, f| f(cv.1));
    let size_nested = Native::new(|cv| match built(&cv.1, true).and_then(|()| tick()) {
        Ok(()) => box_once(Ok(cv.1)),
        Err(_) => halt(),
    })
    .with_paths(|cv| box_once(Ok(cv.1)))
    .with_update(|cv, f| f(cv.1));
    let built_native =
        Native::new(
            |cv| match account(&cv.1, measure(&cv.1, Measure::Constructed), true) {
                Ok(()) => box_once(Ok(cv.1)),
                Err(_) => halt(),
            },
        );
    let item = Native::new(|cv| match collected(&cv.1) {
        Ok(()) => box_once(Ok(cv.1)),
        Err(_) => halt(),
    });
    let sum = Native::new(|cv| match summed(&cv.1).and_then(|()| tick()) {
        Ok(()) => box_once(Ok(cv.1)),
        Err(_) => halt(),
    })
    .with_paths(|cv| box_once(Ok(cv.1)))
    .with_update(|cv, f| f(cv.1));
    let nest = Native::new(|cv| {
        let deep = nests_deeper(&cv.1, limits().max_nesting);
        match (if deep { trip(Tripped::Nesting) } else { Ok(()) }).and_then(|()| tick()) {
            Ok(()) => box_once(Ok(cv.1)),
            Err(_) => halt(),
        }
    });
    let shown = Native::new(|cv| match cv.1 {
        text @ (Val::TStr(_) | Val::BStr(_)) => box_once(Ok(text)),
        other => once_or_halt(render_json(&other).map(Val::utf8_str)),
    });
    let mul = Native::new(|mut cv| {
        let rhs = cv.0.pop_var();
        let lhs = cv.0.pop_var();
        if let Some(bytes) = repeat_bytes(&lhs, &rhs)
            && fits_value(bytes).is_err()
        {
            return halt();
        }
        match lhs * rhs {
            Ok(product) => once_or_halt(built(&product, false).map(|()| product)),
            Err(error) => box_once(Err(Exn::from(error))),
        }
    });
    let div = Native::new(|mut cv| {
        let rhs = cv.0.pop_var();
        let lhs = cv.0.pop_var();
        if let Some(pieces) = split_pieces(&lhs, &rhs)
            && fits_value(pieces.saturating_mul(16))
                .and_then(|()| reserve(pieces.saturating_mul(PIECE_BYTES)))
                .is_err()
        {
            return halt();
        }
        match lhs / rhs {
            Ok(quotient) => once_or_halt(built(&quotient, false).map(|()| quotient)),
            Err(error) => box_once(Err(Exn::from(error))),
        }
    });
    let format_room = Native::new(|mut cv| {
        let format = cv.0.pop_var();
        let room = match &format {
            Val::TStr(f) | Val::BStr(f) => {
                fits_value((f.len() as u64).saturating_mul(FORMAT_WIDENING))
            }
            _ => Ok(()),
        };
        match room {
            Ok(()) => box_once(Ok(cv.1)),
            Err(_) => halt(),
        }
    });
    let order_room = Native::new(|mut cv| {
        let order = cv.0.pop_var();
        let too_high = match &order {
            Val::Num(_) => order
                .to_string()
                .parse::<f64>()
                .is_ok_and(|n| n.abs() > MAX_BESSEL_ORDER as f64),
            _ => false,
        };
        if too_high {
            return fail(&format!(
                "the order of `jn`/`yn` is limited to {MAX_BESSEL_ORDER} in query (each unit \
                 of it is a step of the computation)"
            ));
        }
        box_once(Ok(cv.1))
    });
    vec![
        (TICK, v(0), tick_native),
        (SIZE, v(0), size),
        (SIZE_NESTED, v(0), size_nested),
        (BUILT, v(0), built_native),
        (SUM, v(0), sum),
        (ITEM, v(0), item),
        (NEST, v(0), nest),
        (SHOWN, v(0), shown),
        (MUL, v(2), mul),
        (DIV, v(2), div),
        (FORMAT_ROOM, v(1), format_room),
        (ORDER_ROOM, v(1), order_room),
    ]
}

/// What one piece of a split string costs besides its array slot: the boxed shared-bytes
/// handle jaq keeps for each string.
pub(crate) const PIECE_BYTES: u64 = 64;

/// For `string / separator`: how many pieces the split makes.
fn split_pieces(lhs: &Val, rhs: &Val) -> Option<u64> {
    let (Val::TStr(text) | Val::BStr(text), Val::TStr(sep) | Val::BStr(sep)) = (lhs, rhs) else {
        return None;
    };
    let pieces = if sep.is_empty() {
        // jaq splits on characters then.
        crate::lossy::char_count(text)
    } else {
        memchr::memmem::find_iter(&text[..], &sep[..]).count() + 1
    };
    Some(pieces as u64)
}

/// For `string * n` (either order): the bytes the repetition would take.
fn repeat_bytes(lhs: &Val, rhs: &Val) -> Option<u64> {
    let (text, times) = match (lhs, rhs) {
        (Val::TStr(s) | Val::BStr(s), Val::Num(n)) | (Val::Num(n), Val::TStr(s) | Val::BStr(s)) => {
            (s.len() as u64, n)
        }
        _ => return None,
    };
    let times = Val::Num(times.clone()).as_f64_lossy()?;
    if times <= 0.0 {
        return Some(0);
    }
    Some(((text as f64) * times.min(u64::MAX as f64)).min(u64::MAX as f64) as u64)
}

trait LossyFloat {
    fn as_f64_lossy(&self) -> Option<f64>;
}

impl LossyFloat for Val {
    fn as_f64_lossy(&self) -> Option<f64> {
        // Display is exact for integers and close enough for a size check otherwise.
        self.to_string().parse::<f64>().ok()
    }
}

#[cfg(test)]
mod tests;
