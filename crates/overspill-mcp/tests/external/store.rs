//! Issue 41's acceptance with real outside parts: three `overspill mcp --listen --store s3://…`
//! instances, each with a cache directory of its own, sharing a real S3-compatible store
//! (Garage, tests/fixtures/store/garage.py) behind Debian's `haproxy` balancing round robin
//! (no affinity for 2026-07-28 requests, affinity on `Mcp-Session-Id` for 2025 sessions); the
//! official Python SDK 2.x client at 2026-07-28 (tests/fixtures/store/team_client.py) and plain
//! HTTP requests, which see which instance answered, as the clients
//! (docs/team.md#a-shared-store).
//!
//! Beside the team tests' parts they need Garage: `bash tests/fixtures/store/prepare.sh`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::team::{
    Http, Outside, Team, file_of, instances_behind_haproxy, on_each_of, outside, principal_dir,
    token,
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

/// `s1`, `s2`, `s3`: `overspill mcp --listen --store s3://<bucket>/team --auth-tokens TOKENS`
/// with `flags`, each caching in a directory of its own under the team's (`cache-s1`, …), behind
/// haproxy; returns the frontend's address.
fn three_instances(
    team: &mut Team,
    outside: &Outside,
    garage: &Garage,
    tokens: &Path,
    flags: &[&str],
) -> String {
    let store = format!("s3://{}/team", garage.bucket);
    let tokens = tokens
        .to_str()
        .unwrap_or_else(|| panic!("{} is not UTF-8", tokens.display()))
        .to_owned();
    let instances = ["s1", "s2", "s3"].map(|name| {
        let cache = cache_dir(team, name);
        let mut own = vec![
            "--auth-tokens",
            &tokens,
            "--store",
            &store,
            "--max-sessions",
            "64",
        ];
        own.extend_from_slice(flags);
        let mut command = outside.gateway(&cache, &own);
        garage.environment(&mut command);
        (name, command)
    });
    instances_behind_haproxy(team, outside, instances)
}

