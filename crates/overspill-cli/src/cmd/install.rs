//! `overspill install <client>` and `overspill uninstall <client>`: route an MCP client's
//! servers through one overspill gateway, and put the client's configuration back
//! (docs/clients.md).

mod clients;
mod edit;
mod files;
mod health;
mod launch;
mod record;
mod rules;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use serde_json::{Map, Value, json};

use clients::{CODEX_STARTUP_SECS, Format};
pub use clients::{Client, Scope};
use edit::{Entry, OURS, Original, Parsed, Restored};
pub use health::print_servers_file;
use record::{Moved, Record};

pub const INSTALL_EXAMPLES: &str = "Moves the client's MCP servers into a servers file of overspill's \
and gives the client one `overspill` server in their place: one gateway in front of all of them, \
one budget. `overspill uninstall <client>` puts the servers back, keeping what the client wrote since.\n\n\
Examples:\n  \
overspill install claude-code --dry-run   # what would change\n  \
overspill install cursor                  # ~/.cursor/mcp.json\n  \
overspill install vscode --scope project  # .vscode/mcp.json here\n  \
overspill install codex                   # $CODEX_HOME/config.toml";

pub const UNINSTALL_EXAMPLES: &str = "Examples:\n  \
overspill uninstall claude-code\n  \
overspill uninstall vscode --scope project";

/// Which client configuration: the flags both commands share.
#[derive(Debug, Args)]
pub struct Target {
    /// The client: claude-code, claude-desktop, cursor, vscode, codex or gemini-cli.
    #[arg(value_enum)]
    client: Client,
    /// The user's configuration, or the project's in the working directory.
    #[arg(long, value_enum, default_value = "user")]
    scope: Scope,
    /// Edit this file instead of the client's usual one for the scope.
    #[arg(long, value_name = "FILE")]
    config_file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    #[command(flatten)]
    target: Target,
    /// Say what would change, and change nothing.
    #[arg(long)]
    dry_run: bool,
    /// The program the client is to start (default: `overspill` when that is this binary on
    /// PATH, installed on its own; else a copy of this binary kept in your data directory,
    /// which survives Node, Python and package-cache changes).
    #[arg(long, value_name = "PROGRAM")]
    program: Option<String>,
    /// Do not start the servers at the end to show how each one is doing.
    #[arg(long)]
    no_status: bool,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    #[command(flatten)]
    target: Target,
}

/// Where one installation's pieces are kept.
struct Places {
    /// The client's configuration file.
    config: PathBuf,
    /// The servers file the gateway reads (`mcpServers` JSON).
    servers: PathBuf,
    /// The configuration as it was before the first install.
    backup: PathBuf,
    /// What install did: the file's hash after it, the servers it moved.
    record: PathBuf,
}

impl Target {
    pub fn new(client: Client, scope: Scope, config_file: Option<PathBuf>) -> Target {
        Target {
            client,
            scope,
            config_file,
        }
    }

    pub fn client(&self) -> Client {
        self.client
    }

    /// The client's file this target names.
    pub fn config(&self) -> anyhow::Result<PathBuf> {
        Ok(self.places()?.config)
    }

    fn places(&self) -> anyhow::Result<Places> {
        let here = std::env::current_dir().context("cannot read the working directory")?;
        let config = match &self.config_file {
            Some(file) => here.join(file),
            None => self
                .client
                .config_path(self.scope, &here)
                .map_err(anyhow::Error::msg)?,
        };
        let stem = format!(
            "{}-{}",
            self.client.name(),
            &overspill::store::content_hash(config.to_string_lossy().as_bytes())[..8]
        );
        let state = overspill_mcp::state_dir()
            .context("cannot find your state directory (HOME is not set)")?
            .join("install");
        let servers = overspill_mcp::config_dir()
            .context("cannot find your configuration directory (HOME is not set)")?
            .join("clients")
            .join(format!("{stem}.json"));
        Ok(Places {
            config,
            servers,
            backup: state.join(format!("{stem}.backup")),
            record: state.join(format!("{stem}.json")),
        })
    }
}

