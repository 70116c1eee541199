use proptest::prelude::*;

use super::*;

/// The line of a token, as `overspill auth token` prints it.
fn line_of(name: &str, token: &str) -> String {
    line(name, token)
}

fn table(text: &str) -> Table {
    match Table::parse(text) {
        Ok(table) => table,
        Err((line, problem)) => panic!("line {line}: {problem}"),
    }
}

fn problem(text: &str) -> (usize, LineProblem) {
    match Table::parse(text) {
        Ok(table) => panic!("parsed, {} entries", table.entries.len()),
        Err(found) => found,
    }
}

fn names(table: &Table) -> Vec<&str> {
    table
        .entries
        .iter()
        .map(|entry| entry.principal.name())
        .collect()
}

/// A tokens file at `path` holding `text`.
fn file(text: &str) -> (tempfile::TempDir, Tokens) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tokens");
    std::fs::write(&path, text).unwrap();
    let tokens = Tokens::load(&path).unwrap();
    (dir, tokens)
}

#[test]
fn a_line_is_a_name_and_the_sha256_of_the_token() {
    // The SHA-256 of "alice-token", as `printf %s alice-token | sha256sum` prints it.
    assert_eq!(
        line_of("alice", "alice-token"),
        "alice sha256:9c220f200955d76c0a38d308225e0ef10c5f971acaf2f8d1d8f732affa5bd1dc"
    );
    assert_eq!(
        line_of("bob", ""),
        "bob sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

#[test]
fn comments_and_blank_lines_are_skipped() {
    let text = format!(
        "# the team\n\n   \n{}  # laptop\n\t{}\n",
        line_of("alice", "a"),
        line_of("bob", "b")
    );
    assert_eq!(names(&table(&text)), ["alice", "bob"]);
}

#[test]
fn hex_digits_are_read_in_either_case() {
    let text = line_of("alice", "a")
        .to_uppercase()
        .replacen("ALICE SHA256", "alice sha256", 1);
    let tokens = Table::parse(&text).unwrap();
    assert_eq!(tokens.entries[0].hash, hash_of("a"));
}

#[test]
fn a_bad_line_is_named_by_its_number_and_what_to_fix() {
    let good = line_of("alice", "a");
    let cases = [
        ("alice".to_owned(), LineProblem::Shape { fields: 1 }),
        (format!("{good} extra"), LineProblem::Shape { fields: 3 }),
        ("alice sha256:abc".to_owned(), LineProblem::Hash),
        ("alice a-raw-token".to_owned(), LineProblem::Hash),
        (good.replacen("sha256:", "sha1:", 1), LineProblem::Hash),
        (good.replacen("alice", "al/ice", 1), LineProblem::Name),
        (good.replacen("alice", ".hidden", 1), LineProblem::Name),
        (
            good.replacen("alice", &"a".repeat(65), 1),
            LineProblem::Name,
        ),
        (
            good.replacen("alice", "Shared", 1),
            LineProblem::Reserved {
                name: "Shared".to_owned(),
            },
        ),
    ];
    for (line, expected) in cases {
        assert_eq!(
            problem(&format!("# head\n{line}\n")),
            (2, expected),
            "{line}"
        );
    }
}

#[test]
fn a_name_or_a_token_given_twice_is_refused_with_the_first_line() {
    let text = format!("{}\n{}\n", line_of("alice", "a"), line_of("ALICE", "b"));
    assert_eq!(
        problem(&text),
        (
            2,
            LineProblem::DuplicateName {
                name: "ALICE".to_owned(),
                first: 1
            }
        )
    );
    let text = format!("{}\n\n{}\n", line_of("alice", "a"), line_of("bob", "a"));
    assert_eq!(problem(&text), (3, LineProblem::DuplicateHash { first: 1 }));
}

#[test]
fn no_message_repeats_a_token_or_a_hash() {
    let token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    let digest = hex(&hash_of(token));
    let texts = [
        token.to_owned(),
        format!("alice {token}"),
        format!("{token}!? sha256:{digest}"),
        format!("alice sha256:{digest}\nbob sha256:{digest}"),
        format!("alice sha256:{digest}x"),
    ];
    for text in texts {
        let (line, problem) = problem(&text);
        let message = TokensError::Line {
            path: PathBuf::from("tokens"),
            line,
            problem,
        }
        .to_string();
        assert!(
            !message.contains(token) && !message.contains(&digest),
            "{message}"
        );
    }
}

#[test]
fn a_token_is_looked_up_as_its_principal() {
    let (_dir, tokens) = file(&format!(
        "{}\n{}\n",
        line_of("alice", "alice-token"),
        line_of("bob", "bob-token")
    ));
    assert_eq!(tokens.len(), 2);
    assert_eq!(tokens.principal("alice-token").unwrap().name(), "alice");
    assert_eq!(tokens.principal("bob-token").unwrap().name(), "bob");
    assert!(tokens.principal("carol-token").is_none());
    assert!(tokens.principal("").is_none());
    assert!(tokens.principal("alice-token").unwrap().is_named());
}

#[test]
fn a_reload_takes_the_new_file_and_a_bad_one_keeps_the_old_table() {
    let (_dir, tokens) = file(&line_of("alice", "alice-token"));
    std::fs::write(tokens.path(), line_of("bob", "bob-token")).unwrap();
    assert_eq!(tokens.reload().unwrap(), 1);
    assert!(tokens.principal("alice-token").is_none());
    assert_eq!(tokens.principal("bob-token").unwrap().name(), "bob");

    std::fs::write(tokens.path(), "bob sha256:not-hex\n").unwrap();
    let refused = tokens.reload().unwrap_err();
    assert!(
        matches!(
            refused,
            TokensError::Line {
                line: 1,
                problem: LineProblem::Hash,
                ..
            }
        ),
        "{refused}"
    );
    assert_eq!(tokens.principal("bob-token").unwrap().name(), "bob");

    std::fs::remove_file(tokens.path()).unwrap();
    assert!(matches!(tokens.reload(), Err(TokensError::Read { .. })));
    assert_eq!(tokens.principal("bob-token").unwrap().name(), "bob");
}

#[test]
fn an_empty_file_admits_no_one() {
    let (_dir, tokens) = file("# nobody yet\n");
    assert!(tokens.is_empty());
    assert!(tokens.principal("").is_none());
}

#[test]
fn a_file_larger_than_a_megabyte_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tokens");
    std::fs::write(&path, "#".repeat(2 << 20)).unwrap();
    assert!(matches!(
        Tokens::load(&path),
        Err(TokensError::TooLarge { .. })
    ));
}

#[test]
fn debug_shows_no_secret() {
    let (_dir, tokens) = file(&line_of("alice", "alice-token"));
    let digest = hex(&hash_of("alice-token"));
    let shown = format!("{tokens:?}");
    assert!(
        !shown.contains(&digest) && shown.contains("principals: 1"),
        "{shown}"
    );
    let issued = Tokens::issue("carol").unwrap();
    let shown = format!("{issued:?}");
    assert!(!shown.contains(&issued.token), "{shown}");
}

#[test]
fn an_issued_token_is_256_random_bits_its_line_admits() {
    let (first, second) = (
        Tokens::issue("carol").unwrap(),
        Tokens::issue("carol").unwrap(),
    );
    assert_eq!(first.token.len(), 64);
    assert!(first.token.bytes().all(|byte| byte.is_ascii_hexdigit()));
    assert_ne!(first.token, second.token);
    let (_dir, tokens) = file(&first.line);
    assert_eq!(tokens.principal(&first.token).unwrap().name(), "carol");
    assert!(matches!(
        Tokens::issue("local"),
        Err(TokensError::Name(LineProblem::Reserved { .. }))
    ));
    assert!(matches!(
        Tokens::issue("a b"),
        Err(TokensError::Name(LineProblem::Name))
    ));
}

#[test]
fn the_fixed_principals_have_the_reserved_names() {
    assert_eq!(Principal::local().name(), "local");
    assert_eq!(Principal::shared().to_string(), "shared");
    assert!(!Principal::shared().is_named());
    assert_ne!(Principal::local(), Principal::shared());
}

proptest! {
    #[test]
    fn parsing_never_panics(text in "\\PC*") {
        let _ = Table::parse(&text);
    }

    #[test]
    fn parsing_lines_of_name_like_fields_never_panics(
        lines in prop::collection::vec("[a-zA-Z0-9._# :-]{0,80}", 0..8)
    ) {
        let _ = Table::parse(&lines.join("\n"));
    }

    #[test]
    fn a_printed_line_parses_back_to_its_principal(
        name in "[A-Za-z0-9][A-Za-z0-9._-]{0,63}",
        token in "\\PC{0,80}",
    ) {
        prop_assume!(check_name(&name).is_ok());
        let parsed = table(&line_of(&name, &token));
        prop_assert_eq!(names(&parsed), [name.as_str()]);
        prop_assert_eq!(parsed.entries[0].hash, hash_of(&token));
    }
}
