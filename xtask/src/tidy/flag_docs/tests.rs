use super::*;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// A temporary copy of docs/, each page changed by `edit` (given the page's path from the root).
fn copy_of_the_docs(edit: impl Fn(&str, String) -> String) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    for page in pages(root()).unwrap() {
        let text = fs::read_to_string(root().join(&page)).unwrap();
        let to = copy.path().join(&page);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::write(to, edit(&page, text)).unwrap();
    }
    copy
}

/// The binary's facts with `mcp`'s `--read-timeout` given another default, as a changed
/// constant would give it.
fn read_timeout_of(seconds: &str) -> Facts {
    let mut facts = binary_facts().clone();
    let mcp = facts
        .command
        .subcommands
        .iter_mut()
        .find(|command| command.name == "mcp")
        .unwrap();
    mcp.flags
        .insert("read-timeout".to_owned(), vec![seconds.to_owned()]);
    facts
}

fn texts(problems: &[Problem]) -> Vec<String> {
    problems.iter().map(ToString::to_string).collect()
}

#[test]
fn this_workspaces_docs_state_the_flags_defaults_and_limits_the_binary_has() {
    let problems = problems(root(), binary_facts()).unwrap();
    assert!(problems.is_empty(), "{:#?}", texts(&problems));
}

#[test]
fn the_pages_state_the_defaults_of_the_timeouts() {
    // The rule finds what it is meant to find: a table row and the prose of each.
    let page = fs::read_to_string(root().join(PROXY_PAGE)).unwrap();
    let stated: Vec<(String, bool)> = statements(&page, &Scope::Command(vec!["mcp".to_owned()]))
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
    let cli = fs::read_to_string(root().join(CLI_PAGE)).unwrap();
    assert!(
        statements(&cli, &Scope::Sections)
            .iter()
            .any(|s| s.flag == "--answer-within" && s.command == ["mcp"]),
        "docs/cli.md's mcp section states --answer-within's default"
    );
}

/// `--read-timeout`'s default changed in the code fails at each place a copy of the docs
/// states it (the table and the prose of docs/mcp-proxy.md, the `mcp` section of
/// docs/cli.md), until the copy says the new one.
#[test]
fn a_default_changed_in_the_code_fails_until_the_docs_follow() {
    let copy = copy_of_the_docs(|_, text| text);
    let found = problems(copy.path(), &read_timeout_of("240")).unwrap();
    let text = texts(&found);
    let pages: Vec<&str> = text
        .iter()
        .map(|problem| problem.split(':').next().unwrap_or_default())
        .collect();
    assert_eq!(
        pages,
        ["docs/cli.md", "docs/mcp-proxy.md", "docs/mcp-proxy.md"],
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
        problems(followed.path(), &read_timeout_of("240")).unwrap(),
        []
    );
}

#[test]
fn a_default_changed_in_a_doc_alone_fails() {
    let copy = copy_of_the_docs(|page, text| match page {
        CLI_PAGE => text.replace("(25 s by default: a gateway", "(20 s by default: a gateway"),
        PROXY_PAGE => text.replace(
            "`--drain-delay` (0 s by default)",
            "`--drain-delay` (5 s by default)",
        ),
        _ => text,
    });
    let text = texts(&problems(copy.path(), binary_facts()).unwrap());
    assert_eq!(text.len(), 2, "{text:#?}");
    assert!(
        text[0].starts_with("docs/cli.md:")
            && text[0]
                .contains("the default 20 for `--answer-within`, and its definition's is `25`"),
        "{text:#?}"
    );
    assert!(text[1].contains("the default 5 for `--drain-delay`, and its definition's is `0`"));
}

#[test]
fn a_default_stated_outside_the_two_pages_is_checked_against_any_command_with_the_flag() {
    // docs/security.md states `overspill auth login`'s `--wait`, a page with no command of its own.
    let copy = copy_of_the_docs(|page, text| match page {
        "docs/security.md" => text.replace("`--wait` (300 s)", "`--wait` (120 s)"),
        _ => text,
    });
    let found = problems(copy.path(), binary_facts()).unwrap();
    assert!(
        matches!(&found[..], [Problem::FlagDocDiffers { at, flag, .. }]
            if at.starts_with("docs/security.md:") && flag == "--wait"),
        "{:#?}",
        texts(&found)
    );
}

#[test]
fn the_chain_of_proxies_the_doc_states_is_the_codes() {
    let copy = copy_of_the_docs(|_, text| text);
    let mut facts = binary_facts().clone();
    facts.max_depth += 1;
    let found = problems(copy.path(), &facts).unwrap();
    assert_eq!(
        found,
        [Problem::ChainLimitUnstated {
            max_depth: facts.max_depth
        }]
    );
    assert!(
        found[0]
            .to_string()
            .contains(&format!("at most {} proxies", facts.max_depth))
    );
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
        ## `overspill auth login|status`\n\n`--wait` (300 s)\n\n\
        ## Elsewhere\n\n`--min-tokens` (5,120 by default)\n";
    let stated: Vec<(String, Option<Value>, Vec<String>)> = statements(page, &Scope::Sections)
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
            ("--min-tokens".into(), Some(Value::Number(5120.0)), vec![]),
        ]
    );
    // All of them agree with the binary: `--dir` has no default to hold a doc to.
    let copy = tempfile::tempdir().unwrap();
    fs::create_dir_all(copy.path().join("docs")).unwrap();
    let facts = binary_facts();
    fs::write(
        copy.path().join(PROXY_PAGE),
        format!("at most {} proxies", facts.max_depth),
    )
    .unwrap();
    fs::write(copy.path().join(CLI_PAGE), page).unwrap();
    assert_eq!(problems(copy.path(), facts).unwrap(), []);
}

#[test]
fn a_flag_or_command_the_binary_does_not_have_is_named() {
    let copy = tempfile::tempdir().unwrap();
    fs::create_dir_all(copy.path().join("docs")).unwrap();
    let facts = binary_facts();
    fs::write(
        copy.path().join(PROXY_PAGE),
        format!(
            "at most {} proxies; `--no-such-flag` (5 s by default)\n",
            facts.max_depth
        ),
    )
    .unwrap();
    fs::write(
        copy.path().join(CLI_PAGE),
        "## `overspill teleport`\n\n`--speed` (3 by default)\n",
    )
    .unwrap();
    let text = texts(&problems(copy.path(), facts).unwrap());
    assert_eq!(text.len(), 2, "{text:#?}");
    assert!(
        text[0].contains("names the command `overspill teleport`, which does not exist"),
        "{text:#?}"
    );
    assert!(
        text[1].contains("states the default 5 for `--no-such-flag`, which `mcp` does not have"),
        "{text:#?}"
    );
}
