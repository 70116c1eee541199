//! How a filter is instrumented before it is compiled (see [`super::jq_guard`]): a tick at
//! the start of every definition, a ticking `..`, and a size check after every operation that
//! builds a value.

use std::collections::HashSet;

use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Def, Pattern, Term};
use jaq_core::native::Fun;
use jaq_core::ops::Math;
use jaq_core::path::{Part, Path};

use super::jq_guard::{BUILT, Data, MUL, SIZE, TICK};

const RECURSE: &str = "__overspill_recurse";
const LHS: &str = "$__overspill_lhs";
const RHS: &str = "$__overspill_rhs";

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
