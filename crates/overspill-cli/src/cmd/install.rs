//! `overspill install <client>` and `overspill uninstall <client>`: route an MCP client's
//! servers through one overspill gateway, and put the client's configuration back
//! (docs/clients.md).

mod carried;
mod clients;
mod codex;
mod edit;
mod files;
mod health;
mod hooks;
mod launch;
mod record;
mod rules;
mod stays;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use serde_json::{Map, Value, json};

use carried::{CARRIED, Carried};
use clients::Format;
pub use clients::{Client, Scope};
use edit::{Entry, Original, Parsed, Restored};
pub use health::print_servers_file;
use hooks::{Hook, Taken};
use record::{Moved, Record};

use super::agent_pad::GATEWAY_ENTRY;

pub const INSTALL_EXAMPLES: &str = "Moves the client's MCP servers into a servers file of overspill's \
and gives the client one `overspill` server in their place: one gateway in front of all of them, \
one budget. For Claude Code, Codex and Gemini CLI it also adds their tool hooks, so that a large \
shell output (and Claude Code's Read and WebFetch, and an MCP output of a server the client \
reaches directly) reaches the model as a pointer too (--no-hooks leaves them out). \
`overspill uninstall <client>` puts the servers back, keeping what the client wrote since.\n\n\
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
    /// Do not add the tool hooks that store the client's own large tool outputs (Claude Code:
    /// PostToolUse in its settings; Codex: PreToolUse and PostToolUse in hooks.json; Gemini
    /// CLI: BeforeTool in its settings; docs/hooks.md).
    #[arg(long)]
    no_hooks: bool,
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
    let record = Record::read(&places.record)?;
    // The servers file this file's entry starts: the record's, else where it would go now.
    let servers_file = record
        .as_ref()
        .map_or_else(|| places.servers.clone(), |record| record.servers.clone());
    let ours_now = entries.iter().find(|entry| entry.name == GATEWAY_ENTRY);
    if let Some(ours) = ours_now
        && !starts_servers_file(&ours.entry, &servers_file)
    {
        bail!(
            "{file} has a server named `{GATEWAY_ENTRY}` that `overspill install` did not write; rename \
             it (or remove it) and install again: nothing was changed"
        );
    }
    let earlier = earlier_servers(&servers_file)?;
    // Each server as the servers file would have it (its relative paths made absolute).
    let base = base_of(&places);
    let written: HashMap<&str, Value> = entries
        .iter()
        .map(|entry| (entry.name.as_str(), absolute(entry.entry.clone(), &base)))
        .collect();
    let mut staying: Vec<(String, String)> = Vec::new();
    for entry in entries.iter().filter(|entry| entry.name != GATEWAY_ENTRY) {
        let why = entry.stays.clone().or_else(|| {
            earlier
                .get(&entry.name)
                .filter(|theirs| Some(*theirs) != written.get(entry.name.as_str()))
                .map(|_| {
                    format!(
                        "the servers file {} has another server of that name; rename one of \
                         them",
                        servers_file.display()
                    )
                })
        });
        if let Some(why) = why {
            staying.push((entry.name.clone(), why));
        }
    }
    let candidates: Vec<String> = entries
        .iter()
        .filter(|entry| {
            entry.name != GATEWAY_ENTRY && !staying.iter().any(|(name, _)| *name == entry.name)
        })
        .map(|entry| entry.name.clone())
        .collect();
    let namespace = overspill_mcp::Namespace::default();
    let offered = |server: &str, tool: &str| plain_name(&namespace, server, tool);
    let rule_files = client.profile().rule_files.map_or_else(Vec::new, |files| {
        files(args.target.scope, &places.config, &original)
    });
    let keyed = rules::keyed(&rule_files, &candidates, &offered)?;
    staying.extend(keyed.stays.iter().cloned());
    for (name, why) in &staying {
        println!("overspill install: `{name}` stays in {file}: {why}");
    }
    let moving: Vec<&Entry> = entries
        .iter()
        .filter(|entry| candidates.contains(&entry.name))
        .filter(|entry| !keyed.stays.iter().any(|(name, _)| *name == entry.name))
        .collect();
    // A client whose hooks overspill answers gets the entry even with no server to move: its
    // exploration tools read what the hook stores (docs/hooks.md#what-install-writes).
    let hooked = !args.no_hooks && hooks::answered(client);
    if moving.is_empty() && ours_now.is_none() && !hooked {
        println!(
            "overspill install: nothing to do in {file}: no server there that overspill can front"
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut servers = earlier.clone();
    let mut originals = record
        .as_ref()
        .map(|record| record.originals.clone())
        .unwrap_or_default();
    for entry in &moving {
        let written = written[entry.name.as_str()].clone();
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
    let native = || -> anyhow::Result<String> {
        let (exe, on_path) = launch::this_binary()?;
        launch::program(
            &exe,
            on_path.as_deref(),
            overspill_mcp::data_dir().as_deref(),
        )
    };
    let program = match &args.program {
        Some(program) => program.clone(),
        None if args.dry_run => "overspill".to_owned(),
        None => native()?,
    };
    let carried = carried_settings(client, servers.iter(), &moved);
    let fresh = ours_entry(client, &program, &servers_file, &carried.entry);
    let ours = match ours_now {
        Some(now) => kept_entry(&now.entry, &fresh),
        None => fresh,
    };
    // The hook runs after every tool call, so it is this binary itself, never a launcher that
    // `--program` names (docs/hooks.md#fast-enough-to-leave-on).
    let hook = if hooked {
        let program = match &args.program {
            None => program.clone(),
            Some(_) if args.dry_run => "overspill".to_owned(),
            Some(_) => native()?,
        };
        Hook::of(client, args.target.scope, &places.config, &program, &ours)?
    } else {
        None
    };
    // Read before anything changes: a settings file that cannot be read stops install here.
    let hook_due = match &hook {
        Some(hook) => !hook.is_in_place(&servers_file)?,
        None => false,
    };
    if args.no_hooks
        && let Some(earlier) = record.as_ref().and_then(|record| record.hook.as_ref())
    {
        println!(
            "overspill install: the hook an earlier install added stays in {} (--no-hooks adds \
             none; `overspill uninstall {}` takes it out)",
            earlier.file.display(),
            client.name()
        );
    }
    let edit_entry = !moved.is_empty() || ours_now.is_none_or(|now| now.entry != ours);
    if !edit_entry && !hook_due {
        // Installed already, no server was added, the entry and the hook are up to date.
        println!(
            "overspill install: nothing to do in {file}: overspill is installed there \
             already, and no server was added since"
        );
        return Ok(ExitCode::SUCCESS);
    }
    if !moved.is_empty() {
        for note in &carried.notes {
            println!("overspill install: {note}");
        }
    }
    let names = moved.join(", ");
    if args.dry_run {
        if edit_entry {
            let rewritten = parse(client, &original, &file)?.rewritten(&moved, &ours);
            parse(client, rewritten.as_bytes(), &file).map_err(|why| {
                anyhow::anyhow!(
                    "overspill could not edit {file} cleanly ({why}); it is left as it is"
                )
            })?;
            println!(
                "overspill install --dry-run: would route through overspill: {}",
                if names.is_empty() {
                    "no server"
                } else {
                    &names
                }
            );
            println!(
                "  {file} would start `{program} mcp --servers {}` as its server \
                 `{GATEWAY_ENTRY}` in their place",
                servers_file.display()
            );
        }
        for rule in &keyed.added {
            println!(
                "  would add the permissions.{} rule `{}` to {}",
                rule.list,
                rule.rule,
                rule.file.display()
            );
        }
        if let Some(hook) = hook.as_ref().filter(|_| hook_due) {
            println!(
                "  would add the {} to {}",
                hook.shown(),
                hook.file().display()
            );
        }
        println!("  (nothing was changed)");
        return Ok(ExitCode::SUCCESS);
    }
    let servers_text = serde_json::to_string_pretty(&json!({ "mcpServers": servers }))?;
    let servers_before = files::read(&servers_file)?;
    // The first install where there is no server writes an empty servers file: a gateway of
    // the exploration tools alone, which servers added to it later join.
    let write_servers = !moved.is_empty() || (record.is_none() && servers_before.is_none());
    if write_servers {
        files::write_private(&servers_file, servers_text.as_bytes())?;
    }
    let mut kept = if edit_entry {
        // The client may write its file meanwhile (Claude Code does on every start): the edit
        // is made on the file as it is at the moment of writing, and only if the servers moved
        // are still as they were read (docs/clients.md#while-the-client-runs).
        let expected: Vec<(String, Value)> = moving
            .iter()
            .map(|entry| (entry.name.clone(), entry.entry.clone()))
            .collect();
        let edited = files::edit(&config, |now| {
            let Some(now) = now else {
                bail!("{file} was removed while overspill edited it");
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
                anyhow::anyhow!("overspill could not edit {file} cleanly ({why})")
            })?;
            Ok(Some((rewritten.clone().into_bytes(), rewritten)))
        });
        let (rewritten, before) = match edited {
            Ok((Some(rewritten), before)) => (rewritten, before.unwrap_or_default()),
            Ok((None, _)) => bail!("{file} was left as it is"),
            Err(error) => {
                // Nothing changed: the servers file is as it was too.
                match &servers_before {
                    Some(bytes) => files::write_private(&servers_file, bytes)?,
                    None => files::remove(&servers_file)?,
                }
                return Err(error.context(format!("nothing was changed; {file} is left as it is")));
            }
        };
        // The backup is the file as it was just before the first install's edit, the client's
        // last write included.
        let first = record.is_none();
        if first {
            files::write_private(&places.backup, &before)?;
        }
        let servers_now = if write_servers {
            Some(servers_text.into_bytes())
        } else {
            servers_before
        };
        Record {
            client: client.name().to_owned(),
            config: places.config.clone(),
            servers: servers_file.clone(),
            backup: record
                .as_ref()
                .map_or_else(|| places.backup.clone(), |record| record.backup.clone()),
            installed_hash: overspill::store::content_hash(rewritten.as_bytes()),
            servers_hash: servers_now.as_deref().map(overspill::store::content_hash),
            backup_exact: first
                || record
                    .as_ref()
                    .is_some_and(|record| record.backup_exact && moved.is_empty()),
            originals,
            rules: record
                .as_ref()
                .map(|record| record.rules.clone())
                .unwrap_or_default(),
            hook: record.and_then(|record| record.hook),
        }
    } else {
        // Only the hook is added; the client's file stays as it is.
        record.unwrap_or_else(|| Record {
            client: client.name().to_owned(),
            config: places.config.clone(),
            servers: servers_file.clone(),
            backup: places.backup.clone(),
            installed_hash: overspill::store::content_hash(&original),
            servers_hash: servers_before
                .as_deref()
                .map(overspill::store::content_hash),
            backup_exact: false,
            ..Record::default()
        })
    };
    // The settings file may have been written since the last install: then uninstall takes
    // only overspill's own out of it.
    kept.hook = kept.hook.map(hooks::HookRecord::checked).transpose()?;
    kept.write(&places.record)?;
    // The hook before the rules, which may go in the same file: the file as it was before
    // install is the one the hook's edit was made on.
    let added_hook = match hook.as_ref().filter(|_| hook_due) {
        Some(hook) => {
            let done = hook
                .add(&servers_file, kept.hook.as_ref())
                .with_context(|| {
                    format!(
                        "overspill is installed in {file}, but its hook could not be added to {}; \
                         `overspill install {} --no-hooks` installs without it",
                        hook.file().display(),
                        client.name()
                    )
                })?;
            kept.hook = Some(done);
            kept.write(&places.record)?;
            Some(hook)
        }
        None => None,
    };
    let added = rules::add(&keyed.added)?;
    if !added.is_empty() {
        kept.rules.extend(added.iter().cloned());
        if let Some(hook) = kept.hook.take() {
            let touched = added.iter().any(|rule| rule.file == hook.file);
            kept.hook = Some(if touched { hook.rehashed()? } else { hook });
        }
        kept.write(&places.record)?;
    }
    let say_hook = || {
        if let Some(hook) = added_hook {
            println!(
                "  added the {} to {}: a large tool output of {}'s own reaches the model as a \
                 pointer too",
                hook.shown(),
                hook.file().display(),
                client.name()
            );
            if let Some(note) = client.profile().hook_note {
                println!("  {note}");
            }
        }
    };
    if moved.is_empty() {
        if !edit_entry {
            println!(
                "overspill install: {} is routed through overspill already",
                client.name()
            );
        } else if ours_now.is_none() {
            println!(
                "overspill install: {} now starts overspill with no server behind it, for the \
                 exploration tools (servers added to {} join it)",
                client.name(),
                servers_file.display()
            );
        } else {
            println!(
                "overspill install: {} starts overspill as `{program}` now",
                client.name()
            );
        }
        say_hook();
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "overspill install: {} now starts one overspill for {names}; their entries are in {} \
         (your edits there apply on the client's next start, or at once with SIGHUP)",
        client.name(),
        servers_file.display()
    );
    for rule in &added {
        println!(
            "  added the permissions.{} rule `{}` to {} (the tool's name behind overspill)",
            rule.list,
            rule.rule,
            rule.file.display()
        );
    }
    say_hook();
    println!(
        "  `overspill uninstall {}` puts the servers back; `overspill status {}` shows each one",
        client.name(),
        client.name()
    );
    if args.no_status {
        return Ok(ExitCode::SUCCESS);
    }
    println!();
    print_servers_file(&servers_file, client.profile().answer_within)?;
    Ok(ExitCode::SUCCESS)
}

/// The client file's directory, against which its relative paths are read.
fn base_of(places: &Places) -> PathBuf {
    let dir = places.config.parent().unwrap_or(Path::new("."));
    std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned())
}

