use super::*;
use crate::release::workspace::test_support::package;
use std::fs;

fn with_readme() -> (tempfile::TempDir, Package) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("README.md"), "# x\n").unwrap();
    let mut package = package("overspill-store", "0.1.0", &[]);
    package.dir = dir.path().to_path_buf();
    (dir, package)
}

#[test]
fn complete_metadata_passes() {
    let (_dir, package) = with_readme();
    assert_eq!(problems(&package), vec![]);
}

#[test]
fn each_missing_field_is_named_with_its_crate() {
    let (_dir, mut package) = with_readme();
    package.description = Some("  ".into());
    package.license = None;
    package.repository = None;
    package.readme = None;
    package.keywords.clear();
    package.categories.clear();
    let found: Vec<&str> = problems(&package).iter().map(|p| p.field).collect();
    assert_eq!(
        found,
        [
            "description",
            "license",
            "repository",
            "readme",
            "keywords",
            "categories"
        ]
    );
    let message = problems(&package)[0].to_string();
    assert!(
        message.starts_with("overspill-store: missing or unusable `description` metadata"),
        "{message}"
    );
}

#[test]
fn a_license_file_counts_as_a_license() {
    let (_dir, mut package) = with_readme();
    package.license = None;
    package.license_file = Some("LICENSE".into());
    assert!(problems(&package).is_empty());
}

#[test]
fn a_readme_that_does_not_exist_is_reported() {
    let (_dir, mut package) = with_readme();
    package.readme = Some("READ-ME.md".into());
    let found = problems(&package);
    assert_eq!(found.len(), 1);
    assert!(found[0].fix.contains("READ-ME.md"), "{}", found[0]);
}

#[test]
fn keywords_crates_io_would_reject_are_reported() {
    let (_dir, mut package) = with_readme();
    package.keywords = vec![
        "context window".into(),
        "a-keyword-longer-than-twenty".into(),
        "1st".into(),
        "ok".into(),
    ];
    let found = problems(&package);
    assert_eq!(found.len(), 3, "{found:?}");
    package.keywords = (0..6).map(|i| format!("k{i}")).collect();
    assert!(problems(&package)[0].fix.contains("at most 5"));
}

#[test]
fn category_slugs_are_lowercase_and_may_nest() {
    assert!(is_category("development-tools"));
    assert!(is_category("command-line-utilities"));
    assert!(is_category("development-tools::testing"));
    assert!(!is_category("Development Tools"));
    assert!(!is_category(""));
}
