use serde_json::json;

use super::*;

#[test]
fn every_revision_reads_back_from_its_version_and_unknown_ones_are_none() {
    for revision in Revision::ALL {
        assert_eq!(Revision::parse(revision.as_str()), Some(revision));
    }
    assert_eq!(Revision::parse("2027-01-01"), None);
    assert_eq!(Revision::parse(""), None);
    assert!(Revision::R2026_07_28.is_stateless());
    assert!(!Revision::NEWEST_WITH_SESSIONS.is_stateless());
}

#[test]
fn a_complete_result_says_so_only_in_2026_07_28_and_a_result_that_says_otherwise_keeps_it() {
    let result = json!({"content": []});
    assert_eq!(
        Revision::R2026_07_28.complete(result.clone())["resultType"],
        "complete"
    );
    assert_eq!(Revision::R2025_11_25.complete(result.clone()), result);
    let asking = json!({"resultType": "input_required"});
    assert_eq!(Revision::R2026_07_28.complete(asking.clone()), asking);
}

#[test]
fn a_merged_list_is_cacheable_as_the_most_conservative_of_its_sources() {
    let long_public = json!({"tools": [], "ttlMs": 60_000, "cacheScope": "public"});
    let short_public = json!({"tools": [], "ttlMs": 5_000, "cacheScope": "public"});
    let private = json!({"tools": [], "ttlMs": 90_000, "cacheScope": "private"});
    let old = json!({"tools": []});
    let merged = |sources: &[&Value]| Revision::R2026_07_28.list(json!({"tools": []}), sources);
    let both_public = merged(&[&long_public, &short_public]);
    assert_eq!(both_public["ttlMs"], 5_000);
    assert_eq!(both_public["cacheScope"], "public");
    assert_eq!(both_public["resultType"], "complete");
    let with_private = merged(&[&long_public, &private]);
    assert_eq!(with_private["ttlMs"], 60_000);
    assert_eq!(with_private["cacheScope"], "private");
    // A 2025-era server says nothing: nothing may be cached.
    let with_old = merged(&[&long_public, &old]);
    assert_eq!(with_old["ttlMs"], 0);
    assert_eq!(with_old["cacheScope"], "private");
    assert_eq!(merged(&[])["ttlMs"], 0);
    // In a 2025 session a list has no such fields.
    assert_eq!(
        Revision::R2025_06_18.list(json!({"tools": []}), &[&long_public]),
        json!({"tools": []})
    );
}

#[test]
fn param_headers_mirror_the_annotated_arguments_reached_through_properties_only() {
    let schema = json!({"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "count": {"type": "integer", "x-mcp-header": "Count"},
        "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"},
        "greeting": {"type": "string", "x-mcp-header": "Greeting"},
        "missing": {"type": "string", "x-mcp-header": "Missing"},
        "bad": {"type": "string", "x-mcp-header": "not a token"},
        "nested": {"type": "object", "properties": {
            "tenant": {"type": "string", "x-mcp-header": "Tenant"}}},
        "listed": {"type": "array", "items": {"type": "object", "properties": {
            "never": {"type": "string", "x-mcp-header": "Never"}}}},
    }});
    let arguments = json!({"region": "us-west1", "count": 42, "dry": false,
        "greeting": "Hello, 世界", "bad": "x", "nested": {"tenant": "acme"},
        "listed": [{"never": "y"}]});
    let mut headers = param_headers(&schema, &arguments);
    headers.sort();
    assert_eq!(
        headers,
        [
            ("mcp-param-count".to_owned(), "42".to_owned()),
            ("mcp-param-dry-run".to_owned(), "false".to_owned()),
            (
                "mcp-param-greeting".to_owned(),
                "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned()
            ),
            ("mcp-param-region".to_owned(), "us-west1".to_owned()),
            ("mcp-param-tenant".to_owned(), "acme".to_owned()),
        ]
    );
}

