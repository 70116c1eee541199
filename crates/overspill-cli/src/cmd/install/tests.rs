use super::*;

fn set(names: &'static [&'static str]) -> impl Fn(&str) -> bool {
    move |name| names.contains(&name)
}

#[test]
fn a_binary_npx_installed_is_started_by_npx_at_this_version() {
    let exe = Path::new(
        "/home/me/.npm/_npx/16b6959f727f1b10/node_modules/@overspill/linux-x64-gnu/bin/overspill",
    );
    let launch = package_runner(exe, set(&["npm_command"])).expect("npx");
    assert_eq!(launch.program, "npx");
    assert_eq!(
        launch.args,
        [
            "-y".to_owned(),
            format!("overspill@{}", env!("CARGO_PKG_VERSION"))
        ]
    );
}

#[test]
fn a_binary_uvx_installed_is_started_by_uvx_at_this_version() {
    let exe = Path::new("/home/me/.cache/uv/archive-v0/HjHdYjHFCpgTOiLr/bin/overspill");
    let launch = package_runner(exe, set(&["UV"])).expect("uvx");
    assert_eq!(launch.program, "uvx");
    assert_eq!(
        launch.args,
        [format!("overspill@{}", env!("CARGO_PKG_VERSION"))]
    );
}

#[test]
fn an_installed_binary_is_started_as_itself() {
    for (exe, env) in [
        // A global npm install, run through its launcher by npm exec: not npx's cache.
        (
            "/usr/lib/node_modules/overspill/node_modules/@overspill/linux-x64-gnu/bin/overspill",
            &["npm_command"][..],
        ),
        // uv tool install: a tool environment of its own, not the archive cache.
        (
            "/home/me/.local/share/uv/tools/overspill/bin/overspill",
            &["UV"],
        ),
        // In npx's or uv's cache, but not started by them.
        ("/home/me/.npm/_npx/1/node_modules/.bin/overspill", &[]),
        ("/home/me/.cache/uv/archive-v0/x/bin/overspill", &[]),
        ("/home/me/.cargo/bin/overspill", &["npm_command", "UV"]),
    ] {
        let is_set = move |name: &str| env.contains(&name);
        assert_eq!(package_runner(Path::new(exe), is_set), None, "{exe}");
    }
}
