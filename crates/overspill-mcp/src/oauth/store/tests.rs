use super::*;

fn sample(url: &str) -> SignInFile {
    SignInFile {
        format: FORMAT,
        server_url: url.to_owned(),
        client_id: "client-1".to_owned(),
        client_secret: Some("client-s3cret".to_owned()),
        redirect_uri: "http://127.0.0.1:1/callback".to_owned(),
        challenge: None,
        credentials: None,
    }
}

#[test]
fn two_endpoints_of_one_host_get_two_files() {
    let store = TokenStore::at("/x");
    let a = store.file_for("https://api.example.com/a/mcp");
    let b = store.file_for("https://api.example.com/b/mcp");
    assert_ne!(a, b);
    let name = a.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("api.example.com_443-"), "{name}");
}

#[cfg(unix)]
#[test]
fn a_saved_sign_in_is_0600_in_a_0700_dir_and_reads_back() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let store = TokenStore::at(root.path().join("overspill/oauth"));
    store.save(&sample("http://127.0.0.1:9/mcp")).unwrap();
    let path = store.file_for("http://127.0.0.1:9/mcp");
    let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(store.dir()), 0o700);
    let back = store.load("http://127.0.0.1:9/mcp").unwrap().unwrap();
    assert_eq!(back.client_id, "client-1");
    assert!(store.remove("http://127.0.0.1:9/mcp").unwrap());
    assert!(!store.remove("http://127.0.0.1:9/mcp").unwrap());
}

#[test]
fn debug_output_hides_the_secret() {
    let shown = format!("{:?}", sample("http://127.0.0.1:9/mcp"));
    assert!(!shown.contains("s3cret"), "{shown}");
}

#[test]
fn a_file_of_another_format_is_refused_with_what_to_do() {
    let root = tempfile::tempdir().unwrap();
    let store = TokenStore::at(root.path());
    let mut file = sample("http://127.0.0.1:9/mcp");
    file.format = 99;
    store.save(&file).unwrap();
    let error = store.load("http://127.0.0.1:9/mcp").unwrap_err();
    assert!(matches!(error, OAuthError::Corrupt { .. }), "{error}");
    assert!(
        error.to_string().contains("overspill auth logout"),
        "{error}"
    );
}
