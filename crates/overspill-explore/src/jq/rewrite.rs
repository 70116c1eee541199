//! How a filter is instrumented before it is compiled (see [`super::guard`]): a tick at
//! the start of every definition, of every `reduce`/`foreach` step and of every 16 steps of a
//! literal path, a ticking `..`, `[]` iterated in place rather than on a copy
//! (`super::iterate`), a size check after every operation that builds a value, a nesting
//! check on every value an update writes, and interpolated values rendered by the guard.

use std::collections::HashSet;

use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Def, Pattern, Term};
use jaq_core::native::Fun;
use jaq_core::ops::Math;
use jaq_core::path::{Part, Path};

use super::guard::{
    BUILT, DIV, Data, FORMAT_ROOM, ITEM, MUL, NEST, ORDER_ROOM, SHOWN, SIZE, SIZE_NESTED, SUM, TICK,
};
use super::iterate::{EACH, EACH_OPTIONAL};

const RECURSE: &str = "__overspill_recurse";
const LHS: &str = "$__overspill_lhs";
const RHS: &str = "$__overspill_rhs";

/// Natives whose result can nest deeper than their input (`group_by` and `key_values` wrap
/// values in new arrays, `path_value` pairs a value with its path): their results get the
/// nesting check too.
const DEEPENING: [&str; 3] = ["group_by", "key_values", "path_value"];

/// Natives whose first argument is checked before they run, and the guard that checks it:
/// `strftime`'s format (a directive can widen to 255 characters), the order of `jn` and `yn`
/// (they loop over it).
const ARGUMENT_CHECKS: [(&str, usize, &str); 3] = [
    ("strftime", 1, FORMAT_ROOM),
    ("jn", 2, ORDER_ROOM),
    ("yn", 2, ORDER_ROOM),
];

/// Steps of a literal path between two ticks. jaq updates a long path in time quadratic in
/// its length (`.a.a…` with 8,000 steps: seconds, with no tick), but a path cut into pieces
/// piped together (`(.a.a…) | (.a.a…)`, the same path) costs linear time, and a tick between
/// pieces lets the clock and the stack check in.
const PATH_PIECE: usize = 16;

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
                // Without a format, jaq writes a non-string value as JSON text: the guard
                // renders it (bounded) first. A format (`@json "\(…)"`) is a filter of its own
                // and is instrumented as one.
                let plain = format.is_none();
                let parts = parts
                    .into_iter()
                    .map(|part| match part {
                        StrPart::Term(inner) if plain => {
                            StrPart::Term(pipe(self.term(inner), call(SHOWN)))
                        }
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
            // Each item is accounted for as it is collected, the array once it is built.
            Term::Arr(Some(inner)) => pipe(
                Term::Arr(Some(Box::new(pipe(self.term(*inner), call(ITEM))))),
                call(BUILT),
            ),
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
            // `reduce`/`foreach` ticks at every step: its update may be a plain path (as in
            // `getpath`), whose steps would otherwise cost nothing.
            Term::Fold(name, xs, pattern, args) => Term::Fold(
                name,
                t(xs),
                self.pattern(pattern),
                args.into_iter()
                    .enumerate()
                    .map(|(i, a)| {
                        let a = self.term(a);
                        if i == 1 { pipe(call(TICK), a) } else { a }
                    })
                    .collect(),
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
                let args: Vec<_> = args.into_iter().map(|a| self.term(a)).collect();
                // Natives whose cost follows an argument check it first:
                // `f(a; b)` becomes `a as $x | check($x) | f($x; b)`.
                if let Some(&(_, _, check)) = ARGUMENT_CHECKS
                    .iter()
                    .find(|(n, a, _)| (*n, *a) == (name, arity))
                    && self.0.contains(&(name, arity))
                {
                    let mut args = args.into_iter();
                    let first = args.next().unwrap_or(Term::Id);
                    let checked_call =
                        Term::Call(name, std::iter::once(Term::Var(RHS)).chain(args).collect());
                    let check = Term::Call(check, vec![Term::Var(RHS)]);
                    return bind(first, RHS, pipe(pipe(check, checked_call), call(SIZE)));
                }
                let called = Term::Call(name, args);
                if !self.0.contains(&(name, arity)) {
                    called
                } else if DEEPENING.contains(&name) {
                    pipe(called, call(SIZE_NESTED))
                } else {
                    pipe(called, call(SIZE))
                }
            }
            Term::Path(base, Path(parts)) => {
                let parts: Vec<_> = parts
                    .into_iter()
                    .map(|(part, optional)| {
                        let part = match part {
                            Part::Index(i) => Part::Index(self.term(i)),
                            Part::Range(from, upto) => {
                                Part::Range(from.map(|f| self.term(f)), upto.map(|u| self.term(u)))
                            }
                        };
                        (part, optional)
                    })
                    .collect();
                path_iterating_in_place(self.term(*base), parts)
            }
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
            // `l * r` checks a string repetition before it allocates, `l / r` a string split;
            // the bindings keep jaq's order (`l` outer, `r` inner).
            BinaryOp::Math(Math::Mul) => bind(l, LHS, bind(r, RHS, checked(MUL, Term::Var(LHS)))),
            BinaryOp::Math(Math::Div) => bind(l, LHS, bind(r, RHS, checked(DIV, Term::Var(LHS)))),
            BinaryOp::Math(Math::Add) => pipe(Term::BinOp(l.into(), op, r.into()), call(SUM)),
            // `l op= r` is `r as $x | l |= . op $x`.
            // The value an update writes is checked for nesting: `.a = .` in a loop would
            // otherwise nest one level deeper per step, unseen.
            BinaryOp::UpdateMath(Math::Mul) => bind(
                pipe(r, call(NEST)),
                RHS,
                Term::BinOp(l.into(), BinaryOp::Update, checked(MUL, Term::Id).into()),
            ),
            BinaryOp::UpdateMath(Math::Div) => bind(
                pipe(r, call(NEST)),
                RHS,
                Term::BinOp(l.into(), BinaryOp::Update, checked(DIV, Term::Id).into()),
            ),
            BinaryOp::UpdateMath(Math::Add) => bind(
                pipe(r, call(NEST)),
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
                        call(SUM),
                    )
                    .into(),
                ),
            ),
            op @ (BinaryOp::Assign
            | BinaryOp::Update
            | BinaryOp::UpdateMath(_)
            | BinaryOp::UpdateAlt) => Term::BinOp(l.into(), op, pipe(r, call(NEST)).into()),
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