pub fn install(args: InstallArgs) -> anyhow::Result<ExitCode> {
    let client = args.target.client;
    let places = args.target.places()?;
    let config = files::real_path(&places.config);
    let file = places.config.display().to_string();
    let Some(original) = files::read(&config)? else {
        println!(
            "overspill install: {file} does not exist: {} has no MCP servers there to route",
            client.name()
        );
        return Ok(ExitCode::SUCCESS);
    };
    let parsed = parse(client, &original, &file)?;
    let entries = parsed.entries();
    let mut staying: Vec<(String, String)> = entries
        .iter()
        .filter(|entry| entry.name != OURS)
        .filter_map(|entry| Some((entry.name.clone(), entry.stays.clone()?)))
        .collect();
    let installed = entries.iter().any(|entry| entry.name == OURS);
    let candidates: Vec<String> = entries
        .iter()
        .filter(|entry| entry.name != OURS && entry.stays.is_none())
        .map(|entry| entry.name.clone())
        .collect();
    let namespace = overspill_mcp::Namespace::default();
    let offered = |server: &str, tool: &str| plain_name(&namespace, server, tool);
    let keyed = rules::keyed(
        &client.rule_files(args.target.scope, &places.config),
        &candidates,
        &offered,
    )?;
    staying.extend(keyed.stays.iter().cloned());
    for (name, why) in &staying {
        println!("overspill install: `{name}` stays in {file}: {why}");
    }
    let moving: Vec<&Entry> = entries
        .iter()
        .filter(|entry| candidates.contains(&entry.name))
        .filter(|entry| !keyed.stays.iter().any(|(name, _)| *name == entry.name))
        .collect();
    if moving.is_empty() {
        let said = if installed {
            "overspill is installed there already, and no server was added since"
        } else {
            "no server there that overspill can front"
        };
        println!("overspill install: nothing to do in {file}: {said}");
        return Ok(ExitCode::SUCCESS);
    }
    let record = Record::read(&places.record)?;
    let base = places.config.parent().unwrap_or(Path::new("."));
    let mut servers = earlier_servers(&places.servers)?;
    let mut originals = record
        .as_ref()
        .map(|record| record.originals.clone())
        .unwrap_or_default();
    for entry in &moving {
        if servers.contains_key(&entry.name) {
            println!(
                "overspill install: `{}` replaces the server of that name in {}",
                entry.name,
                places.servers.display()
            );
        }
        let written = absolute(entry.entry.clone(), base);
        servers.insert(entry.name.clone(), written.clone());
        originals.insert(
            entry.name.clone(),
            Moved {
                original: entry.original.clone(),
                written,
            },
        );
    }
    let moved: Vec<String> = moving.iter().map(|entry| entry.name.clone()).collect();
    for (name, entry) in moving.iter().map(|entry| (&entry.name, &entry.entry)) {
        for var in unset_vars(entry) {
            println!(
                "overspill install: warning: `{name}` uses ${{{var}}}, which is not set now; set \
                 it where {} starts, or overspill withdraws `{name}` alone (`overspill status \
                 {}` shows it)",
                client.name(),
                client.name()
            );
        }
    }
    let program = match args.program {
        Some(program) => program,
        None if args.dry_run => "overspill".to_owned(),
        None => {
            let (exe, on_path) = launch::this_binary()?;
            launch::program(
                &exe,
                on_path.as_deref(),
                overspill_mcp::data_dir().as_deref(),
            )?
        }
    };
    let carried = carried_settings(client, servers.iter(), &moved);
    for note in &carried.notes {
        println!("overspill install: {note}");
    }
    let ours = ours_entry(client, &program, &places.servers, &carried.entry);
    let names = moved.join(", ");
    if args.dry_run {
        let rewritten = parse(client, &original, &file)?.rewritten(&moved, &ours);
        parse(client, rewritten.as_bytes(), &file).map_err(|why| {
            anyhow::anyhow!("overspill could not edit {file} cleanly ({why}); it is left as it is")
        })?;
        println!("overspill install --dry-run: would route through overspill: {names}");
        println!(
            "  {file} would start `{program} mcp --servers {}` as its server `{OURS}` in their place",
            places.servers.display()
        );
        for rule in &keyed.added {
            println!(
                "  would add the permissions.{} rule `{}` to {}",
                rule.list,
                rule.rule,
                rule.file.display()
            );
        }
        println!("  (nothing was changed)");
        return Ok(ExitCode::SUCCESS);
    }
    let servers_text = serde_json::to_string_pretty(&json!({ "mcpServers": servers }))?;
    files::write_private(&places.servers, servers_text.as_bytes())?;
    let first = record.is_none() || !places.backup.exists();
    if first {
        files::write_private(&places.backup, &original)?;
    }
    // The client may write its file meanwhile (Claude Code does on every start): the edit is
    // made on the file as it is at the moment of writing, and only if the servers moved are
    // still as they were read.
    let expected: Vec<(String, Value)> = moving
        .iter()
        .map(|entry| (entry.name.clone(), entry.entry.clone()))
        .collect();
    let (rewritten, _) = files::edit(&config, |now| {
        let Some(now) = now else {
            bail!("{file} was removed while overspill edited it; it is left as it is");
        };
        let mut parsed = parse(client, now, &file)?;
        let entries = parsed.entries();
        for (name, entry) in &expected {
            if !entries
                .iter()
                .any(|now| now.name == *name && now.entry == *entry)
            {
                bail!(
                    "`{name}` changed in {file} while overspill edited it; run `overspill \
                     install {}` again",
                    client.name()
                );
            }
        }
        let rewritten = parsed.rewritten(&moved, &ours);
        parse(client, rewritten.as_bytes(), &file).map_err(|why| {
            anyhow::anyhow!("overspill could not edit {file} cleanly ({why}); it is left as it is")
        })?;
        Ok(Some((rewritten.clone().into_bytes(), rewritten)))
    })?;
    let rewritten = rewritten.unwrap_or_default();
    let added = rules::add(&keyed.added)?;
    let mut all_moved = record
        .as_ref()
        .map(|record| record.moved.clone())
        .unwrap_or_default();
    all_moved.extend(moved.iter().cloned());
    let mut all_rules = record
        .as_ref()
        .map(|record| record.rules.clone())
        .unwrap_or_default();
    all_rules.extend(added.iter().cloned());
    Record {
        client: client.name().to_owned(),
        config: places.config.clone(),
        servers: places.servers.clone(),
        backup: places.backup.clone(),
        installed_hash: overspill::store::content_hash(rewritten.as_bytes()),
        servers_hash: Some(overspill::store::content_hash(servers_text.as_bytes())),
        backup_exact: first,
        moved: all_moved,
        originals,
        rules: all_rules,
    }
    .write(&places.record)?;
    println!(
        "overspill install: {} now starts one overspill for {names}; their entries are in {} \
         (your edits there apply on the client's next start, or at once with SIGHUP)",
        client.name(),
        places.servers.display()
    );
    for rule in &added {
        println!(
            "  added the permissions.{} rule `{}` to {} (the tool's name behind overspill)",
            rule.list,
            rule.rule,
            rule.file.display()
        );
    }
    println!(
        "  `overspill uninstall {}` puts the servers back; `overspill status {}` shows each one",
        client.name(),
        client.name()
    );
    if args.no_status {
        return Ok(ExitCode::SUCCESS);
    }
    println!();
    print_servers_file(&places.servers, client.answer_within())?;
    Ok(ExitCode::SUCCESS)
}

