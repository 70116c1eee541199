//! The MCP servers `overspill mcp` fronts, as the user configured them
//! (docs/configuration.md#servers-to-front): from the overspill TOML's `[mcp.servers.<name>]`
//! tables, or from the `mcpServers` JSON that MCP clients already keep (Claude Desktop, Cursor,
//! Claude Code's `.mcp.json`, Gemini CLI's `settings.json`; VS Code's `servers`).
//!
//! Both forms are read into one [`Upstream`] list, in the order the file gives them, by one
//! reader of a server entry, so a key means the same in either. A malformed entry is kept aside
//! as a [`BrokenServer`]: its name and the error that names the file, the server and the key, so
//! that one entry's mistake withdraws only its own server; a file that cannot be read as a whole
//! (not TOML, not JSON, no server object) is an error.
//!
//! ```
//! use overspill_config::{Transport, Upstreams};
//!
//! let toml = Upstreams::from_toml_str(r#"
//!     [mcp.servers.k8s]
//!     command = "kubectl-mcp-server"
//!     args = ["--read-only"]
//!     [mcp.servers.k8s.scratchpad]
//!     "*" = { min_tokens = 2048 }
//!     [mcp.servers.docs]
//!     url = "https://docs.example.com/mcp"
//! "#, None, &|_| None)?;
//! let json = Upstreams::from_mcp_json_str(r#"{"mcpServers": {
//!     "k8s": {"command": "kubectl-mcp-server", "args": ["--read-only"]},
//!     "docs": {"type": "http", "url": "https://docs.example.com/mcp"}
//! }}"#, None, &|_| None)?;
//! assert_eq!(toml, json);
//! assert_eq!(toml.names().collect::<Vec<_>>(), ["k8s", "docs"]);
//! let Transport::Command(k8s) = &toml.get("k8s").unwrap().transport else { unreachable!() };
//! assert_eq!(k8s.args, ["--read-only"]);
//!
//! // An entry that cannot be started from is kept aside, the others are read.
//! let half = Upstreams::from_mcp_json_str(r#"{"mcpServers": {
//!     "k8s": {"command": "kubectl-mcp-server"},
//!     "github": {"command": "github-mcp", "env": {"TOKEN": "${GITHUB_TOKEN}"}}
//! }}"#, None, &|_| None)?;
//! assert_eq!(half.names().collect::<Vec<_>>(), ["k8s"]);
//! let broken: Vec<_> = half.broken().collect();
//! assert_eq!(broken[0].name, "github");
//! assert!(broken[0].error.to_string().contains("the variable GITHUB_TOKEN is not set"));
//! # Ok::<(), overspill_config::ConfigError>(())
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};
use toml::de::{DeTable, DeValue};

use crate::document::{self, Doc, entries};
use crate::error::ConfigError;
use crate::location::{KeyPath, Location};
use crate::suggest;
use crate::vars::expand_vars;

/// One MCP server to front: the name its tools are offered under, and how to reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstream {
    /// The server's name in the file (`k8s` of `[mcp.servers.k8s]`).
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process that speaks MCP on its standard input and output.
    Command(CommandServer),
    /// A server at a Streamable HTTP endpoint.
    Http(HttpServer),
}

/// A server run as a child process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandServer {
    /// The program, found on `PATH` when it has no directory.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to the environment it inherits.
    pub env: BTreeMap<String, String>,
    /// The directory it runs in; the proxy's own when `None`.
    pub cwd: Option<PathBuf>,
}

/// A server at a Streamable HTTP endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpServer {
    /// The endpoint, `http://` or `https://`.
    pub url: String,
    /// Headers sent with every request (an API key, `Authorization`), in the file's order.
    pub headers: Vec<(String, String)>,
    /// Whether to sign in with OAuth (`overspill auth login` first).
    pub oauth: bool,
}

/// A server entry that cannot be started from (an unset `${VAR}`, neither `command` nor
/// `url`, a key of the wrong type): its name, and why. A host that fronts several servers keeps
/// it as one that never starts and says why (docs/mcp-proxy.md#when-a-server-fails).
#[derive(Debug, Clone)]
pub struct BrokenServer {
    /// The server's name in the file.
    pub name: String,
    /// Why its entry cannot be started from, naming the file, the server and the key
    /// ([`ConfigError::Server`], or [`ConfigError::UnknownKey`] for a misspelt key of a TOML
    /// table).
    pub error: Arc<ConfigError>,
}

