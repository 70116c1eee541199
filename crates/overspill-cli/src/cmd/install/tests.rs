use std::collections::HashMap;

use super::*;

fn env(vars: &[(&'static str, PathBuf)]) -> impl Fn(&str) -> Option<PathBuf> {
    let vars: HashMap<&str, PathBuf> = vars.iter().cloned().collect();
    move |name| vars.get(name).cloned()
}

fn pinned() -> String {
    format!("overspill@{}", env!("CARGO_PKG_VERSION"))
}

#[test]
fn a_binary_npx_installed_is_started_by_npx_at_this_version_through_absolute_paths() {
    let npm = tempfile::tempdir().expect("dir");
    let bin = npm.path().join("lib/node_modules/npm/bin");
    std::fs::create_dir_all(&bin).expect("dir");
    std::fs::write(bin.join("npx-cli.js"), "").expect("npx-cli.js");
    let exe = Path::new(
        "/home/me/.npm/_npx/16b6959f727f1b10/node_modules/@overspill/linux-x64-gnu/bin/overspill",
    );
    let vars = [
        ("npm_command", PathBuf::from("exec")),
        ("npm_execpath", bin.join("npm-cli.js")),
        ("npm_node_execpath", PathBuf::from("/opt/node/bin/node")),
    ];
    let launch = package_runner(exe, env(&vars)).expect("npx");
    assert_eq!(launch.program, "/opt/node/bin/node");
    assert_eq!(
        launch.args,
        [
            bin.join("npx-cli.js").to_string_lossy().into_owned(),
            "-y".to_owned(),
            pinned()
        ]
    );
    // Without npm's paths, plain npx.
    let launch = package_runner(exe, env(&[("npm_command", "exec".into())])).expect("npx");
    assert_eq!(launch.program, "npx");
    assert_eq!(launch.args, ["-y".to_owned(), pinned()]);
}

#[test]
fn a_binary_uvx_installed_is_started_by_the_uvx_beside_uv_at_this_version() {
    let uv = tempfile::tempdir().expect("dir");
    let exe = Path::new("/home/me/.cache/uv/archive-v0/HjHdYjHFCpgTOiLr/bin/overspill");
    let vars = [("UV", uv.path().join("uv"))];
    let launch = package_runner(exe, env(&vars)).expect("uv");
    assert_eq!(launch.program, uv.path().join("uv").to_string_lossy());
    assert_eq!(launch.args, ["tool".to_owned(), "run".to_owned(), pinned()]);
    let uvx = uv
        .path()
        .join(if cfg!(windows) { "uvx.exe" } else { "uvx" });
    std::fs::write(&uvx, "").expect("uvx");
    let launch = package_runner(exe, env(&vars)).expect("uvx");
    assert_eq!(launch.program, uvx.to_string_lossy());
    assert_eq!(launch.args, [pinned()]);
}

#[test]
fn an_installed_binary_is_started_as_itself() {
    let exec = ("npm_command", PathBuf::from("exec"));
    let uv = ("UV", PathBuf::from("/usr/bin/uv"));
    for (exe, vars) in [
        // A global npm install, run through its launcher by npm exec: not npx's cache.
        (
            "/usr/lib/node_modules/overspill/node_modules/@overspill/linux-x64-gnu/bin/overspill",
            vec![exec.clone()],
        ),
        // uv tool install: a tool environment of its own, not the archive cache.
        (
            "/home/me/.local/share/uv/tools/overspill/bin/overspill",
            vec![uv.clone()],
        ),
        // In npx's or uv's cache, but not started by them.
        ("/home/me/.npm/_npx/1/node_modules/.bin/overspill", vec![]),
        (
            "/home/me/.npm/_npx/1/node_modules/.bin/overspill",
            vec![("npm_command", PathBuf::from("run-script"))],
        ),
        ("/home/me/.cache/uv/archive-v0/x/bin/overspill", vec![]),
        ("/home/me/.cargo/bin/overspill", vec![exec, uv]),
    ] {
        assert_eq!(package_runner(Path::new(exe), env(&vars)), None, "{exe}");
    }
}
