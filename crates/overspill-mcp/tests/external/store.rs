//! Issue 41's acceptance with real outside parts: three `overspill mcp --listen --store s3://…`
//! instances, each with a cache directory of its own, sharing a real S3-compatible store
//! (Garage, tests/fixtures/store/garage.py) behind Debian's `haproxy` balancing round robin
//! (no affinity for 2026-07-28 requests, affinity on `Mcp-Session-Id` for 2025 sessions); the
//! official Python SDK 2.x client at 2026-07-28 (tests/fixtures/store/team_client.py) and plain
//! HTTP requests, which see which instance answered, as the clients
//! (docs/team.md#a-shared-store).
//!
//! Beside the team tests' parts they need Garage: `bash tests/fixtures/store/prepare.sh`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::team::{
    Http, Outside, Team, instances_behind_haproxy, on_each_of, outside, principal_dir, token,
};

/// What `garage.py` printed: where the store is and the key that may use its bucket.
struct Garage {
    endpoint: String,
    region: String,
    bucket: String,
    access_key_id: String,
    secret_access_key: String,
}

/// Starts a one-node Garage in the team's directory (stopped with the team: its stdin closes).
fn garage(team: &mut Team, outside: &Outside) -> Garage {
    let dir = team.dir.path().join("garage");
    let mut command = Command::new("python3");
    command
        .arg(outside.root.join("tests/fixtures/store/garage.py"))
        .arg(&dir);
    let started = team.start("garage", command, true);
    // The watchdog: garage.py stops Garage when its stdin closes, so the pipe stays open.
    std::mem::forget(started.stdin);
    let stdout = started
        .stdout
        .unwrap_or_else(|| panic!("garage.py's stdout is not piped"));
    let line = stdout
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|error| {
            panic!(
                "garage.py printed nothing within 60 s ({error}); is Garage built? run `bash \
                 tests/fixtures/store/prepare.sh`"
            )
        });
    let printed: Value = serde_json::from_str(&line)
        .unwrap_or_else(|error| panic!("garage.py printed {line:?}, not JSON: {error}"));
    let field = |name: &str| {
        printed[name]
            .as_str()
            .unwrap_or_else(|| panic!("garage.py printed no {name}: {printed}"))
            .to_owned()
    };
    Garage {
        endpoint: field("endpoint"),
        region: field("region"),
        bucket: field("bucket"),
        access_key_id: field("access_key_id"),
        secret_access_key: field("secret_access_key"),
    }
}

impl Garage {
    /// `command` with the environment `object_store` reads the store's address and key from.
    fn environment(&self, command: &mut Command) {
        command
            .env("AWS_ENDPOINT", &self.endpoint)
            .env("AWS_ALLOW_HTTP", "true")
            .env("AWS_REGION", &self.region)
            .env("AWS_ACCESS_KEY_ID", &self.access_key_id)
            .env("AWS_SECRET_ACCESS_KEY", &self.secret_access_key);
    }
}

/// `s1`, `s2`, `s3`: `overspill mcp --listen --store s3://<bucket>/team --auth-tokens TOKENS`,
/// each caching in a directory of its own under the team's (`cache-s1`, …), behind haproxy;
/// returns the frontend's address.
fn three_instances(team: &mut Team, outside: &Outside, garage: &Garage, tokens: &Path) -> String {
    let store = format!("s3://{}/team", garage.bucket);
    let tokens = tokens
        .to_str()
        .unwrap_or_else(|| panic!("{} is not UTF-8", tokens.display()))
        .to_owned();
    let instances = ["s1", "s2", "s3"].map(|name| {
        let cache = cache_dir(team, name);
        let mut command = outside.gateway(
            &cache,
            &[
                "--auth-tokens",
                &tokens,
                "--store",
                &store,
                "--max-sessions",
                "64",
            ],
        );
        garage.environment(&mut command);
        (name, command)
    });
    instances_behind_haproxy(team, outside, instances)
}

fn cache_dir(team: &Team, instance: &str) -> PathBuf {
    team.dir.path().join(format!("cache-{instance}"))
}

/// The `file:` line of a pointer.
fn file_of(pointer: &str) -> String {
    pointer
        .lines()
        .find_map(|line| line.strip_prefix("file: "))
        .unwrap_or_else(|| panic!("no `file:` line in the pointer:\n{pointer}"))
        .trim()
        .to_owned()
}