/// Whether an `overspill` entry is the one install wrote: it starts the gateway of
/// `servers_file`.
fn starts_servers_file(entry: &Value, servers_file: &Path) -> bool {
    let args: Vec<&str> = edit::args_of(entry).collect();
    args.windows(2)
        .any(|pair| pair[0] == "--servers" && Path::new(pair[1]) == servers_file)
}

/// Overspill's entry as it is in the client's file, brought up to date with `fresh`: the
/// command and the settings carried from the servers are `fresh`'s; the arguments the user
/// added (a `--provider` for Cursor, say) and other keys (an `env`) stay, and a flag of
/// `fresh`'s the entry lacks is added.
fn kept_entry(now: &Value, fresh: &Value) -> Value {
    let mut kept = now.clone();
    let (Some(kept_map), Some(fresh_map)) = (kept.as_object_mut(), fresh.as_object()) else {
        return fresh.clone();
    };
    // What install carries from the servers is decided again from them.
    kept_map.retain(|key, _| !CARRIED.contains(&key.as_str()));
    for (key, value) in fresh_map {
        if key != "args" {
            kept_map.insert(key.clone(), value.clone());
        }
    }
    let mut args: Vec<Value> = kept_map
        .get("args")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let fresh_args: Vec<Value> = fresh_map
        .get("args")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    // The arguments before `mcp` are the runner's (`--program`'s), the fresh ones.
    let mcp = Value::String("mcp".to_owned());
    let runner: Vec<Value> = fresh_args
        .iter()
        .take_while(|arg| **arg != mcp)
        .cloned()
        .collect();
    if let Some(at) = args.iter().position(|arg| *arg == mcp) {
        args.splice(..at, runner);
    }
    let mut flags = fresh_args.iter().skip_while(|arg| **arg != mcp).skip(1);
    while let Some(flag) = flags.next() {
        let value = flags.next();
        if !args.contains(flag) {
            args.push(flag.clone());
            args.extend(value.cloned());
        }
    }
    kept_map.insert("args".to_owned(), Value::Array(args));
    kept
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
    if files::read(&config)?.is_none() {
        bail!(
            "{file} does not exist any more; nothing was changed: the servers overspill fronted \
             for it are in {}, the file as it was before install in {}",
            record.servers.display(),
            record.backup.display()
        );
    }
    // The hook first: a hook left without its gateway would store where nothing explores.
    if let Some(hook) = &record.hook {
        let shown = hook.file.display();
        match hooks::remove(hook, &record.servers)? {
            Taken::AsBefore => println!(
                "overspill uninstall: {shown} is as it was before `overspill install` (its hook \
                 is gone)"
            ),
            Taken::Edited => println!(
                "overspill uninstall: took overspill's hook out of {shown} (your own hooks and \
                 what changed there since install are kept)"
            ),
            Taken::NotThere => {}
        }
    }
    let servers_bytes = files::read(&record.servers)?;
    // The servers file as it is now; gone, the servers install moved, as it wrote them.
    let servers: Map<String, Value> = match &servers_bytes {
        Some(_) => earlier_servers(&record.servers)?,
        None => record
            .originals
            .iter()
            .map(|(name, moved)| (name.clone(), moved.written.clone()))
            .collect(),
    };
    let backup = files::read(&record.backup)?;
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
    let (put, _) = files::edit(&config, |now| {
        let Some(now) = now else {
            bail!("{file} was removed while overspill edited it");
        };
        // As install left it, and nothing moved since but by that install: the file as it
        // was, byte for byte.
        if let Some(backup) = &backup
            && record.backup_exact
            && servers_unchanged
            && overspill::store::content_hash(now) == record.installed_hash
        {
            return Ok(Some((backup.clone(), (Put::Backup, backup.clone()))));
        }
        let mut parsed = parse(client, now, &file)?;
        let restored = parsed
            .restored(&to_restore)
            .map_err(|why| anyhow::anyhow!("cannot put the servers back into {file}: {why}"))?;
        parse(client, restored.as_bytes(), &file).map_err(|why| {
            anyhow::anyhow!("overspill could not edit {file} cleanly ({why}); it is left as it is")
        })?;
        let restored = restored.into_bytes();
        Ok(Some((restored.clone(), (Put::Edited, restored))))
    })?;
    let (how, now) = put.ok_or_else(|| anyhow::anyhow!("{file} was left as it is"))?;
    rules::remove(&record.rules)?;
    // Which servers of the servers file the client's file now has, as the servers file has
    // them: a servers file is removed only when it holds no server that would then exist
    // nowhere.
    let client_now = parse(client, &now, &file)?.entries();
    let orphans: Vec<&String> = servers
        .iter()
        .filter(|(name, entry)| {
            !client_now.iter().any(|now| {
                now.name == **name
                    && (now.entry == **entry
                        || record.originals.get(*name).is_some_and(|moved| {
                            moved.written == **entry && moved.original == now.original
                        }))
            })
        })
        .map(|(name, _)| name)
        .collect();
    match how {
        Put::Backup => println!(
            "overspill uninstall: {file} is as it was before `overspill install`; {} starts \
             its servers itself again",
            client.name()
        ),
        Put::Edited => println!(
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
        files::remove(&record.servers)?;
    } else {
        let names: Vec<String> = orphans.iter().map(|name| format!("`{name}`")).collect();
        if servers_bytes.is_none() {
            files::write_private(
                &record.servers,
                serde_json::to_string_pretty(&json!({ "mcpServers": servers }))?.as_bytes(),
            )?;
        }
        println!(
            "  {} stayed in {}: {file} has another server of that name; that file is kept",
            names.join(", "),
            record.servers.display()
        );
    }
    files::remove(&record.backup)?;
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
    let mut unset: Vec<String> = Vec::new();
    for text in stays::strings_of(entry) {
        // Each unset one ends the expansion: it is noted and taken as set, and the text read
        // again for the next.
        loop {
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
        }
    }
    unset
}

/// The settings of the servers in the servers file that the client applied itself, carried
/// to overspill's entry, by the client's row (docs/clients.md#settings-of-moved-servers).
fn carried_settings<'a>(
    client: Client,
    servers: impl Iterator<Item = (&'a String, &'a Value)>,
    moved: &[String],
) -> Carried {
    let servers: Vec<(&String, &Value)> = servers.collect();
    match client.profile().carried {
        Some(carry) => carry(&servers, moved),
        None => Carried::default(),
    }
}

