use super::*;

const MODEL: &str = "assets/gemma3/gemma3_cleaned_262144_v2.spiece.model";

fn file(path: &str, size: u64) -> PackagedFile {
    PackagedFile {
        path: path.to_owned(),
        size: Some(size),
    }
}

fn tokens_listing() -> Vec<PackagedFile> {
    vec![
        PackagedFile {
            path: "Cargo.toml".into(),
            size: None,
        },
        file("README.md", 200),
        file(MODEL, 4_689_074),
        file("assets/gemma3/NOTICE", 951),
        file("assets/gemma3/LICENSE-APACHE-2.0", 11_255),
        file("assets/openai/o200k_base.tiktoken.gz", 1_692_625),
        file("assets/openai/cl100k_base.tiktoken.gz", 775_857),
        file("assets/openai/NOTICE", 1_200),
        file("assets/openai/LICENSE-MIT", 1_070),
        file("src/lib.rs", 9_000),
    ]
}

#[test]
fn the_tokens_package_with_its_model_and_notice_passes() {
    assert_eq!(audit("overspill-tokens", &tokens_listing()), vec![]);
}

#[test]
fn a_tokens_package_without_its_model_or_notice_fails() {
    let listing: Vec<PackagedFile> = tokens_listing()
        .into_iter()
        .filter(|f| f.path != MODEL && !f.path.ends_with("NOTICE"))
        .collect();
    let problems = audit("overspill-tokens", &listing);
    assert_eq!(problems.len(), 3, "{problems:?}");
    let shown: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(shown.iter().any(|p| p.contains(MODEL)), "{shown:?}");
    assert!(
        shown.iter().any(|p| p.contains("assets/gemma3/NOTICE")),
        "{shown:?}"
    );
    assert!(
        shown.iter().any(|p| p.contains("assets/openai/NOTICE")),
        "{shown:?}"
    );
}

#[test]
fn the_model_is_large_only_in_the_crate_that_embeds_it() {
    let problems = audit("overspill-store", &[file(MODEL, 4_689_074)]);
    assert_eq!(
        problems,
        vec![AuditProblem::TooLarge {
            krate: "overspill-store".into(),
            path: MODEL.into(),
            size: 4_689_074
        }]
    );
    assert!(
        problems[0].to_string().contains("4.5 MiB"),
        "{}",
        problems[0]
    );
}

#[test]
fn any_other_file_over_the_limit_fails() {
    let problems = audit(
        "overspill-explore",
        &[
            file("tests/fixtures/pods.json", LARGE_FILE_LIMIT + 1),
            file("tests/fixtures/small.json", LARGE_FILE_LIMIT),
        ],
    );
    assert_eq!(problems.len(), 1);
    assert!(
        matches!(&problems[0], AuditProblem::TooLarge { path, .. } if path == "tests/fixtures/pods.json")
    );
}

#[test]
fn target_dirs_and_leftovers_are_stray() {
    let stray_paths = [
        "target/debug/libx.rlib",
        "tests/target/out.json",
        ".git/config",
        ".env",
        "src/.hidden/x.rs",
        "default_1.profraw",
        "src/lib.rs.orig",
        "src/lib.rs~",
        "src/.lib.rs.swp",
        "old-0.1.0.crate",
    ];
    for path in stray_paths {
        let problems = audit("overspill-store", &[file(path, 10)]);
        assert!(
            matches!(problems.as_slice(), [AuditProblem::Stray { .. }]),
            "{path}: {problems:?}"
        );
    }
}

#[test]
fn cargo_generated_files_and_ordinary_sources_are_fine() {
    let fine = [
        ".cargo_vcs_info.json",
        "Cargo.toml.orig",
        "Cargo.lock",
        "src/target.rs",
        "tests/concurrency.proptest-regressions",
        "benches/write.rs",
    ];
    for path in fine {
        assert_eq!(
            audit("overspill-store", &[file(path, 10)]),
            vec![],
            "{path}"
        );
    }
}

#[test]
fn a_crate_over_the_upload_limit_fails() {
    assert!(audit_crate_size("overspill-tokens", 2_300_000).is_none());
    let problem = audit_crate_size("overspill-tokens", CRATE_SIZE_LIMIT + 1).unwrap();
    assert!(problem.to_string().contains("upload limit"), "{problem}");
}

#[test]
fn sizes_read_in_binary_units() {
    assert_eq!(human_size(812), "812 B");
    assert_eq!(human_size(12 * 1024), "12.0 KiB");
    assert_eq!(human_size(4_689_074), "4.5 MiB");
}
