use super::*;

/// The task `cargo xtask <args>` runs, as its command line reads them.
pub(crate) fn parse(args: &[&str]) -> Result<Option<Task>, clap::Error> {
    Xtask::try_parse_from(std::iter::once("cargo-xtask").chain(args.iter().copied()))
        .map(|xtask| xtask.task)
}

#[test]
fn the_command_line_is_well_formed() {
    Xtask::command().debug_assert();
}

#[test]
fn every_invocation_the_docs_and_ci_write_is_accepted() {
    // .ci/run, README.md, docs/ and the release workflow.
    for line in [
        "",
        "ci",
        "tidy",
        "bench",
        "bench --quick",
        "dist",
        "dist --target aarch64-apple-darwin",
        "dist --target x86_64-unknown-linux-gnu --out /tmp/dist",
        "release",
        "release --dry-run",
        "release --dry-run --no-verify",
        "release --dry-run --version 0.2.0",
        "release --version 0.2.0",
        "release --dry-run --allow-dirty --root /tmp/ws",
    ] {
        let args: Vec<&str> = line.split_whitespace().collect();
        assert!(parse(&args).is_ok(), "cargo xtask {line}");
    }
}

#[test]
fn an_unknown_task_is_refused() {
    let error = parse(&["publish"]).unwrap_err();
    assert_eq!(error.kind(), clap::error::ErrorKind::InvalidSubcommand);
}

#[test]
fn help_is_asked_for_by_each_task() {
    for task in ["bench", "dist", "release"] {
        for flag in ["-h", "--help"] {
            let error = parse(&[task, flag]).unwrap_err();
            assert_eq!(
                error.kind(),
                clap::error::ErrorKind::DisplayHelp,
                "{task} {flag}"
            );
        }
    }
}
