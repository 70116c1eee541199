use proptest::prelude::Strategy;

use super::*;
use crate::test_support::Fixture;

#[test]
fn registered_tool_names_are_unique() {
    let mut names = Registry::new().names();
    let count = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), count);
}

#[test]
fn a_host_can_exclude_tools() {
    let registry = Registry::new().without(&["grep"]);
    assert!(!registry.names().contains(&"grep"));
    assert_eq!(
        registry.mcp_tools().len(),
        Registry::new().names().len() - 1
    );
    assert_eq!(
        Registry::new().only(&["head", "slice"]).names(),
        ["head", "slice"]
    );
}

#[test]
fn exports_carry_one_entry_per_tool_in_each_format() {
    let registry = Registry::new();
    let names = registry.names();
    let mcp: Vec<_> = registry
        .mcp_tools()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    let openai: Vec<_> = registry
        .openai_tools()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    let anthropic: Vec<_> = registry
        .anthropic_tools()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(mcp, names);
    assert_eq!(openai, names);
    assert_eq!(anthropic, names);
    assert!(
        registry
            .mcp_tools()
            .iter()
            .all(|t| t["inputSchema"]["additionalProperties"] == false)
    );
}

#[test]
fn an_unknown_tool_is_an_invalid_argument_listing_the_tools() {
    let fixture = Fixture::new(&[]);
    let error = fixture.error("cat", serde_json::json!({"file": "a"}));
    assert_eq!(error["error"], "invalid_argument");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("there is no tool `cat`; the exploration tools are: ")
    );
    let excluded =
        Registry::new()
            .without(&["read"])
            .dispatch(&fixture.ctx, "read", r#"{"file": "a"}"#);
    assert!(excluded.contains("there is no tool `read`"), "{excluded}");
}

#[test]
fn arguments_that_are_not_json_are_an_invalid_argument() {
    let fixture = Fixture::new(&[("a.txt", b"x\n")]);
    let text = Registry::new().dispatch(&fixture.ctx, "head", "{file: a.txt}");
    assert!(
        text.starts_with(
            r#"{"error":"invalid_argument","message":"the arguments are not valid JSON ("#
        ),
        "{text}"
    );
    // Empty arguments are an empty object: the missing `file` is named.
    let text = Registry::new().dispatch(&fixture.ctx, "head", "");
    assert!(text.contains("head needs the argument `file`"), "{text}");
}

/// A tool whose only smaller form is itself, with its default written out.
struct Stubborn;

#[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct StubbornArgs {
    file: String,
    #[serde(default = "fifty")]
    lines: u64,
}

fn fifty() -> u64 {
    50
}

impl Tool for Stubborn {
    const NAME: &'static str = "stubborn";
    const DESCRIPTION: &'static str = "Answers more than any call may take.";
    type Args = StubbornArgs;

    fn run(_: &ExploreContext, _: StubbornArgs) -> Result<Extraction, ToolError> {
        Ok(Extraction::unrendered(1_000_000, "everything", 1))
    }

    fn smaller(_: &ExploreContext, args: &StubbornArgs, _: &Extraction) -> Option<Call> {
        Some(Call::new("stubborn", args))
    }
}

#[test]
fn a_retry_is_never_the_refused_call_even_written_differently() {
    // Issue 28: a model that follows a retry repeating the refused call loops. Here the
    // tool's chain offers `{"file": "a", "lines": 50}` for `{"file": "a"}`: the same call.
    let registry = Registry {
        tools: vec![register::<Stubborn>()],
    };
    let fixture = Fixture::new(&[]);
    let text = registry.dispatch(&fixture.ctx, "stubborn", r#"{"file": "a"}"#);
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"], "stubborn_too_large");
    assert!(error.get("retry").is_none(), "{text}");
    assert_eq!(
        error["suggestions"],
        serde_json::json!([
            "No smaller call of the tools you have shows part of this; ask for a narrower \
                 part (a path, a pattern, a filter), or finish with what you already know."
        ])
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    #[test]
    fn arbitrary_arguments_never_panic_and_always_answer(
        tool in proptest::sample::select(vec!["head", "slice", "grep", "read"]),
        key in proptest::sample::select(vec!["lines", "start", "end", "pattern", "context", "max_matches", "start_char", "max_chars", "ignore_case", "bogus"]),
        value in proptest::prop_oneof![
            proptest::num::i64::ANY.prop_map(serde_json::Value::from),
            "\\PC{0,12}".prop_map(serde_json::Value::from),
            proptest::bool::ANY.prop_map(serde_json::Value::from),
            proptest::num::f64::ANY.prop_map(serde_json::Value::from),
        ],
    ) {
        let fixture = Fixture::new(&[("a.txt", b"alpha\nbeta\n\xffgamma\n")]);
        let mut arguments = serde_json::json!({"file": "a.txt", "pattern": "a", "start": 1, "end": 2});
        arguments[key] = value;
        let text = fixture.call(tool, arguments);
        proptest::prop_assert!(text.starts_with("{\"error\"") || text.contains(&format!("--- {tool}: ")), "{}", text);
    }
}
