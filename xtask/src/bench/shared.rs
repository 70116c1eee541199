//! What a shared store costs (issue 41): the `shared_store` bench
//! (`crates/overspill/benches/shared_store.rs`) against a real S3 store and a real Redis, which
//! this starts for it: Garage (`tests/fixtures/store/garage.py`, built by
//! `tests/fixtures/store/prepare.sh`) and Debian's redis-server (`tests/fixtures/team/prepare.sh`).
//! Without them the rows are left out of the report, loudly; `.ci/run` prepares both first.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use super::scenarios::{Measured, shared};

/// The bench's name.
pub const BENCH: &str = "shared_store";

/// Garage and redis-server where the prepare scripts put them, or `None` (with the loud
/// message) when either is missing.
pub fn parts(root: &Path, target: &Path) -> Option<PathBuf> {
    let team = std::env::var_os("OVERSPILL_TEAM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| target.join("team-external"));
    let redis = team.join("bin/redis-server");
    let garage = Command::new("bash")
        .arg("-c")
        .arg(
            "dir=${OVERSPILL_GARAGE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/overspill-ci/garage-2.5.0}; \
             test -x \"$dir/bin/garage\"",
        )
        .status()
        .is_ok_and(|status| status.success());
    if redis.exists() && garage && root.join("tests/fixtures/store/garage.py").exists() {
        return Some(redis);
    }
    eprintln!(
        "\n*** xtask bench: SKIPPED the shared-store rows: they need Garage (bash \
         tests/fixtures/store/prepare.sh) and redis-server (bash tests/fixtures/team/prepare.sh) \
         ***\n"
    );
    None
}

/// A process this module started, killed when dropped.
struct Started(Child);

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts Garage and Redis in `scratch` and runs the bench with `command` (the bench's
/// `cargo bench` command, which gets their addresses); its figures.
pub fn measure(
    root: &Path,
    redis_server: &Path,
    scratch: &Path,
    mut command: Command,
) -> Result<BTreeMap<String, Measured>> {
    if scratch.exists() {
        std::fs::remove_dir_all(scratch)
            .with_context(|| format!("could not empty {}", scratch.display()))?;
    }
    std::fs::create_dir_all(scratch)
        .with_context(|| format!("could not create {}", scratch.display()))?;

    let mut garage = Command::new("python3")
        .arg(root.join("tests/fixtures/store/garage.py"))
        .arg(scratch.join("garage"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("could not start tests/fixtures/store/garage.py")?;
    let stdout = garage.stdout.take().context("garage.py's stdout")?;
    let garage = Started(garage);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .context("garage.py printed nothing")?;
    let store: Value = serde_json::from_str(&line)
        .with_context(|| format!("garage.py printed {line:?}, not its JSON line"))?;
    let text = |key: &str| {
        store[key]
            .as_str()
            .map(str::to_owned)
            .with_context(|| format!("garage.py printed no {key}"))
    };

    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .context("no free loopback port for redis")?
        .port();
    let redis = Started(
        Command::new(redis_server)
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no", "--dir"])
            .arg(scratch)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("could not start {}", redis_server.display()))?,
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            bail!("redis-server did not listen within 30 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }

    eprintln!("xtask bench: cargo bench --bench {BENCH} (Garage and Redis on loopback)");
    let output = command
        .env(
            "OVERSPILL_BENCH_STORE",
            format!("s3://{}/bench", text("bucket")?),
        )
        .env(
            "OVERSPILL_BENCH_REDIS",
            format!("redis://127.0.0.1:{port}/0"),
        )
        .env("AWS_ENDPOINT", text("endpoint")?)
        .env("AWS_REGION", text("region")?)
        .env("AWS_ACCESS_KEY_ID", text("access_key_id")?)
        .env("AWS_SECRET_ACCESS_KEY", text("secret_access_key")?)
        .env("AWS_ALLOW_HTTP", "true")
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("could not start cargo bench --bench {BENCH}"))?;
    drop((redis, garage));
    if !output.status.success() {
        bail!("cargo bench --bench {BENCH} failed ({})", output.status);
    }
    let stdout = String::from_utf8(output.stdout)
        .with_context(|| format!("the {BENCH} bench printed something not UTF-8"))?;
    figures(&stdout)
}

/// The figures of the `shared_store:` line (nanoseconds).
fn figures(stdout: &str) -> Result<BTreeMap<String, Measured>> {
    super::times(
        stdout,
        BENCH,
        &[
            ("shared_intercept_ns", shared::INTERCEPT),
            ("put_and_local_intercept_ns", shared::PUT_AND_LOCAL),
            ("first_grep_ns", shared::FIRST_GREP),
            ("get_and_local_grep_ns", shared::GET_AND_LOCAL_GREP),
            ("later_grep_ns", shared::LATER_GREP),
            (
                "local_grep_and_round_trip_ns",
                shared::LOCAL_GREP_AND_ROUND_TRIP,
            ),
        ],
    )
}