/// Starts Debian's redis-server (tests/fixtures/team/prepare.sh) on a free loopback port, with
/// nothing saved to disk; its `redis://` URL.
fn redis(team: &mut Team, outside: &Outside) -> String {
    let port = crate::team::free_port();
    let dir = team.dir.path().join("redis");
    std::fs::create_dir_all(&dir).unwrap_or_else(|error| panic!("no redis directory: {error}"));
    let mut command = Command::new(outside.team.join("bin/redis-server"));
    command
        .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
        .args(["--save", "", "--appendonly", "no", "--dir"])
        .arg(&dir);
    team.start("redis", command, true);
    let address = format!("127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(&address).is_err() {
        assert!(
            Instant::now() < deadline,
            "redis-server did not listen within 30 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    format!("redis://{address}/0")
}

/// The value of `key` in the Redis at `url` (a plain RESP `GET` over TCP).
fn redis_get(url: &str, key: &str) -> Option<u64> {
    use std::io::{BufRead, BufReader};
    let address = url
        .trim_start_matches("redis://")
        .trim_end_matches("/0")
        .to_owned();
    let mut stream = std::net::TcpStream::connect(&address)
        .unwrap_or_else(|error| panic!("cannot reach redis at {address}: {error}"));
    write!(stream, "*2\r\n$3\r\nGET\r\n${}\r\n{key}\r\n", key.len())
        .unwrap_or_else(|error| panic!("cannot ask redis: {error}"));
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader
        .read_line(&mut line)
        .unwrap_or_else(|error| panic!("no answer from redis: {error}"));
    if line.starts_with("$-1") {
        return None;
    }
    let mut value = String::new();
    reader
        .read_line(&mut value)
        .unwrap_or_else(|error| panic!("no value from redis: {error}"));
    Some(
        value
            .trim()
            .parse()
            .unwrap_or_else(|error| panic!("not a number in redis: {value:?} ({error})")),
    )
}

/// What an exploration answer's footer says: what the call charged and what the agent's budget
/// has left (`| ~167 tokens | ~1,897,833 of 1,900,000 budget tokens left ---`).
fn footer(text: &str) -> (u64, u64) {
    let number = |words: &str| -> u64 {
        words
            .trim()
            .trim_start_matches('~')
            .replace(',', "")
            .parse()
            .unwrap_or_else(|error| panic!("not a number in the footer ({error}): {text}"))
    };
    let last = text.trim_end().lines().last().unwrap_or_default();
    let parts: Vec<&str> = last.split(" | ").collect();
    let [.., charged, left] = parts.as_slice() else {
        panic!("no footer in: {text}");
    };
    let charged = charged.trim_end_matches(" tokens");
    let left = left.split(" of ").next().unwrap_or_default();
    (number(charged), number(left))
}

fn cache_dir(team: &Team, instance: &str) -> PathBuf {
    team.dir.path().join(format!("cache-{instance}"))
}

/// Runs team_client.py against `url` as the holder of `token`; its one line of JSON.
fn python_client(outside: &Outside, url: &str, token: &str, args: &[&str]) -> Value {
    let mut all = vec![url, token];
    all.extend_from_slice(args);
    python_fixture(outside, "team_client.py", &all)
}

/// Runs `tests/fixtures/store/<script>` with `args` in the MCP tests' Python; the one line of
/// JSON it printed.
fn python_fixture(outside: &Outside, script: &str, args: &[&str]) -> Value {
    let output = Command::new(&outside.python)
        .arg(outside.root.join("tests/fixtures/store").join(script))
        .args(args)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {script}: {error}"));
    assert!(
        output.status.success(),
        "{script} {args:?}: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|error| panic!("{script} printed {stdout:?}: {error}"))
}

/// Issue 41: three instances, three cache directories, one S3 store, round robin without
/// affinity. A pointer alice's Python SDK 2.x client gets through one instance is explored
/// through the other two (each fetches it from the store: it is in no directory of theirs);
/// the instance that stored it is killed mid-run and the pointer is still explored, by the SDK
/// client and on each survivor; `overspill ls --store` lists it among alice's results; bob,
/// another principal, gets `not_found` for the same file on every instance.
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
    let address = three_instances(&mut team, &outside, &garage, &tokens, &[]);
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

    // `overspill ls --store` lists alice's results from the bucket, and not bob's.
    for (principal, listed) in [("alice", true), ("bob", false)] {
        let mut ls = Command::new(&outside.overspill);
        ls.args(["ls", "--store", &format!("s3://{}/team", garage.bucket)])
            .args(["--principal", principal, "--json"]);
        garage.environment(&mut ls);
        let output = ls
            .output()
            .unwrap_or_else(|error| panic!("cannot run overspill ls: {error}"));
        assert!(output.status.success(), "overspill ls: {output:?}");
        let records: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|error| panic!("overspill ls --json printed no JSON: {error}"));
        let files: Vec<&str> = records
            .as_array()
            .unwrap_or_else(|| panic!("not an array: {records}"))
            .iter()
            .filter_map(|record| record["file"].as_str())
            .collect();
        assert_eq!(
            files.contains(&file.as_str()),
            listed,
            "ls of {principal}: {files:?}"
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
    let address = three_instances(&mut team, &outside, &garage, &tokens, &[]);
    let client = Http::new(format!("http://{address}/mcp"));

    let opened = client.open_session(&alice);
    let (session, home) = (opened.session, opened.home);
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

    let reopened = client.open_session(&alice);
    let (again, new_home) = (reopened.session, reopened.home);
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

/// Issue 41: one budget per agent across three instances on three caches, kept in Redis
/// (`--budget-store`). Eight Python SDK 2.x clients of one agent (alice's own) make 400
/// exploration calls at once through round-robin HAProxy. No update is lost: what the budget
/// has left fell, from a call before them to a call after them, by exactly what every call
/// charged; the ledger in Redis holds the sum of every charge; and the usage events the three
/// instances log when they stop add up to it. Each call's footer states exactly what the
/// agent had left once its charge was made, counting the other instances' charges.
#[test]
fn eight_clients_of_one_agent_on_three_instances_share_one_budget_and_lose_no_update() {
    let Some(outside) = outside("one budget across instances, in redis") else {
        return;
    };
    let started_at = Instant::now();
    let mut team = Team::new();
    let garage = garage(&mut team, &outside);
    let redis = redis(&mut team, &outside);
    let tokens = team.dir.path().join("tokens");
    let alice = token(&outside, "alice", &tokens);
    let flags = [
        "--budget-store",
        redis.as_str(),
        "--context-window",
        "2000000",
        "--log-format",
        "json",
    ];
    let address = three_instances(&mut team, &outside, &garage, &tokens, &flags);
    let url = format!("http://{address}/mcp");
    let client = Http::new(url.clone());

    let file = file_of(client.call(&alice, "big", json!({"megabytes": 1})).text());
    let first = footer(
        client
            .call(&alice, "head", json!({"file": file, "lines": 2}))
            .text(),
    );
    let ran = python_eight(&outside, &url, &alice, &file, 8, 400);
    let mut calls: Vec<(u64, u64)> = ran["calls"]
        .as_array()
        .unwrap_or_else(|| panic!("no calls: {ran}"))
        .iter()
        .map(|call| {
            let number = |i: usize| call[i].as_u64().unwrap_or_else(|| panic!("{call}"));
            (number(0), number(1))
        })
        .collect();
    assert_eq!(calls.len(), 400);
    let last = footer(
        client
            .call(&alice, "head", json!({"file": file, "lines": 3}))
            .text(),
    );

    let charged: u64 = calls.iter().map(|(charged, _)| charged).sum::<u64>() + last.0;
    assert_eq!(
        first.1 - last.1,
        charged,
        "the budget left fell by {} over 401 calls that charged {charged}",
        first.1 - last.1
    );
    let everything = first.0 + charged;
    let key = format!("overspill/{}/budgets/principal", principal_storage("alice"));
    assert_eq!(
        redis_get(&redis, &key),
        Some(everything),
        "the ledger in redis"
    );
    // Each footer states what was left once its own charge was made, counting every other
    // instance's: in the order the ledger took the charges (what was left, falling), each
    // figure is the one before less this call's charge.
    calls.sort_by_key(|&(_, left)| std::cmp::Reverse(left));
    let mut before = first.1;
    for (charged, left) in calls {
        assert_eq!(
            before.checked_sub(charged),
            Some(left),
            "a call that charged {charged} says {left} are left; the charge before it left \
             {before}"
        );
        before = left;
    }
    assert_eq!(before - last.0, last.1, "the call after them");

    // Each instance logs its share when the agent's context ends there: on its stop.
    let mut logged = 0;
    for name in ["s1", "s2", "s3"] {
        team.terminate(name);
        let status = team.wait(name, Instant::now() + Duration::from_secs(60));
        assert!(status.success(), "{name} stopped with {status}");
        logged += extracted(&team.log(name));
    }
    assert_eq!(logged, everything, "the usage events' tokens_extracted");
    let _ = writeln!(
        std::io::stderr(),
        "402 exploration calls of one agent over three instances charged {everything} tokens, \
         all of them in the ledger and the usage events; {:.1} s in all",
        started_at.elapsed().as_secs_f64()
    );
}

/// The relative directory of a principal's results (`principals/<first 32 hex digits of the
/// SHA-256 of the name>`), which the budget's key follows.
fn principal_storage(name: &str) -> String {
    let dir = principal_dir(Path::new(""), name);
    dir.to_str()
        .unwrap_or_else(|| panic!("not UTF-8: {}", dir.display()))
        .to_owned()
}

/// The sum of `tokens_extracted` over the usage events of a `--log-format json` log.
fn extracted(log: &str) -> u64 {
    log.lines()
        .filter(|line| line.contains("overspill::usage"))
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|event| {
            let fields = event.get("fields").unwrap_or(&event);
            fields["tokens_extracted"].as_u64()
        })
        .sum()
}

/// Runs eight_clients.py: `clients` clients of `token`'s agent, `calls` calls in all.
fn python_eight(
    outside: &Outside,
    url: &str,
    token: &str,
    file: &str,
    clients: usize,
    calls: usize,
) -> Value {
    let (clients, calls) = (clients.to_string(), calls.to_string());
    python_fixture(
        outside,
        "eight_clients.py",
        &[url, token, file, &clients, &calls],
    )
}

/// Issue 41's bad input: a store that cannot be reached, credentials it refuses, a bucket it
/// does not have. Each instance starts and says, on stderr, what is wrong in the store's own
/// words; its `/readyz` is 503 naming the store; and a large result is answered with a notice
/// naming the store, never with a pointer to a result that was not stored.
#[test]
fn a_store_that_cannot_be_used_fails_readyz_and_every_large_result_says_so() {
    let Some(outside) = outside("a shared store that cannot be used") else {
        return;
    };
    let mut team = Team::new();
    let garage = garage(&mut team, &outside);
    let faults = [
        (
            "unreachable",
            "Connection refused",
            format!("s3://{}/team", garage.bucket),
        ),
        (
            "wrong-key",
            "AccessDenied",
            format!("s3://{}/team", garage.bucket),
        ),
        (
            "no-bucket",
            "NoSuchBucket",
            "s3://no-such-bucket/team".to_owned(),
        ),
    ];
    for (name, said, store) in faults {
        let cache = cache_dir(&team, name);
        let mut command = outside.gateway(&cache, &["--store", &store]);
        garage.environment(&mut command);
        match name {
            "unreachable" => {
                let port = crate::team::free_port();
                command.env("AWS_ENDPOINT", format!("http://127.0.0.1:{port}"));
            }
            "wrong-key" => {
                command.env("AWS_SECRET_ACCESS_KEY", "not-the-key");
            }
            _ => {}
        }
        let started = team.start(name, command, false);
        let url = crate::team::announced(&started, "serving MCP on ", name);
        let log = team.log(name);
        assert!(
            log.contains("warning: the shared store") && log.contains(said),
            "{name}: the start does not say `{said}`:\n{log}"
        );

        let address = crate::team::authority(&url);
        let (status, _, body) = crate::team::get(&address, "/readyz")
            .unwrap_or_else(|| panic!("{name}: no answer to /readyz"));
        assert_eq!(status, 503, "{name}: /readyz said {body}");
        assert!(
            body.contains(&format!("the shared store {store}")),
            "{name}: /readyz does not name the store: {body}"
        );

        let client = Http::new(url.clone());
        let answer = client.call("no-token", "big", json!({"megabytes": 1}));
        let text = answer.text();
        assert!(
            !text.contains("file: ")
                && text.contains("could not be stored")
                && text.contains(&store),
            "{name}: the large result is not a notice naming the store: {}",
            &text[..text.len().min(2000)]
        );
    }
}
