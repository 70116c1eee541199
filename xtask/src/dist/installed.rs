//! The acceptance tests of what `cargo xtask dist` made, installed the way users install it and
//! with every package registry unreachable (issue 30): the npm packages into an empty prefix
//! (`npm install --offline`), the wheel into a fresh virtual environment and through `uvx`, the
//! tarball unpacked against its SHA-256. Each runs `overspill tour` and proxies a real MCP
//! server (`@modelcontextprotocol/server-filesystem`, and a 50 MB FastMCP server) for the
//! official Python SDK client (`tests/fixtures/mcp/client_test.py`).
//!
//! They need `cargo xtask dist`, `bash tests/fixtures/mcp/prepare.sh` and
//! `OVERSPILL_DIST_TESTS=1`; otherwise they are skipped with a loud message.

use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Packages, archive, elf, packages, target_dir, version};

/// A registry address nothing listens on: any download attempt fails at once.
const NOWHERE: &str = "http://127.0.0.1:9/";

struct Made {
    root: PathBuf,
    version: String,
    packages: Packages,
    prepared: PathBuf,
    scratch: tempfile::TempDir,
}

fn made(what: &str) -> Option<Made> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_path_buf();
    if std::env::var("OVERSPILL_DIST_TESTS").as_deref() != Ok("1") {
        let _ = writeln!(
            std::io::stderr(),
            "\n*** SKIPPED the installed-package tests ({what}): set OVERSPILL_DIST_TESTS=1 \
             after `cargo xtask dist` and `bash tests/fixtures/mcp/prepare.sh` ***\n"
        );
        return None;
    }
    let target = target_dir(&root);
    let version = version(&root).expect("the workspace version");
    let packages = packages(&target.join("dist"), &version)
        .unwrap_or_else(|error| panic!("OVERSPILL_DIST_TESTS=1 but {error:#}"));
    let prepared = std::env::var_os("OVERSPILL_EXTERNAL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| target.join("mcp-external"));
    assert!(
        prepared.join(".prepared").exists(),
        "OVERSPILL_DIST_TESTS=1 but {} is not prepared: run `bash tests/fixtures/mcp/prepare.sh`",
        prepared.display()
    );
    let scratch = tempfile::tempdir().expect("a temporary directory");
    Some(Made {
        root,
        version,
        packages,
        prepared,
        scratch,
    })
}

impl Made {
    /// A command with no way to reach a registry or a cache outside the scratch directory.
    fn offline(&self, program: impl AsRef<OsStr>) -> Command {
        let mut command = Command::new(program);
        let home = self.scratch.path().join("home");
        fs::create_dir_all(&home).expect("home");
        command
            .env("HOME", &home)
            .env("npm_config_registry", NOWHERE)
            .env("npm_config_cache", self.scratch.path().join("npm-cache"))
            .env("npm_config_offline", "true")
            .env("npm_config_update_notifier", "false")
            .env("PIP_INDEX_URL", NOWHERE)
            .env("PIP_NO_INDEX", "1")
            .env("UV_INDEX_URL", NOWHERE)
            .env("UV_OFFLINE", "1")
            .env("UV_PYTHON_DOWNLOADS", "never")
            .env("UV_CACHE_DIR", self.scratch.path().join("uv-cache"))
            .env("OVERSPILL_CACHE_DIR", self.scratch.path().join("cache"));
        command
    }

