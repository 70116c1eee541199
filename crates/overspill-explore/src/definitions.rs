//! The nine tool definitions the model sees: name, description and JSON Schema (docs/tools.md#4-definitions-and-export).
//!
//! Descriptions are written for an LLM: what the tool is for, when to reach for it, what it
//! returns and how it pages. Every schema is a closed object (`additionalProperties: false`).
//! A tool module points its [`crate::tool::Tool::DEFINITION`] at one of these; the registry
//! exports only the tools that are registered.

use overspill_store::Format;
use serde_json::{Value, json};

/// A tool's name, description and argument schema.
#[derive(Debug)]
pub struct Definition {
    /// The tool name, e.g. `head`.
    pub name: &'static str,
    /// One paragraph, written for the model.
    pub description: &'static str,
    /// Builds the JSON Schema of the arguments.
    pub parameters: fn() -> Value,
}

impl Definition {
    /// The JSON Schema of the tool's arguments.
    pub fn input_schema(&self) -> Value {
        (self.parameters)()
    }

    /// As an MCP tool: `{"name", "description", "inputSchema"}`.
    pub fn to_mcp(&self) -> Value {
        json!({"name": self.name, "description": self.description, "inputSchema": self.input_schema()})
    }

    /// As an OpenAI function tool: `{"type": "function", "function": {"name", "description", "parameters"}}`.
    pub fn to_openai(&self) -> Value {
        json!({
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.input_schema()},
        })
    }

    /// As an Anthropic tool: `{"name", "description", "input_schema"}`.
    pub fn to_anthropic(&self) -> Value {
        json!({"name": self.name, "description": self.description, "input_schema": self.input_schema()})
    }
}

/// The definitions of all nine tools, in the order a model should learn them (the
/// registry's list is the one a host sees; this one pins that order in tests).
#[cfg(test)]
const ALL: [&Definition; 9] = [
    &SCHEMA,
    &ITEM_SCHEMA,
    &ITERATE_OVER,
    &GET_IN,
    &QUERY,
    &GREP,
    &HEAD,
    &SLICE,
    &READ,
];

/// The tools that read JSON only: on a Markdown or text file they can only answer
/// `not_json`.
const JSON_ONLY: [&str; 4] = ["item_schema", "iterate_over", "get_in", "query"];

/// Whether the tool `name` can read a file stored as `format`; the pointer lists only those.
pub fn reads_format(name: &str, format: Format) -> bool {
    format == Format::Json || !JSON_ONLY.contains(&name)
}

/// `head`.
pub const HEAD: Definition = Definition {
    name: "head",
    description: "Show the first lines of a stored output, each prefixed with its line number. \
        Use it to see what a text or log file looks like before searching it; for JSON, start \
        with `schema` instead. `lines` defaults to 50. A line too long for one call is cut, and a \
        note says how to read the rest with `slice`. The footer gives the file's total line count \
        and your remaining token budget.",
    parameters: || {
        closed(
            json!({
                "file": file_property(),
                "lines": count_property("How many lines to show from the top.", Some(50), 0),
            }),
            &["file"],
        )
    },
};

/// `slice`.
pub const SLICE: Definition = Definition {
    name: "slice",
    description: "Show lines `start` to `end` of a stored output (1-based, both inclusive), each \
        prefixed with its line number. Use it to page through a file or to read the lines around \
        a `grep` hit or a `schema` line range such as [L120-L180]. `end` past the last line is \
        clamped; `start` past the last line returns nothing and the footer says how many lines \
        the file has. For a line too long to read at once, add `start_char` and `max_chars` to \
        read it in pieces.",
    parameters: || {
        closed(
            json!({
                "file": file_property(),
                "start": count_property("First line to show (1 is the first line of the file).", None, 1),
                "end": count_property("Last line to show, inclusive.", None, 1),
                "start_char": count_property("Within each line, the first character to show (0-based). Default 0.", None, 0),
                "max_chars": count_property("Within each line, at most this many characters. Default: the whole line.", None, 1),
            }),
            &["file", "start", "end"],
        )
    },
};

