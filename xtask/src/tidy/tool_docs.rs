//! docs/tools.md against the tools' definitions, which the registry makes from each tool's
//! module: every exploration tool has its section, no section is about a tool there is not,
//! and each section's table of arguments says what the tool's JSON Schema says of every
//! argument (docs/architecture.md#what-cargo-xtask-tidy-checks).
//!
//! The rule, which docs/tools.md follows:
//! - a tool's section is a `###` heading that opens with the tool's name as inline code
//!   (`` ### `head`: the first lines ``); every such heading is a tool's;
//! - its first table whose header row opens with `argument | default` has one row per property
//!   of the schema, the property's name as inline code in the first cell;
//! - the default cell is `required` for a required argument; for one whose schema gives a
//!   `default`, that value: the cell without its backticks (and without the commas between
//!   digits, `10,000`) read as JSON, or as the string itself for a string default; for any
//!   other argument, words that are neither `required` nor a JSON value (`all`, `whole line`),
//!   since a value there would state a default the model is never told.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result};
use pulldown_cmark::HeadingLevel;
use serde_json::Value;

use super::Problem;
use super::markdown::{self, Section};

/// The page the tools are described on.
pub const TOOLS_PAGE: &str = "docs/tools.md";

/// A tool as tidy compares it with its section: its name and its arguments' JSON Schema.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolFacts {
    pub name: String,
    pub schema: Value,
}

/// The registry's exploration tools, from their definitions.
pub fn registered() -> Vec<ToolFacts> {
    overspill_explore::Registry::new()
        .exploration_definitions()
        .into_iter()
        .map(|definition| ToolFacts {
            name: definition.name.to_owned(),
            schema: definition.input_schema(),
        })
        .collect()
}

/// Where docs/tools.md under `root` differs from the registry's tools.
pub fn problems(root: &Path) -> Result<Vec<Problem>> {
    let page = fs::read_to_string(root.join(TOOLS_PAGE))
        .with_context(|| format!("reading {TOOLS_PAGE}"))?;
    Ok(page_problems(&page, &registered()))
}

/// Where `page` differs from `tools`.
pub fn page_problems(page: &str, tools: &[ToolFacts]) -> Vec<Problem> {
    let sections: Vec<Section> = markdown::sections(page)
        .into_iter()
        .filter(|section| section.level == HeadingLevel::H3 && section.opening_code.is_some())
        .collect();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for section in &sections {
        let name = section.opening_code.clone().unwrap_or_default();
        let Some(tool) = tools.iter().find(|tool| tool.name == name) else {
            problems.push(Problem::ToolSectionWithoutTool {
                line: section.line,
                name,
            });
            continue;
        };
        if !seen.insert(name.clone()) {
            problems.push(Problem::ToolSectionTwice {
                line: section.line,
                tool: name,
            });
            continue;
        }
        problems.extend(argument_problems(tool, section));
    }
    for tool in tools {
        if !seen.contains(&tool.name) {
            problems.push(Problem::ToolSectionMissing {
                tool: tool.name.clone(),
            });
        }
    }
    problems
}

/// Where a tool's table of arguments differs from its schema.
fn argument_problems(tool: &ToolFacts, section: &Section) -> Vec<Problem> {
    let differs =
        |argument: &str, doc: Option<&str>, definition: String| Problem::ToolArgumentDiffers {
            tool: tool.name.clone(),
            argument: argument.to_owned(),
            doc: doc.map(str::to_owned),
            definition,
        };
    let Some(table) = section.tables.iter().find(|table| {
        table.first().is_some_and(|header| {
            header.len() >= 2 && header[0] == "argument" && header[1] == "default"
        })
    }) else {
        return vec![Problem::ToolArgumentsMissing {
            tool: tool.name.clone(),
        }];
    };
    let properties = tool.schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let required: BTreeSet<&str> = tool.schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut problems = Vec::new();
    let mut rows = BTreeSet::new();
    for row in table.iter().skip(1) {
        let (Some(first), Some(cell)) = (row.first(), row.get(1)) else {
            continue;
        };
        let argument = first.trim_matches('`');
        rows.insert(argument.to_owned());
        let Some(property) = properties.get(argument) else {
            problems.push(differs(argument, Some(cell), "no such argument".to_owned()));
            continue;
        };
        let stated = Stated::of(cell);
        let agrees = match (required.contains(argument), property.get("default")) {
            (true, _) => stated == Stated::Required,
            (false, Some(default)) => match &stated {
                Stated::Value(value) => value == default,
                Stated::Words(words) => default.as_str() == Some(words.as_str()),
                Stated::Required => false,
            },
            (false, None) => matches!(stated, Stated::Words(_)),
        };
        if !agrees {
            let definition = match (required.contains(argument), property.get("default")) {
                (true, _) => "required".to_owned(),
                (false, Some(default)) => format!("default {default}"),
                (false, None) => "optional, with no default".to_owned(),
            };
            problems.push(differs(argument, Some(cell), definition));
        }
    }
    for argument in properties.keys() {
        if !rows.contains(argument) {
            problems.push(differs(argument, None, "an argument".to_owned()));
        }
    }
    problems
}

/// The sections a page needs for `tools` and nothing else: a heading and a table of
/// arguments each, stating what the definitions state.
#[cfg(test)]
pub fn sections_of(tools: &[ToolFacts]) -> String {
    let mut page = String::new();
    for tool in tools {
        page.push_str(&format!(
            "### `{}`: a tool\n\n| argument | default | |\n|---|---|---|\n",
            tool.name
        ));
        let required = &tool.schema["required"];
        for (name, property) in tool.schema["properties"].as_object().into_iter().flatten() {
            let default = match property.get("default") {
                _ if required
                    .as_array()
                    .is_some_and(|r| r.contains(&Value::from(name.as_str()))) =>
                {
                    "required".to_owned()
                }
                Some(default) => default.to_string(),
                None => "not given".to_owned(),
            };
            page.push_str(&format!("| `{name}` | {default} | |\n"));
        }
        page.push('\n');
    }
    page
}

/// What a default cell states.
#[derive(Debug, PartialEq)]
enum Stated {
    /// `required`.
    Required,
    /// A JSON value: `50`, `10,000`, `false`, `` `"$"` ``.
    Value(Value),
    /// Anything else, as written without backticks.
    Words(String),
}

impl Stated {
    fn of(cell: &str) -> Stated {
        let bare = cell.trim().replace('`', "");
        if bare == "required" {
            return Stated::Required;
        }
        match serde_json::from_str(&without_digit_commas(&bare)) {
            Ok(value) => Stated::Value(value),
            Err(_) => Stated::Words(bare),
        }
    }
}

/// `text` without the commas that group digits (`10,000` → `10000`).
fn without_digit_commas(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    chars
        .iter()
        .enumerate()
        .filter(|&(i, &c)| {
            !(c == ','
                && i > 0
                && chars[i - 1].is_ascii_digit()
                && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        })
        .map(|(_, &c)| c)
        .collect()
}

#[cfg(test)]
mod tests;
