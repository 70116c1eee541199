//! Reading a client's MCP servers from its configuration file and writing the file back with
//! them replaced by one `overspill` entry, everything else (comments, order, spacing, other
//! settings) as it was.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstRootNode};
use serde_json::{Map, Value};

use super::clients::{Client, Format};

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
}

/// The options every client's JSON is read with: comments and trailing commas allowed (VS
/// Code and Gemini CLI write them), nothing looser.
fn json_options() -> ParseOptions {
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
        let doc = match client.format() {
            Format::Json { .. } => {
                let root = CstRootNode::parse(text, &json_options())
                    .map_err(|error| format!("it is not JSON: {error}"))?;
                let value: Value = jsonc_parser::parse_to_serde_value(text, &json_options())
                    .map_err(|error| format!("it is not JSON: {error}"))?;
                if !(value.is_object() || value.is_null()) {
                    return Err("it is JSON, but not an object".to_owned());
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
                let Format::Json { key, .. } = self.client.format() else {
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
                let Format::Json { key, .. } = self.client.format() else {
                    return root.to_string();
                };
                let servers = root.object_value_or_set().object_value_or_set(key);
                for property in servers.properties() {
                    let name = property.name().and_then(|name| name.decoded_value().ok());
                    if name.is_some_and(|name| name == OURS || moved.contains(&name)) {
                        property.remove();
                    }
                }
                servers.append(OURS, input(ours));
                root.to_string()
            }
            Doc::Toml(doc) => {
                let servers = doc
                    .entry("mcp_servers")
                    .or_insert_with(|| {
                        let mut table = toml_edit::Table::new();
                        table.set_implicit(true);
                        toml_edit::Item::Table(table)
                    })
                    .as_table_like_mut();
                if let Some(servers) = servers {
                    for name in moved.iter().map(String::as_str).chain([OURS]) {
                        servers.remove(name);
                    }
                    servers.insert(OURS, toml_edit::Item::Table(codex_table(ours)));
                }
                doc.to_string()
            }
        }
    }
}

/// The name of overspill's own entry in a client's configuration.
pub const OURS: &str = "overspill";

/// Why a client's JSON entry stays in the client, if it does.
fn json_stays(client: Client, entry: &Value) -> Option<String> {
    let Some(object) = entry.as_object() else {
        return Some("the entry is not an object".to_owned());
    };
    if object.get("disabled").and_then(Value::as_bool) == Some(true)
        || object.get("enabled").and_then(Value::as_bool) == Some(false)
    {
        return Some("it is disabled".to_owned());
    }
    if object.get("type").and_then(Value::as_str) == Some("sse")
        || client.url_is_sse() && object.contains_key("url")
    {
        return Some(
            "it speaks the older HTTP+SSE transport, which overspill does not front".to_owned(),
        );
    }
    if object.contains_key("includeTools") || object.contains_key("excludeTools") {
        return Some(
            "it offers only some of its tools (includeTools, excludeTools), which overspill \
             does not filter"
                .to_owned(),
        );
    }
    let text = entry.to_string();
    if text.contains("${input:")
        || text.contains("${workspaceFolder")
        || text.contains("${userHome")
    {
        return Some(
            "it uses the client's own variables (${input:…}, ${workspaceFolder}), which only the \
             client can fill in"
                .to_owned(),
        );
    }
    if !(object.contains_key("command")
        || object.contains_key("url")
        || object.contains_key("httpUrl"))
    {
        return Some("it has no command or url".to_owned());
    }
    None
}

/// A Codex `[mcp_servers.<name>]` table as an `mcpServers` entry, and why it stays in Codex
/// if it does (a setting overspill cannot carry over).
fn codex_entry(item: &toml_edit::Item) -> (Value, Option<String>) {
    let Some(table) = item.as_table_like() else {
        return (Value::Null, Some("the entry is not a table".to_owned()));
    };
    let mut entry = Map::new();
    let mut headers = Map::new();
    let mut stays = None;
    for (key, value) in table.iter() {
        let Some(value) = value.as_value() else {
            stays = Some(format!("`{key}` is a table overspill does not read"));
            continue;
        };
        match key {
            "command" | "cwd" | "url" => {
                if let Some(text) = value.as_str() {
                    entry.insert(key.to_owned(), Value::String(text.to_owned()));
                }
            }
            "args" => {
                let args: Vec<Value> = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|arg| arg.as_str().map(|arg| Value::String(arg.to_owned())))
                    .collect();
                entry.insert("args".to_owned(), Value::Array(args));
            }
            "env" | "http_headers" | "env_http_headers" => {
                let Some(pairs) = value.as_inline_table() else {
                    continue;
                };
                for (name, value) in pairs.iter() {
                    let Some(text) = value.as_str() else { continue };
                    match key {
                        "env" => {
                            let env = entry
                                .entry("env")
                                .or_insert_with(|| Value::Object(Map::new()));
                            if let Some(env) = env.as_object_mut() {
                                env.insert(name.to_owned(), Value::String(text.to_owned()));
                            }
                        }
                        "http_headers" => {
                            headers.insert(name.to_owned(), Value::String(text.to_owned()));
                        }
                        _ => {
                            headers.insert(name.to_owned(), Value::String(format!("${{{text}}}")));
                        }
                    }
                }
            }
            "bearer_token_env_var" => {
                if let Some(var) = value.as_str() {
                    headers.insert(
                        "Authorization".to_owned(),
                        Value::String(format!("Bearer ${{{var}}}")),
                    );
                }
            }
            "enabled" if value.as_bool() == Some(false) => {
                stays = Some("it is disabled".to_owned());
            }
            "enabled" | "startup_timeout_sec" | "startup_timeout_ms" | "tool_timeout_sec" => {}
            other => stays = Some(format!("its `{other}` setting has no overspill equivalent")),
        }
    }
    if entry.contains_key("url") {
        entry.insert("type".to_owned(), Value::String("http".to_owned()));
        if !headers.is_empty() {
            entry.insert("headers".to_owned(), Value::Object(headers));
        }
    } else if !entry.contains_key("command") {
        stays.get_or_insert_with(|| "it has no command or url".to_owned());
    }
    (Value::Object(entry), stays)
}

/// Overspill's own entry (`command` and `args`, and time to start) as a Codex table.
fn codex_table(ours: &Value) -> toml_edit::Table {
    let mut table = toml_edit::Table::new();
    if let Some(command) = ours.get("command").and_then(Value::as_str) {
        table.insert("command", toml_edit::value(command));
    }
    let args: toml_edit::Array = ours
        .get("args")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    table.insert("args", toml_edit::value(args));
    // The gateway answers `initialize` once its slowest server has (at most `--init-timeout`,
    // 30 s): more than Codex waits for an MCP server by default.
    table.insert("startup_timeout_sec", toml_edit::value(60));
    table
}

/// A JSON value as the syntax tree takes it.
fn input(value: &Value) -> CstInputValue {
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