/// Overspill's entry in the client's file: the program, the gateway of `servers` answering
/// within the client's patience and counting as the client's model does, and the settings
/// carried from the moved servers.
fn ours_entry(
    client: Client,
    program: &str,
    servers: &Path,
    carried: &Map<String, Value>,
) -> Value {
    let profile = client.profile();
    let mut ours = Map::new();
    if let Format::Json { typed: true, .. } = profile.format {
        ours.insert("type".to_owned(), json!("stdio"));
    }
    ours.insert("command".to_owned(), json!(program));
    let mut args = vec![
        "mcp".to_owned(),
        "--servers".to_owned(),
        servers.to_string_lossy().into_owned(),
        "--answer-within".to_owned(),
        profile.answer_within.to_string(),
    ];
    args.extend(profile.model_flags.iter().map(|flag| (*flag).to_owned()));
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

/// `entry` with a relative `cwd` made absolute against `base`, the client configuration's
/// directory, and a relative command path (`./server.py`) against its `cwd` (else `base`), since
/// the servers file lives elsewhere.
fn absolute(mut entry: Value, base: &Path) -> Value {
    let path_of = |entry: &Value, key: &str| {
        entry
            .get(key)
            .and_then(Value::as_str)
            .filter(|path| !path.contains("${") && Path::new(path).is_relative())
            .map(str::to_owned)
    };
    if let Some(cwd) = path_of(&entry, "cwd") {
        entry["cwd"] = Value::String(base.join(cwd).to_string_lossy().into_owned());
    }
    // A relative command path is the server's working directory's, when it has one.
    let dir = entry
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|cwd| Path::new(cwd).is_absolute())
        .map_or_else(|| base.to_owned(), PathBuf::from);
    if let Some(command) = path_of(&entry, "command")
        && (command.contains('/') || command.contains('\\'))
    {
        entry["command"] = Value::String(dir.join(command).to_string_lossy().into_owned());
    }
    entry
}
