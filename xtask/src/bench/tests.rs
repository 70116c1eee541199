use super::*;

#[test]
fn the_json_memory_line_gives_both_figures() {
    let figures = json_memory("noise\njson_memory: file_bytes=100 peak_rss_bytes=250\n").unwrap();
    assert_eq!(figures[PEAK_RSS], Measured::Bytes(250));
    assert_eq!(figures[PEAK_RSS_FILE], Measured::Bytes(100));
    assert!(json_memory("nothing here").is_err());
    assert!(json_memory("json_memory: file_bytes=x peak_rss_bytes=1").is_err());
    assert!(json_memory("json_memory: file_bytes=1").is_err());
}

#[test]
fn the_mcp_proxy_line_gives_every_figure_of_the_proxy_rows() {
    let line = "mcp_proxy: calls=2000 direct_round_trip_ns=30000 proxy_round_trip_ns=150000 \
                    result_bytes=60000000 samples=1 after_last_byte_ns=3000000000 \
                    count_write_ns=3300000000 request_to_pointer_ns=3100000000 \
                    request_to_result_directly_ns=110000000 peak_rss_bytes=260000000 \
                    small_result_bytes=200000 small_peak_rss_bytes=80000000 \
                    http_calls=2000 http_direct_round_trip_ns=200000 \
                    http_proxy_round_trip_ns=450000 http_metrics_round_trip_ns=452000 http_clients=4 http_burst_calls=4000 \
                    http_direct_burst_ns=800000000 http_proxy_burst_ns=2000000000 \
                    url_after_last_byte_ns=2000000000 url_count_write_ns=1800000000 \
                    url_peak_rss_bytes=150000000 gateway_tools_tokens=3000 \
                    proxies_tools_tokens=14000 gateway_round_trip_ns=160000 \
                    gateway_proxy_round_trip_ns=150000 gateway_startup_ns=420000000 \
                    gateway_startup_one_ns=400000000 first_initialize_direct_ns=310000000 \
                    first_initialize_cold_ns=330000000 first_initialize_warm_ns=320000000 \
                    first_discover_direct_ns=305000000 first_discover_cold_ns=335000000 \
                    first_discover_warm_ns=325000000";
    let figures = mcp_proxy(&format!("noise\n{line}\n")).unwrap();
    assert_eq!(figures.len(), 29);
    assert_eq!(
        figures[mcp::FIRST_ANSWER[1][1]],
        Measured::Time {
            seconds: 0.335,
            bytes: None
        }
    );
    assert_eq!(figures[mcp::GATEWAY_TOOLS], Measured::Tokens(3_000));
    assert_eq!(
        figures[mcp::HTTP_ROUND_TRIP_PROXIED],
        Measured::Time {
            seconds: 450e-6,
            bytes: None
        }
    );
    assert_eq!(
        figures[mcp::HTTP_RATE_DIRECT],
        Measured::CallsPerSecond(5_000.0)
    );
    assert_eq!(
        figures[mcp::HTTP_RATE_PROXIED],
        Measured::CallsPerSecond(2_000.0)
    );
    assert_eq!(
        figures[mcp::URL_AFTER_LAST_BYTE],
        Measured::Time {
            seconds: 2.0,
            bytes: Some(60_000_000)
        }
    );
    assert_eq!(figures[mcp::URL_PEAK_RSS], Measured::Bytes(150_000_000));
    assert_eq!(
        figures[mcp::AFTER_LAST_BYTE],
        Measured::Time {
            seconds: 3.0,
            bytes: Some(60_000_000)
        }
    );
    assert_eq!(figures[mcp::PEAK_RSS], Measured::Bytes(260_000_000));
    let every_id: Vec<String> = scenarios::all(true, true)
        .into_iter()
        .filter(|s| s.ours.starts_with("mcp_proxy/"))
        .flat_map(|s| [Some(s.ours), s.baseline].into_iter().flatten())
        .collect();
    assert!(
        every_id.iter().all(|id| figures.contains_key(id)),
        "{every_id:?}"
    );
    let without_memory = line.replace(" peak_rss_bytes=260000000", "");
    assert!(mcp_proxy(&without_memory).is_err());
    let without_url_memory = line.replace(" url_peak_rss_bytes=150000000", "");
    assert!(mcp_proxy(&without_url_memory).is_err());
    let without_first_answer = line.replace(" first_discover_warm_ns=325000000", "");
    assert!(mcp_proxy(&without_first_answer).is_err());
    let burst_of_nothing = line.replace("http_proxy_burst_ns=2000000000", "http_proxy_burst_ns=0");
    assert!(mcp_proxy(&burst_of_nothing).is_err());
}

#[test]
fn options_take_quick_and_refuse_the_rest() {
    let quick = |args: &[&str]| match crate::tests::parse(args) {
        Ok(Some(crate::Task::Bench(options))) => Ok(options.quick),
        Ok(other) => panic!("{args:?} is not bench: {other:?}"),
        Err(error) => Err(error),
    };
    assert!(quick(&["bench", "--quick"]).unwrap());
    assert!(!quick(&["bench"]).unwrap());
    let error = quick(&["bench", "--fast"]).unwrap_err();
    assert_eq!(error.kind(), clap::error::ErrorKind::UnknownArgument);
    let message = error.to_string();
    assert!(
        message.contains("--fast") && message.contains("Usage: cargo xtask bench"),
        "{message}"
    );
}
