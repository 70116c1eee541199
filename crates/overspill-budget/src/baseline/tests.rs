use super::*;
use serde_json::json;

/// One token per whitespace-separated word.
struct Words;

impl TokenCounter for Words {
    fn count(&self, text: &str) -> usize {
        text.split_whitespace().count()
    }

    fn count_up_to(&self, text: &str, limit: usize) -> Option<usize> {
        Some(self.count(text)).filter(|&n| n <= limit)
    }

    fn name(&self) -> &'static str {
        "words"
    }
}

/// One token per byte, so compact JSON can be told from pretty JSON.
struct Bytes;

impl TokenCounter for Bytes {
    fn count(&self, text: &str) -> usize {
        text.len()
    }

    fn count_up_to(&self, text: &str, limit: usize) -> Option<usize> {
        Some(text.len()).filter(|&n| n <= limit)
    }

    fn name(&self) -> &'static str {
        "bytes"
    }
}

fn schema() -> Value {
    json!({"type": "object", "properties": {"file": {"type": "string"}}, "additionalProperties": false})
}

#[test]
fn an_empty_baseline_is_zero() {
    let baseline = Baseline::new(&Words);
    assert_eq!(baseline.total(), 0);
}

#[test]
fn system_prompt_sections_are_counted_with_the_counter() {
    let baseline = Baseline::new(&Words)
        .system_prompt("Explore stored outputs.")
        .system_prompt("Start with schema.");
    assert_eq!(baseline.system_prompt_tokens(), 6);
    assert_eq!(baseline.total(), 6);
}

#[test]
fn a_tool_costs_its_name_description_and_compact_schema() {
    let schema = schema();
    let compact =
        r#"{"type":"object","properties":{"file":{"type":"string"}},"additionalProperties":false}"#;
    let baseline = Baseline::new(&Bytes).tool("grep", "Search lines.", &schema);
    assert_eq!(
        baseline.tool_definition_tokens(),
        (4 + 13 + compact.len()) as u64
    );
}

#[test]
fn the_three_export_shapes_cost_the_same_as_the_parts() {
    let schema = schema();
    let parts = Baseline::new(&Bytes)
        .tool("grep", "Search lines.", &schema)
        .total();
    let mcp = json!({"name": "grep", "description": "Search lines.", "inputSchema": schema});
    let anthropic = json!({"name": "grep", "description": "Search lines.", "input_schema": schema});
    let openai = json!({
        "type": "function",
        "function": {"name": "grep", "description": "Search lines.", "parameters": schema},
    });
    for value in [&mcp, &anthropic, &openai] {
        assert_eq!(
            Baseline::new(&Bytes).tool_value(value).total(),
            parts,
            "{value}"
        );
    }
}

#[test]
fn a_definition_without_description_or_schema_costs_its_name() {
    let bare = json!({"name": "ping"});
    assert_eq!(Baseline::new(&Bytes).tool_value(&bare).total(), 4);
}

#[test]
fn an_unrecognised_tool_value_costs_its_compact_json() {
    let odd = json!({"title": "x", "args": [1, 2]});
    assert_eq!(
        Baseline::new(&Bytes).tool_value(&odd).total(),
        odd.to_string().len() as u64
    );
    let nameless = json!({"description": "no name here"});
    assert_eq!(
        Baseline::new(&Bytes).tool_value(&nameless).total(),
        nameless.to_string().len() as u64
    );
}

#[test]
fn host_texts_and_tool_lists_add_up_in_their_own_parts() {
    let schema = schema();
    let tools = [
        json!({"name": "a", "description": "one two", "inputSchema": schema}),
        json!({"name": "b", "description": "three", "inputSchema": schema}),
    ];
    let baseline = Baseline::new(&Words)
        .system_prompt("use the scratchpad")
        .tool_values(&tools)
        .host_texts(["You are an operator.", "Be brief."]);
    assert_eq!(baseline.system_prompt_tokens(), 3);
    assert_eq!(baseline.tool_definition_tokens(), (1 + 2 + 1) + (1 + 1 + 1));
    assert_eq!(baseline.host_tokens(), 6);
    assert_eq!(baseline.total(), 3 + 7 + 6);
}

#[test]
fn baseline_debug_names_the_counter() {
    let text = format!("{:?}", Baseline::new(&Words).host_text("hi"));
    assert_eq!(
        text,
        "Baseline { counter: \"words\", system_prompt: 0, tool_definitions: 0, host: 1 }"
    );
}
