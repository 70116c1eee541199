//! Reading a client's MCP servers from its configuration file and writing the file back with
//! them replaced by one `overspill` entry, everything else (comments, order, spacing, other
//! settings) as it was.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstRootNode};
use serde_json::{Map, Value};

use super::clients::{Client, Format};
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
        let doc = match client.format() {
            Format::Json { .. } => {
                let root = CstRootNode::parse(text, &json_options())
                    .map_err(|error| format!("it is not JSON: {error}"))?;
                let value: Value = jsonc_parser::parse_to_serde_value(text, &json_options())
                    .map_err(|error| format!("it is not JSON: {error}"))?;
                if !(value.is_object() || value.is_null()) {
                    return Err("it is JSON, but not an object".to_owned());
                }
                if let Format::Json { key, .. } = client.format()
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
                let Format::Json { key, .. } = self.client.format() else {
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
                let Format::Json { key, .. } = self.client.format() else {
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

/// A Codex server table as TOML text of its own, without the comments above it.
fn codex_text(name: &str, item: &toml_edit::Item) -> String {
    let mut item = item.clone();
    if let Some(table) = item.as_table_mut() {
        table.decor_mut().set_prefix("");
        table.set_position(None);
    }
    one_server(name, item)
}

/// A Codex configuration of one `[mcp_servers.<name>]` table, as text.
fn one_server(name: &str, item: toml_edit::Item) -> String {
    let mut doc = toml_edit::DocumentMut::new();
    if let Some(servers) = servers_table(&mut doc) {
        servers.insert(name, item);
    }
    doc.to_string()
}

/// The `[mcp_servers]` table of a Codex configuration, made (implicit: only its servers'
/// headers show) when there is none; `None` when the key holds something else.
fn servers_table(doc: &mut toml_edit::DocumentMut) -> Option<&mut dyn toml_edit::TableLike> {
    doc.entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        })
        .as_table_like_mut()
}

/// An `mcpServers` entry as a Codex `[mcp_servers.<name>]` table (TOML text), the reverse of
/// [`codex_entry`]: `Authorization: Bearer ${VAR}` becomes `bearer_token_env_var`, a header
/// that is one `${VAR}` `env_http_headers`, other headers `http_headers`. `Err` names what
/// Codex has no key for.
pub fn codex_toml(name: &str, entry: &Value) -> Result<String, String> {
    let Some(object) = entry.as_object() else {
        return Err(format!("`{name}` is not an object"));
    };
    let mut table = toml_edit::Table::new();
    let text = |key: &str| object.get(key).and_then(Value::as_str);
    for key in ["command", "cwd"] {
        if let Some(value) = text(key) {
            table.insert(key, toml_edit::value(value));
        }
    }
    if let Some(args) = object.get("args").and_then(Value::as_array) {
        let args: toml_edit::Array = args.iter().filter_map(Value::as_str).collect();
        table.insert("args", toml_edit::value(args));
    }
    if let Some(env) = object.get("env").and_then(Value::as_object) {
        let mut inline = toml_edit::InlineTable::new();
        for (key, value) in env {
            if let Some(value) = value.as_str() {
                inline.insert(key.as_str(), value.into());
            }
        }
        table.insert("env", toml_edit::value(inline));
    }
    if let Some(url) = text("url").or_else(|| text("httpUrl")) {
        table.insert("url", toml_edit::value(url));
        let mut plain = toml_edit::InlineTable::new();
        let mut from_env = toml_edit::InlineTable::new();
        for (header, value) in object
            .get("headers")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let Some(value) = value.as_str() else {
                continue;
            };
            let var = |text: &str| {
                text.strip_prefix("${")
                    .and_then(|rest| rest.strip_suffix('}'))
                    .filter(|var| !var.is_empty() && !var.contains(['$', '{', '}', ':']))
                    .map(str::to_owned)
            };
            if header.eq_ignore_ascii_case("authorization")
                && let Some(var) = value.strip_prefix("Bearer ").and_then(var)
            {
                table.insert("bearer_token_env_var", toml_edit::value(var));
            } else if let Some(var) = var(value) {
                from_env.insert(header.as_str(), var.into());
            } else {
                plain.insert(header.as_str(), value.into());
            }
        }
        if !plain.is_empty() {
            table.insert("http_headers", toml_edit::value(plain));
        }
        if !from_env.is_empty() {
            table.insert("env_http_headers", toml_edit::value(from_env));
        }
    }
    for key in CODEX_TIMEOUTS {
        if let Some(number) = object.get(*key).and_then(Value::as_f64) {
            let value = if number.fract() == 0.0 && number.abs() < 1e15 {
                toml_edit::value(number as i64)
            } else {
                toml_edit::value(number)
            };
            table.insert(key, value);
        }
    }
    if !(table.contains_key("command") || table.contains_key("url")) {
        return Err(format!("`{name}` has no command or url"));
    }
    Ok(one_server(name, toml_edit::Item::Table(table)))
}

/// Codex's per-server time limits: carried into the servers file with the server (the
/// `overspill` entry waits as long as the longest), and back.
pub const CODEX_TIMEOUTS: &[&str] = &[
    "startup_timeout_sec",
    "startup_timeout_ms",
    "tool_timeout_sec",
];

/// The keys of a client's JSON entry that mean the same behind overspill's gateway (or that
/// install carries to overspill's own entry: Gemini CLI's `timeout` and `trust`); an entry with
/// any other key stays, since the gateway would drop what it says (VS Code's `envFile`, Claude
/// Code's `headersHelper`, Gemini CLI's `authProviderType`, …).
const MOVABLE_KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "httpUrl",
    "type",
    "headers",
    "oauth",
    "disabled",
    "enabled",
    "timeout",
    "trust",
    "description",
];