/// `grep`.
pub const GREP: Definition = Definition {
    name: "grep",
    description: "Search a stored output for lines matching a pattern (Rust regex syntax; a \
        pattern that is not a valid regex is searched for as plain text, and the footer says \
        so). Matching lines are marked with `>` and shown with `context` lines around them \
        (default 3); nearby hits are merged into one region and regions are separated by `--`. \
        Line numbers are absolute, ready for `slice`. At most `max_matches` matching lines are \
        shown (default 200); the footer reports how many matched in total. Use `ignore_case` for \
        case-insensitive search. Patterns are limited to 1024 bytes.",
    parameters: || {
        closed(
            json!({
                "file": file_property(),
                "pattern": {"type": "string", "description": "Regex or plain text to search for (at most 1024 bytes).", "minLength": 1, "maxLength": 1024},
                "context": count_property("Lines to show before and after each match.", Some(3), 0),
                "ignore_case": {"type": "boolean", "description": "Match regardless of letter case.", "default": false},
                "max_matches": count_property("Show at most this many matching lines.", Some(200), 1),
            }),
            &["file", "pattern"],
        )
    },
};

/// `read`.
pub const READ: Definition = Definition {
    name: "read",
    description: "Return a whole stored output, every line numbered. Only for files small enough \
        to fit your per-call limit and remaining budget: a larger file is refused at once with \
        its estimated size and a ready-to-run `head` call that fits. For anything big, prefer \
        `schema`, `grep` or `slice`.",
    parameters: || closed(json!({"file": file_property()}), &["file"]),
};

/// `schema`.
pub const SCHEMA: Definition = Definition {
    name: "schema",
    description: "Describe the structure of a stored output without its content: start here. \
        For JSON it shows the tree of keys with each value's kind and size (object with N keys, \
        array with N items, string length, number, boolean, null) and the line range each part \
        occupies in the file, such as [L10-L80], so you can `slice` straight to it; the items of \
        an array are merged into one shape. For Markdown it shows the heading tree with line \
        ranges; for plain text, the line count, the longest line and a sample. `max_depth` \
        (default 4) limits how deep the tree goes; `path` (default `$`) starts it at a sub-value.",
    parameters: || {
        closed(
            json!({
                "file": file_property(),
                "max_depth": count_property("How many levels of the tree to show.", Some(4), 1),
                "path": path_property("Where to start, e.g. `$.items`. Default `$` (the whole document)."),
            }),
            &["file"],
        )
    },
};

/// `item_schema`.
pub const ITEM_SCHEMA: Definition = Definition {
    name: "item_schema",
    description: "For a JSON array, list every key that appears in its items (nested keys \
        dotted, like `metadata.name`), with the value types seen and how many items have each \
        key. Use it to learn which fields exist and how consistently before choosing `fields` \
        for `iterate_over`. `offset` and `limit` restrict it to a window of items.",
    parameters: || {
        closed(
            json!({
                "file": file_property(),
                "path": path_property("The array, e.g. `$.items`."),
                "offset": count_property("First item to include (0-based).", Some(0), 0),
                "limit": count_property("How many items to include. Default: all.", None, 1),
            }),
            &["file", "path"],
        )
    },
};

/// `get_in`.
pub const GET_IN: Definition = Definition {
    name: "get_in",
    description: "Return the JSON value at a path, pretty-printed with line numbers. Paths look \
        like `$.items[3].metadata.name`, `$[\"key.with.dots\"]`, or the bare form \
        `items.3.metadata.name`. A long string value (a log, an embedded document) is paged by \
        line with `offset` and `limit`. A path that does not exist returns the longest valid \
        prefix and the keys or array length found there.",
    parameters: || {
        closed(
            json!({
                "file": file_property(),
                "path": path_property("Where the value is, e.g. `$.items[3].status`."),
                "offset": count_property("For a long string value: the first line to return (0-based).", Some(0), 0),
                "limit": count_property("For a long string value: how many lines to return.", None, 1),
            }),
            &["file", "path"],
        )
    },
};

