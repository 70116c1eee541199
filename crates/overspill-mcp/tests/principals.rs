//! `--listen` with named tokens (`--auth-tokens`): each token of the file is a principal of
//! its own, a token not in it is refused, and the file read again (on SIGHUP) takes effect
//! without a restart, an invalid one leaving the table as it was. Every log event of the
//! process is captured, so the tests can show that no token or hash is ever in one.

// A test binary without libtest (`harness = false`): clippy.toml's test allowance does not reach it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;
use support::capture::{self, LOG};
use support::{fixture, harness};

use std::sync::Arc;
use std::time::Duration;

use overspill::Scratchpad;
use overspill_mcp::{Listen, ScratchFactory, Tokens};
use serde_json::json;
use sha2::{Digest, Sha256};

use harness::*;

/// The tokens the cases use, by principal.
const ALICE: (&str, &str) = ("alice", "alice-s3cret-token-0001");
const BOB: (&str, &str) = ("bob", "bob-s3cret-token-0002");
const CAROL: (&str, &str) = ("carol", "carol-s3cret-token-0003");
const SHARED_TOKEN: &str = "shared-s3cret-token-0004";

/// A proxy listening on a loopback port with a tokens file it was given.
struct Proxy {
    url: String,
    tokens: Tokens,
    http: reqwest::Client,
    _dir: tempfile::TempDir,
    stop: tokio::sync::oneshot::Sender<()>,
    served: tokio::task::JoinHandle<Result<(), overspill_mcp::ProxyError>>,
}

/// The line of `(name, token)` in a tokens file.
fn line((name, token): (&str, &str)) -> String {
    format!("{name} sha256:{}", hash(token))
}

fn hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// A proxy whose `--auth-tokens` file holds `lines`, with `shared` as its `--auth-token-env`
/// token too when given.
async fn start(lines: &[String], shared: Option<&str>) -> Proxy {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tokens");
    std::fs::write(&file, lines.join("\n")).unwrap();
    let tokens = Tokens::load(&file).unwrap();
    let mut listen = Listen::default();
    listen.auth_tokens = Some(tokens.clone());
    listen.auth_token = shared.map(str::to_owned);
    let base = dir.path().join("sessions");
    let factory: ScratchFactory = Arc::new(move |scratch_for: &overspill_mcp::ScratchFor| {
        let pad = Scratchpad::builder()
            .scratchpad_dir(base.join(&scratch_for.storage))
            .context_window(128_000)
            .build()
            .map_err(|error| error.to_string())?;
        Ok(Arc::new(pad) as Arc<dyn overspill_mcp::Scratch>)
    });
    let harness::Served { url, stop, served } =
        harness::serve_on_loopback(listen, fixture_options(), factory).await;
    let _ = rustls::crypto::ring::default_provider().install_default();
    Proxy {
        url,
        tokens,
        http: reqwest::Client::new(),
        _dir: dir,
        stop,
        served,
    }
}

impl Proxy {
    /// The status of an `initialize` that carries `token` as its bearer (none: no header).
    async fn initialize(&self, token: Option<&str>) -> u16 {
        let mut request = self
            .http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "principals-test", "version": "0"}}})
                .to_string(),
            );
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = tokio::time::timeout(Duration::from_secs(60), request.send())
            .await
            .unwrap()
            .unwrap();
        response.status().as_u16()
    }

    /// Rewrites the tokens file with `lines`.
    fn write(&self, lines: &[String]) {
        std::fs::write(self.tokens.path(), lines.join("\n")).unwrap();
    }

    async fn stop(self) {
        let _ = self.stop.send(());
        let _ = tokio::time::timeout(Duration::from_secs(20), self.served).await;
    }
}

/// Whether an event of the log holds `needle`.
fn logged(needle: &str) -> bool {
    LOG.lock()
        .unwrap()
        .iter()
        .any(|event| event.contains(needle))
}

/// The principals that the log says requests were admitted as.
fn admitted() -> Vec<String> {
    LOG.lock()
        .unwrap()
        .iter()
        .filter(|event| event.contains("request admitted"))
        .filter_map(|event| {
            let (_, rest) = event.split_once("principal=")?;
            Some(rest.split_whitespace().next()?.to_owned())
        })
        .collect()
}

async fn two_tokens_are_two_principals_and_each_is_admitted() {
    let proxy = start(&[line(ALICE), line(BOB)], None).await;
    let before = admitted().len();
    assert_eq!(proxy.initialize(Some(ALICE.1)).await, 200);
    assert_eq!(proxy.initialize(Some(BOB.1)).await, 200);
    assert_eq!(admitted()[before..], ["alice", "bob"]);
    assert_eq!(proxy.tokens.principal(ALICE.1).unwrap().name(), "alice");
    assert_eq!(proxy.tokens.principal(BOB.1).unwrap().name(), "bob");
    proxy.stop().await;
}

