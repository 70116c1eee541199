//! The error examples of `docs/configuration.md` are exactly what loading
//! prints, so the reference cannot drift from the code.

use std::path::Path;

use overspill_config::Config;

#[test]
fn documented_error_examples_are_what_loading_prints() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/configuration.md");
    let Ok(text) = std::fs::read_to_string(&docs) else {
        eprintln!("skipped: {} is not here (packaged crate)", docs.display());
        return;
    };
    let section = text
        .split("## Errors")
        .nth(1)
        .and_then(|rest| rest.split("```text\n").nth(1))
        .and_then(|block| block.split("```").next())
        .expect("docs/configuration.md has an Errors section with a text block");

    let mut checked = 0;
    for example in section.split("\n\n") {
        let Some((toml, expected)) = example.split_once("→ ") else {
            continue;
        };
        let err = match Config::from_toml_str(toml) {
            Ok(_) => panic!("documented example loaded:\n{toml}"),
            Err(err) => err,
        };
        assert_eq!(err.to_string(), expected.trim_end(), "for:\n{toml}");
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} examples found");
}
