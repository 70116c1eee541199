use super::*;

#[test]
fn the_default_server_name_is_the_commands_file_stem() {
    assert_eq!(default_name("/opt/bin/k8s-server.py"), "k8s-server");
    assert_eq!(default_name("npx"), "npx");
}

#[test]
fn the_default_name_of_a_remote_server_is_its_host() {
    assert_eq!(
        url_name("https://api.example.com:8443/mcp/"),
        "api.example.com"
    );
    assert_eq!(url_name("http://user@127.0.0.1/mcp"), "127.0.0.1");
}

/// `overspill mcp` with `args`, as clap reads them.
fn mcp_args(args: &[&str]) -> McpArgs {
    #[derive(clap::Parser)]
    struct Mcp {
        #[command(flatten)]
        args: McpArgs,
    }
    <Mcp as clap::Parser>::try_parse_from(std::iter::once("mcp").chain(args.iter().copied()))
        .unwrap()
        .args
}

#[test]
fn the_url_flags_and_a_servers_file_entry_make_the_same_remote_server() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("servers.json");
    std::fs::write(
        &file,
        r#"{"mcpServers": {"docs": {"url": "https://docs.example.com/mcp",
            "headers": {"X-Team": "search"}}}}"#,
    )
    .unwrap();
    let flags = options(&mcp_args(&[
        "--name",
        "docs",
        "--url",
        "https://docs.example.com/mcp",
        "--header",
        "X-Team: search",
    ]))
    .unwrap();
    let servers_file = options(&mcp_args(&[
        "--servers",
        file.to_str().unwrap(),
        "--name",
        "docs",
    ]))
    .unwrap();
    assert_eq!(flags.servers, servers_file.servers);
    assert!(matches!(flags.servers[0].upstream, Upstream::Http(_)));
}

#[test]
fn a_gateways_entry_that_cannot_be_reached_is_a_server_that_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("servers.json");
    std::fs::write(
        &file,
        r#"{"mcpServers": {
            "k8s": {"command": "kubectl-mcp-server"},
            "docs": {"url": "https://docs.example.com/mcp", "headers": {"X-Key": "a\nb"}},
            "github": {"command": "github-mcp", "env": {"T": "${OVERSPILL_TEST_SURELY_UNSET}"}}
        }}"#,
    )
    .unwrap();
    let gateway = options(&mcp_args(&["--servers", file.to_str().unwrap()])).unwrap();
    let names: Vec<&str> = gateway.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["k8s", "docs", "github"]);
    assert!(matches!(gateway.servers[0].upstream, Upstream::Command(_)));
    let Upstream::Invalid(docs) = &gateway.servers[1].upstream else {
        panic!("{:?}", gateway.servers[1]);
    };
    assert!(docs.contains("invalid --header \"X-Key\""), "{docs}");
    let Upstream::Invalid(github) = &gateway.servers[2].upstream else {
        panic!("{:?}", gateway.servers[2]);
    };
    assert!(github.contains("OVERSPILL_TEST_SURELY_UNSET"), "{github}");
}
