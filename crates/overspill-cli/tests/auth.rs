//! `overspill auth login|status|logout` as a subprocess, with its configuration dir in a
//! temporary `XDG_CONFIG_HOME`. (The whole sign-in against an authorization server is in
//! overspill-mcp's `oauth` tests and the conformance suite's `auth/*` scenarios.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};

use overspill_mcp::oauth::TokenStore;

const URL: &str = "http://127.0.0.1:9/mcp";
const ACCESS: &str = "access-s3cret-in-the-file";
const REFRESH: &str = "refresh-s3cret-in-the-file";

fn overspill(config: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_overspill"))
        .args(args)
        .env("XDG_CONFIG_HOME", config)
        .env("HOME", config)
        .output()
        .expect("the overspill binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// A sign-in as `overspill auth login` writes it.
fn plant_sign_in(config: &Path) {
    let store = TokenStore::at(config.join("overspill/oauth"));
    let file = store.file_for(URL);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let sign_in = serde_json::json!({
        "format": 1,
        "server_url": URL,
        "client_id": "client-7",
        "redirect_uri": "http://127.0.0.1:5555/callback",
        "credentials": {
            "client_id": "client-7",
            "token_response": {"access_token": ACCESS, "token_type": "bearer",
                               "expires_in": 3600, "refresh_token": REFRESH},
            "granted_scopes": ["mcp:read"],
            "token_received_at": now
        }
    });
    std::fs::write(&file, sign_in.to_string()).unwrap();
}

#[test]
fn auth_status_shows_a_sign_in_without_its_tokens_and_logout_forgets_it() {
    let config = tempfile::tempdir().unwrap();
    plant_sign_in(config.path());
    let status = overspill(config.path(), &["auth", "status"]);
    assert!(status.status.success(), "{}", text(&status.stderr));
    let shown = text(&status.stdout);
    assert!(
        shown.contains(URL) && shown.contains("client client-7"),
        "{shown}"
    );
    assert!(shown.contains("scopes mcp:read"), "{shown}");
    assert!(shown.contains("renewed automatically"), "{shown}");
    assert!(
        !shown.contains(ACCESS) && !shown.contains(REFRESH),
        "{shown}"
    );

    let one = overspill(config.path(), &["auth", "status", "--url", URL]);
    assert!(one.status.success());
    assert!(text(&one.stdout).contains("access token expires in"));

    let logout = overspill(config.path(), &["auth", "logout", "--url", URL]);
    assert!(logout.status.success(), "{}", text(&logout.stderr));
    assert!(text(&logout.stdout).contains("signed out of"));
    let after = overspill(config.path(), &["auth", "status", "--url", URL]);
    assert_eq!(after.status.code(), Some(1));
    assert!(
        text(&after.stdout).contains(&format!("overspill auth login --url {URL}")),
        "{}",
        text(&after.stdout)
    );
}

#[test]
fn auth_logout_all_removes_every_sign_in() {
    let config = tempfile::tempdir().unwrap();
    plant_sign_in(config.path());
    let logout = overspill(config.path(), &["auth", "logout", "--all"]);
    assert!(logout.status.success());
    let status = overspill(config.path(), &["auth", "status"]);
    assert!(
        text(&status.stdout).contains("no sign-ins"),
        "{}",
        text(&status.stdout)
    );
}

#[test]
fn auth_logout_needs_a_url_or_all() {
    let config = tempfile::tempdir().unwrap();
    let logout = overspill(config.path(), &["auth", "logout"]);
    assert_eq!(logout.status.code(), Some(2));
}

#[test]
fn auth_login_with_a_url_that_is_not_http_is_a_usage_error() {
    let config = tempfile::tempdir().unwrap();
    let login = overspill(
        config.path(),
        &["auth", "login", "--url", "ftp://host/mcp", "--no-browser"],
    );
    assert_eq!(login.status.code(), Some(2));
    assert!(text(&login.stderr).contains("http:// or https://"));
}

#[test]
fn auth_login_to_a_server_that_is_not_there_says_so() {
    let config = tempfile::tempdir().unwrap();
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    let login = overspill(
        config.path(),
        &[
            "auth",
            "login",
            "--url",
            "http://127.0.0.1:1/mcp",
            "--no-browser",
        ],
    );
    assert_eq!(login.status.code(), Some(1));
    let said = text(&login.stderr);
    assert!(
        said.contains("cannot reach http://127.0.0.1:1/mcp"),
        "{said}"
    );
    assert!(
        !config.path().join("overspill/oauth").exists(),
        "nothing stored"
    );
}

#[test]
fn mcp_oauth_is_for_url_servers_only() {
    let config = tempfile::tempdir().unwrap();
    let run = overspill(config.path(), &["mcp", "--oauth", "--", "some-server"]);
    assert_eq!(run.status.code(), Some(2));
}
