use super::*;

#[test]
fn stateless_requests_carry_their_method_name_and_version_as_headers() {
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let headers: Vec<(String, String)> = stateless_headers(call, |_| None)
        .into_iter()
        .map(|(name, value)| {
            (
                name.to_string(),
                value.to_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        headers,
        [
            ("mcp-protocol-version".to_owned(), "2026-07-28".to_owned()),
            ("mcp-method".to_owned(), "tools/call".to_owned()),
            ("mcp-name".to_owned(), "add".to_owned()),
        ]
    );
    let read = r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///a b","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let names: Vec<String> = stateless_headers(read, |_| None)
        .into_iter()
        .map(|(n, _)| n.to_string())
        .collect();
    assert_eq!(names, ["mcp-protocol-version", "mcp-method", "mcp-name"]);
    let list = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    assert_eq!(stateless_headers(list, |_| None).len(), 2);
}

#[test]
fn a_call_mirrors_the_arguments_its_tools_schema_marks_into_mcp_param_headers() {
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"region":"eu-1","n":3},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let schema = std::sync::Arc::new(serde_json::json!({"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"}, "n": {"type": "integer"}}}));
    let headers: Vec<(String, String)> = stateless_headers(call, |tool| {
        (tool == "deploy").then(|| std::sync::Arc::clone(&schema))
    })
    .into_iter()
    .map(|(name, value)| {
        (
            name.to_string(),
            value.to_str().unwrap_or_default().to_owned(),
        )
    })
    .collect();
    assert!(
        headers.contains(&("mcp-param-region".to_owned(), "eu-1".to_owned())),
        "{headers:?}"
    );
    assert_eq!(headers.len(), 4, "{headers:?}");
}

#[test]
fn requests_of_earlier_revisions_get_no_stateless_headers() {
    for text in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        "not json",
    ] {
        assert!(stateless_headers(text, |_| None).is_empty(), "{text}");
    }
}

#[test]
fn variables_in_a_header_value_are_expanded_by_the_configurations_reader() {
    if let Ok(home) = std::env::var("HOME") {
        let (name, value) = parse_header("X-Home: at ${HOME} $PATH").unwrap();
        assert_eq!(
            (name.as_str(), value),
            ("X-Home", format!("at {home} $PATH"))
        );
    }
    assert!(matches!(
        parse_header("Authorization: Bearer ${OVERSPILL_SURELY_UNSET_7F3A}"),
        Err(ProxyError::MissingEnv { ref var, .. }) if var == "OVERSPILL_SURELY_UNSET_7F3A"
    ));
    assert!(matches!(
        parse_header("X-Key: a ${"),
        Err(ProxyError::InvalidHeader { ref reason, .. }) if reason.contains("without a closing")
    ));
}

#[test]
fn a_header_spec_needs_a_name_and_a_colon() {
    assert!(matches!(
        parse_header("Authorization Bearer x"),
        Err(ProxyError::InvalidHeader { .. })
    ));
    assert_eq!(
        parse_header("X-Api-Key:  abc ").unwrap(),
        ("X-Api-Key".to_owned(), "abc".to_owned())
    );
}

#[test]
fn a_missing_variable_names_the_variable_not_a_value() {
    let error = parse_header("Authorization: Bearer ${OVERSPILL_TEST_UNSET_VAR}").unwrap_err();
    let text = error.to_string();
    assert!(text.contains("OVERSPILL_TEST_UNSET_VAR"), "{text}");
    assert!(text.contains("Authorization"), "{text}");
}

#[test]
fn debug_output_hides_header_values() {
    let remote = Remote::new("https://example.invalid/mcp")
        .unwrap()
        .with_header("Authorization", "Bearer s3cret")
        .unwrap();
    let shown = format!("{remote:?}");
    assert!(
        shown.contains("Authorization") && !shown.contains("s3cret"),
        "{shown}"
    );
}

#[test]
fn only_http_urls_are_endpoints() {
    assert!(Remote::new("ftp://host/mcp").is_err());
    assert!(Remote::new("not a url").is_err());
    assert!(Remote::new("http://127.0.0.1:8080/mcp").is_ok());
}

#[test]
fn a_configured_endpoint_is_its_url_and_its_headers_in_the_entrys_order() {
    let http = HttpServer {
        url: "https://docs.example.com/mcp".to_owned(),
        headers: vec![
            ("X-Team".to_owned(), "search".to_owned()),
            ("Authorization".to_owned(), "Bearer t".to_owned()),
        ],
        oauth: true,
    };
    let expected = Remote::new("https://docs.example.com/mcp")
        .unwrap()
        .with_header("X-Team", "search")
        .unwrap()
        .with_header("Authorization", "Bearer t")
        .unwrap();
    // `oauth` is the host's to act on: the endpoint has no sign-in of its own.
    assert_eq!(Remote::try_from(&http).unwrap(), expected);
}

#[test]
fn a_configured_endpoint_is_refused_as_the_flags_are() {
    let http = |url: &str, headers: &[(&str, &str)]| HttpServer {
        url: url.to_owned(),
        headers: headers
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect(),
        oauth: false,
    };
    // The configuration only checks the scheme; a URL with no host is the endpoint's to refuse.
    assert!(matches!(
        Remote::try_from(&http("http://", &[])),
        Err(ProxyError::InvalidUrl { url, .. }) if url == "http://"
    ));
    assert!(matches!(
        Remote::try_from(&http("https://docs.example.com/mcp", &[("X-Key", "a\nb")])),
        Err(ProxyError::InvalidHeader { name, .. }) if name == "X-Key"
    ));
}