/// The servers file install wrote for `target`; `None` when overspill is not installed there.
pub fn servers_file(target: &Target) -> anyhow::Result<Option<PathBuf>> {
    let places = target.places()?;
    Ok(Record::read(&places.record)?.map(|record| record.servers))
}

/// The servers file of every client file overspill is installed in, from install's records.
pub fn every_servers_file() -> anyhow::Result<Vec<PathBuf>> {
    let Some(state) = overspill_mcp::state_dir() else {
        return Ok(Vec::new());
    };
    let dir = state.join("install");
    let Ok(listing) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    for entry in listing.flatten() {
        let path = entry.path();
        if path
            .extension()
            .is_some_and(|extension| extension == "json")
            && let Some(record) = Record::read(&path)?
            && !found.contains(&record.servers)
        {
            found.push(record.servers);
        }
    }
    found.sort();
    Ok(found)
}

pub fn uninstall(args: UninstallArgs) -> anyhow::Result<ExitCode> {
    let client = args.target.client;
    let places = args.target.places()?;
    let config = files::real_path(&places.config);
    let file = places.config.display().to_string();
    let Some(record) = Record::read(&places.record)? else {
        bail!(
            "overspill install has not changed {file} (there is no record of it in {})",
            places.record.display()
        );
    };
    let servers_bytes = files::read(&places.servers)?;
    let servers = match &servers_bytes {
        Some(_) => earlier_servers(&places.servers)?,
        None => Map::new(),
    };
    let backup = files::read(&places.backup)?;
    let servers_unchanged = record.servers_hash.is_some()
        && servers_bytes.as_deref().map(overspill::store::content_hash) == record.servers_hash;
    let to_restore: Vec<Restored> = servers
        .iter()
        .map(|(name, entry)| Restored {
            name: name.clone(),
            original: match record.originals.get(name) {
                Some(moved) if moved.written == *entry => moved.original.clone(),
                _ => Original::Json(entry.clone()),
            },
        })
        .collect();
    let (how, now) = files::edit(&config, |now| {
        let Some(now) = now else {
            return Ok(None);
        };
        // As install left it, and nothing moved since but by that install: the file as it
        // was, byte for byte.
        if let Some(backup) = &backup
            && record.backup_exact
            && servers_unchanged
            && overspill::store::content_hash(now) == record.installed_hash
        {
            return Ok(Some((backup.clone(), Put::Backup)));
        }
        let mut parsed = parse(client, now, &file)?;
        let restored = parsed
            .restored(&to_restore)
            .map_err(|why| anyhow::anyhow!("cannot put the servers back into {file}: {why}"))?;
        parse(client, restored.as_bytes(), &file).map_err(|why| {
            anyhow::anyhow!("overspill could not edit {file} cleanly ({why}); it is left as it is")
        })?;
        Ok(Some((restored.into_bytes(), Put::Edited)))
    })?;
    rules::remove(&record.rules)?;
    // Which servers of the servers file the client's file now has, as the servers file has
    // them: a servers file is removed only when it holds no server that would then exist
    // nowhere.
    let client_now = files::read(&config)?
        .map(|bytes| parse(client, &bytes, &file).map(|parsed| parsed.entries()))
        .transpose()?
        .unwrap_or_default();
    let orphans: Vec<&String> = servers
        .iter()
        .filter(|(name, entry)| {
            !client_now.iter().any(|now| {
                now.name == **name
                    && (now.entry == **entry
                        || record
                            .originals
                            .get(*name)
                            .is_some_and(|moved| moved.original == now.original))
            })
        })
        .map(|(name, _)| name)
        .collect();
    match how {
        None if now.is_none() => println!(
            "overspill uninstall: {file} no longer exists; the servers stay in {}",
            places.servers.display()
        ),
        Some(Put::Backup) => println!(
            "overspill uninstall: {file} is as it was before `overspill install`; {} starts \
             its servers itself again",
            client.name()
        ),
        _ => println!(
            "overspill uninstall: {file} has its servers back{}; {} starts them itself again \
             (what changed in the file since install is kept)",
            if servers.is_empty() {
                String::new()
            } else {
                format!(
                    " ({})",
                    servers.keys().cloned().collect::<Vec<_>>().join(", ")
                )
            },
            client.name()
        ),
    }
    if orphans.is_empty() {
        files::remove(&places.servers)?;
    } else {
        let names: Vec<String> = orphans.iter().map(|name| format!("`{name}`")).collect();
        println!(
            "  {} stayed in {}: {file} has another server of that name; that file is kept",
            names.join(", "),
            places.servers.display()
        );
    }
    files::remove(&places.backup)?;
    files::remove(&places.record)?;
    Ok(ExitCode::SUCCESS)
}