#[test]
fn a_2025_server_gets_a_request_without_the_envelope_and_with_its_progress_token() {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "t", "arguments": {"io.modelcontextprotocol/x": 1},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}, "progressToken": 7}}});
    let stripped: Value = serde_json::from_str(&without_envelope(request.to_string())).unwrap();
    assert_eq!(stripped["params"]["_meta"], json!({"progressToken": 7}));
    assert_eq!(
        stripped["params"]["arguments"],
        json!({"io.modelcontextprotocol/x": 1})
    );
    let only = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
    let stripped: Value = serde_json::from_str(&without_envelope(only.to_string())).unwrap();
    assert_eq!(stripped["params"], json!({}));
    let plain = r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
    assert_eq!(without_envelope(plain.to_owned()), plain);
}

#[test]
fn a_server_value_that_is_not_valid_is_taken_as_no_cache() {
    let odd = json!({"ttlMs": -5, "cacheScope": "everyone"});
    assert_eq!(Cache::of(&odd), Cache::UNCACHED);
}

#[test]
fn a_response_of_an_earlier_server_is_completed_in_place_for_a_2026_07_28_client() {
    let big = "x".repeat(1000);
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":3,"result": {{"content":[{{"type":"text","text":"{big}"}}],"n":1e400}}}}"#
    );
    let completed = completed_response(text.clone(), false);
    assert_eq!(
        completed,
        text.replacen(
            r#""result": {"#,
            r#""result": {"resultType":"complete","#,
            1
        )
    );
    let listed = completed_response(r#"{"jsonrpc":"2.0","id":1,"result":{ }}"#.to_owned(), true);
    let value: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(
        value["result"],
        json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private"})
    );
    // What the result says is kept; errors and text that does not parse pass.
    let said = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","ttlMs":5,"cacheScope":"public"}}"#;
    assert_eq!(completed_response(said.to_owned(), true), said);
    let error = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}"#;
    assert_eq!(completed_response(error.to_owned(), true), error);
    assert_eq!(completed_response("nope".to_owned(), true), "nope");
    assert!(is_cacheable("resources/read") && !is_cacheable("tools/call"));
}

#[test]
fn only_a_2025_11_25_client_gets_resumable_streams_with_a_priming_event() {
    for revision in Revision::ALL {
        let expected = match revision {
            Revision::R2025_11_25 => Streaming::Resumable,
            _ => Streaming::Plain,
        };
        assert_eq!(revision.streaming(), expected, "{}", revision.as_str());
    }
}

#[test]
fn a_request_for_a_stateless_server_gets_the_envelope_it_lacks_and_keeps_its_own() {
    let envelope = envelope(&json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "client", "version": "1"},
    }));
    assert_eq!(envelope[PROTOCOL_VERSION_KEY], "2026-07-28");
    assert_eq!(
        envelope[CLIENT_CAPABILITIES_KEY],
        json!({"elicitation": {}})
    );
    let bare = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_owned();
    let sent: Value =
        serde_json::from_str(&for_stateless_server(bare, &envelope).unwrap_or_default())
            .unwrap_or_default();
    assert_eq!(sent["params"]["_meta"][CLIENT_INFO_KEY]["name"], "client");
    let own = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "t", "_meta": {CLIENT_INFO_KEY: {"name": "theirs"}, "progressToken": 7}}});
    let sent: Value =
        serde_json::from_str(&for_stateless_server(own.to_string(), &envelope).unwrap_or_default())
            .unwrap_or_default();
    let meta = &sent["params"]["_meta"];
    assert_eq!(meta[CLIENT_INFO_KEY]["name"], "theirs");
    assert_eq!(meta["progressToken"], 7);
    assert_eq!(meta[PROTOCOL_VERSION_KEY], "2026-07-28");
}

#[test]
fn what_the_stateless_revision_removed_is_not_sent_to_its_servers_and_notifications_pass_bare() {
    let envelope = envelope(&json!({}));
    for removed in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"info"}}"#,
    ] {
        assert_eq!(for_stateless_server(removed.to_owned(), &envelope), None);
    }
    let cancelled =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
    assert_eq!(
        for_stateless_server(cancelled.to_owned(), &envelope).as_deref(),
        Some(cancelled)
    );
}
