use super::*;

fn time(seconds: f64) -> Measured {
    Measured::Time {
        seconds,
        bytes: Some(10 * MB),
    }
}

fn one(target: Target, baseline: bool) -> Scenario {
    scenario(
        "s",
        "a/ours".to_owned(),
        baseline.then(|| "a/base".to_owned()),
        target,
    )
}

fn measured(pairs: &[(&str, Measured)]) -> BTreeMap<String, Measured> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

#[test]
fn a_ratio_target_passes_at_the_limit_and_fails_past_it() {
    let s = [one(Target::RatioAtMost(1.3), true)];
    let at = evaluate(
        &s,
        &measured(&[("a/ours", time(1.3)), ("a/base", time(1.0))]),
    )
    .unwrap();
    assert_eq!(at[0].verdict, Verdict::Pass);
    assert_eq!(at[0].ratio, "1.30×");
    let past = evaluate(
        &s,
        &measured(&[("a/ours", time(1.4)), ("a/base", time(1.0))]),
    )
    .unwrap();
    assert_eq!(past[0].verdict, Verdict::Fail);
}

#[test]
fn counting_must_be_twice_as_fast_as_tiktoken() {
    let s = [one(Target::RatioAtMost(0.5), true)];
    let fast = evaluate(
        &s,
        &measured(&[("a/ours", time(0.2)), ("a/base", time(1.0))]),
    )
    .unwrap();
    assert_eq!(fast[0].verdict, Verdict::Pass);
    let slow = evaluate(
        &s,
        &measured(&[("a/ours", time(0.6)), ("a/base", time(1.0))]),
    )
    .unwrap();
    assert_eq!(slow[0].verdict, Verdict::Fail);
    assert_eq!(s[0].target.to_string(), "≤ 0.50× (≥ 2.0× as fast)");
}

#[test]
fn a_count_target_passes_when_ours_is_that_many_times_fewer() {
    let s = [one(Target::FewerAtLeast(3.0), true)];
    let fewer = evaluate(
        &s,
        &measured(&[
            ("a/ours", Measured::Tokens(3_000)),
            ("a/base", Measured::Tokens(9_000)),
        ]),
    )
    .unwrap();
    assert_eq!(
        (fewer[0].verdict, fewer[0].ours.as_str()),
        (Verdict::Pass, "3,000 tokens")
    );
    let more = evaluate(
        &s,
        &measured(&[
            ("a/ours", Measured::Tokens(3_001)),
            ("a/base", Measured::Tokens(9_000)),
        ]),
    )
    .unwrap();
    assert_eq!(more[0].verdict, Verdict::Fail);
    assert_eq!(s[0].target.to_string(), "≥ 3.0× fewer");
}

#[test]
fn throughput_and_time_targets_need_no_baseline() {
    let mbs = [one(Target::ThroughputAtLeast(10.0), false)];
    // 10 MB in 0.5 s is 20 MB/s; in 2 s, 5 MB/s.
    let ok = evaluate(&mbs, &measured(&[("a/ours", time(0.5))])).unwrap();
    assert_eq!(
        (ok[0].verdict, ok[0].ours.as_str()),
        (Verdict::Pass, "500 ms (20.0 MB/s)")
    );
    let slow = evaluate(&mbs, &measured(&[("a/ours", time(2.0))])).unwrap();
    assert_eq!(slow[0].verdict, Verdict::Fail);

    let ms = [one(Target::TimeAtMost(Duration::from_millis(10)), false)];
    let quick = Measured::Time {
        seconds: 0.004,
        bytes: None,
    };
    let ok = evaluate(&ms, &measured(&[("a/ours", quick)])).unwrap();
    assert_eq!(
        (ok[0].verdict, ok[0].ours.as_str()),
        (Verdict::Pass, "4.00 ms")
    );
    let late = Measured::Time {
        seconds: 0.011,
        bytes: None,
    };
    assert_eq!(
        evaluate(&ms, &measured(&[("a/ours", late)])).unwrap()[0].verdict,
        Verdict::Fail
    );
}

#[test]
fn memory_is_compared_with_the_file_size() {
    let target = Target::MemoryAtMost {
        times: 4.0,
        of: "the file",
    };
    assert_eq!(target.to_string(), "≤ 4× the file");
    let s = [one(target, true)];
    let rss = |peak| {
        measured(&[
            ("a/ours", Measured::Bytes(peak)),
            ("a/base", Measured::Bytes(100 * MB)),
        ])
    };
    let ok = evaluate(&s, &rss(300 * MB)).unwrap();
    assert_eq!(
        (ok[0].verdict, ok[0].ratio.as_str()),
        (Verdict::Pass, "3.00×")
    );
    assert_eq!(
        evaluate(&s, &rss(401 * MB)).unwrap()[0].verdict,
        Verdict::Fail
    );
}

#[test]
fn an_added_time_target_compares_the_difference_and_prints_it() {
    let s = [one(Target::AddedAtMost(Duration::from_micros(200)), true)];
    let at = |ours: f64, base: f64| {
        let pair = |seconds| Measured::Time {
            seconds,
            bytes: None,
        };
        evaluate(
            &s,
            &measured(&[("a/ours", pair(ours)), ("a/base", pair(base))]),
        )
        .unwrap()
    };
    let ok = at(150e-6, 30e-6);
    assert_eq!(
        (ok[0].verdict, ok[0].ours.as_str(), ok[0].ratio.as_str()),
        (Verdict::Pass, "150 µs (+120 µs)", "5.00×")
    );
    assert_eq!(at(240e-6, 30e-6)[0].verdict, Verdict::Fail);
    assert_eq!(s[0].target.to_string(), "≤ +200 µs added");
}

