//! Reading a client's MCP servers from its configuration file and writing the file back with
//! them replaced by one `overspill` entry, everything else (comments, order, spacing, other
//! settings) as it was.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstRootNode};
use serde_json::Value;

use super::clients::{Client, Format};
use super::codex::{CODEX_TIMEOUTS, codex_entry, codex_text, codex_toml, servers_table};
use super::stays::json_stays;
use crate::cmd::agent_pad::GATEWAY_ENTRY;

/// A client's configuration, parsed.
pub struct Parsed {
    client: Client,
    doc: Doc,
}

enum Doc {
    Json { root: CstRootNode, value: Value },
    Toml(toml_edit::DocumentMut),
}

/// One of the client's servers, as an `mcpServers` entry (Codex's converted).
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    pub entry: Value,
    /// Why overspill leaves it where it is; `None` when it can be fronted.
    pub stays: Option<String>,
    /// The entry as the client's file has it, to be put back as it was.
    pub original: Original,
}

/// A server's entry in the client's own form: a JSON value, or Codex's table as TOML text
/// (`[mcp_servers.<name>]` and its keys, with the comments inside it; those above it stay in
/// the file).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Original {
    Json(Value),
    Toml(String),
}

/// A server to put back into the client's file, in the client's form.
pub struct Restored {
    pub name: String,
    pub original: Original,
}

/// The options every client's JSON is read with: comments and trailing commas allowed (VS
/// Code and Gemini CLI write them), nothing looser.
pub(super) fn json_options() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        ..ParseOptions::default()
    }
}

impl Parsed {
    /// `text` as `client`'s configuration. `Err` says where it cannot be read.
    pub fn parse(client: Client, text: &str) -> Result<Parsed, String> {
        let doc = match client.profile().format {
            Format::Json { .. } => {
                let root = CstRootNode::parse(text, &json_options())
                    .map_err(|error| format!("it is not JSON: {error}"))?;
                let value: Value = jsonc_parser::parse_to_serde_value(text, &json_options())
                    .map_err(|error| format!("it is not JSON: {error}"))?;
                if !(value.is_object() || value.is_null()) {
                    return Err("it is JSON, but not an object".to_owned());
                }
                if let Format::Json { key, .. } = client.profile().format
                    && value.get(key).is_some_and(|servers| !servers.is_object())
                {
                    return Err(format!("its `{key}` is not an object of servers"));
                }
                Doc::Json { root, value }
            }
            Format::CodexToml => Doc::Toml(
                text.parse::<toml_edit::DocumentMut>()
                    .map_err(|error| format!("it is not TOML: {error}"))?,
            ),
        };
        Ok(Parsed { client, doc })
    }

    /// The client's servers in their order, each with whether overspill can front it.
    pub fn entries(&self) -> Vec<Entry> {
        match &self.doc {
            Doc::Json { value, .. } => {
                let Format::Json { key, .. } = self.client.profile().format else {
                    return Vec::new();
                };
                let Some(servers) = value.get(key).and_then(Value::as_object) else {
                    return Vec::new();
                };
                servers
                    .iter()
                    .map(|(name, entry)| Entry {
                        name: name.clone(),
                        stays: json_stays(self.client, entry),
                        entry: entry.clone(),
                        original: Original::Json(entry.clone()),
                    })
                    .collect()
            }
            Doc::Toml(doc) => {
                let Some(servers) = doc.get("mcp_servers").and_then(|item| item.as_table_like())
                else {
                    return Vec::new();
                };
                servers
                    .iter()
                    .map(|(name, item)| {
                        let (entry, stays) = codex_entry(item);
                        Entry {
                            name: name.to_owned(),
                            entry,
                            stays,
                            original: Original::Toml(codex_text(name, item)),
                        }
                    })
                    .collect()
            }
        }
    }

    /// The file with the servers named in `moved` (and an earlier `overspill` entry) removed
    /// and `ours` (an `mcpServers` entry) added as `overspill`.
    pub fn rewritten(&mut self, moved: &[String], ours: &Value) -> String {
        match &mut self.doc {
            Doc::Json { root, .. } => {
                let Format::Json { key, .. } = self.client.profile().format else {
                    return root.to_string();
                };
                let servers = root.object_value_or_set().object_value_or_set(key);
                for property in servers.properties() {
                    let name = property.name().and_then(|name| name.decoded_value().ok());
                    if name.is_some_and(|name| name == GATEWAY_ENTRY || moved.contains(&name)) {
                        property.remove();
                    }
                }
                servers.append(GATEWAY_ENTRY, input(ours));
                root.to_string()
            }
            Doc::Toml(doc) => {
                if let Some(servers) = servers_table(doc) {
                    let mut comments = String::new();
                    for name in moved.iter().map(String::as_str).chain([GATEWAY_ENTRY]) {
                        if let Some(removed) = servers.remove(name) {
                            comments.push_str(&comments_above(&removed));
                        }
                    }
                    let mut table = codex_table(ours);
                    table.decor_mut().set_prefix(comments);
                    servers.insert(GATEWAY_ENTRY, toml_edit::Item::Table(table));
                }
                doc.to_string()
            }
        }
    }
}

