//! The natives a query gets: every jaq native accounted for, and the bounded replacements

//! (and the rewrite around them) giving the results jaq's own give, compared on the same
//! filters and inputs with a stock jaq.

use std::collections::HashSet;

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars};
use proptest::prelude::*;

use super::*;
use crate::jq::{Limits, Window, run};

#[test]
fn every_jaq_native_is_replaced_or_audited() {
    let ours: HashSet<(&str, usize)> = replacements()
        .into_iter()
        .chain(super::super::text::natives())
        .chain(super::super::ordering::natives())
        .chain(super::super::regex::natives())
        .chain(super::super::iterate::natives())
        .map(|(name, args, _)| (name, args.len()))
        .collect();
    let kept: HashSet<(&str, usize)> = KEPT.iter().copied().collect();
    let unaudited: Vec<(&str, usize)> = jaq_natives()
        .map(|(name, args, _)| (name, args.len()))
        .filter(|native| !ours.contains(native) && !kept.contains(native))
        .collect();
    assert!(
        unaudited.is_empty(),
        "jaq natives neither replaced nor in KEPT (audit each: time, allocation, nesting): \
         {unaudited:?}"
    );
    let jaq: HashSet<(&str, usize)> = jaq_natives()
        .map(|(name, args, _)| (name, args.len()))
        .collect();
    let stale: Vec<_> = kept.iter().filter(|native| !jaq.contains(native)).collect();
    assert!(
        stale.is_empty(),
        "KEPT names natives jaq no longer has: {stale:?}"
    );
    assert!(
        kept.is_disjoint(&ours),
        "a native is both kept and replaced"
    );
}

/// The results of `filter` on `input` with jaq as it ships (its natives, its standard
/// library, no rewrite), compact; an error is the string `"error"`.
fn stock(filter: &str, input: &str) -> Vec<String> {
    let code = format!("try ({filter}) catch \"error\"");
    let arena = Arena::default();
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let modules = Loader::new(defs)
        .load(
            &arena,
            File {
                code: code.as_str(),
                path: (),
            },
        )
        .unwrap();
    let compiled = Compiler::default()
        .with_funs(jaq_natives())
        .compile(modules)
        .unwrap();
    let input = jaq_json::read::parse_single(input.as_bytes()).unwrap();
    let ctx = Ctx::<Data>::new(&compiled.lut, Vars::new([]));
    compiled
        .id
        .run((ctx, input))
        .map(|out| out.map_or_else(|_| "\"error\"".to_owned(), |v| v.to_string()))
        .collect()
}

/// The same through `query`'s bounded evaluation.
fn ours(filter: &str, input: &str) -> Vec<String> {
    let code = format!("try ({filter}) catch \"error\"");
    run(&code, input.as_bytes(), Window::all(), &Limits::default())
        .unwrap_or_else(|error| panic!("{filter} on {input}: {error:?}"))
        .results
}

fn assert_same(filter: &str, input: &str) {
    assert_eq!(
        ours(filter, input),
        stock(filter, input),
        "{filter} on {input}"
    );
}

/// Filters over the replaced natives and the rewritten operators, for any array input.
const ON_ARRAYS: &[&str] = &[
    "sort",
    "sort_by(type)",
    "sort_by(.a?)",
    "sort_by(length?)",
    "group_by(type)",
    "group_by(.a?)",
    "unique",
    "unique_by(type)",
    "min_by(.)",
    "max_by(type)",
    "min",
    "max",
    "keys",
    "to_entries",
    "contains(.[0:2])",
    ".[] as $x | contains([$x])",
    "contains(.)",
    "inside(. + [1])",
    "indices(.[1])",
    "indices(.[1:3])",
    "index(.[0])",
    "rindex(.[0])",
    "tojson",
    "tojson | fromjson",
    "tostring",
    "\"<\\(.)>\"",
    "@json \"x\\(.)\"",
    "map(tojson) | join(\",\")",
    ".[] | tostring",
    ".[] | strings | explode",
    ".[] | strings | explode | implode",
    ".[] | strings | split(\"a\")",
    ".[] | strings | . / \"\"",
    ".[] | strings | . / \"é\"",
    ".[] | strings | [match(\"a|é\"; \"g\") | .offset, .length, .string]",
    ".[] | strings | [match(\"(a)|(b)\"; \"g\") | .captures | length]",
    ".[] | strings | test(\"X\"; \"i\")",
    ".[] | strings | [scan(\"[a-z1]+\")]",
    ".[] | strings | sub(\"a\"; \"b\")",
    ".[] | strings | gsub(\"(?<x>[ab])\"; \"\\(.x)!\")",
    ".[] | strings | gsub(\"\"; \"-\")",
    ".[] | strings | [splits(\", *\")]",
    ".[] | strings | capture(\"(?<first>.)\")",
    ".[] | strings | [match(\"\"; \"g\") | .offset]",
    ".[] | strings | indices(\"a\")",
    ".[] | strings | ascii_downcase",
    ".[] | numbers | [jn(2; .), yn(1; .)]",
    ".[] | numbers | strftime(\"%Y-%m-%dT%H:%M:%SZ %c\")",
    ".[] | (. as $x | [1] | .[0] = $x)",
    "reduce .[] as $x ([]; . + [$x])",
    "[foreach .[] as $x (0; . + 1)]",
    ".[0] |= [.]",
    "map(select(type == \"number\") * 2)",
    "to_entries | map(.value) | .[0] += 1",
    "[..]",
    "[paths]",
    "[paths(type == \"number\")]",
    ".[]? |= 1",
    "walk(.)",
    "[.[][]?]",
];

