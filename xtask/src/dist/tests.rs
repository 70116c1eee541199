use super::*;

#[test]
fn every_platform_has_its_own_target_and_npm_name() {
    let mut targets: Vec<&str> = PLATFORMS.iter().map(|p| p.target).collect();
    let mut names: Vec<&str> = PLATFORMS.iter().map(|p| p.npm_name).collect();
    targets.sort_unstable();
    targets.dedup();
    names.sort_unstable();
    names.dedup();
    assert_eq!(targets.len(), PLATFORMS.len());
    assert_eq!(names.len(), PLATFORMS.len());
}

#[test]
fn npm_names_are_what_the_launcher_looks_up() {
    // packaging/npm/overspill.js: `linux-${arch}-gnu|musl` on Linux, `${platform}-${arch}` else.
    for platform in &PLATFORMS {
        let expected = match platform.npm_libc {
            Some("glibc") => format!("{}-{}-gnu", platform.npm_os, platform.npm_cpu),
            Some("musl") => format!("{}-{}-musl", platform.npm_os, platform.npm_cpu),
            _ => format!("{}-{}", platform.npm_os, platform.npm_cpu),
        };
        assert_eq!(platform.npm_name, expected);
    }
    let launcher = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../packaging/npm/overspill.js"),
    )
    .expect("the launcher");
    for pattern in [
        "`linux-${arch}-gnu`",
        "`linux-${arch}-musl`",
        "`${platform}-${arch}`",
        "`@overspill/${name}/bin/${executable}`",
    ] {
        assert!(launcher.contains(pattern), "{pattern}");
    }
}

#[test]
fn the_launcher_depends_on_every_platform_package_at_its_own_version() {
    let manifest = npm::launcher_manifest("1.2.3");
    let optional = manifest["optionalDependencies"]
        .as_object()
        .expect("optionalDependencies");
    assert_eq!(optional.len(), PLATFORMS.len());
    for platform in &PLATFORMS {
        assert_eq!(optional[&npm::package_name(platform)], "1.2.3");
    }
    assert_eq!(manifest["bin"]["overspill"], "bin/overspill.js");
    assert!(manifest.get("scripts").is_none(), "no install script");
}

#[test]
fn a_platform_package_is_gated_by_os_cpu_and_libc() {
    let gnu = Platform::for_target("x86_64-unknown-linux-gnu").expect("known");
    let manifest = npm::platform_manifest("1.2.3", gnu);
    assert_eq!(manifest["name"], "@overspill/linux-x64-gnu");
    assert_eq!(manifest["os"], serde_json::json!(["linux"]));
    assert_eq!(manifest["cpu"], serde_json::json!(["x64"]));
    assert_eq!(manifest["libc"], serde_json::json!(["glibc"]));
    assert!(manifest.get("scripts").is_none(), "no install script");
    let mac = Platform::for_target("aarch64-apple-darwin").expect("known");
    assert!(npm::platform_manifest("1.2.3", mac).get("libc").is_none());
    let windows = Platform::for_target("x86_64-pc-windows-msvc").expect("known");
    assert_eq!(
        npm::platform_manifest("1.2.3", windows)["files"][0],
        "bin/overspill.exe"
    );
}

#[test]
fn an_unknown_target_is_refused_with_the_known_ones() {
    let error = Platform::for_target("riscv64gc-unknown-linux-gnu")
        .expect_err("not packaged")
        .to_string();
    assert!(error.contains("x86_64-unknown-linux-gnu"), "{error}");
}

#[test]
fn glibc_versions_are_read_from_their_names() {
    assert_eq!(elf::glibc_version(b"GLIBC_2.17"), Some((2, 17)));
    assert_eq!(elf::glibc_version(b"GLIBC_2.3.4"), Some((2, 3)));
    assert_eq!(elf::glibc_version(b"GLIBC_2"), Some((2, 0)));
    assert_eq!(elf::glibc_version(b"GLIBC_PRIVATE"), None);
    assert_eq!(elf::glibc_version(b"GCC_3.0"), None);
    assert!((2, 34) > (2, 17) && (2, 9) < (2, 17), "compared as numbers");
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_highest_glibc_of_a_real_binary_is_found() {
    // The running test binary is an ELF linked against the host's glibc.
    let me = std::fs::read(std::env::current_exe().expect("exe")).expect("read");
    let highest = elf::highest_glibc(&me).expect("an ELF");
    assert!(highest.is_some_and(|v| v >= (2, 2)), "{highest:?}");
}

#[test]
fn options_parse_the_target_and_out() {
    let parse = |args: &[&str]| {
        let args: Vec<&str> = std::iter::once("dist")
            .chain(args.iter().copied())
            .collect();
        match crate::tests::parse(&args) {
            Ok(Some(crate::Task::Dist(options))) => Ok(options),
            Ok(other) => panic!("{args:?} is not dist: {other:?}"),
            Err(error) => Err(error),
        }
    };
    let options = parse(&["--target", "x86_64-apple-darwin", "--out", "d"]).expect("parses");
    assert_eq!(options.target.as_deref(), Some("x86_64-apple-darwin"));
    assert_eq!(options.out, Some(PathBuf::from("d")));
    assert!(parse(&["--target"]).is_err());
    assert!(parse(&["--fast"]).is_err());
}

#[test]
fn every_file_shipped_beside_the_binary_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (from, _) in archive::BESIDE {
        assert!(root.join(from).is_file(), "{from}");
    }
}

#[test]
fn dist_refuses_to_empty_a_directory_it_did_not_make() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("precious"), "keep").expect("write");
    let options = Options {
        target: Some("x86_64-unknown-linux-gnu".to_owned()),
        out: Some(dir.path().to_path_buf()),
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let error = run(&root, &options).expect_err("refused").to_string();
    assert!(error.contains("holds no earlier `dist` output"), "{error}");
    assert!(dir.path().join("precious").exists());
}