impl PartialEq for BrokenServer {
    fn eq(&self, other: &BrokenServer) -> bool {
        // Two readings of one entry fail alike: the same key, the same words.
        self.name == other.name
            && self.error.key() == other.error.key()
            && self.error.to_string() == other.error.to_string()
    }
}

impl Eq for BrokenServer {}

/// The servers of one file, in the file's order, and the entries that cannot be started from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Upstreams {
    servers: Vec<Upstream>,
    broken: Vec<BrokenServer>,
}

/// The keys of a TOML server table that has a `command` or a `url`.
const TOML_KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "oauth",
    "type",
    "disabled",
    "scratchpad",
];

/// Looks up an environment variable for `${VAR}` in an entry (`std::env::var(..).ok()`, or a
/// test's map).
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

impl Upstreams {
    /// The servers of the overspill TOML `text` (read from `file`, when given): each
    /// `[mcp.servers.<name>]` table with a `command` or a `url`. A table with only
    /// `scratchpad` rules names a server configured elsewhere and is not one to start.
    /// `${VAR}` in a string is read from `env`. An entry that cannot be started from (a key of
    /// the wrong type or misspelt, neither or both of `command` and `url`, an unset variable)
    /// is kept aside with its error, naming the server and the key ([`Upstreams::broken`]).
    ///
    /// # Errors
    /// [`ConfigError::Syntax`] for text that is not TOML, [`ConfigError::WrongType`] for an
    /// `[mcp]` or `[mcp.servers]` that is not a table.
    pub fn from_toml_str(
        text: &str,
        file: Option<&Path>,
        env: Lookup<'_>,
    ) -> Result<Upstreams, ConfigError> {
        let (parsed, doc) = Doc::parse(text, file)?;
        let root = parsed.get_ref();
        let mut servers = Vec::new();
        let path = KeyPath::root().key("mcp");
        let Some((_, mcp)) = root.get_key_value("mcp") else {
            return Ok(Upstreams::default());
        };
        let mcp = doc.table(&path, mcp, "a table")?;
        let path = path.key("servers");
        let Some((_, table)) = mcp.get_key_value("servers") else {
            return Ok(Upstreams::default());
        };
        let table = doc.table(&path, table, "a table of [mcp.servers.<name>] tables")?;
        let mut broken = Vec::new();
        for (name, value) in entries(table) {
            let server = path.key(name.get_ref());
            let name = name.get_ref().to_string();
            match toml_server(&doc, file, &server, value, env) {
                Ok(Some(transport)) => servers.push(Upstream { name, transport }),
                Ok(None) => {}
                Err(error) => broken.push(BrokenServer {
                    name,
                    error: Arc::new(error),
                }),
            }
        }
        Ok(Upstreams { servers, broken })
    }

    /// The servers of an MCP client's JSON configuration `text` (read from `file`, when
    /// given): its `mcpServers` object, or VS Code's `servers`. An entry with `"disabled":
    /// true` is left out; `type` `stdio`, `http` or `streamable-http` is honoured, `sse` (the
    /// older HTTP+SSE transport, which overspill does not speak) refused. `${VAR}`,
    /// `${VAR:-default}` and VS Code's `${env:VAR}` are read from `env`. An entry that cannot
    /// be started from is kept aside with its error ([`Upstreams::broken`]).
    ///
    /// # Errors
    /// [`ConfigError::Json`] for text that is not JSON, [`ConfigError::Server`] for a file
    /// without a server object.
    pub fn from_mcp_json_str(
        text: &str,
        file: Option<&Path>,
        env: Lookup<'_>,
    ) -> Result<Upstreams, ConfigError> {
        let parsed: Value = serde_json::from_str(text).map_err(|error| ConfigError::Json {
            file: file.map(Path::to_path_buf),
            error,
        })?;
        let (key, servers) = ["mcpServers", "servers"]
            .into_iter()
            .find_map(|key| Some((key, parsed.get(key)?)))
            .ok_or_else(|| ConfigError::Server {
                file: file.map(Path::to_path_buf),
                key: KeyPath::root(),
                at: None,
                problem: "no \"mcpServers\" (or VS Code's \"servers\") object: is this the \
                          MCP configuration of a client?"
                    .to_owned(),
            })?;
        let path = KeyPath::root().key(key);
        let Value::Object(servers) = servers else {
            return Err(ConfigError::Server {
                file: file.map(Path::to_path_buf),
                key: path,
                at: None,
                problem: format!("expected an object of servers, found {}", kind(servers)),
            });
        };
        let places = BTreeMap::new();
        let mut list = Upstreams::default();
        for (name, entry) in servers {
            let server = path.key(name);
            let reader = EntryReader {
                file,
                server: &server,
                places: &places,
                env,
            };
            let transport = match entry {
                Value::Object(entry) if entry.get("disabled") == Some(&Value::Bool(true)) => {
                    continue;
                }
                Value::Object(entry) => reader.transport(entry, true),
                other => {
                    Err(reader.error(None, format!("expected an object, found {}", kind(other))))
                }
            };
            match transport {
                Ok(Some(transport)) => list.servers.push(Upstream {
                    name: name.clone(),
                    transport,
                }),
                Ok(None) => {}
                Err(error) => list.broken.push(BrokenServer {
                    name: name.clone(),
                    error: Arc::new(error),
                }),
            }
        }
        Ok(list)
    }