/// Hand-picked inputs: mixed types, Unicode, nesting, duplicates.
const INPUTS: &[&str] = &[
    "[]",
    "[3, 1, 2, 1]",
    r#"["b", "a", "é a, b", "ab, ab", "", "aaa"]"#,
    r#"[{"a": 2}, {"a": 1, "b": "x"}, {"a": 2}, [1], null, true, 1.5, "a"]"#,
    r#"[[1, [2, [3]]], [1, [2]], {"a": {"b": [1]}}, "xé"]"#,
    r#"[1e3, -0, 0.1, 100000000000000000000, "1 2", "{\"a\":1}"]"#,
];

#[test]
fn replaced_natives_give_the_results_of_jaq_s_own() {
    for input in INPUTS {
        for filter in ON_ARRAYS {
            assert_same(filter, input);
        }
    }
}

#[test]
fn fromjson_and_regex_flags_give_the_results_of_jaq_s_own() {
    for (filter, input) in [
        ("[fromjson]", r#""1 2 [3] {\"a\": [4]}""#),
        ("fromjson", r#""[1, 2""#),
        ("fromjson", r#""nan""#),
        ("fromjson", "1"),
        ("[match(\"^b\"; \"gm\") | .offset]", r#""ab\nba\nb""#),
        ("[match(\"a.b\"; \"gs\") | .string]", r#""a\nb acb""#),
        ("[match(\"a+?\"; \"gl\") | .string]", r#""aaa""#),
        ("[match(\"a # comment\"; \"gx\") | .string]", r#""aaa""#),
        ("[match(\"a*\"; \"gn\") | .offset]", r#""baab""#),
        ("[match(\"a*\"; \"g\") | .offset]", r#""baab""#),
        ("test(\"(\")", r#""x""#),
        ("test(\"a\"; \"q\")", r#""x""#),
        ("test(1)", r#""x""#),
        ("[match(\"(?<x>a)|(?<y>b)\"; \"g\") | .captures]", r#""ab""#),
        (
            "[match(\"(a)(x)?\"; \"g\") | .captures | map(.string)]",
            r#""aa""#,
        ),
        ("indices(\", \")", r#""a, b, c""#),
        ("indices(1)", r#""a""#),
        ("contains(\"b\")", r#"{"a": "b"}"#),
        ("explode", "1"),
        (".a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t", "{}"),
    ] {
        assert_same(filter, input);
    }
}

#[test]
fn perl_classes_and_case_folding_are_unicode_aware_as_in_jq() {
    // The one intended difference from jaq (whose engine matches `\w` on ASCII only).
    assert_eq!(ours("[scan(\"\\\\w+\")]", r#""é a_1""#), [r#"["é","a_1"]"#]);
    assert_eq!(ours("test(\"É\"; \"i\")", r#""é""#), ["true"]);
    assert_eq!(
        ours("[match(\".\"; \"g\") | .length]", r#""éa""#),
        ["[1,1]"]
    );
}

#[test]
fn iterating_in_place_gives_jaq_s_items_paths_updates_and_errors() {
    // The rewrite iterates `[]` on the shared container instead of jaq's copy of it.
    for input in [
        r#"{"a": [1, {"b": 2}], "i": 0, "c": "x", "d": {}}"#,
        r#"[[1, 2], {"k": [3]}, "s", null]"#,
        "1",
        "null",
        r#""s""#,
    ] {
        for filter in [
            ".[]",
            "[.[]?]",
            "[.[][]?]",
            ".a[]",
            ".a[].b?",
            ".a[1].b",
            "[.a[]?.b?]",
            "[.[][0]?]",
            "[..]",
            "[paths]",
            "[path(..)]",
            "[path(.[]?[]?)]",
            "[paths(type == \"number\")]",
            "getpath([\"a\", 1, \"b\"])?",
            ".[] |= [.]",
            ".[]? |= 7",
            ".a[]? += 1",
            "(.. | numbers) |= . + 1",
            "walk(if type == \"number\" then . * 10 else . end)",
            "map_values(type)",
            "to_entries",
            "with_entries(.value |= type)",
            "del(.[0])",
            "del(.a[])",
            "reduce .[] as $x (0; . + 1)",
            ".a[][.i]?",
            "[.[] as $x | $x] == [.[]]",
        ] {
            assert_same(filter, input);
        }
    }
}

#[test]
fn a_long_literal_path_reads_and_updates_as_jaq_s_does() {
    // The rewrite cuts paths longer than 16 steps into pieces with a tick between them.
    let steps = 40;
    let path = ".a".repeat(steps);
    let input = format!("{}1{}", r#"{"a":"#.repeat(steps), "}".repeat(steps));
    for filter in [
        path.clone(),
        format!("{path} = 2"),
        format!("{path} |= . + 1"),
        format!("[path({path})] | length"),
        format!("{path}? // \"none\""),
        format!("del({path})"),
    ] {
        assert_same(&filter, &input);
    }
}

fn element() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        (-3i64..4).prop_map(serde_json::Value::from),
        "[abé ,x1]{0,6}".prop_map(serde_json::Value::from),
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            (inner.clone(), inner).prop_map(|(a, b)| serde_json::json!({"a": a, "b": b})),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn on_random_arrays_the_replaced_natives_match_jaq(
        items in prop::collection::vec(element(), 0..12)
    ) {
        let input = serde_json::Value::from(items).to_string();
        for filter in ON_ARRAYS {
            prop_assert_eq!(ours(filter, &input), stock(filter, &input), "{} on {}", filter, input);
        }
    }
}