impl Parsed {
    /// The file with overspill's entry removed and `servers` put back (one of the same name
    /// already there is left as it is). `Err` names a server that cannot be written in the
    /// client's form.
    pub fn restored(&mut self, servers: &[Restored]) -> Result<String, String> {
        match &mut self.doc {
            Doc::Json { root, value } => {
                let Format::Json { key, .. } = self.client.profile().format else {
                    return Ok(root.to_string());
                };
                let present: Vec<String> = value
                    .get(key)
                    .and_then(Value::as_object)
                    .map(|servers| servers.keys().cloned().collect())
                    .unwrap_or_default();
                let object = root.object_value_or_set().object_value_or_set(key);
                if let Some(property) = object.get(GATEWAY_ENTRY) {
                    property.remove();
                }
                for server in servers {
                    if present.contains(&server.name) && server.name != GATEWAY_ENTRY {
                        continue;
                    }
                    let entry = match &server.original {
                        Original::Json(entry) => entry.clone(),
                        Original::Toml(_) => {
                            return Err(format!("`{}` is written as TOML", server.name));
                        }
                    };
                    object.append(&server.name, input(&entry));
                }
                Ok(root.to_string())
            }
            Doc::Toml(doc) => {
                let Some(table) = servers_table(doc) else {
                    return Err("`mcp_servers` is not a table".to_owned());
                };
                let mut comments = String::new();
                if let Some(ours) = table.remove(GATEWAY_ENTRY) {
                    comments = comments_above(&ours);
                }
                for server in servers {
                    if table.contains_key(&server.name) {
                        continue;
                    }
                    let text = match &server.original {
                        Original::Toml(text) => text.clone(),
                        Original::Json(entry) => codex_toml(&server.name, entry)?,
                    };
                    let parsed: toml_edit::DocumentMut = text
                        .parse()
                        .map_err(|error| format!("`{}` is not TOML: {error}", server.name))?;
                    let Some(mut item) = parsed
                        .get("mcp_servers")
                        .and_then(|servers| servers.get(&server.name))
                        .cloned()
                    else {
                        return Err(format!("`{}` has no table", server.name));
                    };
                    if let Some(restored) = item.as_table_mut() {
                        restored.set_position(None);
                        // The comments that were above overspill's entry head the first server
                        // put back; a blank line sets each apart.
                        let prefix = match std::mem::take(&mut comments) {
                            above if above.is_empty() => "\n".to_owned(),
                            above => above,
                        };
                        restored.decor_mut().set_prefix(prefix);
                    }
                    table.insert(&server.name, item);
                }
                Ok(doc.to_string())
            }
        }
    }
}

/// The comments and blank lines above a table: they belong to the file, not to the table, and
/// stay when the table moves (a comment such as `# MCP servers` heads every server after it).
fn comments_above(item: &toml_edit::Item) -> String {
    item.as_table()
        .and_then(|table| table.decor().prefix())
        .and_then(|raw| raw.as_str())
        .unwrap_or_default()
        .to_owned()
}

/// The `args` of an `mcpServers` entry, those that are strings.
pub fn args_of(entry: &Value) -> impl Iterator<Item = &str> {
    entry
        .get("args")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

/// Overspill's own entry (`command`, `args` and its time limits) as a Codex table.
fn codex_table(ours: &Value) -> toml_edit::Table {
    let mut table = toml_edit::Table::new();
    if let Some(command) = ours.get("command").and_then(Value::as_str) {
        table.insert("command", toml_edit::value(command));
    }
    let args: toml_edit::Array = args_of(ours).collect();
    table.insert("args", toml_edit::value(args));
    for key in CODEX_TIMEOUTS {
        if let Some(seconds) = ours.get(*key).and_then(Value::as_i64) {
            table.insert(key, toml_edit::value(seconds));
        }
    }
    table
}

/// A JSON value as the syntax tree takes it.
pub(super) fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(flag) => CstInputValue::Bool(*flag),
        Value::Number(number) => CstInputValue::Number(number.to_string()),
        Value::String(text) => CstInputValue::String(text.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input).collect()),
        Value::Object(fields) => CstInputValue::Object(
            fields
                .iter()
                .map(|(key, value)| (key.clone(), input(value)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests;
