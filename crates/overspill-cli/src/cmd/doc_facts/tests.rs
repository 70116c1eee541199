use clap::CommandFactory;

use super::*;
use crate::cmd::mcp::MAX_DEPTH;

/// The whole `overspill` command, as the binary defines it.
fn overspill() -> Command {
    crate::Cli::command()
}

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// A temporary copy of the pages checked, each changed by `edit`.
fn copy_of_the_docs(edit: impl Fn(&str, String) -> String) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    fs::create_dir_all(copy.path().join("docs")).unwrap();
    for (page, _) in PAGES {
        let text = fs::read_to_string(root().join(page)).unwrap();
        fs::write(copy.path().join(page), edit(page, text)).unwrap();
    }
    copy
}

/// `mcp`'s `read_timeout` given another default, as a changed constant would give it.
fn read_timeout_of(seconds: &'static str) -> Command {
    overspill().mut_subcommand("mcp", |mcp| {
        mcp.mut_arg("read_timeout", |arg| arg.default_value(seconds))
    })
}

#[test]
fn the_docs_state_the_flags_defaults_and_limits_the_code_has() {
    let problems = problems(root(), &overspill(), MAX_DEPTH);
    let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(problems.is_empty(), "{text:#?}");
}

#[test]
fn the_pages_state_the_defaults_of_the_timeouts() {
    // The rule finds what it is meant to find: a table row and the prose of each.
    let page = fs::read_to_string(root().join("docs/mcp-proxy.md")).unwrap();
    let stated: Vec<(String, bool)> = statements(&page, Some("mcp"))
        .into_iter()
        .map(|statement| (statement.flag, statement.row))
        .collect();
    for flag in [
        "--read-timeout",
        "--connect-timeout",
        "--init-timeout",
        "--answer-within",
    ] {
        assert!(
            stated.contains(&(flag.to_owned(), true)),
            "{flag}: {stated:?}"
        );
        assert!(
            stated.contains(&(flag.to_owned(), false)),
            "{flag}: {stated:?}"
        );
    }
    let cli = fs::read_to_string(root().join("docs/cli.md")).unwrap();
    assert!(
        statements(&cli, None)
            .iter()
            .any(|s| s.flag == "--answer-within" && s.command == ["mcp"]),
        "docs/cli.md's mcp section states --answer-within's default"
    );
}

/// The acceptance of issue 42: `--read-timeout`'s default changed in the code fails, at each
/// place a copy of the docs states it (the table and the prose of docs/mcp-proxy.md, the `mcp`
/// section of docs/cli.md), until the copy says the new one.
#[test]
fn a_changed_default_fails_until_the_docs_follow() {
    let copy = copy_of_the_docs(|_, text| text);
    let found = problems(copy.path(), &read_timeout_of("240"), MAX_DEPTH);
    let text: Vec<String> = found.iter().map(ToString::to_string).collect();
    let pages: Vec<&str> = text
        .iter()
        .map(|problem| problem.split(':').next().unwrap_or_default())
        .collect();
    assert_eq!(
        pages,
        ["docs/mcp-proxy.md", "docs/mcp-proxy.md", "docs/cli.md"],
        "{text:#?}"
    );
    assert!(
        text.iter().all(|problem| problem
            .contains("the default 300 for `--read-timeout`, and its definition's is `240`")),
        "{text:#?}"
    );
    let followed = copy_of_the_docs(|_, text| {
        text.replace(
            "| `--read-timeout SECS` | how long an answer may go silent before the request fails | 300 |",
            "| `--read-timeout SECS` | how long an answer may go silent before the request fails | 240 |",
        )
        .replace("`--read-timeout` (300 s", "`--read-timeout` (240 s")
    });
    assert_eq!(
        problems(followed.path(), &read_timeout_of("240"), MAX_DEPTH),
        []
    );
}

#[test]
fn a_default_changed_in_a_doc_alone_fails() {
    let copy = copy_of_the_docs(|page, text| match page {
        "docs/cli.md" => text.replace("(25 s by default: a gateway", "(20 s by default: a gateway"),
        _ => text.replace(
            "`--drain-delay` (0 s by default)",
            "`--drain-delay` (5 s by default)",
        ),
    });
    let text: Vec<String> = problems(copy.path(), &overspill(), MAX_DEPTH)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(text.len(), 2, "{text:#?}");
    assert!(text[0].contains("the default 5 for `--drain-delay`, and its definition's is `0`"));
    assert!(
        text[1].starts_with("docs/cli.md:")
            && text[1]
                .contains("the default 20 for `--answer-within`, and its definition's is `25`"),
        "{text:#?}"
    );
}

#[test]
fn the_chain_of_proxies_the_doc_states_is_the_codes() {
    let copy = copy_of_the_docs(|_, text| text);
    let text: Vec<String> = problems(copy.path(), &overspill(), MAX_DEPTH + 1)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(text.len(), 1, "{text:#?}");
    assert!(text[0].contains(&format!("at most {} proxies", MAX_DEPTH + 1)));
}

#[test]
fn values_are_read_with_their_units_and_only_where_a_default_is_stated() {
    let page = "## `overspill mcp [options]`\n\n\
        `--session-idle` (30 min) and `--max-body-bytes` (16 MiB) and `--separator` (default \
        `__`) and `--max-name-len` (48 by default), but not `--separator` (1 to 8 of `A-Z`), \
        `--max-name-len` (16–64) or `--drain-delay` (here 5 s).\n\n\
        | flag | meaning | default |\n|---|---|---|\n| `--path PATH` | where | `/mcp` |\n\
        | `--dir DIR` | its dir | `memory_dir`, else … |\n\
        | `--provider P`, `--model M` | which counter | `openai` / `gpt-4o` |\n\n\
        ## `overspill auth login|status`\n\n`--wait` (300 s)\n";
    let stated: Vec<(String, Option<Value>, Vec<String>)> = statements(page, None)
        .into_iter()
        .map(|s| (s.flag, s.value, s.command))
        .collect();
    let mcp = || vec!["mcp".to_owned()];
    assert_eq!(
        stated,
        [
            ("--session-idle".into(), Some(Value::Number(1800.0)), mcp()),
            (
                "--max-body-bytes".into(),
                Some(Value::Number(16_777_216.0)),
                mcp()
            ),
            ("--separator".into(), Some(Value::Code("__".into())), mcp()),
            ("--max-name-len".into(), Some(Value::Number(48.0)), mcp()),
            ("--path".into(), Some(Value::Code("/mcp".into())), mcp()),
            (
                "--dir".into(),
                Some(Value::Code("memory_dir".into())),
                mcp()
            ),
            (
                "--wait".into(),
                Some(Value::Number(300.0)),
                vec!["auth".to_owned()]
            ),
        ]
    );
    // All of them agree with the binary: `--dir` has no default to hold a doc to.
    let copy = tempfile::tempdir().unwrap();
    fs::create_dir_all(copy.path().join("docs")).unwrap();
    fs::write(copy.path().join("docs/mcp-proxy.md"), "at most 8 proxies").unwrap();
    fs::write(copy.path().join("docs/cli.md"), page).unwrap();
    assert_eq!(problems(copy.path(), &overspill(), 8), []);
}
