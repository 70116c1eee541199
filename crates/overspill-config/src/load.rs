//! From TOML text to a validated [`Config`] (docs/configuration.md).
//!
//! The walk reads only overspill's keys. Scratchpad tables (`[agent.scratchpad]`,
//! a worker's `scratchpad`, each pattern entry) reject unknown keys; every
//! other table belongs to the host framework and its other keys are ignored.
//! `[hooks]` is overspill's alone: every key of it is checked.
//! Errors come in the order the walk meets them: `memory_dir`, `[agent]`,
//! `[orchestration]`, `[mcp]`, `[hooks]`, each table in file order, then the
//! checks that need the merged settings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toml::de::{DeTable, DeValue};

use crate::config::{Config, MemoryDir, MemoryDirSource};
use crate::document::{Count, Doc, Value, entries};
use crate::error::ConfigError;
use crate::location::{KeyPath, Location};
use crate::pattern::{ToolFilter, ToolPattern};
use crate::rules::{DEFAULT_MIN_TOKENS, Rule, ServerRules};
use crate::settings::{
    AgentSettings, LlmSettings, MAX_CONTEXT_SAFETY_MARGIN, ScratchpadOverride, ScratchpadSettings,
    StoreSettings,
};

/// The keys of a scratchpad table.
const SCRATCHPAD_KEYS: &[&str] = &[
    "enabled",
    "context_safety_margin",
    "max_extraction_tokens",
    "turn_depth_bonus",
];
/// The keys of a pattern entry.
const ENTRY_KEYS: &[&str] = &["min_tokens"];
/// The keys of a `[hooks.<client>]` table.
const HOOK_KEYS: &[&str] = &["scratchpad"];

/// The clients whose hooks overspill answers (`overspill hook <client>`): the keys `[hooks]`
/// accepts.
pub const HOOK_CLIENTS: &[&str] = &["claude-code"];

/// The keys of `[store]`.
const STORE_KEYS: &[&str] = &["url", "cache_bytes", "budgets"];

const STORE_TABLE: &str = "a table such as { url = \"s3://bucket/prefix\" }";
const STORE_URL: &str = "an object store URL such as \"s3://bucket/prefix\"";
const BUDGETS_URL: &str = "a Redis URL such as \"redis://host:6379/0\"";
const CACHE_BYTES: &str = "a positive integer (a number of bytes such as 1073741824)";
const MIN_TOKENS: &str = "a non-negative integer (a token count such as 5120)";
const CONTEXT_WINDOW: &str = "a positive integer (the model's context size in tokens)";
const MAX_EXTRACTION: &str = "a positive integer (a token count such as 10000)";
const TURN_BONUS: &str = "a non-negative integer (a number of turns such as 6)";
const MARGIN: &str = "a number from 0.0 to 0.95";
const DIRECTORY: &str = "a directory path such as \"./.overspill\"";
const TABLE: &str = "a table";
const LLM_TABLE: &str = "a table of LLM settings such as { context_window = 128000 }";
const SCRATCHPAD_TABLE: &str = "a table of scratchpad settings such as { enabled = true }";
const PATTERN_ENTRY: &str = "a table such as { min_tokens = 5120 }";
const FILTER: &str = "an array of tool-name patterns such as [\"k8s_*\"]";
const FILTER_ENTRY: &str = "a tool-name pattern string such as \"k8s_*\"";