    /// The command `line` that install wrote starts the copy of the binary kept in the user's
    /// data directory, and that copy runs, at this version.
    fn assert_stable_copy(&self, line: &[String]) {
        let copy = self
            .scratch
            .path()
            .join("home/.local/share/overspill/bin/overspill");
        assert_eq!(line[0], copy.to_string_lossy(), "{line:?}");
        assert_eq!(line[1], "mcp", "{line:?}");
        let output = self
            .offline(&copy)
            .arg("--version")
            .output()
            .expect("the copy runs");
        let said = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && said.contains(&self.version),
            "the copy said {said:?} ({})",
            output.status
        );
    }

    /// Runs `overspill tour` as `command` and the Python SDK client's checks through
    /// `overspill` (a path to an executable that is the installed command).
    fn tour_and_proxy(&self, mut tour: Command, overspill: &Path) {
        let output = tour.arg("tour").output().expect("the tour runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("tokens saved"),
            "the tour failed ({}):\n{stdout}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        let mut client = self.offline(self.prepared.join("venv/bin/python"));
        let output = client
            .arg(self.root.join("tests/fixtures/mcp/client_test.py"))
            .arg(overspill)
            .arg(self.prepared.join("node_modules"))
            .output()
            .expect("the client runs");
        let shown = [&output.stderr[..], &output.stdout[..]].concat();
        let _ = std::io::stderr().write_all(&shown);
        assert!(
            output.status.success(),
            "the MCP checks through {} failed ({}); see above",
            overspill.display(),
            output.status
        );
    }
}

/// `overspill install cursor` through `command` on a Cursor file with one server: returns the
/// command and arguments the rewritten file starts overspill with.
fn installed_entry(made: &Made, mut command: Command, name: &str) -> Vec<String> {
    let file = made.scratch.path().join(format!("{name}-mcp.json"));
    fs::write(
        &file,
        r#"{"mcpServers": {"files": {"command": "node", "args": ["server.js"]}}}"#,
    )
    .expect("client file");
    succeeds(
        command
            .args(["install", "cursor", "--config-file"])
            .arg(&file),
        "install",
    );
    let written: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&file).expect("rewritten")).expect("JSON");
    let entry = &written["mcpServers"]["overspill"];
    let mut line = vec![entry["command"].as_str().expect("command").to_owned()];
    for arg in entry["args"].as_array().expect("args") {
        line.push(arg.as_str().expect("arg").to_owned());
    }
    line
}