    /// [`Upstreams::from_toml_str`] of the file at `path`, with the process environment.
    ///
    /// # Errors
    /// [`ConfigError::Read`] when the file cannot be read, else as `from_toml_str`.
    pub fn from_toml_file(path: &Path) -> Result<Upstreams, ConfigError> {
        let text = read(path)?;
        Upstreams::from_toml_str(&text, Some(path), &|name| std::env::var(name).ok())
    }

    /// [`Upstreams::from_mcp_json_str`] of the file at `path`, with the process environment.
    ///
    /// # Errors
    /// [`ConfigError::Read`] when the file cannot be read, else as `from_mcp_json_str`.
    pub fn from_mcp_json_file(path: &Path) -> Result<Upstreams, ConfigError> {
        let text = read(path)?;
        Upstreams::from_mcp_json_str(&text, Some(path), &|name| std::env::var(name).ok())
    }

    /// The servers, in the file's order.
    pub fn iter(&self) -> impl Iterator<Item = &Upstream> {
        self.servers.iter()
    }

    /// The entries that cannot be started from, in the file's order, each with why.
    pub fn broken(&self) -> impl Iterator<Item = &BrokenServer> {
        self.broken.iter()
    }

    /// The servers' names, in the file's order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.servers.iter().map(|server| server.name.as_str())
    }

    /// The server named `name`.
    pub fn get(&self, name: &str) -> Option<&Upstream> {
        self.servers.iter().find(|server| server.name == name)
    }

    /// How many servers there are (broken entries aside).
    pub fn len(&self) -> usize {
        self.servers.len()
    }

    /// Whether there are none (broken entries aside).
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|cause| ConfigError::Read {
        path: path.to_owned(),
        cause,
    })
}

/// How to reach the server of the TOML table `value` (`server` is its key path); `None` for a
/// table of rules only, or one `disabled`.
fn toml_server(
    doc: &Doc<'_>,
    file: Option<&Path>,
    server: &KeyPath,
    value: &document::Value<'_>,
    env: Lookup<'_>,
) -> Result<Option<Transport>, ConfigError> {
    let table = doc.table(server, value, "a table")?;
    // A table overspill starts a server from is overspill's: a misspelt key must not silently
    // drop an argument or a header.
    if table.get_key_value("command").is_some() || table.get_key_value("url").is_some() {
        doc.reject_unknown_keys(server, table, TOML_KEYS, &|_| None)?;
    }
    let (entry, places) = toml_entry(doc, table);
    if entry.get("disabled") == Some(&Value::Bool(true)) {
        return Ok(None);
    }
    let reader = EntryReader {
        file,
        server,
        places: &places,
        env,
    };
    reader.transport(&entry, false)
}

/// A TOML server table as the one entry reader reads it: its keys as JSON values, and where
/// each key's value stands in the text.
fn toml_entry(
    doc: &Doc<'_>,
    table: &DeTable<'_>,
) -> (Map<String, Value>, BTreeMap<String, Location>) {
    let mut entry = Map::new();
    let mut places = BTreeMap::new();
    for (key, value) in entries(table) {
        let key: &str = key.get_ref();
        places.insert(key.to_owned(), doc.at(value.span()));
        entry.insert(key.to_owned(), toml_value(value.get_ref()));
    }
    (entry, places)
}