/// Loads `text` (read from `file`, when given).
pub(crate) fn load(text: &str, file: Option<&Path>) -> Result<Config, ConfigError> {
    let (parsed, doc) = Doc::parse(text, file)?;
    let root = parsed.get_ref();
    let top = KeyPath::root();

    let mut memory_dir = match root.get_key_value("memory_dir") {
        Some((_, value)) => Some(memory_dir_at(
            &doc,
            &top.key("memory_dir"),
            value,
            MemoryDirSource::TopLevel,
        )?),
        None => None,
    };

    let agent = match root.get_key_value("agent") {
        Some((key, value)) => {
            let path = top.key("agent");
            section(
                &doc,
                &path,
                doc.at(key.span()),
                doc.table(&path, value, TABLE)?,
            )?
        }
        None => Section::absent(&top.key("agent")),
    };

    let mut workers = Vec::new();
    if let Some((_, value)) = root.get_key_value("orchestration") {
        let path = top.key("orchestration");
        let orchestration = doc.table(&path, value, TABLE)?;
        if memory_dir.is_none() {
            memory_dir = legacy_memory_dir(&doc, &path, orchestration)?;
        }
        if let Some((_, value)) = orchestration.get_key_value("worker") {
            let path = path.key("worker");
            let table = doc.table(
                &path,
                value,
                "a table of [orchestration.worker.<name>] tables",
            )?;
            for (name, value) in entries(table) {
                let path = path.key(name.get_ref());
                let worker = section(
                    &doc,
                    &path,
                    doc.at(name.span()),
                    doc.table(&path, value, TABLE)?,
                )?;
                workers.push((name.get_ref().to_string(), worker));
            }
        }
    }

    // `[mcp]` and `[hooks]`, each read when the file has it.
    let section = |name: &str, read: RulesReader| match root.get_key_value(name) {
        Some((_, value)) => {
            let path = top.key(name);
            read(&doc, &path, doc.table(&path, value, TABLE)?)
        }
        None => Ok(BTreeMap::new()),
    };
    let servers = section("mcp", servers)?;
    let hooks = section("hooks", hooks)?;

    let store = match root.get_key_value("store") {
        Some((_, value)) => {
            let path = top.key("store");
            store(&doc, &path, doc.table(&path, value, STORE_TABLE)?)?
        }
        None => StoreSettings::default(),
    };

    let mut config = merge_and_check(memory_dir, agent, workers, servers)?;
    config.hooks = hooks;
    config.store = store;
    Ok(config)
}

/// `[store]`: `url`, `cache_bytes` and `budgets`, each checked; it is all overspill's, so any
/// other key is an error.
fn store(doc: &Doc<'_>, path: &KeyPath, table: &DeTable<'_>) -> Result<StoreSettings, ConfigError> {
    doc.reject_unknown_keys(path, table, STORE_KEYS, &|_| None)?;
    let text = |key: &str, expected: &'static str| {
        doc.optional(table, path, key, |key, value| {
            Ok(doc.non_empty_string(key, value, expected)?.to_owned())
        })
    };
    Ok(StoreSettings {
        url: text("url", STORE_URL)?,
        budgets: text("budgets", BUDGETS_URL)?,
        cache_bytes: doc.optional(table, path, "cache_bytes", |key, value| {
            doc.count(key, value, Count::Positive, CACHE_BYTES)
        })?,
    })
}

/// One agent's (or worker's) table, as written.
struct Section {
    path: KeyPath,
    /// Where the table is, for errors about the section as a whole.
    at: Location,
    llm: LlmSettings,
    scratchpad: ScratchpadOverride,
    /// Where its own `enabled` key is, if it has one.
    enabled_at: Option<Location>,
    mcp_filter: Option<ToolFilter>,
}

impl Section {
    fn absent(path: &KeyPath) -> Self {
        Self {
            path: path.clone(),
            at: Location {
                file: None,
                line: 1,
                column: 1,
            },
            llm: LlmSettings::default(),
            scratchpad: ScratchpadOverride::default(),
            enabled_at: None,
            mcp_filter: None,
        }
    }
}

/// Reads `llm`, `scratchpad` and `mcp_filter` of an `[agent]` or worker
/// table; its other keys are the host's.
fn section(
    doc: &Doc<'_>,
    path: &KeyPath,
    at: Location,
    table: &DeTable<'_>,
) -> Result<Section, ConfigError> {
    let mut section = Section {
        at,
        ..Section::absent(path)
    };
    if let Some((_, value)) = table.get_key_value("llm") {
        section.llm = llm(
            doc,
            &path.key("llm"),
            doc.table(&path.key("llm"), value, LLM_TABLE)?,
        )?;
    }
    if let Some((_, value)) = table.get_key_value("scratchpad") {
        let sp = path.key("scratchpad");
        (section.scratchpad, section.enabled_at) =
            scratchpad(doc, path, &sp, doc.table(&sp, value, SCRATCHPAD_TABLE)?)?;
    }
    section.mcp_filter = doc.optional(table, path, "mcp_filter", |key, value| {
        filter(doc, key, value)
    })?;
    Ok(section)
}

