use super::*;

const PODS: &[u8] = br#"{"items": [
        {"name": "a", "phase": "Running", "restarts": 0, "log": "x"},
        {"name": "b", "phase": "Failed", "restarts": 12, "log": "y"},
        {"name": "c", "phase": "Failed", "restarts": 3, "log": "z"}
    ]}"#;

fn all(filter: &str) -> Result<Outcome, QueryError> {
    run(filter, PODS, Window::all(), &Limits::default())
}

fn fast_limits() -> Limits {
    Limits {
        max_steps: 200_000,
        max_time: std::time::Duration::from_secs(2),
        ..Limits::default()
    }
}

#[test]
fn a_filter_returns_compact_results_in_order() {
    let out = all(r#".items[] | select(.phase == "Failed") | .name"#).unwrap();
    assert_eq!(out.results, [r#""b""#, r#""c""#]);
    assert_eq!(all("[.items[].restarts] | add").unwrap().results, ["15"]);
    assert_eq!(
        all(".items[0] | {name, phase}").unwrap().results,
        [r#"{"name":"a","phase":"Running"}"#]
    );
    assert_eq!(
        all(".items | map(.name) | join(\",\")").unwrap().results,
        [r#""a,b,c""#]
    );
    assert_eq!(all("[paths] | length").unwrap().results, ["16"]);
    assert_eq!(all("[.. | numbers] | length").unwrap().results, ["3"]);
    assert_eq!(
        all(".items[].restarts |= . * 2 | [.items[].restarts]")
            .unwrap()
            .results,
        ["[0,24,6]"]
    );
    assert_eq!(all(r#""ab" * 3"#).unwrap().results, [r#""ababab""#]);
    assert_eq!(
        all(r#".items[0].name += "!" | .items[0].name"#)
            .unwrap()
            .results,
        [r#""a!""#]
    );
}

#[test]
fn a_window_renders_its_results_and_counts_them_all() {
    let window = Window {
        offset: 1,
        limit: Some(1),
    };
    let out = run(".items[].name", PODS, window, &Limits::default()).unwrap();
    assert_eq!(out.results, [r#""b""#]);
    assert_eq!((out.total, out.counted), (Some(3), 3));
}

#[test]
fn repeat_terminates_with_the_limit_error() {
    // Each result is the whole input: the output cap or the result cap ends it.
    let error = run("repeat(.)", PODS, Window::all(), &fast_limits()).unwrap_err();
    assert!(
        matches!(
            error,
            QueryError::TooLarge { .. } | QueryError::Limit { .. }
        ),
        "{error:?}"
    );
    let error = run("repeat(1)", PODS, Window::all(), &fast_limits()).unwrap_err();
    let QueryError::Limit { limit, message } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(*limit, LimitKind::Results, "{error:?}");
    assert!(message.contains("pass `limit`"), "{message}");
    let error = run("last(repeat(1))", PODS, Window::all(), &fast_limits()).unwrap_err();
    assert!(
        matches!(
            error,
            QueryError::Limit {
                limit: LimitKind::Evaluation(Tripped::Steps),
                ..
            }
        ),
        "{error:?}"
    );
}

#[test]
fn the_time_limit_alone_stops_an_endless_evaluation() {
    // Defence guarded: the wall-clock limit. Every other limit is out of reach here, so
    // only the clock can end `last(range(1e12))`.
    let limits = Limits {
        max_steps: u64::MAX,
        max_results: u64::MAX,
        max_time: std::time::Duration::from_millis(200),
        ..Limits::default()
    };
    let error = run("last(range(1e12))", PODS, Window::all(), &limits).unwrap_err();
    let QueryError::Limit { limit, message } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(*limit, LimitKind::Evaluation(Tripped::Time), "{error:?}");
    assert!(!message.is_empty());
}

#[test]
fn range_1e12_terminates_with_the_limit_error() {
    for filter in [
        "range(1e12)",
        "[range(1e12)] | length",
        "reduce range(1e12) as $x (0; . + 1)",
        "last(range(1e12))",
    ] {
        let error = run(filter, PODS, Window::all(), &fast_limits()).unwrap_err();
        assert!(
            matches!(error, QueryError::Limit { .. }),
            "{filter}: {error:?}"
        );
    }
}

#[test]
fn a_window_over_an_endless_generator_returns_its_results() {
    let window = Window {
        offset: 0,
        limit: Some(3),
    };
    let out = run("range(1e12)", PODS, window, &fast_limits()).unwrap();
    assert_eq!(out.results, ["0", "1", "2"]);
    assert_eq!(out.total, None);
    assert!(out.count_stopped.is_some());
}

#[test]
fn paths_over_a_large_document_stop_at_the_step_limit() {
    let big = format!("[{}]", vec!["{\"a\": [1, 2]}"; 100_000].join(","));
    let error = run(
        "[paths] | length",
        big.as_bytes(),
        Window::all(),
        &fast_limits(),
    )
    .unwrap_err();
    assert!(
        matches!(
            error,
            QueryError::Limit {
                limit: LimitKind::Evaluation(Tripped::Steps | Tripped::Time),
                ..
            }
        ),
        "{error:?}"
    );
    // The same walk over a small document answers.
    let out = run(
        "[paths] | length",
        br#"[{"a": [1, 2]}]"#,
        Window::all(),
        &fast_limits(),
    )
    .unwrap();
    assert_eq!(out.results, ["4"]);
}

#[test]
fn try_cannot_swallow_a_tripped_limit() {
    for filter in [
        "repeat(try error(\"x\") catch 1) | empty",
        "def f: try f catch f; f",
        "[limit(1e9; repeat(1))] | length",
        "def f: 1 + f; f",
        "def f: [f]; f",
    ] {
        let error = run(filter, PODS, Window::all(), &fast_limits()).unwrap_err();
        assert!(
            matches!(error, QueryError::Limit { .. }),
            "{filter}: {error:?}"
        );
    }
}

#[test]
fn memory_bombs_stop_at_a_size_limit() {
    for filter in [
        r#""x" * 1e12"#,
        r#"reduce range(64) as $i ("x"; . + .)"#,
        r#"reduce range(64) as $i ("x"; "\(.)\(.)")"#,
        "reduce range(64) as $i ([1]; . + .) | length",
        "reduce range(100000) as $i (0; [.]) | length",
        r#"reduce range(40) as $i ("ab"; . * 2)"#,
    ] {
        let error = run(filter, PODS, Window::all(), &fast_limits()).unwrap_err();
        assert!(
            matches!(error, QueryError::Limit { .. }),
            "{filter}: {error:?}"
        );
    }
}

#[test]
fn env_and_dollar_env_cannot_read_the_process_environment() {
    const NAME: &str = "OVERSPILL_QUERY_TEST_SECRET";
    const SECRET: &str = "overspill-secret-4f1d9c";
    if crate::test_support::ran_in_child_with_env(
        module_path!(),
        "env_and_dollar_env_cannot_read_the_process_environment",
        NAME,
        SECRET,
    ) {
        return;
    }
    for filter in [
        "env",
        "env.OVERSPILL_QUERY_TEST_SECRET",
        "$ENV",
        "$ENV.OVERSPILL_QUERY_TEST_SECRET",
        "[env] | tostring",
        "try env catch .",
        "$__prog_args",
        "[paths] | tostring",
    ] {
        let text = match all(filter) {
            Ok(out) => out.results.join("\n"),
            Err(error) => error.to_string(),
        };
        assert!(!text.contains(SECRET), "{filter} leaked: {text}");
        assert!(
            !text.contains("PATH"),
            "{filter} leaked the environment: {text}"
        );
    }
    let error = all("$ENV.HOME").unwrap_err();
    assert!(
        error.to_string().contains("`$ENV` is not available"),
        "{error}"
    );
    let error = all("env.HOME").unwrap_err();
    assert!(
        error.to_string().contains("not available in query"),
        "{error}"
    );
}

#[test]
fn input_inputs_now_and_imports_are_unavailable() {
    for (filter, says) in [
        ("input", "`input` is not available"),
        ("[inputs]", "`inputs` is not available"),
        ("now", "not available in query"),
        ("0 | localtime", "not available in query"),
        ("include \"x\"; .", "modules cannot be loaded"),
        ("import \"x\" as x; .", "modules cannot be loaded"),
        ("input_filename", "`input_filename` is not available"),
    ] {
        let error = all(filter).unwrap_err();
        assert!(error.to_string().contains(says), "{filter}: {error}");
    }
    assert_eq!(
        all("0 | todate").unwrap().results,
        [r#""1970-01-01T00:00:00Z""#]
    );
    assert_eq!(all("1 | debug | . + 1").unwrap().results, ["2"]);
}

#[test]
fn errors_read_as_plain_words() {
    let error = all(".items[").unwrap_err().to_string();
    assert!(
        error.starts_with("the filter does not parse: expected"),
        "{error}"
    );
    assert!(
        !error.contains("Delim") && !error.contains("Lex("),
        "{error}"
    );
    let error = all(".items[] | frobnicate(1)").unwrap_err().to_string();
    assert_eq!(
        error,
        "the filter calls `frobnicate`, which jq does not define with 1 argument(s)"
    );
    let error = all("$nope").unwrap_err().to_string();
    assert!(error.contains("the variable `$nope`"), "{error}");
    let error = all(".items[] | .name + 1").unwrap_err().to_string();
    assert!(
        error.starts_with("the filter failed after 0 result(s): cannot "),
        "{error}"
    );
    assert!(!error.contains("TStr"), "{error}");
}

#[test]
fn huge_results_are_too_large_not_rendered() {
    let limits = Limits {
        max_output_bytes: 64,
        ..Limits::default()
    };
    let error = run("[range(1000)]", PODS, Window::all(), &limits).unwrap_err();
    assert!(matches!(error, QueryError::TooLarge { .. }), "{error:?}");
}

#[test]
fn halt_ends_the_results() {
    let out = all("1, 2, halt, 3").unwrap();
    assert_eq!(
        (out.results.as_slice(), out.halted),
        (&["1".to_owned(), "2".to_owned()][..], true)
    );
}

#[test]
fn overlong_or_overnested_filters_are_refused_before_parsing() {
    let nested = format!("{}.{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(matches!(all(&nested), Err(QueryError::Invalid(_))));
    let long = ".".repeat(MAX_FILTER_BYTES + 1);
    assert!(matches!(all(&long), Err(QueryError::Invalid(_))));
}
