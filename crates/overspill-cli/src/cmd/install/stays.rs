//! What of a client's JSON entry stays with the client, and why: a server overspill cannot
//! front as the client would start it (disabled, the older SSE transport, only some of its
//! tools, a variable only the client fills in, a setting the gateway would drop, no command
//! or url). The same rules hold for every JSON client; what differs per client is in its row
//! (`clients.rs`: whether its `url` is SSE). Codex's tables are judged as they are read
//! (`codex.rs`).

use serde_json::Value;

use super::clients::Client;

/// Why a client's JSON entry stays in the client, if it does.
pub fn json_stays(client: Client, entry: &Value) -> Option<String> {
    let Some(object) = entry.as_object() else {
        return Some("the entry is not an object".to_owned());
    };
    if object.get("disabled").and_then(Value::as_bool) == Some(true)
        || object.get("enabled").and_then(Value::as_bool) == Some(false)
    {
        return Some("it is disabled".to_owned());
    }
    if object.get("type").and_then(Value::as_str) == Some("sse")
        || client.profile().url_is_sse && object.contains_key("url")
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
