//! What a client keys on a server's tool names, and what becomes of it when the server moves
//! behind overspill (docs/clients.md#permission-rules-and-hooks). In Claude Code a server's
//! tools are `mcp__<server>__<tool>`; behind the gateway they are
//! `mcp__overspill__<server>__<tool>`, so a permission rule (`permissions.allow`, `ask`,
//! `deny`) or a hook matcher written for the old names would stop matching, and a deny rule
//! would silently stop protecting. A rule that names one tool gets its twin under the new name
//! (recorded, and removed by uninstall); a server that a rule names whole, or a hook matches by
//! name, stays in the client, since no rule of the new names can be derived from it exactly.

use std::path::{Path, PathBuf};

use anyhow::Context;
use jsonc_parser::cst::{CstInputValue, CstRootNode};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::files;
use crate::cmd::agent_pad::GATEWAY_ENTRY;

/// The permission lists of a Claude Code settings file.
const LISTS: [&str; 3] = ["allow", "ask", "deny"];

/// A rule install added to a settings file, for uninstall to remove.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddedRule {
    pub file: PathBuf,
    /// `allow`, `ask` or `deny`.
    pub list: String,
    pub rule: String,
}

/// What the settings files say of the servers about to move.
#[derive(Debug, Default)]
pub struct Keyed {
    /// Servers that must stay, each with why.
    pub stays: Vec<(String, String)>,
    /// Rules to add, under the new names.
    pub added: Vec<AddedRule>,
}

