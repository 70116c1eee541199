use super::*;
use proptest::prelude::*;

#[test]
fn sse_rendering_is_exact() {
    let event = ScratchpadUsage::new("main", 48_213, 3_960);
    assert_eq!(
        event.to_sse(),
        "event: aura.scratchpad_usage\n\
             data: {\"agent_id\":\"main\",\"tokens_intercepted\":48213,\"tokens_extracted\":3960}\n\n"
    );
}

#[test]
fn sse_rendering_with_session_and_trace_is_exact() {
    let event = ScratchpadUsage::new("analyst", 1, 0)
        .with_trace_id("t-9")
        .with_session_id("s-1");
    assert_eq!(
        event.to_sse(),
        "event: aura.scratchpad_usage\n\
             data: {\"agent_id\":\"analyst\",\"tokens_intercepted\":1,\"tokens_extracted\":0,\
             \"session_id\":\"s-1\",\"trace_id\":\"t-9\"}\n\n"
    );
}

#[test]
fn absent_session_and_trace_ids_are_omitted() {
    let json = ScratchpadUsage::new("main", 5, 6)
        .with_trace_id("t")
        .to_json();
    assert_eq!(
        json,
        r#"{"agent_id":"main","tokens_intercepted":5,"tokens_extracted":6,"trace_id":"t"}"#
    );
    assert!(!json.contains("session_id"));
}

#[test]
fn newlines_in_ids_stay_on_the_data_line() {
    let sse = ScratchpadUsage::new("a\nb", 1, 1)
        .with_session_id("x\r\ny")
        .to_sse();
    assert_eq!(sse.matches('\n').count(), 3);
    assert!(sse.contains(r#""agent_id":"a\nb""#));
}

#[test]
fn the_event_name_is_in_the_base_namespace() {
    assert_eq!(EVENT_NAME, "aura.scratchpad_usage");
    assert_eq!(
        ScratchpadUsage::new(MAIN_AGENT_ID, 1, 1).event_name(),
        EVENT_NAME
    );
    assert_eq!(MAIN_AGENT_ID, "main");
}

#[test]
fn deserialising_accepts_missing_optional_fields() {
    let event: ScratchpadUsage =
        serde_json::from_str(r#"{"agent_id":"w1","tokens_intercepted":3,"tokens_extracted":4}"#)
            .unwrap();
    assert_eq!(event, ScratchpadUsage::new("w1", 3, 4));
}

fn id() -> impl Strategy<Value = String> {
    any::<String>()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn to_json_matches_serde_and_round_trips(
        agent in id(),
        intercepted: u64,
        extracted: u64,
        session in proptest::option::of(id()),
        trace in proptest::option::of(id()),
    ) {
        let mut event = ScratchpadUsage::new(agent, intercepted, extracted);
        event.session_id = session;
        event.trace_id = trace;
        let json = event.to_json();
        prop_assert_eq!(&json, &serde_json::to_string(&event).unwrap());
        prop_assert_eq!(serde_json::from_str::<ScratchpadUsage>(&json).unwrap(), event.clone());
        let sse = event.to_sse();
        prop_assert_eq!(sse, format!("event: {EVENT_NAME}\ndata: {json}\n\n"));
        prop_assert!(!json.contains('\n'));
    }
}