/// How uninstall put the file back.
enum Put {
    /// The backup, byte for byte.
    Backup,
    /// The servers put back into the file as it is now.
    Edited,
}

fn parse(client: Client, bytes: &[u8], file: &str) -> anyhow::Result<Parsed> {
    let text = std::str::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!("cannot read {file}: it is not UTF-8 text; it is left as it is")
    })?;
    Parsed::parse(client, text)
        .map_err(|why| anyhow::anyhow!("cannot read {file}: {why}; it is left as it is"))
}

/// The name the gateway offers `server`'s `tool` under, when it is the plain
/// `<server>__<tool>` (not shortened).
fn plain_name(namespace: &overspill_mcp::Namespace, server: &str, tool: &str) -> Option<String> {
    let names = namespace.name_all([(server, tool)], &Default::default());
    let offered = names.offered(server, tool)?;
    let plain = format!("{server}{}{tool}", namespace.separator());
    (offered == plain).then_some(plain)
}

/// The `${VAR}`s of an entry that are not set now (a default, `${VAR:-x}`, makes one set).
fn unset_vars(entry: &Value) -> Vec<String> {
    let mut unset = Vec::new();
    let mut strings = vec![entry];
    while let Some(value) = strings.pop() {
        match value {
            Value::String(text) => loop {
                let known = |name: &str| {
                    if unset.iter().any(|unset| unset == name) {
                        Some(String::new())
                    } else {
                        std::env::var(name).ok()
                    }
                };
                match overspill::config::expand_vars(text, known) {
                    Err(overspill::config::VarError::Unset(name)) => unset.push(name),
                    _ => break,
                }
            },
            Value::Array(items) => strings.extend(items),
            Value::Object(fields) => strings.extend(fields.values()),
            _ => {}
        }
    }
    unset.dedup();
    unset
}

/// What the moved servers' own settings become: keys of overspill's entry that serve them
/// all (the longest time limit), and a note for each setting that only the client applies.
struct Carried {
    entry: Map<String, Value>,
    notes: Vec<String>,
}

