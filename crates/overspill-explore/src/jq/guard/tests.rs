//! The guard against filters that used to take the process down, abort it, or run far past

//! the time limit (issue 22, item 4), at a size that keeps each test quick. Each says which
//! defence it guards; without that defence the test fails (an abort, a wrong answer, or a
//! run that takes seconds where the limit allows a fraction of one).

use std::time::{Duration, Instant};

use crate::jq::{Document, LimitKind, Limits, QueryError, Tripped, Window, run, run_with};

fn numbers(n: usize) -> Vec<u8> {
    let items: Vec<String> = (0..n)
        .map(|i| ((i as u64).wrapping_mul(2_654_435_761) % 1_000_003).to_string())
        .collect();
    format!("[{}]", items.join(",")).into_bytes()
}

/// The limit `filter` on `input` stops at, and how long it took (the document is built
/// first, as the query tool has it cached: the time is the filter's).
fn stopped_by(filter: &str, input: &[u8], limits: &Limits) -> (Tripped, Duration) {
    let document = Document::parse(input).unwrap();
    let started = Instant::now();
    let outcome = run_with(filter, move || Ok(document), Window::all(), limits);
    let took = started.elapsed();
    match outcome {
        Err(QueryError::Limit {
            limit: LimitKind::Evaluation(tripped),
            ..
        }) => (tripped, took),
        other => panic!("{filter}: {other:?}"),
    }
}

fn short_time() -> Limits {
    Limits {
        max_time: Duration::from_millis(300),
        ..Limits::default()
    }
}