#[test]
fn a_rate_prints_calls_per_second_and_its_ratio() {
    let s = [one(Target::Info, true)];
    let rows = evaluate(
        &s,
        &measured(&[
            ("a/ours", Measured::CallsPerSecond(2_500.0)),
            ("a/base", Measured::CallsPerSecond(5_000.0)),
        ]),
    )
    .unwrap();
    assert_eq!(
        (
            rows[0].verdict,
            rows[0].ours.as_str(),
            rows[0].baseline.as_str(),
            rows[0].ratio.as_str()
        ),
        (Verdict::Info, "2,500 calls/s", "5,000 calls/s", "0.50×")
    );
}

#[test]
fn a_missing_measurement_is_named_not_skipped() {
    let s = [one(Target::RatioAtMost(1.0), true)];
    let missing = evaluate(&s, &measured(&[("a/ours", time(1.0))])).unwrap_err();
    assert_eq!(missing, vec!["a/base".to_owned()]);
    let missing = evaluate(&s, &measured(&[])).unwrap_err();
    assert_eq!(missing, vec!["a/ours".to_owned(), "a/base".to_owned()]);
}

#[test]
fn info_rows_print_their_numbers_without_a_verdict() {
    let s = [one(Target::Info, true)];
    let rows = evaluate(
        &s,
        &measured(&[("a/ours", time(3.0)), ("a/base", time(1.5))]),
    )
    .unwrap();
    assert_eq!(
        (rows[0].verdict, rows[0].ratio.as_str()),
        (Verdict::Info, "2.00×")
    );
}

#[test]
fn every_run_has_the_targets_of_the_issue() {
    for quick in [true, false] {
        let rows = all(quick, true);
        let targets = |t: fn(&Target) -> bool| rows.iter().filter(|r| t(&r.target)).count();
        assert!(targets(|t| matches!(t, Target::MemoryAtMost { .. })) == 3);
        assert!(targets(|t| matches!(t, Target::AddedAtMost(_))) == 10);
        // Issue 39: a 2026-07-28 call through --listen, its time and the proxy's CPU; the rate
        // of four clients is information.
        assert!(rows.iter().any(|r| r.ours == stateless::ROUND_TRIP_PROXIED
            && r.target == Target::AddedAtMost(Duration::from_micros(100))));
        assert!(
            rows.iter()
                .any(|r| r.ours == stateless::CPU_PROXIED && r.target == Target::RatioAtMost(2.0))
        );
        assert!(
            rows.iter()
                .any(|r| r.ours == mcp::HTTP_RATE_PROXIED && r.target == Target::Info)
        );
        assert!(targets(|t| matches!(t, Target::ThroughputAtLeast(_))) >= 1);
        assert!(
            rows.iter()
                .any(|r| r.name.starts_with("grep 100 MB") && r.target == Target::RatioAtMost(1.5))
        );
        assert!(
            rows.iter()
                .any(|r| r.name.starts_with("intercept") && r.target == Target::RatioAtMost(1.3))
        );
        assert!(rows.iter().any(
            |r| r.name.starts_with("MCP proxy: 60 MB") && r.target == Target::RatioAtMost(1.5)
        ));
        assert!(
            rows.iter()
                .any(|r| r.name.contains("(--url): 60 MB") && r.target == Target::RatioAtMost(1.5))
        );
        assert!(
            rows.iter()
                .any(|r| r.name.starts_with("MCP gateway: startup")
                    && r.target == Target::RatioAtMost(1.2))
        );
        // Issue 30: the binary and every package within their sizes, the first count measured.
        assert!(
            rows.iter()
                .any(|r| r.name.starts_with("Binary size")
                    && r.target == Target::BytesAtMost(30 * MB))
        );
        assert!(targets(|t| *t == Target::BytesAtMost(15 * MB)) == 4);
        assert!(rows.iter().any(|r| r.name.starts_with("First o200k count")
            && r.target == Target::AddedAtMost(Duration::from_millis(50))));
        // Issue 32: what counting each call in the metrics adds to a --listen round trip.
        assert!(rows.iter().any(|r| r.name.contains("(--listen --metrics)")
            && r.target == Target::AddedAtMost(Duration::from_micros(5))));
        // Issue 38: the first answer, cold and warm, of `initialize` and `server/discover`.
        let first_answer = |r: &&Scenario| {
            r.name.starts_with("MCP proxy: first answer")
                && r.target == Target::AddedAtMost(Duration::from_millis(100))
        };
        assert_eq!(rows.iter().filter(first_answer).count(), 4);
    }
    assert!(all(false, true).len() > all(true, true).len());
    // Without GNU grep the grep rows stay, with no baseline to fail against.
    assert!(
        all(true, false)
            .iter()
            .filter(|r| r.name.starts_with("grep"))
            .all(|r| r.baseline.is_none() && r.target == Target::Info)
    );
}

#[test]
fn human_time_keeps_three_significant_digits() {
    assert_eq!(human_time(1.2345), "1.23 s");
    assert_eq!(human_time(0.0456), "45.6 ms");
    assert_eq!(human_time(0.000_789), "789 µs");
    assert_eq!(human_time(0.000_000_012), "12.0 ns");
}