/// The settings of the servers in the servers file that the client applied itself, carried
/// to overspill's entry (docs/clients.md#settings-of-moved-servers): Gemini CLI's `timeout`
/// (the longest, at least 10 minutes) and `trust` (only when every server is trusted),
/// Codex's `startup_timeout_sec` and `tool_timeout_sec` (the longest). The entries keep them
/// in the servers file, so that uninstall puts them back.
fn carried_settings<'a>(
    client: Client,
    servers: impl Iterator<Item = (&'a String, &'a Value)>,
    moved: &[String],
) -> Carried {
    let servers: Vec<(&String, &Value)> = servers.collect();
    let mut entry = Map::new();
    let mut notes = Vec::new();
    let longest = |key: &str| {
        servers
            .iter()
            .filter_map(|(_, server)| server.get(key)?.as_f64())
            .fold(None, |most: Option<f64>, value| {
                Some(most.map_or(value, |most| most.max(value)))
            })
    };
    match client {
        Client::GeminiCli => {
            let timeout = longest("timeout").map_or(GEMINI_TIMEOUT_MS, |ms| {
                (ms.ceil() as u64).max(GEMINI_TIMEOUT_MS)
            });
            entry.insert("timeout".to_owned(), json!(timeout));
            let trusted =
                |server: &Value| server.get("trust").and_then(Value::as_bool) == Some(true);
            if !servers.is_empty() && servers.iter().all(|(_, server)| trusted(server)) {
                entry.insert("trust".to_owned(), json!(true));
            } else {
                for (name, _) in servers
                    .iter()
                    .filter(|(name, server)| trusted(server) && moved.contains(name))
                {
                    notes.push(format!(
                        "`{name}` is trusted (`\"trust\": true`, kept in the servers file), but \
                         the servers behind overspill are not all: Gemini CLI asks before its \
                         tools run, as it does for the others"
                    ));
                }
            }
        }
        Client::Codex => {
            let startup = longest("startup_timeout_sec")
                .into_iter()
                .chain(longest("startup_timeout_ms").map(|ms| ms / 1000.0))
                .fold(CODEX_STARTUP_SECS as f64, f64::max);
            entry.insert(
                "startup_timeout_sec".to_owned(),
                json!(startup.ceil() as u64),
            );
            if let Some(tool) = longest("tool_timeout_sec") {
                entry.insert("tool_timeout_sec".to_owned(), json!(tool.ceil() as u64));
            }
        }
        _ => {}
    }
    Carried { entry, notes }
}

/// Gemini CLI's own time limit for a server's requests, 10 minutes: overspill's entry gets at
/// least that, since `gemini mcp list` otherwise gives a server 5 s to connect.
const GEMINI_TIMEOUT_MS: u64 = 600_000;

/// Overspill's entry in the client's file: the program, the gateway of `servers` answering
/// within the client's patience and counting as the client's model does, and the settings
/// carried from the moved servers.
fn ours_entry(
    client: Client,
    program: &str,
    servers: &Path,
    carried: &Map<String, Value>,
) -> Value {
    let mut ours = Map::new();
    if let Format::Json { typed: true, .. } = client.format() {
        ours.insert("type".to_owned(), json!("stdio"));
    }
    ours.insert("command".to_owned(), json!(program));
    let mut args = vec![
        "mcp".to_owned(),
        "--servers".to_owned(),
        servers.to_string_lossy().into_owned(),
        "--answer-within".to_owned(),
        client.answer_within().to_string(),
    ];
    args.extend(client.model_flags().iter().map(|flag| (*flag).to_owned()));
    ours.insert("args".to_owned(), json!(args));
    ours.extend(carried.clone());
    Value::Object(ours)
}

/// The servers an earlier install put in the servers file (and the user may have added).
fn earlier_servers(path: &Path) -> anyhow::Result<Map<String, Value>> {
    let Some(bytes) = files::read(path)? else {
        return Ok(Map::new());
    };
    let value: Value = serde_json::from_slice(&bytes)
        .with_context(|| format!("cannot read {} as an mcpServers file", path.display()))?;
    Ok(value
        .get("mcpServers")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default())
}

/// `entry` with a relative `cwd`, or a relative command path (`./server.py`), made absolute
/// against `base`, the client configuration's directory, since the servers file lives
/// elsewhere.
fn absolute(mut entry: Value, base: &Path) -> Value {
    for key in ["cwd", "command"] {
        let Some(path) = entry.get(key).and_then(Value::as_str) else {
            continue;
        };
        let relative = Path::new(path).is_relative()
            && (key == "cwd" || path.contains('/') || path.contains('\\'));
        if relative && !path.contains("${") {
            entry[key] = Value::String(base.join(path).to_string_lossy().into_owned());
        }
    }
    entry
}
