use super::*;
use overspill::config::Upstreams;

fn listed(json: &str) -> Upstreams {
    Upstreams::from_mcp_json_str(json, None, &|name| {
        (name == "DOCS_KEY").then(|| "k-123".to_owned())
    })
    .unwrap()
}

#[test]
fn a_configured_command_server_runs_as_its_entry_says() {
    let listed = listed(
        r#"{"mcpServers": {"k8s": {"command": "kubectl-mcp-server", "args": ["--read-only"],
            "env": {"KUBECONFIG": "/etc/kube"}, "cwd": "/srv"}}}"#,
    );
    let upstream = listed.get("k8s").unwrap();
    let server = Server::configured(upstream, |_| -> Result<Remote, ProxyError> {
        unreachable!("a command server has no endpoint")
    })
    .unwrap();
    let config::Transport::Command(command) = &upstream.transport else {
        unreachable!()
    };
    assert_eq!(
        server,
        Server::new("k8s", Upstream::Command(command.clone()))
    );
    assert_eq!(server.log, None);
}

#[test]
fn a_configured_remote_server_is_the_endpoint_the_host_makes_of_its_entry() {
    let listed = listed(
        r#"{"mcpServers": {"docs": {"type": "http", "url": "https://docs.example.com/mcp",
            "headers": {"X-Api-Key": "${DOCS_KEY}"}, "oauth": true}}}"#,
    );
    let mut seen = None;
    let server = Server::configured(listed.get("docs").unwrap(), |http| {
        seen = Some(http.clone());
        Remote::try_from(http)
    })
    .unwrap();
    let expected = Remote::new("https://docs.example.com/mcp")
        .unwrap()
        .with_header("X-Api-Key", "k-123")
        .unwrap();
    assert_eq!(server, Server::new("docs", Upstream::Http(expected)));
    // The host is handed the whole entry, its wish to sign in included.
    let seen = seen.unwrap();
    assert!(seen.oauth);
    assert_eq!(seen.headers, [("X-Api-Key".to_owned(), "k-123".to_owned())]);
}

#[test]
fn a_remote_server_the_host_cannot_make_is_the_hosts_error() {
    let listed = listed(r#"{"mcpServers": {"docs": {"url": "https://docs.example.com/mcp"}}}"#);
    let made = Server::configured(listed.get("docs").unwrap(), |_| {
        Err::<Remote, _>("no sign-in for you")
    });
    assert_eq!(made, Err("no sign-in for you"));
}

#[test]
fn a_broken_entry_is_a_server_that_never_starts_and_says_why() {
    let listed = listed(
        r#"{"mcpServers": {"github": {"command": "github-mcp", "env": {"T": "${GITHUB_TOKEN}"}}}}"#,
    );
    let broken = listed.broken().next().unwrap();
    let server = Server::from(broken);
    assert_eq!(server.name, "github");
    assert_eq!(server.log, None);
    assert_eq!(server.upstream, Upstream::Invalid(broken.error.to_string()));
    assert!(
        server.label().contains("cannot be started from"),
        "{}",
        server.label()
    );
}