/// `__overspill_mul(lhs; $rhs)` or `__overspill_div(lhs; $rhs)`.
fn checked<'s>(native: &'static str, lhs: Term<&'s str>) -> Term<&'s str> {
    Term::Call(native, vec![lhs, Term::Var(RHS)])
}

/// `base` followed by `parts`, each `[]` in them iterated in place (`super::iterate`):
/// `.a[].b[]?` becomes `.a | __overspill_each | .b | __overspill_each_opt`. The pieces are
/// piped, so a part after the first `[]` is evaluated on an item rather than on the path's
/// input: the path is kept whole when such a part depends on its input (`.a[][.i]`).
fn path_iterating_in_place<'s>(base: Term<&'s str>, parts: Vec<PathPart<'s>>) -> Term<&'s str> {
    let first_each = parts.iter().position(|(part, _)| is_each(part));
    let later_constant = first_each.is_some_and(|at| {
        parts[at..].iter().all(|(part, _)| match part {
            Part::Index(i) => is_constant(i),
            Part::Range(from, upto) => {
                from.as_ref().is_none_or(is_constant) && upto.as_ref().is_none_or(is_constant)
            }
        })
    });
    if !later_constant {
        return path_in_pieces(base, parts);
    }
    let mut term = base;
    let mut piece = Vec::new();
    for (part, optional) in parts {
        if !is_each(&part) {
            piece.push((part, optional));
            continue;
        }
        if !piece.is_empty() {
            term = path_in_pieces(term, std::mem::take(&mut piece));
        }
        let each = match optional {
            jaq_core::path::Opt::Optional => EACH_OPTIONAL,
            jaq_core::path::Opt::Essential => EACH,
        };
        term = pipe(term, call(each));
    }
    if piece.is_empty() {
        term
    } else {
        pipe(term, path_in_pieces(Term::Id, piece))
    }
}

/// `[]`: every item.
fn is_each<T>(part: &Part<T>) -> bool {
    matches!(part, Part::Range(None, None))
}

/// A term whose value does not depend on its input: a literal or a variable.
fn is_constant(term: &Term<&str>) -> bool {
    match term {
        Term::Num(_) | Term::Var(_) => true,
        Term::Str(None, parts) => parts.iter().all(|p| !matches!(p, StrPart::Term(_))),
        _ => false,
    }
}

/// `base` followed by `parts`, cut into pieces of [`PATH_PIECE`] steps with a tick between
/// them (a shorter path stays as it is).
fn path_in_pieces<'s>(base: Term<&'s str>, parts: Vec<PathPart<'s>>) -> Term<&'s str> {
    if parts.len() <= PATH_PIECE {
        return Term::Path(base.into(), Path(parts));
    }
    let mut parts = parts.into_iter();
    let first: Vec<_> = parts.by_ref().take(PATH_PIECE).collect();
    let mut term = Term::Path(base.into(), Path(first));
    loop {
        let piece: Vec<_> = parts.by_ref().take(PATH_PIECE).collect();
        if piece.is_empty() {
            return term;
        }
        term = pipe(
            term,
            pipe(call(TICK), Term::Path(Term::Id.into(), Path(piece))),
        );
    }
}

type PathPart<'s> = (Part<Term<&'s str>>, jaq_core::path::Opt);

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