#[test]
fn fromjson_of_text_nested_1_000_000_deep_stops_at_the_nesting_limit() {
    // Defence guarded: `fromjson` measures the text's nesting before jaq's recursive parser
    // runs (it overflowed the stack: an abort).
    let (tripped, _) = stopped_by(r#""[" * 1000000 | fromjson"#, b"null", &Limits::default());
    assert_eq!(tripped, Tripped::Nesting);
    // Text nested as deep as the limit still parses.
    let out = run(
        r#""[" * 512 + "]" * 512 | fromjson | tojson | length"#,
        b"null",
        Window::all(),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(out.results, ["1024"]);
}

#[test]
fn fromjson_of_text_that_would_build_too_much_stops_before_it_parses() {
    // Defence guarded: `fromjson` estimates what jaq's values of the text will take (about
    // 20 times the text for `[],[],…`) and accounts for it first.
    let limits = Limits {
        max_produced_bytes: 6 << 20,
        ..Limits::default()
    };
    let (tripped, _) = stopped_by(
        r#""[" + "[]," * 100000 + "[]]" | fromjson"#,
        b"null",
        &limits,
    );
    assert_eq!(tripped, Tripped::Produced);
}

#[test]
fn the_matches_of_a_regex_count_toward_the_value_size_limit_as_they_are_built() {
    // Defence guarded: the regex natives account for each match object (not only the array
    // slot) before they build it. jaq's built every match first, then the array was measured
    // by its slots alone: `[match(""; "g")]` on a 20 MB string allocated 7 GB and aborted.
    // Here, with a 1 MB value limit, 20,000 matches take 320 KB of slots and several MB of
    // objects: refused, where jaq answered.
    let limits = Limits {
        max_value_bytes: 1 << 20,
        ..Limits::default()
    };
    let text = format!("\"{}\"", "x".repeat(20_000));
    for filter in [
        r#"[match(""; "g")] | length"#,
        r#"gsub(""; "y") | length"#,
        r#"[scan("")] | length"#,
        r#"[splits("")] | length"#,
        r#"test(""; "g")"#,
    ] {
        let (tripped, _) = stopped_by(filter, text.as_bytes(), &limits);
        assert_eq!(tripped, Tripped::ValueSize, "{filter}");
    }
    // The same string answers under the default limits.
    let out = run(
        r#"[match(""; "g")] | length"#,
        text.as_bytes(),
        Window::all(),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(out.results, ["20001"]);
}

#[test]
fn splitting_or_exploding_a_large_string_is_refused_before_it_allocates() {
    // Defence guarded: `/` (and `split/1`) count the pieces, `explode` the characters,
    // before building the array (jaq's `/` was not measured at all: 80 MB of array here).
    let text = format!("\"{}\"", "é".repeat(5_000_000));
    for filter in [
        "split(\"\") | length",
        ". / \"\" | length",
        "explode | length",
    ] {
        let (tripped, _) = stopped_by(filter, text.as_bytes(), &Limits::default());
        assert_eq!(tripped, Tripped::ValueSize, "{filter}");
    }
}

#[test]
fn group_by_and_sort_on_2_000_000_numbers_stop_soon_after_the_time_limit() {
    // Defence guarded: the sorting natives count comparisons and read the clock, and sort in
    // blocks so a stop is quick (jaq's `group_by` on 2,000,000 numbers: about 7 s).
    let input = numbers(2_000_000);
    // Room for the keys (about 170 bytes an item), so the time limit is the one reached.
    let limits = Limits {
        max_produced_bytes: 1 << 30,
        ..short_time()
    };
    for filter in [
        "group_by(.) | length",
        "unique | length",
        "sort_by(-.) | length",
    ] {
        let (tripped, took) = stopped_by(filter, &input, &limits);
        assert_eq!(tripped, Tripped::Time, "{filter}");
        assert!(took < Duration::from_millis(2_500), "{filter}: {took:?}");
    }
}

#[test]
fn quadratic_contains_and_indices_stop_soon_after_the_time_limit() {
    // Defence guarded: `contains` and `indices` count their comparisons (100,000 × 50,000
    // of them here: many seconds).
    let input = format!("[{}1]", "0,".repeat(100_000));
    for filter in [
        ". as $a | [range(50000) | 1] | inside($a)",
        ". as $a | $a | indices($a[0:50000] + [2])",
    ] {
        let (tripped, took) = stopped_by(filter, input.as_bytes(), &short_time());
        assert_eq!(tripped, Tripped::Time, "{filter}");
        assert!(took < Duration::from_millis(2_500), "{filter}: {took:?}");
    }
}

#[test]
fn a_value_an_update_writes_is_checked_for_nesting() {
    // Defence guarded: the value an update writes passes the nesting check (`.a = .` in a
    // loop nested one level deeper per step, unseen, until rendering or dropping it
    // overflowed the stack).
    for filter in [
        "reduce range(100000) as $i ({}; .a = .) | 1",
        "reduce range(100000) as $i ([0]; .[0] |= [.]) | 1",
        "reduce range(100000) as $i ({}; .a += {b: .}) | 1",
    ] {
        let (tripped, _) = stopped_by(filter, b"null", &Limits::default());
        assert_eq!(tripped, Tripped::Nesting, "{filter}");
    }
}

#[test]
fn a_deepening_native_in_a_loop_stops_at_the_nesting_limit() {
    // Defence guarded: `group_by`, `to_entries` (`key_values`) and `path_value` results get
    // the nesting check (each wraps its input one or two levels deeper).
    for filter in [
        "reduce range(100000) as $i ([1]; group_by(.)) | 1",
        "reduce range(100000) as $i ({}; {a: .} | to_entries[0]) | 1",
    ] {
        let (tripped, _) = stopped_by(filter, b"null", &Limits::default());
        assert_eq!(tripped, Tripped::Nesting, "{filter}");
    }
}

#[test]
fn an_update_through_a_7_000_step_path_takes_linear_time() {
    // Defence guarded: literal paths are cut into pieces with a tick between them (jaq
    // updates a 7,000-step path in about 7 s, with no tick to stop it).
    let steps = 7_000;
    let document = format!("{}0{}", r#"{"a":"#.repeat(steps), "}".repeat(steps));
    let path = ".a".repeat(steps);
    let started = Instant::now();
    let out = run(
        &format!("{path} |= . + 1 | [.. | numbers]"),
        document.as_bytes(),
        Window::all(),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(out.results, ["[1]"]);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn every_reduce_step_is_an_evaluation_step() {
    // Defence guarded: `reduce`/`foreach` tick at each step (a plain path in their update,
    // as in `getpath`, cost nothing before).
    let input = format!("[{}0]", "0,".repeat(5_000));
    let limits = Limits {
        max_steps: 1_000,
        ..Limits::default()
    };
    for filter in [
        "reduce .[] as $x (0; .)",
        "[foreach .[] as $x (0; .)] | length",
    ] {
        let (tripped, _) = stopped_by(filter, input.as_bytes(), &limits);
        assert_eq!(tripped, Tripped::Steps, "{filter}");
    }
}

#[test]
fn tojson_and_interpolation_of_a_value_deeper_than_the_limit_stop_at_nesting() {
    // Defence guarded: text is rendered only after an exact nesting check (rendering
    // recurses, and takes more stack a level than anything else).
    let document = format!("{}0{}", "[".repeat(600), "]".repeat(600));
    for filter in [
        "tojson | length",
        "tostring | length",
        "\"\\(.)\" | length",
        "@json",
    ] {
        let (tripped, _) = stopped_by(filter, document.as_bytes(), &Limits::default());
        assert_eq!(tripped, Tripped::Nesting, "{filter}");
    }
}

#[test]
fn a_strftime_format_that_could_widen_past_the_value_limit_is_refused() {
    // Defence guarded: `strftime` checks its format first (a directive widens up to 255
    // characters).
    let (tripped, _) = stopped_by(
        r#""%c" * 1000000 as $f | 0 | strftime($f) | length"#,
        b"null",
        &Limits::default(),
    );
    assert_eq!(tripped, Tripped::ValueSize);
    let out = run(
        r#"0 | strftime("%Y")"#,
        b"null",
        Window::all(),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(out.results, [r#""1970""#]);
}

#[test]
fn jn_and_yn_of_a_huge_order_fail_at_once() {
    // Defence guarded: the order of `jn`/`yn` is checked (they loop over it: 21 s for
    // `jn(2e9; 1.5)`).
    let started = Instant::now();
    let error = run(
        "jn(2000000000; 1.5)",
        b"null",
        Window::all(),
        &Limits::default(),
    )
    .unwrap_err();
    assert!(error.to_string().contains("limited to 1000000"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(1));
    let out = run(
        "jn(2; 1.5) | . * 1000 | floor",
        b"null",
        Window::all(),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(out.results, ["232"]);
}
