use super::*;

const UNRELEASED_ONLY: &str =
    "# Changelog\n\nIntro.\n\n## [Unreleased]\n\n### Added\n- The workspace.\n- Release tooling.\n";

fn v(text: &str) -> Version {
    text.parse().unwrap()
}

#[test]
fn unreleased_entries_are_the_section_of_the_next_version() {
    assert_eq!(
        plan(UNRELEASED_ONLY, &v("0.1.0")),
        Ok(Plan::RenameUnreleased { entries: 2 })
    );
}

#[test]
fn release_renames_unreleased_and_opens_a_fresh_one_above_it() {
    let out = release(UNRELEASED_ONLY, &v("0.1.0"), "2026-12-02").unwrap();
    assert_eq!(
        out,
        "# Changelog\n\nIntro.\n\n## [Unreleased]\n\n## [0.1.0] - 2026-12-02\n\n### Added\n- The workspace.\n- Release tooling.\n"
    );
    // The released text is itself a valid "already prepared" changelog.
    assert_eq!(plan(&out, &v("0.1.0")), Ok(Plan::AlreadyPrepared));
    assert_eq!(
        plan(&out, &v("0.2.0")),
        Err(ChangelogProblem::NoEntries {
            version: "0.2.0".into()
        })
    );
}

#[test]
fn an_empty_unreleased_section_is_a_missing_changelog_entry() {
    let text = "# Changelog\n\n## [Unreleased]\n\n### Added\n\n## [0.1.0] - 2026-01-01\n- Old.\n";
    let problem = plan(text, &v("0.2.0")).unwrap_err();
    let message = problem.to_string();
    assert!(message.contains("no entries for 0.2.0"), "{message}");
    assert!(message.contains("## [Unreleased]"), "{message}");
}

#[test]
fn a_changelog_without_sections_is_a_missing_changelog_entry() {
    assert!(matches!(
        plan("# Changelog\n", &v("0.1.0")),
        Err(ChangelogProblem::NoEntries { .. })
    ));
}

#[test]
fn a_hand_prepared_section_is_accepted_and_left_alone() {
    let text =
        "## [Unreleased]\n\n## [0.2.0] - 2026-12-01\n- New.\n\n## [0.1.0] - 2026-01-01\n- Old.\n";
    assert_eq!(plan(text, &v("0.2.0")), Ok(Plan::AlreadyPrepared));
    assert_eq!(release(text, &v("0.2.0"), "2026-12-02").unwrap(), text);
}

#[test]
fn a_prepared_section_plus_unreleased_entries_is_ambiguous() {
    let text = "## [Unreleased]\n- Stray.\n\n## [0.2.0]\n- New.\n";
    assert_eq!(
        plan(text, &v("0.2.0")),
        Err(ChangelogProblem::Ambiguous {
            version: "0.2.0".into(),
            unreleased: 1
        })
    );
}

#[test]
fn list_items_in_code_blocks_and_later_sections_do_not_count() {
    let text = "## [Unreleased]\n```\n- not an entry\n```\n## Notes\n- not unreleased either\n";
    assert!(plan(text, &v("0.1.0")).is_err());
}

#[test]
fn crlf_line_endings_survive_the_release_edit() {
    let text = "## [Unreleased]\r\n- A.\r\n";
    let out = release(text, &v("1.0.0"), "2026-12-02").unwrap();
    assert_eq!(
        out,
        "## [Unreleased]\r\n\r\n## [1.0.0] - 2026-12-02\r\n- A.\r\n"
    );
}