/// `provider`, `model` and `context_window`; every other key is the host's.
fn llm(doc: &Doc<'_>, path: &KeyPath, table: &DeTable<'_>) -> Result<LlmSettings, ConfigError> {
    let mut llm = LlmSettings::default();
    let text = |key: &str, expected: &'static str| {
        doc.optional(table, path, key, |key, value| {
            Ok(doc.non_empty_string(key, value, expected)?.to_owned())
        })
    };
    llm.provider = text("provider", "a provider name such as \"openai\"")?;
    llm.model = text("model", "a model id such as \"gpt-4o\"")?;
    llm.context_window = doc.optional(table, path, "context_window", |key, value| {
        doc.count(key, value, Count::Positive, CONTEXT_WINDOW)
    })?;
    Ok(llm)
}

/// A scratchpad table: only its four keys, each checked.
fn scratchpad(
    doc: &Doc<'_>,
    owner: &KeyPath,
    path: &KeyPath,
    table: &DeTable<'_>,
) -> Result<(ScratchpadOverride, Option<Location>), ConfigError> {
    let misplaced = |key: &str| match key {
        "context_window" | "provider" | "model" => Some(format!("[{}]", owner.key("llm"))),
        "mcp_filter" => Some(format!("[{owner}]")),
        "min_tokens" => Some("a pattern entry of [mcp.servers.<name>.scratchpad]".to_owned()),
        "memory_dir" => Some("the top of the file, before any [table]".to_owned()),
        _ => None,
    };
    doc.reject_unknown_keys(path, table, SCRATCHPAD_KEYS, &misplaced)?;
    let mut over = ScratchpadOverride::default();
    let mut enabled_at = None;
    if let Some((key, value)) = table.get_key_value("enabled") {
        over.enabled = Some(doc.boolean(&path.key("enabled"), value)?);
        enabled_at = Some(doc.at(key.span()));
    }
    if let Some((_, value)) = table.get_key_value("context_safety_margin") {
        let key = path.key("context_safety_margin");
        let margin = doc.number(&key, value, MARGIN)?;
        if !(0.0..=MAX_CONTEXT_SAFETY_MARGIN).contains(&margin) {
            return Err(ConfigError::MarginOutOfRange {
                key,
                at: doc.at(value.span()),
                value: margin,
            });
        }
        over.context_safety_margin = Some(margin);
    }
    over.max_extraction_tokens =
        doc.optional(table, path, "max_extraction_tokens", |key, value| {
            doc.count(key, value, Count::Positive, MAX_EXTRACTION)
        })?;
    over.turn_depth_bonus = doc.optional(table, path, "turn_depth_bonus", |key, value| {
        doc.small_count(key, value, TURN_BONUS)
    })?;
    Ok((over, enabled_at))
}

/// An `mcp_filter` array.
fn filter(doc: &Doc<'_>, path: &KeyPath, value: &Value<'_>) -> Result<ToolFilter, ConfigError> {
    let DeValue::Array(items) = value.get_ref() else {
        return Err(doc.wrong_type(path, value, FILTER));
    };
    let mut patterns = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let key = path.index(i);
        let text = doc.string(&key, item, FILTER_ENTRY)?;
        let pattern = ToolPattern::new(text).map_err(|problem| ConfigError::Pattern {
            key: key.clone(),
            at: doc.at(item.span()),
            problem,
        })?;
        patterns.push(pattern);
    }
    ToolFilter::new(patterns).map_err(|problem| ConfigError::Pattern {
        key: path.clone(),
        at: doc.at(value.span()),
        problem,
    })
}

fn memory_dir_at(
    doc: &Doc<'_>,
    path: &KeyPath,
    value: &Value<'_>,
    source: MemoryDirSource,
) -> Result<MemoryDir, ConfigError> {
    let dir = doc.non_empty_string(path, value, DIRECTORY)?;
    Ok(MemoryDir {
        path: PathBuf::from(dir),
        source,
    })
}

