//! What keeps a jq filter bounded and blind to everything but its input (SPEC §6.2, §13).
//!
//! jaq evaluates lazily and has no hook for interruption, so the bounds are woven into the
//! program itself before it is compiled:
//!
//! - every definition (the standard library's and the filter's own) starts with a call to a
//!   native *tick*, and so does every step of `range` (reimplemented natively) and of `..`
//!   (rewritten to a ticking definition). A tick counts steps, checks the clock every few
//!   hundred steps and measures the evaluation thread's stack, so `repeat(.)`,
//!   `range(1e12)`, `[paths]` on a huge file or runaway recursion all stop at a limit;
//! - operations that can build large values — native functions, `+`, `*`, string
//!   interpolation, array and object construction — pass their result through a *size*
//!   check (a string or array over [`Limits::max_value_bytes`], more than
//!   [`Limits::max_produced_bytes`] built in total, or values nested too deep), and string
//!   repetition is checked before it allocates;
//! - natives that read the environment or the clock (`env`, `now`, `localtime`,
//!   `strflocaltime`) are replaced by ones that fail with an explanation, the logging ones
//!   (`debug`, `stderr`) print nothing, and `input`/`inputs` are not defined at all.
//!
//! Once a limit trips, every later tick fails too, so no `try` can keep the filter going:
//! the run ends and the caller reports which limit it was ([`Tripped`]).

use std::cell::RefCell;
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
    /// Bytes of one built string (or one array's items, at 16 bytes each).
    pub max_value_bytes: u64,
    /// Bytes of built values over the whole run.
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
            max_produced_bytes: 512 << 20,
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

struct Guard {
    limits: Limits,
    steps: u64,
    produced: u64,
    started: Instant,
    stack_base: usize,
    tripped: Option<Tripped>,
}

thread_local! {
    static GUARD: RefCell<Option<Guard>> = const { RefCell::new(None) };
}

/// Arms the guard for a run on this thread.
pub(crate) fn arm(limits: Limits) {
    let guard = Guard {
        limits,
        steps: 0,
        produced: 0,
        started: Instant::now(),
        stack_base: stack_position(),
        tripped: None,
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

/// Checks the time between results; `Err` once any limit has tripped.
pub(crate) fn check_time() -> Result<(), Tripped> {
    with_guard(|g| {
        if g.started.elapsed() > g.limits.max_time {
            g.tripped.get_or_insert(Tripped::Time);
        }
    })
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
        } else if g.steps.is_multiple_of(256) && g.started.elapsed() > g.limits.max_time {
            g.tripped = Some(Tripped::Time);
        } else if g.stack_base.abs_diff(here) > g.limits.max_stack_bytes {
            g.tripped = Some(Tripped::Stack);
        }
    })
}

/// Accounts for a value just built.
pub(crate) fn built(value: &Val, check_nesting: bool) -> Result<(), Tripped> {
    let bytes = value_bytes(value);
    with_guard(|g| {
        g.produced = g.produced.saturating_add(bytes);
        if bytes > g.limits.max_value_bytes {
            g.tripped = Some(Tripped::ValueSize);
        } else if g.produced > g.limits.max_produced_bytes {
            g.tripped = Some(Tripped::Produced);
        } else if check_nesting && nests_deeper(value, g.limits.max_nesting) {
            g.tripped = Some(Tripped::Nesting);
        }
    })
}

/// The bytes a value's top level holds (strings by length, containers by items).
pub(crate) fn value_bytes(value: &Val) -> u64 {
    match value {
        Val::TStr(s) | Val::BStr(s) => s.len() as u64,
        Val::Arr(items) => items.len() as u64 * 16,
        Val::Obj(map) => map.len() as u64 * 48,
        _ => 16,
    }
}

/// Whether `value` nests deeper than `limit`, looking at a bounded number of values (a value
/// too wide to check fully is judged on what was seen; each level still costs a step to
/// build, so nesting that escapes this check is bounded by the step limit).
pub(crate) fn nests_deeper(value: &Val, limit: usize) -> bool {
    const BUDGET: usize = 1 << 16;
    let mut stack: Vec<(&Val, usize)> = vec![(value, 0)];
    let mut seen = 0usize;
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Val>> = match value {
            Val::Arr(items) => Box::new(items.iter()),
            Val::Obj(map) => Box::new(map.values()),
            _ => continue,
        };
        if depth + 1 > limit {
            return true;
        }
        for child in children {
            seen += 1;
            if seen > BUDGET {
                return false;
            }
            if matches!(child, Val::Arr(_) | Val::Obj(_)) {
                stack.push((child, depth + 1));
            }
        }
    }
    false
}

pub(crate) fn halt<'a, T: 'a>() -> BoxIter<'a, ValX<'a, T, Val>> {
    box_once(Err(Exn::halt(HALT)))
}

pub(crate) fn fail<'a>(message: &str) -> BoxIter<'a, ValX<'a, Val>> {
    box_once(Err(Exn::from(Error::str(message))))
}

pub(crate) const TICK: &str = "__overspill_tick";
pub(crate) const SIZE: &str = "__overspill_size";
pub(crate) const BUILT: &str = "__overspill_built";
pub(crate) const MUL: &str = "__overspill_mul";

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
    let built_native = Native::new(|cv| match built(&cv.1, true) {
        Ok(()) => box_once(Ok(cv.1)),
        Err(_) => halt(),
    });
    let mul = Native::new(|mut cv| {
        let rhs = cv.0.pop_var();
        let lhs = cv.0.pop_var();
        if let Some(bytes) = repeat_bytes(&lhs, &rhs) {
            let over = GUARD.with(|g| {
                g.borrow()
                    .as_ref()
                    .is_some_and(|g| bytes > g.limits.max_value_bytes)
            });
            if over {
                let _ = with_guard(|g| g.tripped = Some(Tripped::ValueSize));
                return halt();
            }
        }
        match lhs * rhs {
            Ok(product) => match built(&product, false) {
                Ok(()) => box_once(Ok(product)),
                Err(_) => halt(),
            },
            Err(error) => box_once(Err(Exn::from(error))),
        }
    });
    vec![
        (TICK, v(0), tick_native),
        (SIZE, v(0), size),
        (BUILT, v(0), built_native),
        (MUL, v(2), mul),
    ]
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
