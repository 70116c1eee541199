use super::*;

#[test]
fn an_unknown_method_is_counted_as_other() {
    assert_eq!(method_label("tools/call"), "tools/call");
    assert_eq!(method_label("x-random/4711"), "other");
}

#[test]
fn a_fresh_registry_renders_its_unlabelled_series_at_zero() {
    // A labelled family shows once it has a series; the unlabelled ones are there from the start.
    let text = Metrics::new().render();
    assert!(text.contains("overspill_sessions_open 0"), "{text}");
    assert!(
        text.contains("overspill_sessions_started_total 0"),
        "{text}"
    );
    assert!(text.contains("# HELP overspill_sessions_open "), "{text}");
}

#[test]
fn stored_results_add_their_tokens_and_bytes_under_their_server() {
    let metrics = Metrics::new();
    metrics.observe(&Event::Stored {
        server: "k8s",
        tool: "list_pods",
        tokens: 48_213,
        bytes: 190_000,
    });
    metrics.observe(&Event::Explored {
        tool: "grep",
        outcome: Outcome::Delivered { tokens: 396 },
    });
    metrics.observe(&Event::Explored {
        tool: "head",
        outcome: Outcome::Refused(overspill::budget::RefusalReason::OverBudget),
    });
    let text = metrics.render();
    assert!(
        text.contains("overspill_tokens_intercepted_total{server=\"k8s\"} 48213"),
        "{text}"
    );
    assert!(
        text.contains("overspill_stored_bytes_total{server=\"k8s\"} 190000"),
        "{text}"
    );
    assert!(
        text.contains("overspill_tool_results_total{server=\"k8s\",outcome=\"stored\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("overspill_tokens_extracted_total{tool=\"grep\"} 396"),
        "{text}"
    );
    assert!(
        text.contains("overspill_exploration_calls_total{tool=\"head\",outcome=\"over_budget\"} 1"),
        "{text}"
    );
}