fn toml_value(value: &DeValue<'_>) -> Value {
    match value {
        DeValue::String(text) => Value::String(text.to_string()),
        // No key of an entry takes a number: only its kind is read, for the error.
        DeValue::Integer(_) | DeValue::Float(_) => Value::from(0),
        DeValue::Boolean(flag) => Value::Bool(*flag),
        DeValue::Datetime(datetime) => Value::String(datetime.to_string()),
        DeValue::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| toml_value(item.get_ref()))
                .collect(),
        ),
        DeValue::Table(table) => Value::Object(
            entries(table)
                .into_iter()
                .map(|(key, value)| (key.get_ref().to_string(), toml_value(value.get_ref())))
                .collect(),
        ),
    }
}

/// Reads one server entry, TOML's or JSON's, into how to reach it.
struct EntryReader<'a> {
    file: Option<&'a Path>,
    server: &'a KeyPath,
    /// Where each key's value is, for an entry read from TOML.
    places: &'a BTreeMap<String, Location>,
    env: Lookup<'a>,
}

impl EntryReader<'_> {
    /// The transport of `entry`; `None` for a TOML table that holds only rules (`json` is
    /// false), which names a server started by someone else.
    fn transport(
        &self,
        entry: &Map<String, Value>,
        json: bool,
    ) -> Result<Option<Transport>, ConfigError> {
        let kind = self.optional_string(entry, "type")?;
        let command = self.optional_string(entry, "command")?;
        // Gemini CLI names a Streamable HTTP endpoint `httpUrl`.
        let url = match (
            self.optional_string(entry, "url")?,
            self.optional_string(entry, "httpUrl")?,
        ) {
            (Some(_), Some(_)) => {
                return Err(self.error(
                    Some("httpUrl"),
                    "give `url` or `httpUrl`, not both".to_owned(),
                ));
            }
            (url, http_url) => url.or(http_url),
        };
        match kind.as_deref() {
            None | Some("stdio" | "http" | "streamable-http" | "streamableHttp") => {}
            Some("sse") => {
                return Err(self.error(
                    Some("type"),
                    "the HTTP+SSE transport (type \"sse\") is the protocol's older one, which \
                     overspill does not speak; give the server's Streamable HTTP endpoint \
                     (often the same host with the path /mcp) and type \"http\""
                        .to_owned(),
                ));
            }
            Some(other) => {
                return Err(self.error(
                    Some("type"),
                    format!("unknown transport {other:?}; use \"stdio\" or \"http\""),
                ));
            }
        }
        match (command, url) {
            (Some(command), None) => {
                if kind.as_deref().is_some_and(|kind| kind != "stdio") {
                    return Err(self.error(
                        Some("type"),
                        "a server with a `command` is a stdio server; give its `url` for \
                         type \"http\""
                            .to_owned(),
                    ));
                }
                // Relative paths are the file's, not those of wherever the proxy was started
                // (a client may start it in `/`).
                let cwd = self
                    .optional_string(entry, "cwd")?
                    .map(|cwd| self.expand("cwd", &cwd).map(|cwd| self.beside_file(&cwd)))
                    .transpose()?;
                let mut command = self.expand("command", &command)?;
                let is_path = command.contains('/') || command.contains('\\');
                if is_path && Path::new(&command).is_relative() {
                    let base = cwd.clone().unwrap_or_else(|| self.beside_file(""));
                    command = base.join(&command).to_string_lossy().into_owned();
                }
                Ok(Some(Transport::Command(CommandServer {
                    command,
                    args: self
                        .string_list(entry, "args")?
                        .iter()
                        .map(|arg| self.expand("args", arg))
                        .collect::<Result<_, _>>()?,
                    env: self
                        .string_map(entry, "env")?
                        .into_iter()
                        .map(|(name, value)| Ok((name, self.expand("env", &value)?)))
                        .collect::<Result<_, ConfigError>>()?,
                    cwd,
                })))
            }
            (None, Some(url)) => {
                if kind.as_deref() == Some("stdio") {
                    return Err(self.error(
                        Some("type"),
                        "a stdio server needs a `command`, not a `url`".to_owned(),
                    ));
                }
                let url = self.expand("url", &url)?;
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(self.error(
                        Some("url"),
                        format!("{url:?} is not an http:// or https:// endpoint"),
                    ));
                }
                Ok(Some(Transport::Http(HttpServer {
                    url,
                    headers: self
                        .string_map(entry, "headers")?
                        .into_iter()
                        .map(|(name, value)| Ok((name, self.expand("headers", &value)?)))
                        .collect::<Result<_, ConfigError>>()?,
                    oauth: self.flag(entry, "oauth")?,
                })))
            }
            (Some(_), Some(_)) => Err(self.error(
                Some("url"),
                "give a `command` (a child process) or a `url` (a remote server), not both"
                    .to_owned(),
            )),
            (None, None) => {
                // A TOML table of rules only is a server configured elsewhere; one with other
                // keys most likely misspells `command` or `url`.
                let others: Vec<&str> = entry
                    .keys()
                    .map(String::as_str)
                    .filter(|key| *key != "scratchpad")
                    .collect();
                if !json && others.is_empty() {
                    return Ok(None);
                }
                let hint = others
                    .iter()
                    .find_map(|key| suggest::nearest(key, &["command", "url"]))
                    .map(|known| format!(" (did you mean `{known}`?)"))
                    .unwrap_or_default();
                Err(self.error(
                    None,
                    format!(
                        "neither `command` (a child process) nor `url` (a remote server) is \
                         given{hint}"
                    ),
                ))
            }
        }
    }

    /// `path` as written when absolute, else in the directory of the file it was read from.
    fn beside_file(&self, path: &str) -> PathBuf {
        let dir = self.file.and_then(Path::parent).unwrap_or(Path::new(""));
        dir.join(path)
    }

    fn optional_string(
        &self,
        entry: &Map<String, Value>,
        key: &str,
    ) -> Result<Option<String>, ConfigError> {
        match entry.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) if text.is_empty() => Err(self.error(
                Some(key),
                "expected a non-empty string, found \"\"".to_owned(),
            )),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(self.expected(key, "a non-empty string", other)),
        }
    }

    fn string_list(
        &self,
        entry: &Map<String, Value>,
        key: &str,
    ) -> Result<Vec<String>, ConfigError> {
        match entry.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(text) => Ok(text.clone()),
                    other => Err(self.expected(key, "an array of strings", other)),
                })
                .collect(),
            Some(other) => Err(self.expected(key, "an array of strings", other)),
        }
    }

    fn string_map(
        &self,
        entry: &Map<String, Value>,
        key: &str,
    ) -> Result<Vec<(String, String)>, ConfigError> {
        match entry.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(name, value)| match value {
                    Value::String(text) => Ok((name.clone(), text.clone())),
                    other => Err(self.expected(key, "a table of strings", other)),
                })
                .collect(),
            Some(other) => Err(self.expected(key, "a table of strings", other)),
        }
    }

    fn flag(&self, entry: &Map<String, Value>, key: &str) -> Result<bool, ConfigError> {
        match entry.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(flag)) => Ok(*flag),
            Some(other) => Err(self.expected(key, "true or false", other)),
        }
    }

    /// `text` with its variables filled in from the lookup ([`expand_vars`]).
    fn expand(&self, key: &str, text: &str) -> Result<String, ConfigError> {
        expand_vars(text, self.env).map_err(|error| self.error(Some(key), error.to_string()))
    }

    fn expected(&self, key: &str, expected: &str, found: &Value) -> ConfigError {
        self.error(
            Some(key),
            format!("expected {expected}, found {}", kind(found)),
        )
    }

    /// An error about `key` of this server (the server itself when `None`).
    fn error(&self, key: Option<&str>, problem: String) -> ConfigError {
        ConfigError::Server {
            file: self.file.map(Path::to_path_buf),
            key: key.map_or_else(|| self.server.clone(), |key| self.server.key(key)),
            at: key.and_then(|key| self.places.get(key).cloned()),
            problem,
        }
    }
}

/// What a JSON value is, for an error: `a number`, `an array`.
fn kind(value: &Value) -> &'static str {
    overspill_json::Kind::of(value).in_words()
}

#[cfg(test)]
mod tests;
