use proptest::prelude::Strategy;

use super::*;
use crate::test_support::Fixture;
use crate::tool::Extraction;

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
            .starts_with("there is no tool `cat` here; the tools are: ")
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
    const BLURB: &'static str = "more than any call may take";
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
        tools: vec![Member::Exploration(register::<Stubborn>())],
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

/// Files every tool can be refused on under a 400-token cap: 3,000 numbered log lines, and a
/// JSON document with a 3,000-item array, 3,000 items of distinct keys, a 3,000-line string
/// and an object of 3,000 keys.
fn refusing_fixture() -> Fixture {
    let log = crate::test_support::numbered_text(3_000);
    let items: Vec<Value> = (0..3_000)
        .map(|i| serde_json::json!({"name": format!("item-{i}"), "phase": "Running"}))
        .collect();
    let distinct: Vec<Value> = (0..3_000)
        .map(|i| serde_json::json!({format!("key_{i}"): i}))
        .collect();
    let text: Vec<String> = (0..3_000)
        .map(|i| format!("line {i} of the text"))
        .collect();
    let wide: serde_json::Map<String, Value> = (0..3_000)
        .map(|i| (format!("key_{i}"), Value::from(i)))
        .collect();
    let document = serde_json::json!({
        "items": items, "distinct": distinct, "text": text.join("\n"), "wide": wide,
    });
    let json = serde_json::to_string_pretty(&document).unwrap();
    Fixture::with_budget(
        &[("log.txt", log.as_bytes()), ("doc.json", json.as_bytes())],
        128_000,
        400,
        0,
    )
}

/// A tool is one unit (issue 31): what the registry exports for it is its module's name,
/// description and the schema derived from its `Args`; what a call may name is exactly that
/// schema's properties; a refused `call`'s retry starts from the module's own smaller call and
/// runs as it is. Where the module can count what fits (`counted`), the retry is that first call
/// itself: one run, no chain of halves.
fn assert_one_unit<T: Tool>(call: Value, counted: bool) {
    let registry = Registry::new();
    let definition = registry.definition(T::NAME).unwrap();
    assert_eq!(definition.description, T::DESCRIPTION);
    assert_eq!(definition.input_schema(), *args::schema::<T::Args>());

    let fixture = refusing_fixture();
    let mut unknown = call.clone();
    unknown["not_an_argument"] = Value::from(1);
    let error = fixture.error(T::NAME, unknown);
    assert_eq!(
        error["accepted"],
        serde_json::json!(args::accepted::<T::Args>())
    );

    let parsed = args::parse::<T::Args>(T::NAME, &call).unwrap();
    let got = T::run(&fixture.ctx, parsed.clone()).unwrap();
    let own = T::smaller(&fixture.ctx, &parsed, &got).unwrap();
    let error = fixture.error(T::NAME, call);
    assert_eq!(error["error"], format!("{}_too_large", T::NAME));
    assert_eq!(error["retry"]["tool"], own.tool.as_str(), "{error}");
    if counted {
        assert_eq!(error["retry"]["arguments"], own.arguments, "{error}");
    }
    let retry = &error["retry"];
    let retried = fixture.call(retry["tool"].as_str().unwrap(), retry["arguments"].clone());
    assert!(!retried.starts_with("{\"error\""), "{retried}");
}

#[test]
fn head_is_one_unit() {
    assert_one_unit::<line_tools::head::Head>(
        serde_json::json!({"file": "log.txt", "lines": 3_000}),
        true,
    );
}

#[test]
fn slice_is_one_unit() {
    assert_one_unit::<line_tools::slice::Slice>(
        serde_json::json!({"file": "log.txt", "start": 1, "end": 3_000}),
        true,
    );
}

#[test]
fn grep_is_one_unit() {
    assert_one_unit::<line_tools::grep::Grep>(
        serde_json::json!({"file": "log.txt", "pattern": "line", "max_matches": 3_000}),
        true,
    );
}

#[test]
fn read_is_one_unit() {
    assert_one_unit::<line_tools::read::Read>(serde_json::json!({"file": "log.txt"}), true);
}

#[test]
fn schema_is_one_unit() {
    assert_one_unit::<json_tools::schema::Schema>(
        serde_json::json!({"file": "doc.json", "path": "$.wide"}),
        false,
    );
}

#[test]
fn item_schema_is_one_unit() {
    assert_one_unit::<json_tools::item_schema::ItemSchema>(
        serde_json::json!({"file": "doc.json", "path": "$.distinct"}),
        false,
    );
}

#[test]
fn iterate_over_is_one_unit() {
    assert_one_unit::<json_tools::iterate_over::IterateOver>(
        serde_json::json!({"file": "doc.json", "path": "$.items"}),
        true,
    );
}

#[test]
fn get_in_is_one_unit() {
    assert_one_unit::<json_tools::get_in::GetIn>(
        serde_json::json!({"file": "doc.json", "path": "$.text", "limit": 3_000}),
        true,
    );
}

#[test]
fn query_is_one_unit() {
    assert_one_unit::<json_tools::query::Query>(
        serde_json::json!({"file": "doc.json", "filter": ".items[]"}),
        true,
    );
}

/// The tool `noted`: `head` with one more argument, added to its arguments type and nowhere
/// else.
struct Noted;

#[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct NotedArgs {
    #[serde(flatten)]
    head: line_tools::head::Args,
    /// A note the tool ignores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

impl Tool for Noted {
    const NAME: &'static str = "noted";
    const DESCRIPTION: &'static str = "head, with a note.";
    const BLURB: &'static str = "the first lines, with a note";
    type Args = NotedArgs;

    fn run(ctx: &ExploreContext, args: NotedArgs) -> Result<Extraction, ToolError> {
        line_tools::head::Head::run(ctx, args.head)
    }
}

#[test]
fn a_field_added_to_a_tools_args_is_listed_and_read_with_no_other_edit() {
    let registry = Registry {
        tools: vec![Member::Exploration(register::<Noted>())],
    };
    let listed = &registry.mcp_tools()[0]["inputSchema"];
    assert_eq!(
        listed["properties"]["note"],
        serde_json::json!({"type": "string", "description": "A note the tool ignores."})
    );
    assert_eq!(listed["required"], serde_json::json!(["file"]));
    let fixture = Fixture::new(&[("a.txt", b"one\ntwo\n")]);
    let text = registry.dispatch(&fixture.ctx, "noted", r#"{"file": "a.txt", "note": "hi"}"#);
    assert!(text.starts_with("1: one\n2: two\n"), "{text}");
    let text = registry.dispatch(&fixture.ctx, "noted", r#"{"file": "a.txt", "notes": 1}"#);
    assert!(
        text.contains("unknown argument `notes`; noted accepts: file, lines, note"),
        "{text}"
    );
}