/// Runs `command`, which must succeed: a failure panics naming it `what`, with its stderr.
fn succeeds(command: &mut Command, what: &str) {
    let output = command
        .output()
        .unwrap_or_else(|error| panic!("{what} does not run: {error}"));
    assert!(
        output.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// An executable shell script at `path` that runs `line` with the arguments it gets.
fn script(path: &Path, line: &str) {
    use std::os::unix::fs::PermissionsExt;
    fs::write(path, format!("#!/bin/sh\n{line} \"$@\"\n")).expect("script");
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

#[test]
fn npm_packages_install_offline_into_an_empty_prefix_and_run_the_tour_and_a_proxied_server() {
    let Some(made) = made("npm install --offline") else {
        return;
    };
    let prefix = made.scratch.path().join("prefix");
    fs::create_dir_all(&prefix).expect("prefix");
    let launcher = &made.packages.npm_launcher;
    let native = &made.packages.npm_platform;
    succeeds(
        made.offline("npm")
            .args([
                "install",
                "--offline",
                "--no-audit",
                "--no-fund",
                "--prefix",
            ])
            .arg(&prefix)
            .arg(launcher)
            .arg(native),
        "npm install --offline",
    );
    let mut npx = made.offline("npx");
    npx.current_dir(&prefix).args(["--offline", "overspill"]);
    made.tour_and_proxy(npx, &prefix.join("node_modules/.bin/overspill"));

    // `npx -y overspill install <client>`: npx's copy lives in its cache, so the client is
    // told to start a copy of the binary kept in the user's data directory, which outlives the
    // cache (docs/clients.md#the-command-the-client-starts).
    let mut npx = made.offline("npx");
    npx.current_dir(made.scratch.path())
        .args(["--yes", "--offline", "--package"])
        .arg(launcher)
        .arg("--package")
        .arg(native)
        .arg("overspill");
    let line = installed_entry(&made, npx, "npx");
    fs::remove_dir_all(made.scratch.path().join("npm-cache")).expect("the npx cache is cleaned");
    made.assert_stable_copy(&line);
}

#[test]
fn the_wheel_installs_into_a_fresh_venv_and_runs_with_uvx_the_tour_and_a_proxied_server() {
    let Some(made) = made("the wheel, pip and uvx") else {
        return;
    };
    let wheel = made.packages.wheel.clone();
    let venv = made.scratch.path().join("venv");
    succeeds(
        made.offline("python3").args(["-m", "venv"]).arg(&venv),
        "python3 -m venv",
    );
    succeeds(
        made.offline(venv.join("bin/python"))
            .args(["-m", "pip", "install", "--no-index", "--quiet"])
            .arg(&wheel),
        "pip install of the wheel",
    );
    let installed = venv.join("bin/overspill");
    made.tour_and_proxy(made.offline(&installed), &installed);
    // The licences and the embedded data's notices came with it.
    let site = fs::read_dir(venv.join("lib"))
        .expect("lib")
        .map(|entry| entry.expect("entry").path().join("site-packages"))
        .find(|site| site.is_dir())
        .expect("site-packages");
    let info = fs::read_dir(&site)
        .expect("site-packages")
        .map(|entry| entry.expect("entry").path())
        .find(|path| path.to_string_lossy().ends_with(".dist-info"))
        .expect("dist-info");
    for (_, shipped) in archive::BESIDE {
        if shipped.starts_with("LICENSE") || shipped.starts_with("notices/") {
            assert!(
                info.join("licenses/licenses").join(shipped).is_file(),
                "{shipped} in {}",
                info.display()
            );
        }
    }

    // uvx makes an environment of its own from the wheel, without an index.
    let uvx = made.prepared.join("venv/bin/uvx");
    let through_uvx = made.scratch.path().join("overspill-via-uvx");
    script(
        &through_uvx,
        &format!(
            "UV_OFFLINE=1 UV_PYTHON_DOWNLOADS=never exec {} --offline --from {} overspill",
            shell_quote(&uvx),
            shell_quote(&wheel)
        ),
    );
    made.tour_and_proxy(made.offline(&through_uvx), &through_uvx);

    // `uvx overspill install <client>`: uvx's copy lives in its cache, and one installed with
    // pip in a Python environment that an upgrade of Python may remove: the client is told to
    // start the copy kept in the user's data directory.
    let line = installed_entry(&made, made.offline(&through_uvx), "uvx");
    made.assert_stable_copy(&line);
    let line = installed_entry(&made, made.offline(&installed), "venv");
    made.assert_stable_copy(&line);
}

#[test]
fn the_tarball_matches_its_sha256_and_its_linux_binary_needs_at_most_glibc_2_17() {
    let Some(made) = made("the tarball") else {
        return;
    };
    let tarball = made.packages.tarball.clone();
    let recorded = fs::read_to_string(tarball.with_extension("gz.sha256")).expect("the .sha256");
    let name = tarball.file_name().and_then(OsStr::to_str).expect("name");
    assert_eq!(
        recorded,
        format!("{}  {name}\n", archive::sha256(&tarball).expect("hash"))
    );
    let unpacked = made.scratch.path().join("unpacked");
    fs::create_dir_all(&unpacked).expect("dir");
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(
        fs::File::open(&tarball).expect("open"),
    ));
    archive.unpack(&unpacked).expect("unpacks");
    let top = unpacked.join(name.trim_end_matches(".tar.gz"));
    for (_, beside) in archive::BESIDE {
        assert!(top.join(beside).is_file(), "{beside}");
    }
    let binary = top.join("overspill");
    let needed = elf::highest_glibc(&fs::read(&binary).expect("binary")).expect("an ELF");
    assert!(
        needed.is_some_and(|version| version <= (2, 17)),
        "{needed:?}"
    );
    made.tour_and_proxy(made.offline(&binary), &binary);
}