/// `[orchestration.artifacts].memory_dir`, the legacy location.
fn legacy_memory_dir(
    doc: &Doc<'_>,
    orchestration: &KeyPath,
    table: &DeTable<'_>,
) -> Result<Option<MemoryDir>, ConfigError> {
    let Some((_, value)) = table.get_key_value("artifacts") else {
        return Ok(None);
    };
    let path = orchestration.key("artifacts");
    let artifacts = doc.table(&path, value, TABLE)?;
    match artifacts.get_key_value("memory_dir") {
        Some((_, value)) => Ok(Some(memory_dir_at(
            doc,
            &path.key("memory_dir"),
            value,
            MemoryDirSource::OrchestrationArtifacts,
        )?)),
        None => Ok(None),
    }
}

/// A reader of the rules in a table: [`servers`] or [`hooks`].
type RulesReader =
    fn(&Doc<'_>, &KeyPath, &DeTable<'_>) -> Result<BTreeMap<String, ServerRules>, ConfigError>;

/// `[mcp.servers.<name>.scratchpad]` tables; the rest of `[mcp]` is the host's.
fn servers(
    doc: &Doc<'_>,
    mcp: &KeyPath,
    table: &DeTable<'_>,
) -> Result<BTreeMap<String, ServerRules>, ConfigError> {
    let Some((_, value)) = table.get_key_value("servers") else {
        return Ok(BTreeMap::new());
    };
    let path = mcp.key("servers");
    let table = doc.table(&path, value, "a table of [mcp.servers.<name>] tables")?;
    scratchpads(doc, &path, table, TABLE, |_, _| Ok(()))
}

/// `[hooks.<client>.scratchpad]` tables, read as a server's: the whole of `[hooks]` is
/// overspill's, so an unknown client or key is an error (a typo must not switch a hook's
/// thresholds back to its defaults unnoticed).
fn hooks(
    doc: &Doc<'_>,
    path: &KeyPath,
    table: &DeTable<'_>,
) -> Result<BTreeMap<String, ServerRules>, ConfigError> {
    doc.reject_unknown_keys(path, table, HOOK_CLIENTS, &|_| None)?;
    let expected = "a table such as [hooks.claude-code.scratchpad]";
    scratchpads(doc, path, table, expected, |client, client_table| {
        // A pattern written straight under [hooks.<client>] belongs one table down.
        let scratchpad = client.key("scratchpad");
        let misplaced = |_: &str| Some(format!("[{scratchpad}]"));
        doc.reject_unknown_keys(client, client_table, HOOK_KEYS, &misplaced)
    })
}

