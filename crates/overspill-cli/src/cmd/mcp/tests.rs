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