/// The variables VS Code (and the editors built on it, Cursor) fill in themselves: spelt as an
/// environment variable would be, but no environment has them.
const EDITOR_VARIABLES: &[&str] = &[
    "userHome",
    "workspaceFolder",
    "workspaceFolderBasename",
    "file",
    "fileWorkspaceFolder",
    "relativeFile",
    "relativeFileDirname",
    "fileBasename",
    "fileBasenameNoExtension",
    "fileExtname",
    "fileDirname",
    "fileDirnameBasename",
    "cwd",
    "lineNumber",
    "selectedText",
    "execPath",
    "defaultBuildTask",
    "pathSeparator",
];

/// The first `${…}` of an entry that overspill cannot fill in from the environment (VS Code's
/// `${input:…}`, `${workspaceFolder}`, `${/}`, `${pathSeparator}`, …): only the client can.
fn client_variable(entry: &Value) -> Option<String> {
    for text in strings_of(entry) {
        let editors = std::cell::RefCell::new(None);
        let unfillable = overspill::config::expand_vars(text, |name| {
            if EDITOR_VARIABLES.contains(&name) {
                editors.borrow_mut().get_or_insert(format!("${{{name}}}"));
            }
            Some(String::new())
        });
        if let Some(variable) = editors.into_inner() {
            return Some(variable);
        }
        if unfillable.is_err()
            && let Some(start) = text.find("${")
        {
            let end = text[start..]
                .find('}')
                .map_or(text.len(), |end| start + end + 1);
            return Some(text[start..end].to_owned());
        }
    }
    None
}

/// Every string an entry holds, at any depth (its keys aside), in the entry's order.
pub fn strings_of(entry: &Value) -> Vec<&str> {
    let mut strings = Vec::new();
    let mut values = vec![entry];
    while let Some(value) = values.pop() {
        match value {
            Value::String(text) => strings.push(text.as_str()),
            Value::Array(items) => values.extend(items.iter().rev()),
            Value::Object(fields) => values.extend(fields.values().rev()),
            _ => {}
        }
    }
    strings
}

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
    if let Some(variable) = client_variable(entry) {
        return Some(format!(
            "it uses the client's own variable `{variable}` (as VS Code's ${{input:…}}, \
             ${{workspaceFolder}}), which only the client can fill in"
        ));
    }
    if let Some(key) = object
        .keys()
        .find(|key| !MOVABLE_KEYS.contains(&key.as_str()))
    {
        return Some(format!(
            "its `{key}` setting has no overspill equivalent, and would be lost behind it"
        ));
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
    for (key, item) in table.iter() {
        // `[mcp_servers.<name>.env]` and the like: a table of strings, as an inline one is.
        if let Some(pairs) = item.as_table()
            && matches!(key, "env" | "http_headers" | "env_http_headers")
        {
            for (name, value) in pairs.iter() {
                let Some(text) = value.as_str() else { continue };
                codex_pair(key, name, text, &mut entry, &mut headers);
            }
            continue;
        }
        let Some(value) = item.as_value() else {
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
                    codex_pair(key, name, text, &mut entry, &mut headers);
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
            "startup_timeout_sec" | "startup_timeout_ms" | "tool_timeout_sec" => {
                let number = value
                    .as_integer()
                    .map(Value::from)
                    .or_else(|| value.as_float().map(Value::from));
                if let Some(number) = number {
                    entry.insert(key.to_owned(), number);
                }
            }
            "enabled" => {}
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

/// The `args` of an `mcpServers` entry, those that are strings.
pub fn args_of(entry: &Value) -> impl Iterator<Item = &str> {
    entry
        .get("args")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

/// One pair of a Codex server's `env`, `http_headers` or `env_http_headers` (whose value names
/// a variable: `${VAR}` in an `mcpServers` entry), into the entry or its headers.
fn codex_pair(
    key: &str,
    name: &str,
    text: &str,
    entry: &mut Map<String, Value>,
    headers: &mut Map<String, Value>,
) {
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