/// The `scratchpad` table of each table in `table` (`expected` describes one), read as a
/// server's rules, by name; `check` judges each table first. A table without one has none.
fn scratchpads(
    doc: &Doc<'_>,
    path: &KeyPath,
    table: &DeTable<'_>,
    expected: &'static str,
    check: impl Fn(&KeyPath, &DeTable<'_>) -> Result<(), ConfigError>,
) -> Result<BTreeMap<String, ServerRules>, ConfigError> {
    let mut rules = BTreeMap::new();
    for (name, value) in entries(table) {
        let entry = path.key(name.get_ref());
        let entry_table = doc.table(&entry, value, expected)?;
        check(&entry, entry_table)?;
        if let Some((_, value)) = entry_table.get_key_value("scratchpad") {
            let read = server_rules(doc, &entry.key("scratchpad"), value)?;
            rules.insert(name.get_ref().to_string(), read);
        }
    }
    Ok(rules)
}

/// One server's pattern → `{ min_tokens }` table.
fn server_rules(
    doc: &Doc<'_>,
    path: &KeyPath,
    value: &Value<'_>,
) -> Result<ServerRules, ConfigError> {
    let table = doc.table(
        path,
        value,
        "a table of tool-name pattern = { min_tokens = N } entries",
    )?;
    let mut rules = Vec::new();
    for (key, entry) in entries(table) {
        let text: &str = key.get_ref();
        let entry_path = path.key(text);
        let pattern = ToolPattern::new(text).map_err(|problem| ConfigError::Pattern {
            key: entry_path.clone(),
            at: doc.at(key.span()),
            problem,
        })?;
        let min_tokens = match entry.get_ref() {
            DeValue::Table(fields) => {
                let misplaced = |key: &str| {
                    SCRATCHPAD_KEYS
                        .contains(&key)
                        .then(|| "[agent.scratchpad] (or a worker's scratchpad table)".to_owned())
                };
                doc.reject_unknown_keys(&entry_path, fields, ENTRY_KEYS, &misplaced)?;
                match fields.get_key_value("min_tokens") {
                    Some((_, value)) => doc.count(
                        &entry_path.key("min_tokens"),
                        value,
                        Count::NonNegative,
                        MIN_TOKENS,
                    )?,
                    None => DEFAULT_MIN_TOKENS,
                }
            }
            DeValue::Integer(integer) => {
                return Err(ConfigError::BareThreshold {
                    key: entry_path,
                    at: doc.at(entry.span()),
                    pattern: text.to_owned(),
                    value: integer.to_string(),
                });
            }
            _ => return Err(doc.wrong_type(&entry_path, entry, PATTERN_ENTRY)),
        };
        rules.push(Rule::new(pattern, min_tokens));
    }
    ServerRules::new(rules).map_err(|problem| ConfigError::Pattern {
        key: path.clone(),
        at: doc.at(value.span()),
        problem,
    })
}

/// Merges the workers over the agent and checks what needs the merged view:
/// an enabled scratchpad needs `memory_dir` and a `context_window`.
fn merge_and_check(
    memory_dir: Option<MemoryDir>,
    agent: Section,
    workers: Vec<(String, Section)>,
    servers: BTreeMap<String, ServerRules>,
) -> Result<Config, ConfigError> {
    let agent_enabled_by = agent.path.key("scratchpad").key("enabled");
    let agent_settings = AgentSettings {
        scratchpad: agent.scratchpad.apply_to(&ScratchpadSettings::default()),
        llm: agent.llm.clone(),
        mcp_filter: agent.mcp_filter.clone(),
    };
    check_enabled(&memory_dir, None, &agent_settings, || {
        (
            agent_enabled_by.clone(),
            agent.enabled_at.clone().unwrap_or_else(|| agent.at.clone()),
        )
    })?;

    let mut merged = BTreeMap::new();
    for (name, worker) in workers {
        let settings = AgentSettings {
            scratchpad: worker.scratchpad.apply_to(&agent_settings.scratchpad),
            llm: worker.llm.merged_over(&agent_settings.llm),
            mcp_filter: worker.mcp_filter.clone(),
        };
        check_enabled(&memory_dir, Some(&name), &settings, || {
            match &worker.enabled_at {
                Some(at) => (worker.path.key("scratchpad").key("enabled"), at.clone()),
                None => (agent_enabled_by.clone(), worker.at.clone()),
            }
        })?;
        merged.insert(name, settings);
    }

    let unconfigured_worker = AgentSettings {
        mcp_filter: None,
        ..agent_settings.clone()
    };
    Ok(Config {
        memory_dir,
        agent: agent_settings,
        workers: merged,
        servers,
        hooks: BTreeMap::new(),
        store: StoreSettings::default(),
        unconfigured_worker,
    })
}

fn check_enabled(
    memory_dir: &Option<MemoryDir>,
    worker: Option<&str>,
    settings: &AgentSettings,
    enabled_by: impl Fn() -> (KeyPath, Location),
) -> Result<(), ConfigError> {
    if !settings.scratchpad.enabled {
        return Ok(());
    }
    if memory_dir.is_none() {
        let (enabled_by, at) = enabled_by();
        return Err(ConfigError::MissingMemoryDir { enabled_by, at });
    }
    if settings.llm.context_window.is_none() {
        let (enabled_by, at) = enabled_by();
        return Err(ConfigError::MissingContextWindow {
            worker: worker.map(str::to_owned),
            enabled_by,
            at,
        });
    }
    Ok(())
}

impl Config {
    /// Parses and validates a configuration.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Syntax`] for invalid TOML (with toml's line and column),
    /// otherwise the first problem found, naming its key path and position.
    pub fn from_toml_str(text: &str) -> Result<Self, ConfigError> {
        load(text, None)
    }

    /// Reads, parses and validates a configuration file. Error positions
    /// name the file (`overspill.toml:12:5`).
    ///
    /// # Errors
    ///
    /// [`ConfigError::Read`] when the file cannot be read (or is not UTF-8),
    /// else as [`from_toml_str`](Self::from_toml_str).
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|cause| ConfigError::Read {
            path: path.to_path_buf(),
            cause,
        })?;
        load(&text, Some(path))
    }
}

#[cfg(test)]
mod tests;
