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
use std::collections::HashSet;
use std::time::{Duration, Instant};

use jaq_core::box_iter::{BoxIter, box_once};
use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Def, Pattern, Term};
use jaq_core::native::{Fun, v};
use jaq_core::ops::Math;
use jaq_core::path::{Part, Path};
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
const HALT: i32 = 0x0ddba11;

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
fn tick() -> Result<(), Tripped> {
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
fn built(value: &Val, check_nesting: bool) -> Result<(), Tripped> {
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

fn halt<'a, T: 'a>() -> BoxIter<'a, ValX<'a, T, Val>> {
    box_once(Err(Exn::halt(HALT)))
}

fn fail<'a>(message: &str) -> BoxIter<'a, ValX<'a, Val>> {
    box_once(Err(Exn::from(Error::str(message))))
}

const TICK: &str = "__overspill_tick";
const SIZE: &str = "__overspill_size";
const BUILT: &str = "__overspill_built";
const MUL: &str = "__overspill_mul";
const RECURSE: &str = "__overspill_recurse";
const LHS: &str = "$__overspill_lhs";
const RHS: &str = "$__overspill_rhs";

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

fn guards() -> Vec<Fun<Data>> {
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

/// The prelude definitions a filter may use: a ticking `..` and jaq's standard library, all
/// instrumented.
pub(crate) fn prelude(natives: &NativeNames) -> Vec<Def<&'static str>> {
    let helpers = jaq_core::load::parse(
        "def __overspill_recurse: def rec: ., (.[]? | rec); rec;",
        |p| p.defs(),
    )
    .unwrap_or_default();
    helpers
        .into_iter()
        .chain(jaq_core::defs())
        .chain(jaq_std::defs())
        .chain(jaq_json::defs())
        .map(|def| natives.def(def))
        .collect()
}

/// The names and arities of the native filters, whose calls get a size check.
pub(crate) struct NativeNames(HashSet<(&'static str, usize)>);

impl NativeNames {
    pub(crate) fn of(funs: &[Fun<Data>]) -> NativeNames {
        NativeNames(
            funs.iter()
                .filter(|(name, _, _)| !name.starts_with("__overspill_"))
                .map(|(name, args, _)| (*name, args.len()))
                .collect(),
        )
    }

    /// Instruments a definition: a tick on entry, and its body.
    pub(crate) fn def<'s>(&self, def: Def<&'s str>) -> Def<&'s str> {
        Def {
            name: def.name,
            args: def.args,
            body: pipe(call(TICK), self.term(def.body)),
        }
    }

    /// Instruments a term (see the module docs).
    pub(crate) fn term<'s>(&self, term: Term<&'s str>) -> Term<&'s str> {
        let t = |x: Box<Term<&'s str>>| Box::new(self.term(*x));
        match term {
            Term::Recurse => call(RECURSE),
            Term::Str(format, parts) => {
                let interpolates = parts.iter().any(|p| matches!(p, StrPart::Term(_)));
                let parts = parts
                    .into_iter()
                    .map(|part| match part {
                        StrPart::Term(inner) => StrPart::Term(self.term(inner)),
                        other => other,
                    })
                    .collect();
                let string = Term::Str(format, parts);
                if interpolates {
                    pipe(string, call(SIZE))
                } else {
                    string
                }
            }
            Term::Arr(Some(inner)) => pipe(Term::Arr(Some(t(inner))), call(BUILT)),
            Term::Obj(entries) if !entries.is_empty() => {
                let entries = entries
                    .into_iter()
                    .map(|(k, v)| (self.term(k), v.map(|v| self.term(v))))
                    .collect();
                pipe(Term::Obj(entries), call(BUILT))
            }
            Term::Neg(inner) => Term::Neg(t(inner)),
            Term::BinOp(l, op, r) => self.binop(self.term(*l), op, self.term(*r)),
            Term::Label(name, inner) => Term::Label(name, t(inner)),
            Term::Fold(name, xs, pattern, args) => Term::Fold(
                name,
                t(xs),
                self.pattern(pattern),
                args.into_iter().map(|a| self.term(a)).collect(),
            ),
            Term::TryCatch(body, catch) => Term::TryCatch(t(body), catch.map(t)),
            Term::IfThenElse(branches, otherwise) => Term::IfThenElse(
                branches
                    .into_iter()
                    .map(|(c, b)| (self.term(c), self.term(b)))
                    .collect(),
                otherwise.map(t),
            ),
            Term::Def(defs, rest) => {
                Term::Def(defs.into_iter().map(|d| self.def(d)).collect(), t(rest))
            }
            Term::Call(name, args) => {
                let arity = args.len();
                let args = args.into_iter().map(|a| self.term(a)).collect();
                let called = Term::Call(name, args);
                if self.0.contains(&(name, arity)) {
                    pipe(called, call(SIZE))
                } else {
                    called
                }
            }
            Term::Path(base, Path(parts)) => Term::Path(
                t(base),
                Path(
                    parts
                        .into_iter()
                        .map(|(part, optional)| {
                            let part = match part {
                                Part::Index(i) => Part::Index(self.term(i)),
                                Part::Range(from, upto) => Part::Range(
                                    from.map(|f| self.term(f)),
                                    upto.map(|u| self.term(u)),
                                ),
                            };
                            (part, optional)
                        })
                        .collect(),
                ),
            ),
            other @ (Term::Id
            | Term::Num(_)
            | Term::Arr(None)
            | Term::Obj(_)
            | Term::Break(_)
            | Term::Var(_)) => other,
        }
    }

    fn binop<'s>(
        &self,
        l: Term<&'s str>,
        op: BinaryOp<&'s str>,
        r: Term<&'s str>,
    ) -> Term<&'s str> {
        match op {
            // `l * r` checks a string repetition before it allocates; the bindings keep
            // jaq's order (`l` outer, `r` inner).
            BinaryOp::Math(Math::Mul) => bind(l, LHS, bind(r, RHS, multiply(Term::Var(LHS)))),
            BinaryOp::Math(Math::Add) => pipe(Term::BinOp(l.into(), op, r.into()), call(SIZE)),
            // `l op= r` is `r as $x | l |= . op $x`.
            BinaryOp::UpdateMath(Math::Mul) => bind(
                r,
                RHS,
                Term::BinOp(l.into(), BinaryOp::Update, multiply(Term::Id).into()),
            ),
            BinaryOp::UpdateMath(Math::Add) => bind(
                r,
                RHS,
                Term::BinOp(
                    l.into(),
                    BinaryOp::Update,
                    pipe(
                        Term::BinOp(
                            Term::Id.into(),
                            BinaryOp::Math(Math::Add),
                            Term::Var(RHS).into(),
                        ),
                        call(SIZE),
                    )
                    .into(),
                ),
            ),
            BinaryOp::Pipe(Some(pattern)) => Term::BinOp(
                l.into(),
                BinaryOp::Pipe(Some(self.pattern(pattern))),
                r.into(),
            ),
            op => Term::BinOp(l.into(), op, r.into()),
        }
    }

    fn pattern<'s>(&self, pattern: Pattern<&'s str>) -> Pattern<&'s str> {
        match pattern {
            Pattern::Var(name) => Pattern::Var(name),
            Pattern::Arr(items) => {
                Pattern::Arr(items.into_iter().map(|p| self.pattern(p)).collect())
            }
            Pattern::Obj(entries) => Pattern::Obj(
                entries
                    .into_iter()
                    .map(|(k, p)| (self.term(k), self.pattern(p)))
                    .collect(),
            ),
        }
    }
}

fn call<'s>(name: &'static str) -> Term<&'s str> {
    Term::Call(name, Vec::new())
}

fn pipe<'s>(l: Term<&'s str>, r: Term<&'s str>) -> Term<&'s str> {
    Term::BinOp(l.into(), BinaryOp::Pipe(None), r.into())
}

/// `value as $name | body`.
fn bind<'s>(value: Term<&'s str>, name: &'static str, body: Term<&'s str>) -> Term<&'s str> {
    Term::BinOp(
        value.into(),
        BinaryOp::Pipe(Some(Pattern::Var(name))),
        body.into(),
    )
}

/// `__overspill_mul(lhs; $rhs)`.
fn multiply(lhs: Term<&str>) -> Term<&str> {
    Term::Call(MUL, vec![lhs, Term::Var(RHS)])
}

/// How deeply brackets nest in a filter's text, as a cheap guard before parsing (jaq's
/// parser recurses).
pub(crate) fn text_nesting(code: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for b in code.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}