async fn a_token_not_in_the_file_is_refused_with_401() {
    let proxy = start(&[line(ALICE)], None).await;
    assert_eq!(proxy.initialize(None).await, 401, "no token");
    assert_eq!(
        proxy.initialize(Some(BOB.1)).await,
        401,
        "a token not in the file"
    );
    let the_hash = format!("sha256:{}", hash(ALICE.1));
    assert_eq!(
        proxy.initialize(Some(&the_hash)).await,
        401,
        "the hash of a token, given as a token"
    );
    assert_eq!(proxy.initialize(Some(ALICE.1)).await, 200);
    proxy.stop().await;
}

async fn with_the_shared_token_too_either_admits_each_as_its_principal() {
    let proxy = start(&[line(ALICE)], Some(SHARED_TOKEN)).await;
    let before = admitted().len();
    assert_eq!(proxy.initialize(Some(SHARED_TOKEN)).await, 200);
    assert_eq!(proxy.initialize(Some(ALICE.1)).await, 200);
    assert_eq!(proxy.initialize(Some(BOB.1)).await, 401);
    assert_eq!(admitted()[before..], ["shared", "alice"]);
    proxy.stop().await;
}

async fn an_edited_file_takes_effect_on_reload_without_a_restart() {
    let proxy = start(&[line(ALICE), line(BOB)], None).await;
    assert_eq!(proxy.initialize(Some(BOB.1)).await, 200);
    proxy.write(&[line(ALICE), line(CAROL)]);
    assert_eq!(proxy.tokens.reload().unwrap(), 2);
    assert_eq!(proxy.initialize(Some(BOB.1)).await, 401, "bob was removed");
    assert_eq!(
        proxy.initialize(Some(CAROL.1)).await,
        200,
        "carol was added"
    );
    assert_eq!(proxy.initialize(Some(ALICE.1)).await, 200);
    proxy.stop().await;
}

async fn an_invalid_file_keeps_the_table_read_before() {
    let proxy = start(&[line(ALICE)], None).await;
    proxy.write(&[line(ALICE), line(("alice", CAROL.1))]);
    let refused = proxy.tokens.reload().unwrap_err().to_string();
    assert!(refused.contains("line 2"), "{refused}");
    assert_eq!(proxy.initialize(Some(ALICE.1)).await, 200);
    assert_eq!(proxy.initialize(Some(CAROL.1)).await, 401);
    proxy.stop().await;
}

/// Sends SIGHUP to this process.
fn hang_up() {
    let sent = std::process::Command::new("kill")
        .args(["-HUP", &std::process::id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// Fails with `what` when 30 s have passed since `since`; else waits a little.
async fn wait(since: tokio::time::Instant, what: &str) {
    assert!(since.elapsed() < Duration::from_secs(30), "{what}");
    tokio::time::sleep(Duration::from_millis(50)).await;
}

async fn sighup_reloads_the_file_and_a_refused_one_is_a_warning_that_keeps_the_old_table() {
    let proxy = start(&[line(ALICE)], None).await;
    proxy.tokens.reload_on_hangup().unwrap();
    proxy.write(&[line(ALICE), line(BOB)]);
    hang_up();
    let since = tokio::time::Instant::now();
    while proxy.initialize(Some(BOB.1)).await != 200 {
        wait(since, "bob is not admitted after SIGHUP").await;
    }
    assert!(logged("reloaded the tokens file"));

    // Not hex: refused, and what was read before stays.
    proxy.write(&[line(BOB), format!("carol sha256:{}", CAROL.1)]);
    hang_up();
    let since = tokio::time::Instant::now();
    while !logged("the tokens file is refused") {
        wait(since, "no warning about the refused file").await;
    }
    assert_eq!(proxy.initialize(Some(ALICE.1)).await, 200);
    assert_eq!(proxy.initialize(Some(BOB.1)).await, 200);
    assert_eq!(proxy.initialize(Some(CAROL.1)).await, 401);
    proxy.stop().await;
}

/// Last: whatever the cases before did, no log event holds a token or its hash.
async fn no_token_or_hash_appears_in_any_log_event() {
    let log = LOG.lock().unwrap();
    assert!(!log.is_empty());
    for token in [ALICE.1, BOB.1, CAROL.1, SHARED_TOKEN] {
        let digest = hash(token);
        for event in log.iter() {
            assert!(!event.contains(token), "a token is in the log: {event}");
            assert!(!event.contains(&digest), "a hash is in the log: {event}");
            assert!(
                !event.contains(&digest[..16]),
                "a hash is in the log: {event}"
            );
        }
    }
}

cases!(
    two_tokens_are_two_principals_and_each_is_admitted,
    a_token_not_in_the_file_is_refused_with_401,
    with_the_shared_token_too_either_admits_each_as_its_principal,
    an_edited_file_takes_effect_on_reload_without_a_restart,
    an_invalid_file_keeps_the_table_read_before,
    sighup_reloads_the_file_and_a_refused_one_is_a_warning_that_keeps_the_old_table,
    no_token_or_hash_appears_in_any_log_event,
);

fn main() {
    capture::install();
    main_with("principals", CASES, fixture::run);
}