/// Runs team_client.py against `url` as the holder of `token`; its one line of JSON.
fn python_client(outside: &Outside, url: &str, token: &str, args: &[&str]) -> Value {
    let output = Command::new(&outside.python)
        .arg(outside.root.join("tests/fixtures/store/team_client.py"))
        .args([url, token])
        .args(args)
        .output()
        .unwrap_or_else(|error| panic!("cannot run team_client.py: {error}"));
    assert!(
        output.status.success(),
        "team_client.py {args:?}: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|error| panic!("team_client.py printed {stdout:?}: {error}"))
}

/// Issue 41: three instances, three cache directories, one S3 store, round robin without
/// affinity. A pointer alice's Python SDK 2.x client gets through one instance is explored
/// through the other two (each fetches it from the store: it is in no directory of theirs);
/// the instance that stored it is killed mid-run and the pointer is still explored, by the SDK
/// client and on each survivor; bob, another principal, gets `not_found` for the same file on
/// every instance.
#[test]
fn three_instances_on_one_s3_store_explore_any_pointer_and_lose_nothing_when_one_dies() {
    let Some(outside) = outside("three instances sharing an S3 store behind haproxy") else {
        return;
    };
    let started_at = Instant::now();
    let mut team = Team::new();
    let garage = garage(&mut team, &outside);
    let tokens = team.dir.path().join("tokens");
    let (alice, bob) = (
        token(&outside, "alice", &tokens),
        token(&outside, "bob", &tokens),
    );
    let address = three_instances(&mut team, &outside, &garage, &tokens);
    let url = format!("http://{address}/mcp");
    let client = Http::new(url.clone());

    // Through the SDK: a pointer, then six explorations, two through each instance.
    let file = python_client(&outside, &url, &alice, &["store"])["file"]
        .as_str()
        .expect("a file name")
        .to_owned();
    let explored = python_client(&outside, &url, &alice, &["explore", &file, "3"]);
    assert_eq!(explored["explored"], 6);

    // Through plain requests, which see the instance: a pointer to another result (2 MB) made
    // through one instance…
    let made = client.call(&alice, "big", json!({"megabytes": 2}));
    let file = file_of(made.text());
    let maker = made.served_by.clone();
    let others: Vec<&str> = ["s1", "s2", "s3"]
        .into_iter()
        .filter(|name| *name != maker)
        .collect();
    for other in &others {
        let cached = principal_dir(&cache_dir(&team, other), "alice").join(&file);
        assert!(
            !cached.exists(),
            "{other} had {file} before it was asked for it"
        );
    }
    // …is explored through every instance, the other two included.
    let heads = on_each_of(3, || {
        client.call(&alice, "head", json!({"file": file, "lines": 3}))
    });
    for (instance, head) in &heads {
        assert!(
            head.text().contains("\"kind\": \"List\""),
            "head through {instance}: {}",
            head.text()
        );
    }
    for other in &others {
        let cached = principal_dir(&cache_dir(&team, other), "alice").join(&file);
        assert!(
            cached.is_file(),
            "{other} explored {file} without caching it"
        );
    }

    // The instance that stored it dies; nothing is lost.
    team.kill(&maker);
    std::thread::sleep(Duration::from_millis(600));
    let explored = python_client(&outside, &url, &alice, &["explore", &file, "2"]);
    assert_eq!(explored["explored"], 4);
    let wanted = "\"item-42\"";
    let greps = on_each_of(2, || {
        client.call(&alice, "grep", json!({"file": file, "pattern": wanted}))
    });
    for (instance, grep) in &greps {
        assert_ne!(*instance, maker, "the killed instance answered");
        assert!(
            grep.text().contains(wanted) && !grep.text().contains("\"error\""),
            "grep through {instance} after {maker} died: {}",
            grep.text()
        );
    }

    // Another principal names the same file: not found, on every instance left.
    let bobs = on_each_of(2, || {
        client.call(&bob, "head", json!({"file": file, "lines": 3}))
    });
    for (instance, answer) in &bobs {
        assert!(
            answer.text().contains("\"error\":\"not_found\""),
            "bob read alice's file through {instance}: {}",
            answer.text()
        );
    }
    let _ = writeln!(
        std::io::stderr(),
        "a pointer made through {maker} explored through {others:?}, and after {maker} died \
         through {:?}; not_found for bob; {:.1} s in all",
        greps.keys().collect::<Vec<_>>(),
        started_at.elapsed().as_secs_f64()
    );
}

/// Issue 41: a 2025-era client, kept on its instance by `Mcp-Session-Id`, stores a result in
/// its session; the instance dies; the client's next request gets 404 from another instance,
/// which never had the session; the new session it opens there explores the pointer the old
/// session got (with `--store`, a session stores in its principal's directory).
#[test]
fn a_2025_session_replaced_after_its_instance_dies_explores_the_old_pointer() {
    let Some(outside) = outside("a 2025 session behind haproxy with an S3 store") else {
        return;
    };
    let mut team = Team::new();
    let garage = garage(&mut team, &outside);
    let tokens = team.dir.path().join("tokens");
    let alice = token(&outside, "alice", &tokens);
    let address = three_instances(&mut team, &outside, &garage, &tokens);
    let client = Http::new(format!("http://{address}/mcp"));

    let (session, home) = open_session(&client, &alice);
    let big = client.in_session(
        &alice,
        &session,
        1,
        "tools/call",
        json!({"name": "big", "arguments": {"megabytes": 1}}),
    );
    assert_eq!(big.served_by, home, "the session left its instance");
    let file = file_of(big.text());

    team.kill(&home);
    std::thread::sleep(Duration::from_millis(600));
    let lost = client.in_session(&alice, &session, 2, "tools/list", json!({}));
    assert_eq!(lost.status, 404, "the lost session: {:#?}", lost.messages);

    let (again, new_home) = open_session(&client, &alice);
    assert_ne!(new_home, home);
    let wanted = "\"item-42\"";
    let found = client.in_session(
        &alice,
        &again,
        1,
        "tools/call",
        json!({"name": "grep", "arguments": {"file": file, "pattern": wanted}}),
    );
    assert!(
        found.text().contains(wanted) && !found.text().contains("\"error\""),
        "the new session on {new_home} could not explore the old pointer: {}",
        found.text()
    );
}

/// `initialize` and `notifications/initialized` at 2025-11-25: the session id and the instance
/// that holds it.
fn open_session(client: &Http, token: &str) -> (String, String) {
    let opened = client.post(
        token,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "store-test", "version": "1"}}}),
        &[],
    );
    assert_eq!(opened.status, 200, "initialize: {:#?}", opened.messages);
    let session = opened
        .session
        .clone()
        .unwrap_or_else(|| panic!("initialize handed out no session id"));
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let sent = client.post(
        token,
        &initialized,
        &[
            ("mcp-session-id", &session),
            ("mcp-protocol-version", "2025-11-25"),
        ],
    );
    assert_eq!(sent.status, 202, "notifications/initialized");
    (session, opened.served_by)
}