/// Claude Code's name for a server in its tools' names: other characters than letters,
/// digits, `_` and `-` become `_`.
fn client_name(server: &str) -> String {
    server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Reads `files` (those that exist) for rules and hooks keyed on the tools of `servers`, the
/// servers about to move; `offered(server, tool)` is the name the gateway gives a tool, `None`
/// when it would not be the plain `<server>__<tool>`.
pub fn keyed(
    files: &[PathBuf],
    servers: &[String],
    offered: &dyn Fn(&str, &str) -> Option<String>,
) -> anyhow::Result<Keyed> {
    let mut keyed = Keyed::default();
    for file in files {
        let Some(bytes) = files::read(&files::real_path(file))? else {
            continue;
        };
        let settings = parse(file, &bytes)?;
        for server in servers {
            let prefix = format!("mcp__{}", client_name(server));
            let mut why = None;
            for list in LISTS {
                for rule in rules_in(&settings, list) {
                    let Some(rest) = rule.strip_prefix(&prefix) else {
                        continue;
                    };
                    let tool = match rest {
                        "" | "__*" => None,
                        rest => match rest.strip_prefix("__") {
                            Some(tool) => Some(tool),
                            None => continue,
                        },
                    };
                    match tool.map(|tool| (tool, offered(server, tool))) {
                        Some((_, Some(offered))) => keyed.added.push(AddedRule {
                            file: file.clone(),
                            list: list.to_owned(),
                            rule: format!("mcp__{GATEWAY_ENTRY}__{offered}"),
                        }),
                        Some((_, None)) => {
                            why.get_or_insert(format!(
                                "a permissions.{list} rule in {} names its tool `{rule}`, \
                                 whose name behind overspill would be shortened, so no rule \
                                 can follow it",
                                file.display()
                            ));
                        }
                        None => {
                            why.get_or_insert(format!(
                                "a permissions.{list} rule in {} names the whole server \
                                 (`{rule}`), which cannot match its tools' names behind \
                                 overspill (`mcp__{GATEWAY_ENTRY}__{server}__<tool>`); write a rule \
                                 per tool to move it",
                                file.display()
                            ));
                        }
                    }
                }
            }
            if why.is_none()
                && let Some(list) = server_lists(&settings, server)
            {
                why = Some(format!(
                    "Claude Code's `{list}` in {} names it, which would no longer apply behind \
                     overspill",
                    file.display()
                ));
            }
            if why.is_none()
                && let Some(matcher) = hook_matchers(&settings).find(|m| m.contains(&prefix))
            {
                why = Some(format!(
                    "a hook in {} matches its tools by name (`{matcher}`), which behind \
                     overspill are `mcp__{GATEWAY_ENTRY}__{server}__<tool>`",
                    file.display()
                ));
            }
            if let Some(why) = why
                && !keyed.stays.iter().any(|(name, _)| name == server)
            {
                keyed.stays.push((server.clone(), why));
            }
        }
    }
    // The rules of a server that stays are not added.
    keyed.added.retain(|added| {
        !keyed.stays.iter().any(|(server, _)| {
            added
                .rule
                .starts_with(&format!("mcp__{GATEWAY_ENTRY}__{server}__"))
        })
    });
    keyed.added.dedup();
    Ok(keyed)
}

/// Adds each of `rules` after the rule it stands for (at the end of its list), in each file,
/// unless the list has it already; gives those that were added.
pub fn add(rules: &[AddedRule]) -> anyhow::Result<Vec<AddedRule>> {
    let mut added = Vec::new();
    for file in distinct_files(rules) {
        let (done, _) = files::edit(&file, |bytes| {
            let Some(bytes) = bytes else {
                return Ok(None);
            };
            let (root, settings) = tree(&file, bytes)?;
            let mut done = Vec::new();
            for rule in rules.iter().filter(|rule| rule.file == file) {
                if rules_in(&settings, &rule.list).any(|have| have == rule.rule) {
                    continue;
                }
                let list = root
                    .object_value_or_set()
                    .object_value_or_set("permissions")
                    .array_value_or_set(&rule.list);
                list.append(CstInputValue::String(rule.rule.clone()));
                done.push(rule.clone());
            }
            Ok((!done.is_empty()).then(|| (root.to_string().into_bytes(), done)))
        })?;
        added.extend(done.unwrap_or_default());
    }
    Ok(added)
}

/// Removes each of `rules` from its file as the file is now (a rule already gone is left).
pub fn remove(rules: &[AddedRule]) -> anyhow::Result<()> {
    for file in distinct_files(rules) {
        files::edit(&file, |bytes| {
            let Some(bytes) = bytes else {
                return Ok(None);
            };
            let (root, _) = tree(&file, bytes)?;
            let mut removed = false;
            let permissions = root
                .object_value()
                .and_then(|root| root.object_value("permissions"));
            for rule in rules.iter().filter(|rule| rule.file == file) {
                let Some(list) = permissions
                    .as_ref()
                    .and_then(|permissions| permissions.array_value(&rule.list))
                else {
                    continue;
                };
                for element in list.elements() {
                    let text = element
                        .as_string_lit()
                        .and_then(|text| text.decoded_value().ok());
                    if text.as_deref() == Some(rule.rule.as_str()) {
                        element.remove();
                        removed = true;
                    }
                }
            }
            Ok(removed.then(|| (root.to_string().into_bytes(), ())))
        })?;
    }
    Ok(())
}

fn distinct_files(rules: &[AddedRule]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = rules.iter().map(|rule| rule.file.clone()).collect();
    files.sort();
    files.dedup();
    files
}

fn parse(file: &Path, bytes: &[u8]) -> anyhow::Result<Value> {
    let text = std::str::from_utf8(bytes)
        .with_context(|| format!("cannot read {}: it is not UTF-8 text", file.display()))?;
    jsonc_parser::parse_to_serde_value(text, &super::edit::json_options())
        .with_context(|| format!("cannot read {} as JSON", file.display()))
}

fn tree(file: &Path, bytes: &[u8]) -> anyhow::Result<(CstRootNode, Value)> {
    let settings = parse(file, bytes)?;
    let text = std::str::from_utf8(bytes).unwrap_or_default();
    let root = CstRootNode::parse(text, &super::edit::json_options())
        .with_context(|| format!("cannot read {} as JSON", file.display()))?;
    Ok((root, settings))
}

fn rules_in<'a>(settings: &'a Value, list: &str) -> impl Iterator<Item = &'a str> {
    settings
        .get("permissions")
        .and_then(|permissions| permissions.get(list))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

/// The name of a Claude Code setting that turns `server` itself off (disables or denies it), in a settings file or in `~/.claude.json` (per project): behind overspill it would
/// name a server Claude Code no longer sees.
fn server_lists(settings: &Value, server: &str) -> Option<&'static str> {
    let names = |list: Option<&Value>| -> bool {
        list.and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|item| {
                item.as_str() == Some(server)
                    || item.get("serverName").and_then(Value::as_str) == Some(server)
            })
    };
    const LISTS: [&str; 3] = [
        "disabledMcpServers",
        "disabledMcpjsonServers",
        "deniedMcpServers",
    ];
    let projects = settings
        .get("projects")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|projects| projects.values());
    std::iter::once(settings)
        .chain(projects)
        .find_map(|scope| LISTS.into_iter().find(|list| names(scope.get(*list))))
}

/// Every hook matcher of a settings file (`hooks.<event>[].matcher`).
fn hook_matchers(settings: &Value) -> impl Iterator<Item = &str> {
    settings
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|events| events.values())
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|hook| hook.get("matcher")?.as_str())
}

#[cfg(test)]
mod tests;
