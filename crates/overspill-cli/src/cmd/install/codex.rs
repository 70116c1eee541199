//! Codex's configuration, `config.toml`, as `overspill install` reads and writes it: a
//! `[mcp_servers.<name>]` table as an `mcpServers` entry (and why one stays with Codex: a
//! setting overspill cannot carry over), an entry as such a table, and the `[mcp_servers]`
//! table of the document (docs/clients/codex.md).

use serde_json::{Map, Value};

/// A Codex `[mcp_servers.<name>]` table as an `mcpServers` entry, and why it stays in Codex
/// if it does (a setting overspill cannot carry over).
pub fn codex_entry(item: &toml_edit::Item) -> (Value, Option<String>) {
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

/// A Codex server table as TOML text of its own, without the comments above it.
pub fn codex_text(name: &str, item: &toml_edit::Item) -> String {
    let mut item = item.clone();
    if let Some(table) = item.as_table_mut() {
        table.decor_mut().set_prefix("");
        table.set_position(None);
    }
    one_server(name, item)
}

/// Codex's per-server time limits: carried into the servers file with the server (the
/// `overspill` entry waits as long as the longest), and back.
pub const CODEX_TIMEOUTS: &[&str] = &[
    "startup_timeout_sec",
    "startup_timeout_ms",
    "tool_timeout_sec",
];

/// The `[mcp_servers]` table of a Codex configuration, made (implicit: only its servers'
/// headers show) when there is none; `None` when the key holds something else.
pub fn servers_table(doc: &mut toml_edit::DocumentMut) -> Option<&mut dyn toml_edit::TableLike> {
    doc.entry("mcp_servers")
        .or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        })
        .as_table_like_mut()
}

/// A Codex configuration of one `[mcp_servers.<name>]` table, as text.
fn one_server(name: &str, item: toml_edit::Item) -> String {
    let mut doc = toml_edit::DocumentMut::new();
    if let Some(servers) = servers_table(&mut doc) {
        servers.insert(name, item);
    }
    doc.to_string()
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