/// `iterate_over`.
pub const ITERATE_OVER: Definition = Definition {
    name: "iterate_over",
    description: "Walk the items of a JSON array and return one compact row per item holding \
        only the `fields` you name (a comma-separated list of sub-paths, e.g. \
        `metadata.name,status.phase`). Each row carries `_index`, the item's absolute position, \
        so `$.items[_index]` stays a valid `get_in` path whichever window produced it. Page with \
        `offset` and `limit`; the footer shows the window as a half-open range and the total. \
        Strings longer than 5 lines are cut with a hint.",
    parameters: || {
        closed(
            json!({
                "file": file_property(),
                "path": path_property("The array, e.g. `$.items`."),
                "fields": {"type": "string", "description": "Comma-separated sub-paths to keep in each row, e.g. `metadata.name,status.phase`. Default: whole items."},
                "offset": count_property("First item (0-based).", Some(0), 0),
                "limit": count_property("How many items.", None, 1),
            }),
            &["file", "path"],
        )
    },
};

/// `query`.
pub const QUERY: Definition = Definition {
    name: "query",
    description: "Run a jq filter over a stored JSON output and return its results, one per \
        line, for questions the other tools answer only in several steps: counting \
        (`[.items[] | select(.status.phase == \"Failed\")] | length`), grouping, or projecting. \
        The filter sees only this file: no environment, no other input, no clock. Results are \
        paged with `offset` and `limit`; evaluation is bounded in time and output.",
    parameters: || {
        closed(
            json!({
                "file": file_property(),
                "filter": {"type": "string", "description": "A jq filter, e.g. `.items | length`."},
                "offset": count_property("First result to return (0-based).", Some(0), 0),
                "limit": count_property("How many results to return.", None, 1),
            }),
            &["file", "filter"],
        )
    },
};

fn closed(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

fn file_property() -> Value {
    json!({
        "type": "string",
        "description": "The stored file name exactly as the pointer gives it (or a path relative to the readable directory).",
    })
}

fn path_property(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

fn count_property(description: &str, default: Option<u64>, minimum: u64) -> Value {
    let mut property = json!({"type": "integer", "description": description, "minimum": minimum});
    if let (Some(default), Some(object)) = (default, property.as_object_mut()) {
        object.insert("default".to_owned(), json!(default));
    }
    property
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_a_closed_object_whose_required_keys_exist() {
        for definition in ALL {
            let schema = definition.input_schema();
            assert_eq!(schema["type"], "object", "{}", definition.name);
            assert_eq!(schema["additionalProperties"], false, "{}", definition.name);
            let properties = schema["properties"].as_object().unwrap();
            assert!(properties.contains_key("file"), "{}", definition.name);
            for required in schema["required"].as_array().unwrap() {
                assert!(
                    properties.contains_key(required.as_str().unwrap()),
                    "{}",
                    definition.name
                );
            }
        }
    }

    #[test]
    fn names_are_unique_and_descriptions_are_one_paragraph() {
        let mut names: Vec<_> = ALL.iter().map(|d| d.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 9);
        for definition in ALL {
            assert!(
                !definition.description.contains('\n'),
                "{}",
                definition.name
            );
            assert!(definition.description.len() > 120, "{}", definition.name);
        }
    }

    #[test]
    fn export_formats_are_pinned() {
        assert_eq!(
            READ.to_mcp(),
            json!({"name": "read", "description": READ.description, "inputSchema": {
                "type": "object",
                "properties": {"file": file_property()},
                "required": ["file"],
                "additionalProperties": false,
            }})
        );
        assert_eq!(READ.to_openai()["type"], "function");
        assert_eq!(
            READ.to_openai()["function"]["parameters"],
            READ.input_schema()
        );
        assert_eq!(READ.to_openai()["function"]["name"], "read");
        assert_eq!(READ.to_anthropic()["input_schema"], READ.input_schema());
        assert_eq!(READ.to_anthropic()["name"], "read");
    }
}
