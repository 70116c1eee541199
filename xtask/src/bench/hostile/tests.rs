use super::*;

#[test]
fn each_hostile_line_gives_a_time_row_and_a_memory_row() {
    let stdout = "noise\nhostile: case=grep a{99999}, 1 MB of `a` file_bytes=1000001 seconds=0.001200 peak_rss_bytes=9437184 answer=invalid_argument\nhostile: case=read, 100 MB log file_bytes=100000000 seconds=0.25 peak_rss_bytes=120000000 answer=read_too_large\n";
    let (rows, measured) = read(stdout).unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(
        rows[0].name,
        "hostile: grep a{99999}, 1 MB of `a` → invalid_argument, time"
    );
    assert_eq!(
        rows[3].name,
        "hostile: read, 100 MB log, peak memory against the file"
    );
    assert_eq!(rows[3].baseline.as_deref(), Some("hostile/1/file"));
    assert_eq!(
        measured["hostile/0/seconds"],
        Measured::Time {
            seconds: 0.0012,
            bytes: None
        }
    );
    assert_eq!(measured["hostile/1/peak_rss"], Measured::Bytes(120_000_000));
    assert_eq!(measured["hostile/1/file"], Measured::Bytes(100_000_000));
    assert!(rows.iter().all(|r| r.target == Target::Info));
}

#[test]
fn a_memory_bound_makes_the_memory_row_pass_or_fail() {
    let stdout = "hostile: case=query [paths], a 30 MB pod list file_bytes=30000000 seconds=1.2 peak_rss_bytes=331000000 answer=query_limit memory_bound=4x+256MB\nhostile: case=intercept + every tool, x file_bytes=10000000 seconds=2 peak_rss_bytes=300000000 answer=result memory_bound=4x+256MB\n";
    let (rows, measured) = read(stdout).unwrap();
    let bound = Target::MemoryWithin {
        times: 4.0,
        plus_mb: 256,
    };
    assert_eq!(rows[1].target, bound);
    assert_eq!(rows[0].target, Target::Info, "the time row stays info");
    let rows = super::super::scenarios::evaluate(&rows, &measured).unwrap();
    // 331 MB ≤ 4 × 30 MB + 256 MB; 300 MB > 4 × 10 MB + 256 MB.
    assert_eq!(rows[1].verdict, super::super::scenarios::Verdict::Pass);
    assert_eq!(rows[3].verdict, super::super::scenarios::Verdict::Fail);
    assert_eq!(
        rows[1].scenario.target.to_string(),
        "≤ 4× the input + 256 MB"
    );
}

#[test]
fn a_malformed_or_missing_line_is_an_error() {
    assert!(read("nothing").is_err());
    assert!(read("hostile: case=x file_bytes=1 seconds=a peak_rss_bytes=1 answer=y").is_err());
    assert!(read("hostile: case=x seconds=1").is_err());
    assert!(
        read("hostile: case=x file_bytes=1 seconds=1 peak_rss_bytes=1 answer=y memory_bound=4x")
            .is_err()
    );
}
