use super::*;

/// A fake binary at `dir/relative`, with `content`.
fn binary(dir: &Path, relative: &str, content: &str) -> PathBuf {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("dir");
    std::fs::write(&path, content).expect("binary");
    path
}

#[test]
fn binaries_kept_by_package_tools_and_version_managers_are_told_apart_from_installed_ones() {
    let dir = tempfile::tempdir().expect("dir");
    let venv = dir.path().join("venv");
    std::fs::create_dir_all(venv.join("bin")).expect("venv");
    std::fs::write(venv.join("pyvenv.cfg"), "home = /usr/bin\n").expect("pyvenv.cfg");
    for kept in [
        "/home/me/.npm/_npx/16b6959f727f1b10/node_modules/@overspill/linux-x64-gnu/bin/overspill",
        "/home/me/.nvm/versions/node/v22.1.0/lib/node_modules/overspill/node_modules/@overspill/linux-x64-gnu/bin/overspill",
        "/usr/lib/node_modules/overspill/node_modules/@overspill/linux-x64-gnu/bin/overspill",
        "/home/me/.cache/uv/archive-v0/HjHdYjHFCpgTOiLr/bin/overspill",
        "/home/me/.pyenv/versions/3.12.1/bin/overspill",
        "/usr/lib/python3/site-packages/overspill/bin/overspill",
    ] {
        assert!(in_package_tree(Path::new(kept)), "{kept}");
    }
    assert!(in_package_tree(&venv.join("bin").join("overspill")));
    for own in [
        "/home/me/.cargo/bin/overspill",
        "/usr/local/bin/overspill",
        "/opt/overspill-0.1.0/overspill",
    ] {
        assert!(!in_package_tree(Path::new(own)), "{own}");
    }
}

#[test]
fn a_binary_on_path_installed_on_its_own_is_started_as_overspill() {
    let dir = tempfile::tempdir().expect("dir");
    let exe = binary(dir.path(), "bin/overspill", "v1");
    let data = dir.path().join("data");
    let program = program(&exe, Some(&exe), Some(&data)).expect("program");
    assert_eq!(program, "overspill");
    assert!(!data.exists(), "no copy is made");
}

#[test]
fn a_binary_of_a_package_cache_is_started_from_a_copy_that_outlives_the_cache_and_is_updated() {
    let dir = tempfile::tempdir().expect("dir");
    let npx = dir.path().join(".npm/_npx/1");
    let exe = binary(
        &npx,
        "node_modules/@overspill/linux-x64-gnu/bin/overspill",
        "v1",
    );
    let data = dir.path().join("data");
    // On PATH through npx's own link, it is still the cache's: a copy is started.
    let started = program(&exe, Some(&exe), Some(&data)).expect("program");
    let copy = data.join("bin").join(if cfg!(windows) {
        "overspill.exe"
    } else {
        "overspill"
    });
    assert_eq!(started, copy.to_string_lossy());
    // The cache is cleaned: the client still starts the same program.
    std::fs::remove_dir_all(&npx).expect("clean");
    assert_eq!(std::fs::read_to_string(&copy).expect("copy"), "v1");
    // A newer binary, installed again: the copy follows it.
    let exe = binary(
        &npx,
        "node_modules/@overspill/linux-x64-gnu/bin/overspill",
        "v2",
    );
    assert_eq!(program(&exe, None, Some(&data)).expect("again"), started);
    assert_eq!(std::fs::read_to_string(&copy).expect("copy"), "v2");
    let leftovers: Vec<_> = std::fs::read_dir(data.join("bin"))
        .expect("bin")
        .flatten()
        .map(|entry| entry.file_name())
        .collect();
    assert_eq!(leftovers.len(), 1, "{leftovers:?}");
}

#[test]
fn a_binary_not_on_path_without_a_data_dir_is_started_by_its_full_path() {
    let dir = tempfile::tempdir().expect("dir");
    let exe = binary(dir.path(), "target/release/overspill", "v1");
    assert_eq!(
        program(&exe, None, None).expect("program"),
        exe.to_string_lossy()
    );
}
